/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The cgroupfs backend: pam_cpuslice writes the tree itself (hosts where systemd is not PID 1).
 *
 *   <hierarchy>/<parent>/user.slice/user-UID.slice/session-ID.scope
 *
 * mirroring systemd's names, or <hierarchy>/<slice root>/user-UID.slice/... when the admin names
 * the cgroup that holds the slices (slice_root=/: users compete at the top of the cpu hierarchy).
 * User-level settings go on user-UID.slice; processes go into the session scope (cgroup v2 allows
 * no processes in inner nodes). Every path is walked through the Cgfs handle of cgfs.h. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgfs.h"
#include "cpu-value.h"
#include "error.h"
#include "slice-name.h"

/* What open_session remembers for close_session (the PAM layer keeps it with pam_set_data). */
typedef struct CgfsSession {
        uid_t uid;
        char scope[SLICE_NAME_MAX]; /* "session-3.scope" */
        char *orig_cpu;             /* the cgroup the process came from, per hierarchy */
        char *orig_acct;
        /* the login came at max_scopes= and joined scope, one of the user's this many others */
        unsigned at_cap;
} CgfsSession;

/* Creates user.slice/user-UID.slice where missing (enabling +cpu down the path on v2) and
 * writes the settings; settings not given are written as their defaults. */
int cgfs_apply_slice(Cgfs *c, uid_t uid, const CpuKernelValues *k, CsError *e);
/* Writes the settings to an existing slice only (slicectl apply/set never create one). */
int cgfs_update_slice(Cgfs *c, uid_t uid, const CpuKernelValues *k, CsError *e);
/* CPUBurst= alone, on a slice another writer owns (systemd, which has no property for it): with
 * before_quota, a burst above the quota about to be set is lowered (the kernel refuses a quota
 * below the burst in place); after it, the burst is set to k's. -ENOENT without the slice. */
int cgfs_write_burst(Cgfs *c, uid_t uid, const CpuKernelValues *k, bool before_quota, CsError *e);
/* apply_slice, then create the session scope and move pid into it (and into the accounting mirror).
 * A pid in user-UID.slice already is left alone: ret->scope is "" then, and nothing was written
 * but the user's other empty scopes reaped. First the user's empty scopes are reaped (see
 * cgfs_gc); when c->max_scopes are left the pid joins one of them (ret->at_cap), -EUSERS if none
 * is root's. */
int cgfs_open_session(Cgfs *c, uid_t uid, const char *session_id, pid_t pid, const CpuKernelValues *k,
                      CgfsSession *ret, CsError *e);
/* Moves pid back where it came from, removes the scope if empty, the user's other empty scopes
 * (older than the grace) and the slice if it has no scopes left. */
int cgfs_close_session(Cgfs *c, const CgfsSession *s, pid_t pid, CsError *e);
void cgfs_session_done(CgfsSession *s);
/* Removes empty session scopes (older than c->reap_grace_usec) and user slices (user-UID.slice
 * only, nothing else that lives beside them); returns how many were removed, or the first error
 * once every slice was tried. "Empty" is the kernel's word: rmdir of a cgroup with processes or
 * child cgroups fails with EBUSY. */
int cgfs_gc(Cgfs *c, CsError *e);
