/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The systemd backend: on a host booted with systemd, PID 1 is the single writer of user.slice
 * (files written behind its back get reverted), so the settings go to user-UID.slice as runtime
 * unit properties over D-Bus and systemd writes the kernel files with its own translation.
 * Every call opens a private system-bus connection, bounded by one deadline, and closes it. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpu-value.h"
#include "error.h"

#define BUS_TIMEOUT_DEFAULT_USEC (5 * USEC_PER_SEC)
/* The system bus, always: never $DBUS_SYSTEM_BUS_ADDRESS (see bus_open()) */
#define BUS_SYSTEM_SOCKET "/run/dbus/system_bus_socket"
#define BUS_ADDRESS_MAX 512
#define BUS_SCOPE_NAME_MAX 64
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

/* What a login asks of systemd, over one connection, all of it within one deadline. */
typedef struct BusSessionRequest {
        uid_t uid;
        const BusSliceSettings *settings;
        pid_t move_pid;                 /* > 0: into user-UID.slice unless it is there already */
        const char *description;        /* of the transient scope */
        const char *socket_path;        /* NULL: BUS_SYSTEM_SOCKET; other paths come only from root's PAM config */
        uint64_t deadline_usec;         /* CLOCK_MONOTONIC: usec_deadline() of time-util.h */
} BusSessionRequest;

typedef struct BusSessionResult {
        bool idle_fallback;             /* this systemd lacks CPUWeight=idle: weight 1 was used */
        char scope[BUS_SCOPE_NAME_MAX]; /* the transient scope move_pid went into, "" if none */
} BusSessionResult;

/* SetUnitProperties on user-UID.slice, then, if move_pid is not in that slice yet (su, sudo,
 * runuser: systemd#35452), StartTransientUnit of cpuslice-UID-PID.scope there and a wait for
 * its job, so that a shell forked right after starts in the target's slice. */
int bus_open_session(const BusSessionRequest *req, BusSessionResult *ret, CsError *e);

/* SetUnitProperties("user-UID.slice", runtime=true, CPUWeight, CPUQuotaPerSecUSec, CPUQuotaPeriodUSec).
 * Sets *ret_idle_fallback when this systemd does not know CPUWeight=idle and weight 1 was used. */
int bus_apply_slice(uid_t uid, const BusSliceSettings *s, uint64_t timeout_usec, bool *ret_idle_fallback,
                    CsError *e);
/* Whether pid already runs below /user.slice/user-UID.slice/ (the v2 or name=systemd line of
 * /proc/PID/cgroup, compared exactly as a prefix). */
int bus_pid_in_user_slice(pid_t pid, uid_t uid);
int bus_read_slice(uid_t uid, uint64_t timeout_usec, BusSliceView *ret, CsError *e);
void bus_slice_view_done(BusSliceView *v);
