/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Live state of the user slices, read through a Cgfs handle in one pass over the tree:
 *
 *   <cpu hierarchy>/<parent>/user.slice/user-UID.slice          weight/shares/idle, quota, cpu.stat
 *   <acct hierarchy>/<parent>/user.slice/user-UID.slice         usage (v2 cpu.stat or cpuacct.usage)
 *   .../user-UID.slice/session-ID.scope/cgroup.procs            processes (comm from /proc/PID/comm)
 *
 * (<slice root>/user-UID.slice instead of <parent>/user.slice/user-UID.slice when the admin names
 * the cgroup that holds the slices: Cgfs.slices.)
 *
 * Usage comes from the accounting mirror when the layout has one, else from the cpu hierarchy;
 * pressure from cpu.pressure in whichever of the two is cgroup2. A file the kernel does not
 * offer (or does not let us read) leaves its figure absent rather than failing the read.
 *
 * Each slice directory is opened once per hierarchy (cgfs_open_child_to_read(): its scopes are
 * listed on the same fd), each file read into one buffer of the pass, and only the files the
 * caller's SliceReadFlags need are read.
 *
 * These are readers: a slice that is not root's (delegated, or made by a container runtime) is
 * read with cgfs_open_child_to_read() and shown, with its owner, for the writers to leave alone. An
 * entry with a slice's name that cannot be read at all (not a directory, not on cgroupfs, no
 * permission) is skipped and named in SliceList.skipped, and the others are read on; one that
 * disappears while it is read (its last session closed) is simply not there. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgfs.h"
#include "cgroup-stat.h"
#include "cpu-value.h"
#include "error.h"

typedef struct ScopeInfo {
        char *name;   /* "session-3.scope" */
        pid_t *pids;  /* with SLICE_READ_PROCS */
        char **comms; /* NULL entries where /proc/PID/comm was gone */
        size_t n_pids;
} ScopeInfo;

typedef struct SliceInfo {
        uid_t uid;
        uid_t owner;                  /* of its directory in the cpu hierarchy: not 0 when delegated; with
                                       * SLICE_READ_SCOPE_COUNT, else (uid_t) -1 */
        bool idle;                    /* cpu.idle is 1 (v2, and v1 since 5.15) */
        uint64_t weight;              /* v2 cpu.weight; CGSTAT_NONE on v1 or absent */
        uint64_t shares;              /* v1 cpu.shares; CGSTAT_NONE on v2 or absent */
        bool have_quota;              /* cpu.max / cpu.cfs_quota_us was readable */
        uint64_t quota_usec;          /* per period; CPU_QUOTA_INFINITY: no limit */
        uint64_t period_usec;         /* CGSTAT_NONE: absent */
        uint64_t burst_usec;          /* cpu.max.burst / cpu.cfs_burst_us; CGSTAT_NONE: absent (before 5.14) */
        CpuStat stat;                 /* throttling from the cpu hierarchy, usage from the accounting one */
        double pressure;              /* cpu.pressure some avg10; < 0: no PSI */
        uint64_t pressure_total_usec; /* cpu.pressure some total; CGSTAT_NONE: no PSI */
        size_t n_scopes;              /* with SLICE_READ_SCOPE_COUNT */
        ScopeInfo *scopes;            /* with SLICE_READ_SCOPES */
} SliceInfo;

typedef struct SkippedSlice {
        char *name;         /* the directory entry as found (bytes from outside: escape to print) */
        int error;          /* negative errno */
        const char *reason; /* static text: why it was not read */
} SkippedSlice;

typedef struct SliceList {
        SliceInfo *slices; /* sorted by uid */
        size_t n;
        SkippedSlice *skipped; /* in directory order */
        size_t n_skipped;
} SliceList;

typedef enum SliceReadFlags {
        SLICE_READ_SCOPES = 1 << 0, /* scope names (implies SLICE_READ_SCOPE_COUNT) */
        SLICE_READ_PROCS = 1 << 1,  /* and their processes; implies SLICE_READ_SCOPES */
        /* What of each slice to read: a caller that needs little says so and reads fewer files.
         * None of these: all of them (what list shows). A figure not asked for is absent
         * (CGSTAT_NONE, have_quota false, pressure < 0, n_scopes 0); one that comes in the same
         * file as a figure asked for may be there. */
        SLICE_READ_SETTINGS = 1 << 2,    /* idle, weight or shares, burst, quota and period */
        SLICE_READ_QUOTA = 1 << 3,       /* have_quota and quota_usec alone (period_usec: v2) */
        SLICE_READ_USAGE = 1 << 4,       /* stat.usage_usec (user_usec, system_usec where they come with it) */
        SLICE_READ_STATS = 1 << 5,       /* all of stat: usage and throttling */
        SLICE_READ_PRESSURE = 1 << 6,    /* pressure, pressure_total_usec */
        SLICE_READ_SCOPE_COUNT = 1 << 7, /* n_scopes */
} SliceReadFlags;

#define SLICE_READ_ALL (SLICE_READ_SETTINGS | SLICE_READ_STATS | SLICE_READ_PRESSURE | SLICE_READ_SCOPE_COUNT)

typedef struct UsageSample {
        uid_t uid;
        uint64_t usage_usec; /* CGSTAT_NONE: not readable */
} UsageSample;

/* Every user-UID.slice in the cgroup that holds them (c->slices: user.slice by default, or the
 * slice_root the admin named); an absent one is an empty list. */
int slice_read_all(Cgfs *c, SliceReadFlags flags, SliceList *ret, CsError *e);
/* One slice; -ENOENT if the user has none; any other error is a slice slice_read_all() would
 * skip, with slice_skip_reason() in e. */
int slice_read_one(Cgfs *c, uid_t uid, SliceReadFlags flags, SliceInfo *ret, CsError *e);
/* Why a slice that failed to open or read with r is skipped: "not a directory", ... */
const char *slice_skip_reason(int r);
/* Just the usage counters, one file per slice: the cheap first half of a CPU% sample. */
int slice_read_usage(Cgfs *c, UsageSample **ret, size_t *ret_n, CsError *e);

void slice_info_done(SliceInfo *s);
void slice_list_done(SliceList *l);
