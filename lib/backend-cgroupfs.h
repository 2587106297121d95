/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The cgroupfs backend: pam_cpuslice writes the tree itself (hosts where systemd is not PID 1).
 *
 *   <hierarchy>/<parent>/user.slice/user-UID.slice/session-ID.scope
 *
 * mirroring systemd's names, or <hierarchy>/<slice root>/user-UID.slice/... when the admin names the
 * cgroup that holds the slices (slice_root=/: users compete at the top of the cpu hierarchy). User-level settings go on user-UID.slice; processes go into the
 * session scope (cgroup v2 allows no processes in inner nodes). Every path is walked with
 * openat(O_NOFOLLOW) from a directory fd, every directory checked to be cgroupfs, and all file
 * access goes through a CgfsOps table that tests replace to inject faults. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/vfs.h>

#include "cgroup-layout.h"
#include "cpu-value.h"
#include "error.h"
#include "slice-name.h"

typedef struct CgfsOps {
        int (*openat)(int dirfd, const char *name, int flags, mode_t mode);
        int (*mkdirat)(int dirfd, const char *name, mode_t mode);
        int (*unlinkat)(int dirfd, const char *name, int flags);
        ssize_t (*write)(int fd, const void *buf, size_t n);
        ssize_t (*read)(int fd, void *buf, size_t n);
        int (*fstatfs)(int fd, struct statfs *buf);
        int (*fchmod)(int fd, mode_t mode);
        void *userdata;         /* for test doubles */
} CgfsOps;

extern const CgfsOps cgfs_default_ops;

typedef struct Cgfs {
        int root_fd;
        CgroupLayout layout;
        char *slices;           /* the cgroup holding the user slices, below each hierarchy's root:
                                 * "user.slice" by default, "" for the root itself */
        const CgfsOps *ops;
        /* an empty scope younger than this is left alone when reaping: a concurrent login of the
         * same user may have just made it and be about to join it (CGFS_REAP_GRACE_USEC) */
        uint64_t reap_grace_usec;
        /* cgfs_open_session: the most session scopes a user may have, its new one included (0: no cap) */
        unsigned max_scopes;
} Cgfs;

#define CGFS_REAP_GRACE_USEC (5 * UINT64_C(1000000))
#define CGFS_MAX_SCOPES_DEFAULT 256u

/* What open_session remembers for close_session (the PAM layer keeps it with pam_set_data). */
typedef struct CgfsSession {
        uid_t uid;
        char scope[SLICE_NAME_MAX];     /* "session-3.scope" */
        char *orig_cpu;                 /* the cgroup the process came from, per hierarchy */
        char *orig_acct;
} CgfsSession;

/* root: the cgroup mount root (e.g. /sys/fs/cgroup); slices: the cgroup (relative to each
 * hierarchy's root, "" for the root) that holds the user-UID.slice groups; layout NULL: detect. */
int cgfs_open_slices(const char *root, const char *slices, const CgroupLayout *layout, const CgfsOps *ops, Cgfs *ret,
                     CsError *e);
/* cgfs_open_slices() at PARENT/user.slice, systemd's shape below a parent cgroup ("" or NULL: the root) */
int cgfs_open(const char *root, const char *parent, const CgroupLayout *layout, const CgfsOps *ops, Cgfs *ret,
              CsError *e);
void cgfs_close(Cgfs *c);

/* Creates user.slice/user-UID.slice where missing (enabling +cpu down the path on v2) and
 * writes the settings; settings not given are written as their defaults. */
int cgfs_apply_slice(Cgfs *c, uid_t uid, const CpuKernelValues *k, CsError *e);
/* Writes the settings to an existing slice only (slicectl apply/set never create one). */
int cgfs_update_slice(Cgfs *c, uid_t uid, const CpuKernelValues *k, CsError *e);
/* apply_slice, then create the session scope and move pid into it (and into the accounting mirror).
 * A pid in user-UID.slice already is left alone: ret->scope is "" then, and nothing was written.
 * First the user's empty scopes are reaped (see cgfs_gc); -EUSERS when c->max_scopes are left. */
int cgfs_open_session(Cgfs *c, uid_t uid, const char *session_id, pid_t pid, const CpuKernelValues *k,
                      CgfsSession *ret, CsError *e);
/* Moves pid back where it came from, removes the scope if empty, the user's other empty scopes
 * (older than the grace) and the slice if it has no scopes left. */
int cgfs_close_session(Cgfs *c, const CgfsSession *s, pid_t pid, CsError *e);
void cgfs_session_done(CgfsSession *s);
/* Removes empty session scopes (older than c->reap_grace_usec) and user slices (user-UID.slice
 * only, nothing else that lives beside them); returns how many were removed. "Empty" is the
 * kernel's word: rmdir of a cgroup with processes or child cgroups fails with EBUSY. */
int cgfs_gc(Cgfs *c, CsError *e);

/* Opens a directory below dirfd: O_NOFOLLOW|O_DIRECTORY|O_CLOEXEC, checked to be cgroupfs and,
 * when we are root, root's own: -EPERM for a delegated cgroup. */
int cgfs_open_dir(Cgfs *c, int dirfd, const char *name, CsError *e);
/* The same for looking only (slicectl's readers): a delegated cgroup may be read, never written. */
int cgfs_open_dir_to_read(Cgfs *c, int dirfd, const char *name, CsError *e);
/* Opens the cgroup holding the user slices (h: the layout's cpu or acct hierarchy); -ENOENT if none. */
int cgfs_open_user_slice_root(Cgfs *c, const CgroupHierarchy *h, CsError *e);
/* Reads a whole control file (at most 4 MiB) below dirfd, NUL-terminated. */
int cgfs_read_file(Cgfs *c, int dirfd, const char *name, char **ret, CsError *e);
int cgfs_write_file(Cgfs *c, int dirfd, const char *name, const char *value, CsError *e);
