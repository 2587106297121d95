/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A handle on the cgroup tree that holds the user slices, shared by its readers (slice-read.h)
 * and the cgroupfs backend (backend-cgroupfs.h): the hierarchies' layout, the cgroup of the slices
 * below each hierarchy's root, and safe access below it. Every path is walked with
 * openat(O_NOFOLLOW) from a directory fd and every directory checked to be cgroupfs. The calls
 * that read or change the tree (openat, mkdirat, unlinkat, read, write, fstatfs, fchmod) go
 * through a CgfsOps table that tests replace to inject faults, and so does reading a directory's
 * entries (getdents64, the readers'); opening the root, the owner check (fstat, statx), the age of
 * an empty scope (fstatat) and the writers' listing of a directory (fdopendir) do not. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/vfs.h>

#include "cgroup-layout.h"
#include "error.h"
#include "read-file.h"

typedef struct CgfsOps {
        int (*openat)(int dirfd, const char *name, int flags, mode_t mode);
        int (*mkdirat)(int dirfd, const char *name, mode_t mode);
        int (*unlinkat)(int dirfd, const char *name, int flags);
        ssize_t (*write)(int fd, const void *buf, size_t n);
        ssize_t (*read)(int fd, void *buf, size_t n);
        int (*fstatfs)(int fd, struct statfs *buf);
        int (*fchmod)(int fd, mode_t mode);
        ssize_t (*getdents)(int fd, void *buf, size_t n); /* getdents64(2); NULL: the syscall */
        void *userdata;                                   /* for test doubles */
} CgfsOps;

extern const CgfsOps cgfs_default_ops;

typedef struct Cgfs {
        int root_fd;
        CgroupLayout layout;
        char *slices; /* the cgroup holding the user slices, below each hierarchy's root:
                                 * "user.slice" by default, "" for the root itself */
        const CgfsOps *ops;
        /* an empty scope younger than this is left alone when reaping: a concurrent login of the
         * same user may have just made it and be about to join it (CGFS_REAP_GRACE_USEC) */
        uint64_t reap_grace_usec;
        /* cgfs_open_session: the most session scopes a user may have, its new one included (0: no cap) */
        unsigned max_scopes;
        bool burst_missing; /* set by a write: a CPUBurst= was asked for where the kernel has none */
} Cgfs;

#define CGFS_REAP_GRACE_USEC (5 * UINT64_C(1000000))
#define CGFS_MAX_SCOPES_DEFAULT 256u

/* root: the cgroup mount root (e.g. /sys/fs/cgroup); slices: the cgroup (relative to each
 * hierarchy's root, "" for the root) that holds the user-UID.slice groups; layout NULL: detect. */
int cgfs_open_slices(const char *root, const char *slices, const CgroupLayout *layout, const CgfsOps *ops, Cgfs *ret,
                     CsError *e);
/* cgfs_open_slices() at PARENT/user.slice, systemd's shape below a parent cgroup ("" or NULL: the root) */
int cgfs_open(const char *root, const char *parent, const CgroupLayout *layout, const CgfsOps *ops, Cgfs *ret,
              CsError *e);
void cgfs_close(Cgfs *c);

/* Opens a directory below dirfd: O_NOFOLLOW|O_DIRECTORY|O_CLOEXEC, checked to be cgroupfs and,
 * when we are root, root's own: -EPERM for a delegated cgroup. */
int cgfs_open_dir(Cgfs *c, int dirfd, const char *name, CsError *e);
/* The same for looking only (slicectl's readers): a delegated cgroup may be read, never written. */
int cgfs_open_dir_to_read(Cgfs *c, int dirfd, const char *name, CsError *e);
/* What the readers keep of a directory they opened: its owner and its mount. */
typedef struct CgfsDirStat {
        uid_t uid;
        uint64_t mnt_id; /* statx() STATX_MNT_ID; 0: the kernel did not say (before 5.8) */
} CgfsDirStat;

int cgfs_dir_stat(int fd, CgfsDirStat *ret);
/* cgfs_open_dir_to_read() of a child of parent_fd (parent: its cgfs_dir_stat(), taken when it was
 * opened and checked), for the readers' walks over thousands of slices; ret: the child's. A child
 * on the same mount as its parent is on the same filesystem, so its cgroupfs check costs no
 * fstatfs(); anything mounted over it (or an unknown mount) is checked as cgfs_open_dir_to_read()
 * does. */
int cgfs_open_child_to_read(Cgfs *c, int parent_fd, const CgfsDirStat *parent, const char *name, CgfsDirStat *ret,
                            CsError *e);
/* The readers' shortcut past cgfs_open_child_to_read(): control file `file` of child `name` of
 * parent_fd (opened and checked as above), read into b in one openat2() of "name/file" with
 * RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_XDEV, which refuses a symlink in either component
 * and anything mounted over either: the cases the child's own open, statx and cgroupfs check
 * are there for. -EOPNOTSUPP when it cannot say (no openat2, a test's CgfsOps, or a mount or a
 * symlink in the way, which cgfs_open_child_to_read() judges); -ENOENT when the child or the
 * file is absent; else as cgfs_read_file_buf(). */
int cgfs_read_child_file_buf(Cgfs *c, int parent_fd, const char *name, const char *file, ReadBuf *b);
/* Opens the cgroup holding the user slices (h: the layout's cpu or acct hierarchy); -ENOENT if none. */
int cgfs_open_user_slice_root(Cgfs *c, const CgroupHierarchy *h, CsError *e);
/* Reads a whole control file (at most 4 MiB) below dirfd, NUL-terminated. */
int cgfs_read_file(Cgfs *c, int dirfd, const char *name, char **ret, CsError *e);
/* The same for a single-value control file (cpu.stat, cpu.max, ...: the kernel makes it whole for
 * each read with room for it, so a short read is its end), into a buffer reused from one file to the
 * next (b->buf: the text, until the next read). Not for cgroup.procs. */
int cgfs_read_file_buf(Cgfs *c, int dirfd, const char *name, ReadBuf *b, CsError *e);
/* The next directory entries of fd's directory, as getdents64(2) (through CgfsOps.getdents): > 0
 * bytes of struct dirent64 records in buf, 0 at the end, -errno. */
ssize_t cgfs_getdents(Cgfs *c, int fd, void *buf, size_t n);
int cgfs_write_file(Cgfs *c, int dirfd, const char *name, const char *value, CsError *e);

/* mkdir whose mode the umask does not decide (0755): 1 if made, 0 if it was there. */
int cgfs_make_dir(Cgfs *c, int dirfd, const char *name, CsError *e);

typedef enum CgfsWalkFlags {
        CGFS_WALK_CREATE = 1 << 0,     /* mkdir what is missing */
        CGFS_WALK_ENABLE_CPU = 1 << 1, /* v2: +cpu in each directory's subtree_control on the way */
        CGFS_WALK_NEAREST = 1 << 2,    /* stop at the deepest directory that exists */
} CgfsWalkFlags;

/* Walks a '/'-separated relative path below dirfd (which it takes over); returns the fd of the last
 * directory. */
int cgfs_walk(Cgfs *c, int dirfd, const char *path, CgfsWalkFlags flags, CsError *e);
/* The root of hierarchy h, checked to be cgroupfs. */
int cgfs_open_hierarchy(Cgfs *c, const CgroupHierarchy *h, CsError *e);
/* <hierarchy>/<slices>[/user-UID.slice] (uid -1: the slices' cgroup itself). */
int cgfs_open_slice_path(Cgfs *c, const CgroupHierarchy *h, uid_t uid, CgfsWalkFlags flags, CsError *e);
