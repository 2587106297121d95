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
#include "systemd-dropin.h"

#define BUS_TIMEOUT_DEFAULT_USEC (5 * USEC_PER_SEC)
/* The system bus, always: never $DBUS_SYSTEM_BUS_ADDRESS (see bus_open()) */
#define BUS_SYSTEM_SOCKET "/run/dbus/system_bus_socket"
#define BUS_ADDRESS_MAX 512
#define BUS_SCOPE_NAME_MAX 64
#define BUS_USEC_INFINITY UINT64_MAX /* systemd's USEC_INFINITY: a time property unset (the default) */
#define BUS_WEIGHT_UNSET UINT64_MAX  /* systemd's CGROUP_WEIGHT_INVALID: CPUWeight= unset */

/* Which settings the config gives. Only these are sent: what the config does not give is the
 * admin's (unit files, user-.slice.d/ drop-ins, systemctl set-property), and is left alone. */
typedef struct BusSliceSettings {
        bool weight_set;
        bool quota_set;
        bool period_set;
        bool quota_override; /* a penalty's cap: sent even over an admin's persistent value */
        CpuLimits limits;
} BusSliceSettings;

/* systemd's own view of a slice, for slicectl status. */
typedef struct BusSliceView {
        char *active_state;
        uint64_t cpu_weight;    /* BUS_WEIGHT_UNSET: unset */
        uint64_t quota_per_sec; /* BUS_USEC_INFINITY: none */
        uint64_t period_usec;   /* BUS_USEC_INFINITY: default */
        char **drop_in_paths;
        size_t n_drop_in_paths;
} BusSliceView;

/* Where the backend talks and looks; both NULL on a real host. Other values come only from root's
 * PAM config or slicectl's command line (the tests' fake systemd). */
typedef struct BusPaths {
        const char *socket; /* NULL: BUS_SYSTEM_SOCKET */
        const char *root;   /* NULL: "/"; prefixes systemd's control dirs and the record */
} BusPaths;

/* What one apply did, per BusProp bit. */
typedef struct BusApplyResult {
        unsigned sent;                 /* given to systemd with the config's value */
        unsigned reverted;             /* set by us before, no longer in the config: back to what
                                         * systemd's own unit files and drop-ins give */
        unsigned kept;                 /* the config gives it, but an admin's persistent
                                         * `systemctl set-property` holds it: not sent */
        uint64_t value[_BUS_PROP_MAX]; /* what was sent, for sent and reverted */
        bool idle_fallback;            /* this systemd lacks CPUWeight=idle: weight 1 was used */
        int record_error;              /* < 0: the record under /run could not be read or written */
} BusApplyResult;

/* What a login asks of systemd, over one connection, all of it within one deadline. */
typedef struct BusSessionRequest {
        uid_t uid;
        const BusSliceSettings *settings;
        const BusSliceSettings *slices; /* user.slice's (the config's user.slice lines), sent after the
                                         * user's; NULL: user.slice is left as it is */
        pid_t move_pid;                 /* > 0: into user-UID.slice unless it is there already */
        const char *description;        /* of the transient scope */
        BusPaths paths;
        uint64_t deadline_usec; /* CLOCK_MONOTONIC: usec_deadline() of time-util.h */
} BusSessionRequest;

typedef struct BusSessionResult {
        BusApplyResult applied;
        BusApplyResult slices_applied;  /* user.slice's, when req->slices */
        char scope[BUS_SCOPE_NAME_MAX]; /* the transient scope move_pid went into, "" if none */
} BusSessionResult;

/* bus_apply_slice()'s work, then, if move_pid is not in user-UID.slice yet (su, sudo, runuser:
 * systemd#35452), StartTransientUnit of a uniquely named cpuslice-UID-PID-RANDOM.scope there
 * (one retry under a new name if systemd says it exists) and a wait for its job, so that a shell
 * forked right after starts in the target's slice. */
int bus_open_session(const BusSessionRequest *req, BusSessionResult *ret, CsError *e);

/* One SetUnitProperties("user-UID.slice", runtime=true, ...) with: each property the config
 * gives (unless an admin's persistent set-property holds it), and each one this module set
 * earlier that the config no longer gives, at the value systemd's own files give it (its runtime
 * drop-in then removed). Nothing to send: no call. A refusal is -errno with systemd's error
 * name and message in e. Records what was set under ROOT/run/cpuslice/systemd/. */
int bus_apply_slice(uid_t uid, const BusSliceSettings *s, const BusPaths *paths, uint64_t timeout_usec,
                    BusApplyResult *ret, CsError *e);
/* Whether pid already runs below /user.slice/user-UID.slice/ (the v2 or name=systemd line of
 * /proc/PID/cgroup, compared exactly as a prefix). */
int bus_pid_in_user_slice(pid_t pid, uid_t uid);
int bus_read_slice(uid_t uid, const BusPaths *paths, uint64_t timeout_usec, BusSliceView *ret, CsError *e);
void bus_slice_view_done(BusSliceView *v);
