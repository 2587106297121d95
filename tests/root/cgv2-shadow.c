/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cgv2-shadow.so, LD_PRELOADed by test-v2.sh where the cgroup2 mount has no cpu controller (a
 * hybrid host binds cpu to v1): below $CGV2_SHADOW_ROOT, opening cpu.weight, cpu.max or cpu.idle,
 * or cgroup.subtree_control for writing, opens the same path below $CGV2_SHADOW_DIR instead (made
 * on write, ENOENT on a read of one never written). Everything else (mkdir, rmdir, cgroup.procs,
 * the modes, the filesystem checks) stays the real cgroup2's, so the module's v2 layout runs
 * against the kernel, and the values and +cpu it writes are kept where the test can read them. */
/* openat and openat64 both defined here: neither may be renamed into the other by the headers */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int (*openat_fn)(int, const char *, int, ...);

/* glibc's _FORTIFY_SOURCE entry points, declared by no header */
int __openat_2(int dirfd, const char *name, int flags);
int __openat64_2(int dirfd, const char *name, int flags);

static bool shadowed(const char *base, int flags) {
        bool writing = (flags & O_ACCMODE) != O_RDONLY;

        return strcmp(base, "cpu.weight") == 0 || strcmp(base, "cpu.max") == 0 || strcmp(base, "cpu.idle") == 0 ||
               (writing && strcmp(base, "cgroup.subtree_control") == 0);
}

static void mkdir_parents(char *p) {
        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                (void) mkdir(p, 0755);
                *s = '/';
        }
}

/* the shadow path for dirfd/name, or 0 when it is not one to redirect */
static int shadow_path(int dirfd, const char *name, int flags, char *out, size_t n) {
        const char *root = getenv("CGV2_SHADOW_ROOT"), *dir = getenv("CGV2_SHADOW_DIR"), *base;
        char full[PATH_MAX], at[PATH_MAX];
        size_t rl;
        ssize_t k;

        if (!root || !dir || !name)
                return 0;
        base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
        if (!shadowed(base, flags))
                return 0;
        if (name[0] == '/')
                snprintf(full, sizeof full, "%s", name);
        else {
                if (dirfd == AT_FDCWD) {
                        if (!getcwd(at, sizeof at))
                                return 0;
                } else {
                        char link[64];
                        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
                        k = readlink(link, at, sizeof at - 1);
                        if (k <= 0)
                                return 0;
                        at[k] = '\0';
                }
                if (snprintf(full, sizeof full, "%s/%s", at, name) >= (int) sizeof full)
                        return 0;
        }
        rl = strlen(root);
        if (strncmp(full, root, rl) != 0 || (full[rl] != '/' && full[rl] != '\0'))
                return 0;
        return snprintf(out, n, "%s%s", dir, full + rl) < (int) n;
}

static int redirect(const char *sym, int dirfd, const char *name, int flags, mode_t mode) {
        openat_fn real = (openat_fn) dlsym(RTLD_NEXT, sym);
        char p[PATH_MAX];

        if (!real) {
                errno = ENOSYS;
                return -1;
        }
        if (shadow_path(dirfd, name, flags, p, sizeof p)) {
                if ((flags & O_ACCMODE) != O_RDONLY) {
                        mkdir_parents(p);
                        return real(AT_FDCWD, p, (flags | O_CREAT | O_TRUNC) & ~O_NOFOLLOW, 0644);
                }
                return real(AT_FDCWD, p, flags & ~O_NOFOLLOW, 0);
        }
        return real(dirfd, name, flags, mode);
}

static mode_t mode_arg(int flags, va_list ap) {
        return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t) va_arg(ap, int) : 0;
}

int openat(int dirfd, const char *name, int flags, ...) {
        va_list ap;
        mode_t m;

        va_start(ap, flags);
        m = mode_arg(flags, ap);
        va_end(ap);
        return redirect("openat", dirfd, name, flags, m);
}

int openat64(int dirfd, const char *name, int flags, ...) {
        va_list ap;
        mode_t m;

        va_start(ap, flags);
        m = mode_arg(flags, ap);
        va_end(ap);
        return redirect("openat64", dirfd, name, flags, m);
}

int __openat_2(int dirfd, const char *name, int flags) {
        return redirect("openat", dirfd, name, flags, 0);
}

int __openat64_2(int dirfd, const char *name, int flags) {
        return redirect("openat64", dirfd, name, flags, 0);
}

int open(const char *name, int flags, ...) {
        va_list ap;
        mode_t m;

        va_start(ap, flags);
        m = mode_arg(flags, ap);
        va_end(ap);
        return redirect("openat", AT_FDCWD, name, flags, m);
}

int open64(const char *name, int flags, ...) {
        va_list ap;
        mode_t m;

        va_start(ap, flags);
        m = mode_arg(flags, ap);
        va_end(ap);
        return redirect("openat64", AT_FDCWD, name, flags, m);
}
