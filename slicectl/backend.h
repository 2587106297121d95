/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The seam between slicectl and the way slices are kept: both backends read the live values from
 * cgroupfs; the cgroupfs one also writes them there, the systemd one asks PID 1 (the single
 * writer of user.slice on a host it booted). Which one, and where, is lib/login/slice-target.h's call. */

#include "backend-cgroupfs.h"
#include "error.h"
#include "rules.h"
#include "slice-read.h"
#include "slice-target.h"

typedef struct SliceBackend SliceBackend;

typedef struct SliceBackendOps {
        const char *name;
        int (*read_all)(SliceBackend *b, SliceReadFlags flags, SliceList *ret, CsError *e);
        int (*read_one)(SliceBackend *b, uid_t uid, SliceReadFlags flags, SliceInfo *ret, CsError *e);
        int (*read_usage)(SliceBackend *b, UsageSample **ret, size_t *ret_n, CsError *e);
        /* writes an existing slice; never creates one */
        int (*update)(SliceBackend *b, uid_t uid, const Resolved *res, CsError *e);
        int (*gc)(SliceBackend *b, CsError *e);
        /* takes a slice back to no pam_cpuslice limits (until the user's next login) */
        int (*reset)(SliceBackend *b, uid_t uid, CsError *e);
        void (*close)(SliceBackend *b);
} SliceBackendOps;

struct SliceBackend {
        const SliceBackendOps *ops;
        bool systemd; /* systemd writes the slices; cgroupfs is only read */
        bool v2;      /* the cpu controller speaks cgroup2 (cpu.weight) rather than v1 (cpu.shares) */
        Cgfs cgfs;
        BusPaths bus;              /* systemd: where to reach it (tests: a fake) */
        BusApplyResult last_apply; /* systemd: what the last update did */
};

/* From --backend, --cgroup-root, --parent, --slice-root and --cgroup-layout. */
int backend_open(SliceBackend *ret, const SliceTarget *t, CsError *e);
/* backend_open() for a verb: a failure is logged as one line, and returned. */
int backend_open_or_log(SliceBackend *ret, const SliceTarget *t);
void backend_close(SliceBackend *b);
static inline void backend_closep(SliceBackend *b) {
        backend_close(b);
}
/* status on a systemd host: systemd's own view of the slice and the drop-ins it comes from */
void backend_print_manager_view(const SliceBackend *b, uid_t uid);

/* Which Setting bits this backend decides for a user: all on cgroupfs; on systemd only those the
 * config gives (the rest are the admin's). */
unsigned backend_owned_settings(const SliceBackend *b, const Resolved *res);
/* systemd: a value this module set earlier is no longer in the config, so an update is due even
 * when the live values match the config's. */
bool backend_revert_pending(const SliceBackend *b, uid_t uid, const Resolved *res);
/* The Setting bits the last update gave with the config's value (all on cgroupfs). */
unsigned backend_sent_settings(const SliceBackend *b);
/* systemd: what the last update kept, reverted (saying why) or fell back on, as warnings and
 * change lines. */
void backend_report_apply(const SliceBackend *b, const char *user, uid_t uid, const char *why);
typedef enum AdminValue {
        ADMIN_VALUE_NONE,
        ADMIN_VALUE_PERSISTENT, /* `systemctl set-property`: holds against the config (the module keeps off) */
        ADMIN_VALUE_RUNTIME, /* `set-property --runtime`, not the module's: until the next login sends the config's */
} AdminValue;

/* systemd: whether an admin's `systemctl set-property` gives setting s of uid a value of their
 * own, with that value and the drop-in's path; ADMIN_VALUE_NONE when none does, when the runtime
 * drop-in is the one the module caused (or its record cannot be trusted: no claim is made) or
 * the host is not systemd's. */
int backend_admin_value(const SliceTarget *t, uid_t uid, Setting s, char value[static CPU_FORMAT_MAX], char *path,
                        size_t n);
/* The uids reset has to look at beyond the running slices: on systemd, every slice the module
 * recorded values for (a stopped slice keeps its runtime drop-ins and gets them back at start). */
int backend_recorded_uids(const SliceBackend *b, uid_t **ret, size_t *ret_n);
