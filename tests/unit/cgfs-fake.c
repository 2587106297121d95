/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgfs-fake.h"
#include "macro.h"
#include "test-util.h"

Fake fake;

void fake_reset(void) {
        memset(&fake, 0, sizeof fake);
}

void fake_add(Fault ft) {
        assert_true(fake.n_faults < ELEMENTSOF(fake.faults));
        fake.faults[fake.n_faults++] = ft;
}

static void record(Op op, const char *name, int r) {
        int saved = errno;

        if (fake.n_calls < CALLS_MAX) {
                Call *c = &fake.calls[fake.n_calls++];
                c->op = op;
                snprintf(c->name, sizeof c->name, "%s", name ? name : "");
                c->r = r;
        }
        errno = saved;
}

unsigned count_calls(Op op, const char *name, bool ok_only) {
        unsigned n = 0;

        for (size_t i = 0; i < fake.n_calls; i++)
                if (fake.calls[i].op == op && strcmp(fake.calls[i].name, name) == 0 &&
                    (!ok_only || fake.calls[i].r == 0))
                        n++;
        return n;
}

/* the real path of an open file, with room left to swap its name for a sibling's; -1 if unknown */
static ssize_t fd_path(int fd, char path[static PATH_MAX]) {
        char link[64];
        ssize_t k;

        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        k = readlink(link, path, PATH_MAX - 16);
        if (k >= 0)
                path[k] = '\0';
        return k;
}

/* fd: the directory fd of an *at() call, else the fd operated on */
static int fault_check(Op op, const char *name, int fd) {
        for (size_t i = 0; i < fake.n_faults; i++) {
                const Fault *ft = &fake.faults[i];
                unsigned n;

                if (ft->op != op || (ft->name && (!name || strcmp(ft->name, name) != 0)))
                        continue;
                if (ft->under) {
                        char path[PATH_MAX];

                        if (fd_path(fd, path) < 0)
                                path[0] = '\0';
                        strcat(path, "/");
                        if (!strstr(path, ft->under))
                                continue;
                }
                n = ++fake.hits[i];
                if (n <= ft->skip || (ft->count && n > ft->skip + ft->count))
                        continue;
                return ft->err;
        }
        return 0;
}

static const char *fd_name(int fd) {
        return fd >= 0 && fd < FD_MAX ? fake.fdname[fd] : "";
}

static int fake_openat(int dirfd, const char *name, int flags, mode_t mode) {
        int err = fault_check(OP_OPENAT, name, dirfd), fd;

        if (err) {
                record(OP_OPENAT, name, -err);
                errno = err;
                return -1;
        }
        fd = openat(dirfd, name, flags, mode);
        if (fd >= 0 && fd < FD_MAX)
                snprintf(fake.fdname[fd], sizeof fake.fdname[fd], "%s", name);
        record(OP_OPENAT, name, fd < 0 ? -errno : 0);
        return fd;
}

static int fake_mkdirat(int dirfd, const char *name, mode_t mode) {
        int err = fault_check(OP_MKDIRAT, name, dirfd), r;

        if (err) {
                record(OP_MKDIRAT, name, -err);
                errno = err;
                return -1;
        }
        r = mkdirat(dirfd, name, mode);
        record(OP_MKDIRAT, name, r < 0 ? -errno : 0);
        return r;
}

/* cgroupfs's rmdir: EBUSY while the cgroup has children or processes; its control files go with it */
static int emulated_rmdir(int dirfd, const char *name) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        bool busy = false;
        int fd;

        fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ELOOP)
                        errno = ENOTDIR;
                return -1;
        }
        d = fdopendir(fd);
        assert_non_null(d);
        while ((de = readdir(d))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (de->d_type == DT_DIR)
                        busy = true;
                else if (strcmp(de->d_name, "cgroup.procs") == 0) {
                        _cleanup_close_ int p = openat(fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
                        _cleanup_free_ char *text = NULL;

                        assert_true(p >= 0);
                        text = read_fd_text(p);
                        busy = busy || strspn(text, " \n") != strlen(text);
                }
        }
        if (busy) {
                errno = EBUSY;
                return -1;
        }
        rewinddir(d);
        while ((de = readdir(d)))
                if (de->d_type != DT_DIR)
                        assert_int_equal(unlinkat(fd, de->d_name, 0), 0);
        return unlinkat(dirfd, name, AT_REMOVEDIR);
}

static int fake_unlinkat(int dirfd, const char *name, int flags) {
        int err = fault_check(OP_UNLINKAT, name, dirfd), r;

        if (err) {
                record(OP_UNLINKAT, name, -err);
                errno = err;
                return -1;
        }
        if (fake.cgroupfs && (flags & AT_REMOVEDIR))
                r = emulated_rmdir(dirfd, name);
        else
                r = unlinkat(dirfd, name, flags);
        record(OP_UNLINKAT, name, r < 0 ? -errno : 0);
        return r;
}

/* for nftw, which has no userdata */
static const char *move_keep, *move_pid;

static int drop_pid(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        char *text, out[4096] = "";
        FILE *f;

        if (type != FTW_F || strcmp(path + ftw->base, "cgroup.procs") != 0 || strcmp(path, move_keep) == 0)
                return 0;
        f = fopen(path, "re");
        assert_non_null(f);
        text = read_fd_text(fileno(f));
        fclose(f);
        for (char *save = NULL, *t = strtok_r(text, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
                if (strcmp(t, move_pid) != 0) {
                        strcat(out, t);
                        strcat(out, "\n");
                }
        free(text);
        f = fopen(path, "we");
        assert_non_null(f);
        fputs(out, f);
        fclose(f);
        return 0;
}

/* a pid written to one cgroup.procs leaves every other cgroup of that hierarchy */
static void emulate_move(int fd, const char *buf, size_t n) {
        char path[PATH_MAX], pid[32];
        const char *hier = NULL;

        assert_true(fd_path(fd, path) > 0);
        for (size_t i = 0; i < fake.n_hier; i++) {
                size_t l = strlen(fake.hier[i]);
                if (strncmp(path, fake.hier[i], l) == 0 && path[l] == '/' && (!hier || l > strlen(hier)))
                        hier = fake.hier[i];
        }
        assert_non_null(hier);
        snprintf(pid, sizeof pid, "%.*s", (int) strcspn(buf, "\n"), buf);
        assert_true(n > 0);
        move_keep = path;
        move_pid = pid;
        assert_int_equal(nftw(hier, drop_pid, 16, FTW_PHYS), 0);
}

/* the kernel refuses cpu.shares while the group is idle (sched_group_set_shares: EINVAL) */
static bool group_is_idle(int fd) {
        char path[PATH_MAX], idle[4] = "";
        char *slash;
        FILE *f;
        bool r;

        if (fd_path(fd, path) < 0)
                return false;
        slash = strrchr(path, '/');
        if (!slash)
                return false;
        strcpy(slash + 1, "cpu.idle");
        f = fopen(path, "re");
        if (!f)
                return false;
        r = fgets(idle, sizeof idle, f) && idle[0] == '1';
        fclose(f);
        return r;
}

static ssize_t fake_write(int fd, const void *buf, size_t n) {
        const char *name = fd_name(fd);
        int err = fault_check(OP_WRITE, name, fd);
        ssize_t k;

        if (!err && fake.cgroupfs && strcmp(name, "cpu.shares") == 0 && group_is_idle(fd))
                err = EINVAL;

        if (err == SHORT_WRITE) {
                record(OP_WRITE, name, 0);
                return write(fd, buf, n - 1);
        }
        if (err) {
                record(OP_WRITE, name, -err);
                errno = err;
                return -1;
        }
        k = write(fd, buf, n);
        if (k > 0 && fake.cgroupfs && strcmp(name, "cgroup.procs") == 0)
                emulate_move(fd, buf, n);
        record(OP_WRITE, name, k < 0 ? -errno : 0);
        return k;
}

static ssize_t fake_read(int fd, void *buf, size_t n) {
        int err = fault_check(OP_READ, fd_name(fd), fd);

        record(OP_READ, fd_name(fd), -err);
        if (err) {
                errno = err;
                return -1;
        }
        return read(fd, buf, n);
}

static int fake_fstatfs(int fd, struct statfs *buf) {
        int err = fault_check(OP_FSTATFS, fd_name(fd), fd);

        record(OP_FSTATFS, fd_name(fd), -err);
        if (err) {
                errno = err;
                return -1;
        }
        return fstatfs(fd, buf);
}

static int fake_fchmod(int fd, mode_t mode) {
        int err = fault_check(OP_FCHMOD, fd_name(fd), fd);

        record(OP_FCHMOD, fd_name(fd), -err);
        if (err) {
                errno = err;
                return -1;
        }
        return fchmod(fd, mode);
}

static ssize_t fake_getdents(int fd, void *buf, size_t n) {
        int err = fault_check(OP_GETDENTS, fd_name(fd), fd);

        record(OP_GETDENTS, fd_name(fd), -err);
        if (err) {
                errno = err;
                return -1;
        }
        return getdents64(fd, buf, n);
}

const CgfsOps fake_ops = {
        .openat = fake_openat,
        .mkdirat = fake_mkdirat,
        .unlinkat = fake_unlinkat,
        .write = fake_write,
        .read = fake_read,
        .fstatfs = fake_fstatfs,
        .fchmod = fake_fchmod,
        .getdents = fake_getdents,
};
