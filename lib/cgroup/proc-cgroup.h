/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* /proc/PID/cgroup, read in one place: which cgroups a process is in, per hierarchy. Both
 * backends decide from it whether a login is placed already, so it is parsed exactly once. */

#include <sys/types.h>

/* One "ID:CONTROLLERS:PATH" line, split; controllers is "" on the unified line (ID 0). */
typedef int (*ProcCgroupLineFn)(const char *id, const char *controllers, const char *path, void *userdata);

/* Calls fn for each well-formed line. A negative or positive result of fn stops the walk and is
 * returned; 0 when every line was seen; -errno when the file cannot be read. */
int proc_cgroup_for_each(pid_t pid, ProcCgroupLineFn fn, void *userdata);
