/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The systemd backend: on a host booted with systemd, PID 1 is the single writer of user.slice
 * (files written behind its back get reverted), so the settings go to user-UID.slice as runtime
 * unit properties over D-Bus and systemd writes the kernel files with its own translation.
 * Every call opens a private system-bus connection, bounded by a timeout, and closes it. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpu-value.h"
#include "error.h"

#define BUS_TIMEOUT_DEFAULT_USEC (5 * USEC_PER_SEC)
#define BUS_USEC_INFINITY UINT64_MAX    /* systemd: "unset", i.e. the default */

/* Which settings the config gives; the others are reset to systemd's defaults, not left behind. */
typedef struct BusSliceSettings {
        bool weight_set;
        bool quota_set;
        bool period_set;
        CpuLimits limits;
} BusSliceSettings;

/* systemd's own view of a slice, for slicectl status. */
typedef struct BusSliceView {
        char *active_state;
        uint64_t cpu_weight;            /* BUS_USEC_INFINITY: unset */
        uint64_t quota_per_sec;         /* BUS_USEC_INFINITY: none */
        uint64_t period_usec;           /* BUS_USEC_INFINITY: default */
        char **drop_in_paths;
        size_t n_drop_in_paths;
} BusSliceView;

/* SetUnitProperties("user-UID.slice", runtime=true, CPUWeight, CPUQuotaPerSecUSec, CPUQuotaPeriodUSec).
 * Sets *ret_idle_fallback when this systemd does not know CPUWeight=idle and weight 1 was used. */
int bus_apply_slice(uid_t uid, const BusSliceSettings *s, uint64_t timeout_usec, bool *ret_idle_fallback,
                    CsError *e);
/* Whether pid already runs in user-UID.slice (from /proc/PID/cgroup, v2 or name=systemd line). */
int bus_pid_in_user_slice(pid_t pid, uid_t uid);
/* Moves pid into a new transient scope in user-UID.slice (StartTransientUnit) and waits for the
 * job to finish, so that a shell forked right after (su, sudo) starts in the target's slice. */
int bus_move_to_user_slice(uid_t uid, pid_t pid, const char *description, uint64_t timeout_usec, char **ret_scope,
                           CsError *e);
int bus_read_slice(uid_t uid, uint64_t timeout_usec, BusSliceView *ret, CsError *e);
void bus_slice_view_done(BusSliceView *v);
