/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* How many CPUs users can run on, which CPUQuotaShare= is a share of: the CPUs in the cgroup v2
 * cpuset of the cgroup that holds the user slices where it has one (cpuset.cpus.effective, which
 * lists only online CPUs), else the online CPUs (sysfs). Never the caller's affinity: in su and
 * sudo that is the caller's to choose. */

#include "cgfs.h"

/* The CPUs in a kernel CPU list ("0-3,8,10-11\n"); -EINVAL if it does not parse, or lists none. */
int cpu_list_count(const char *s, unsigned *ret);

/* The online CPUs (/sys/devices/system/cpu/online). */
int cpus_online(unsigned *ret);

/* The CPUs of the cgroup that holds c's slices: its v2 cpuset, or the online CPUs. */
int cpus_for_slices(Cgfs *c, unsigned *ret, CsError *e);
