/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/openat2.h>

#include "cgfs.h"
#include "macro.h"
#include "parse-util.h"
#include "read-file.h"
#include "slice-name.h"

/* a cgroup.procs of ~500 000 pids; the buffer grows only as far as a file needs */
#define CGFS_FILE_MAX (4u * 1024 * 1024)

static int sys_openat(int dirfd, const char *name, int flags, mode_t mode) {
        return openat(dirfd, name, flags, mode);
}

static ssize_t sys_getdents(int fd, void *buf, size_t n) {
        return getdents64(fd, buf, n);
}

const CgfsOps cgfs_default_ops = {
        .openat = sys_openat,
        .mkdirat = mkdirat,
        .unlinkat = unlinkat,
        .write = write,
        .read = read,
        .fstatfs = fstatfs,
        .fchmod = fchmod,
        .getdents = sys_getdents,
};

static bool component_valid(const char *s, size_t n) {
        return n > 0 && !(n == 1 && s[0] == '.') && !(n == 2 && s[0] == '.' && s[1] == '.');
}

static int parent_valid(const char *p) {
        if (*p == '/')
                return -EINVAL;
        for (const char *s = p; *s;) {
                size_t n = strcspn(s, "/");
                if (!component_valid(s, n))
                        return -EINVAL;
                s += n;
                if (*s == '/')
                        s++;
        }
        return 0;
}

int cgfs_open_slices(const char *root, const char *slices, const CgroupLayout *layout, const CgfsOps *ops, Cgfs *ret,
                     CsError *e) {
        _cleanup_close_ int fd = -EBADF;
        Cgfs c = { .root_fd = -EBADF, .ops = ops ? ops : &cgfs_default_ops, .reap_grace_usec = CGFS_REAP_GRACE_USEC };
        int r;

        if (parent_valid(slices) < 0)
                return cs_error(e, -EINVAL,
                                "bad cgroup path '%s' for the user slices (a relative path without . or ..)", slices);
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return cs_error(e, -errno, "cannot open cgroup root %s: %m", root);
        if (layout) {
                r = cgroup_layout_copy(&c.layout, layout);
                if (r < 0)
                        return r;
        } else {
                r = cgroup_layout_detect(root, NULL, &c.layout, e);
                if (r < 0)
                        return r;
        }
        c.slices = strdup(slices);
        if (!c.slices) {
                cgroup_layout_done(&c.layout);
                return -ENOMEM;
        }
        c.root_fd = TAKE_FD(fd);
        *ret = c;
        return 0;
}

int cgfs_open(const char *root, const char *parent, const CgroupLayout *layout, const CgfsOps *ops, Cgfs *ret,
              CsError *e) {
        char slices[PATH_MAX];
        int n;

        parent = strempty(parent);
        if (parent_valid(parent) < 0)
                return cs_error(e, -EINVAL, "bad cgroup parent '%s' (a relative path without . or ..)", parent);
        n = (int) strlen(parent);
        if (n > 0 && parent[n - 1] == '/')
                n--;
        if (snprintf(slices, sizeof slices, "%.*s%suser.slice", n, parent, n ? "/" : "") >= (int) sizeof slices)
                return cs_error(e, -ENAMETOOLONG, "cgroup parent '%s' is too long", parent);
        return cgfs_open_slices(root, slices, layout, ops, ret, e);
}

void cgfs_close(Cgfs *c) {
        closep(&c->root_fd);
        c->root_fd = -EBADF;
        cgroup_layout_done(&c->layout);
        free(c->slices);
        c->slices = NULL;
}

static bool is_cgroupfs(const struct statfs *s) {
        return s->f_type == CGROUP_SUPER_MAGIC || s->f_type == CGROUP2_SUPER_MAGIC;
}

/* A cgroup owned by anyone but root was delegated (chown, Delegate=): its owner can turn off +cpu
 * below it, plant scopes, or freeze and kill root's processes moved into it. Only root can be
 * tricked into acting for someone else: others reach only what they may anyway. */
static int check_owner(int fd, const char *name, CsError *e) {
        struct stat st;

        if (geteuid() != 0)
                return 0;
        if (fstat(fd, &st) < 0)
                return cs_error(e, negative_errno(), "fstat %s: %m", name);
        if (st.st_uid != 0)
                return cs_error(e, -EPERM, "%s is owned by uid %" PRIu32 ", not root (a delegated cgroup?); refused",
                                name, (uint32_t) st.st_uid);
        return 0;
}

/* 0 when fd is on cgroupfs (or a plain directory tree stands in) */
static int check_fs(Cgfs *c, int fd, const char *name, CsError *e) {
        struct statfs sfs;

        if (!c->layout.check_fs)
                return 0;
        if (c->ops->fstatfs(fd, &sfs) < 0)
                return cs_error(e, negative_errno(), "fstatfs %s: %m", name);
        if (!is_cgroupfs(&sfs))
                return cs_error(e, -EXDEV, "%s is not on cgroupfs (filesystem magic 0x%lx); refused", name,
                                (unsigned long) sfs.f_type);
        return 0;
}

/* takes fd; returns it, or an error when it is not on cgroupfs (unless a plain directory tree
 * stands in) or not root's */
static int check_cgroupfs(Cgfs *c, int fd, const char *name, bool any_owner, CsError *e) {
        _cleanup_close_ int owned = fd;
        int r;

        r = any_owner ? 0 : check_owner(owned, name, e);
        if (r >= 0)
                r = check_fs(c, owned, name, e);
        if (r < 0)
                return r;
        return TAKE_FD(owned);
}

static int openat_dir(Cgfs *c, int dirfd, const char *name, CsError *e) {
        int fd;

        fd = c->ops->openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        if (fd < 0) {
                int r = negative_errno();
                if (r == -ELOOP || r == -ENOTDIR)
                        return cs_error(e, -ENOTDIR,
                                        "%s is not a directory (a symlink or file planted there?); refused", name);
                return cs_error(e, r, "cannot open %s: %m", name);
        }
        return fd;
}

static int open_dir(Cgfs *c, int dirfd, const char *name, bool any_owner, CsError *e) {
        int fd = openat_dir(c, dirfd, name, e);

        return fd < 0 ? fd : check_cgroupfs(c, fd, name, any_owner, e);
}

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

int cgfs_dir_stat(int fd, CgfsDirStat *ret) {
        struct statx stx;

        if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_UID | STATX_MNT_ID, &stx) < 0)
                return negative_errno();
        if (!(stx.stx_mask & STATX_UID))
                return -EIO;
        *ret = (CgfsDirStat) { .uid = stx.stx_uid, .mnt_id = stx.stx_mask & STATX_MNT_ID ? stx.stx_mnt_id : 0 };
        return 0;
}

/* The parent was checked to be cgroupfs. A directory opened from it by one name with O_NOFOLLOW
 * is the child itself, or whatever root mounted over the child: then, and only then, is it on
 * another mount. On the parent's mount it is on the parent's filesystem, and fstatfs() would say
 * cgroupfs again. */
int cgfs_open_child_to_read(Cgfs *c, int parent_fd, const CgfsDirStat *parent, const char *name, CgfsDirStat *ret,
                            CsError *e) {
        _cleanup_close_ int fd = openat_dir(c, parent_fd, name, e);
        int r;

        if (fd < 0)
                return fd;
        r = cgfs_dir_stat(fd, ret);
        if (r < 0)
                return cs_error(e, r, "statx %s: %m", name);
        if (ret->mnt_id == 0 || ret->mnt_id != parent->mnt_id) {
                r = check_fs(c, fd, name, e);
                if (r < 0)
                        return r;
        }
        return TAKE_FD(fd);
}

int cgfs_read_child_file_buf(Cgfs *c, int parent_fd, const char *name, const char *file, ReadBuf *b) {
        struct open_how how = {
                .flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
        };
        _cleanup_close_ int fd = -EBADF;
        char path[NAME_MAX * 2 + 2];
        int r;

        /* the tests' fault injection goes through ops->openat: they keep the long way */
        if (c->ops != &cgfs_default_ops)
                return -EOPNOTSUPP;
        if ((size_t) snprintf(path, sizeof path, "%s/%s", name, file) >= sizeof path)
                return -ENAMETOOLONG;
        fd = (int) syscall(SYS_openat2, parent_fd, path, &how, sizeof how);
        if (fd < 0) {
                r = negative_errno();
                /* ENOSYS, or EPERM from a seccomp filter: no openat2 here; ELOOP, EXDEV,
                 * ENOTDIR: what the child's own checks decide */
                return r == -ENOENT || r == -EACCES || r == -ENOMEM ? r : -EOPNOTSUPP;
        }
        return read_full_fd_buf(fd, CGFS_FILE_MAX, c->ops->read, true, b, NULL);
}

int cgfs_open_dir(Cgfs *c, int dirfd, const char *name, CsError *e) {
        return open_dir(c, dirfd, name, false, e);
}

int cgfs_open_dir_to_read(Cgfs *c, int dirfd, const char *name, CsError *e) {
        return open_dir(c, dirfd, name, true, e);
}

int cgfs_read_file(Cgfs *c, int dirfd, const char *name, char **ret, CsError *e) {
        _cleanup_close_ int fd = -EBADF;
        int r;

        fd = c->ops->openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0);
        if (fd < 0)
                return cs_error(e, negative_errno(), "cannot open %s: %m", name);
        r = read_full_fd(fd, CGFS_FILE_MAX, c->ops->read, ret, NULL);
        if (r == -EFBIG)
                return cs_error(e, r, "%s is larger than %u bytes", name, (unsigned) CGFS_FILE_MAX);
        if (r < 0)
                return cs_error(e, r, "cannot read %s: %m", name);
        return 0;
}

int cgfs_read_file_buf(Cgfs *c, int dirfd, const char *name, ReadBuf *b, CsError *e) {
        _cleanup_close_ int fd = -EBADF;
        int r;

        fd = c->ops->openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0);
        if (fd < 0)
                return cs_error(e, negative_errno(), "cannot open %s: %m", name);
        r = read_full_fd_buf(fd, CGFS_FILE_MAX, c->ops->read, true, b, NULL);
        if (r == -EFBIG)
                return cs_error(e, r, "%s is larger than %u bytes", name, (unsigned) CGFS_FILE_MAX);
        if (r < 0)
                return cs_error(e, r, "cannot read %s: %m", name);
        return 0;
}

ssize_t cgfs_getdents(Cgfs *c, int fd, void *buf, size_t n) {
        ssize_t k = (c->ops->getdents ? c->ops->getdents : sys_getdents)(fd, buf, n);

        return k < 0 ? negative_errno() : k;
}

int cgfs_write_file(Cgfs *c, int dirfd, const char *name, const char *value, CsError *e) {
        _cleanup_close_ int fd = -EBADF;
        /* a plain directory standing in for cgroupfs has no kernel-made control files */
        int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | (c->layout.check_fs ? 0 : O_CREAT | O_TRUNC);
        size_t n = strlen(value);
        ssize_t k;

        fd = c->ops->openat(dirfd, name, flags, 0644);
        if (fd < 0)
                return cs_error(e, negative_errno(), "cannot open %s for writing: %m", name);
        /* a file made in a plain directory tree gets its mode from us, not from the caller's umask */
        if (!c->layout.check_fs && c->ops->fchmod(fd, 0644) < 0)
                return cs_error(e, negative_errno(), "cannot set the mode of %s: %m", name);
        k = c->ops->write(fd, value, n);
        if (k < 0)
                return cs_error(e, negative_errno(), "writing '%.*s' to %s: %m", (int) strcspn(value, "\n"), value,
                                name);
        if ((size_t) k != n)
                return cs_error(e, -EIO, "short write to %s", name);
        return 0;
}

/* mkdir whose mode the umask does not decide: su and sudo keep their caller's, and a slice or
 * scope made 0700 or 0000 hides the user's own cgroup from them and from slicectl's readers.
 * 1 if made, 0 if it was there. */
int cgfs_make_dir(Cgfs *c, int dirfd, const char *name, CsError *e) {
        _cleanup_close_ int fd = -EBADF;

        if (c->ops->mkdirat(dirfd, name, 0755) < 0)
                return errno == EEXIST ? 0 : cs_error(e, negative_errno(), "cannot create %s: %m", name);
        fd = c->ops->openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        if (fd < 0 || c->ops->fchmod(fd, 0755) < 0)
                return cs_error(e, negative_errno(), "cannot set the mode of %s: %m", name);
        return 1;
}

/* Walks a '/'-separated relative path below dirfd (which it takes over), one openat(O_NOFOLLOW)
 * per component. Existing directories are the common case: open first, mkdir only when missing. */
static bool has_controller(Cgfs *c, int fd, const char *controller) {
        _cleanup_free_ char *list = NULL;

        if (cgfs_read_file(c, fd, "cgroup.controllers", &list, NULL) < 0)
                return true; /* unknown: the caller's error stands */
        return list_has_word(list, " \n", controller);
}

/* The kernel answers "+cpu" with ENOENT both when the cgroup was removed under us (worth another
 * try) and when cpu is not among its controllers at all (bound to a v1 hierarchy): never worth
 * one, so that case gets its own error. */
static int enable_cpu(Cgfs *c, int fd, const char *path, CsError *e) {
        int r = cgfs_write_file(c, fd, "cgroup.subtree_control", "+cpu\n", e);

        if (r == -ENOENT && !has_controller(c, fd, "cpu"))
                return cs_error(e, -EOPNOTSUPP,
                                "the cpu controller is not available below %s (not in its "
                                "cgroup.controllers: bound to a cgroup v1 hierarchy?)",
                                path);
        if (r < 0)
                return cs_error_prefix(e, "enabling the cpu controller below %s: ", path), r;
        return 0;
}

int cgfs_walk(Cgfs *c, int dirfd, const char *path, CgfsWalkFlags flags, CsError *e) {
        _cleanup_close_ int fd = dirfd;
        char name[256];
        int r;

        for (const char *s = path; *s;) {
                size_t n = strcspn(s, "/");
                int next;

                if (n == 0) {
                        s++;
                        continue;
                }
                if (!component_valid(s, n) || n >= sizeof name)
                        return cs_error(e, -EINVAL, "bad path component in '%s'", path);
                memcpy(name, s, n);
                name[n] = '\0';
                s += n;
                if (flags & CGFS_WALK_ENABLE_CPU) {
                        r = enable_cpu(c, fd, path, e);
                        if (r < 0)
                                return r;
                }
                next = cgfs_open_dir(c, fd, name, e);
                if (next == -ENOENT && (flags & CGFS_WALK_CREATE)) {
                        r = cgfs_make_dir(c, fd, name, e);
                        if (r < 0)
                                return r;
                        next = cgfs_open_dir(c, fd, name, e);
                }
                if (next == -ENOENT && (flags & CGFS_WALK_NEAREST))
                        break;
                if (next < 0)
                        return next;
                closep(&fd);
                fd = next;
        }
        return TAKE_FD(fd);
}

int cgfs_open_hierarchy(Cgfs *c, const CgroupHierarchy *h, CsError *e) {
        int fd;

        /* the mount point itself may be a symlink (systemd's cpu -> cpu,cpuacct) in the root-owned
         * tmpfs above the hierarchies; what it leads to must still be cgroupfs */
        fd = c->ops->openat(c->root_fd, *h->path ? h->path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        if (fd < 0)
                return cs_error(e, negative_errno(), "cannot open %s: %m", *h->path ? h->path : "the cgroup root");
        return check_cgroupfs(c, fd, *h->path ? h->path : "the cgroup root", false, e);
}

/* <hierarchy>/<slices>[/user-UID.slice] */
int cgfs_open_slice_path(Cgfs *c, const CgroupHierarchy *h, uid_t uid, CgfsWalkFlags flags, CsError *e) {
        _cleanup_close_ int hfd = -EBADF;
        char path[PATH_MAX], slice[SLICE_NAME_MAX];

        slice_name(uid, slice);
        if (uid == (uid_t) -1)
                snprintf(path, sizeof path, "%s", c->slices);
        else
                snprintf(path, sizeof path, "%s%s%s", c->slices, *c->slices ? "/" : "", slice);
        hfd = cgfs_open_hierarchy(c, h, e);
        if (hfd < 0)
                return hfd;
        if (!h->v2)
                flags &= ~CGFS_WALK_ENABLE_CPU;
        return cgfs_walk(c, TAKE_FD(hfd), path, flags, e);
}

int cgfs_open_user_slice_root(Cgfs *c, const CgroupHierarchy *h, CsError *e) {
        return cgfs_open_slice_path(c, h, (uid_t) -1, 0, e);
}
