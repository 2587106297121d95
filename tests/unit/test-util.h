/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Scratch directories and files for the unit tests. */

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline char *scratch_dir(void) {
        const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        char *p;

        if (asprintf(&p, "%s/cpuslice-test-XXXXXX", base) < 0)
                return NULL;
        return mkdtemp(p);
}

/* Removes the tree below dirfd's name (a directory opened O_DIRECTORY|O_NOFOLLOW); symlinks are
 * removed, never followed. Returns 0, or -1 if something could not be removed. */
static inline int rm_rf_at(int dirfd) {
        DIR *d = fdopendir(dirfd);
        int rc = 0;

        if (!d) {
                close(dirfd);
                return -1;
        }
        for (struct dirent *de; (de = readdir(d));) {
                struct stat st;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        rc = -1;
                        continue;
                }
                if (S_ISDIR(st.st_mode)) {
                        int sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (sub < 0 || rm_rf_at(sub) < 0 || unlinkat(dirfd, de->d_name, AT_REMOVEDIR) < 0)
                                rc = -1;
                } else if (unlinkat(dirfd, de->d_name, 0) < 0)
                        rc = -1;
        }
        closedir(d);
        return rc;
}

/* rm -rf, in this process. Not through system(): under pam_wrapper every child process (the shell
 * and rm) would start pam_wrapper too, and dash leaves its /tmp/pam.X behind (it ends with _exit,
 * so pam_wrapper's destructor never runs) for a later process to remove as stale, racing with the
 * PAM process that has just made a directory of that name. */
static inline void rm_rf(const char *p) {
        struct stat st;
        int fd;

        if (!p || lstat(p, &st) < 0)
                return;
        if (!S_ISDIR(st.st_mode)) {
                if (unlink(p) < 0)
                        fprintf(stderr, "cleanup of %s failed\n", p);
                return;
        }
        fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || rm_rf_at(fd) < 0 || rmdir(p) < 0)
                fprintf(stderr, "cleanup of %s failed\n", p);
}

/* cmocka setup and teardown: *state is a scratch directory of its own for each test */
static inline int scratch_setup(void **state) {
        *state = scratch_dir();
        return *state ? 0 : -1;
}

static inline int scratch_teardown(void **state) {
        rm_rf(*state);
        free(*state);
        return 0;
}

/* The same as setup() and teardown() for tests whose helpers find the scratch directory in the
 * file-level variable var (per test, or per group when given to cmocka_run_group_tests()). */
#define DEFINE_SCRATCH_FIXTURE(var)                                                                                  \
        static char *var;                                                                                            \
        static int setup(void **state) {                                                                             \
                int r = scratch_setup(state);                                                                        \
                var = *state;                                                                                        \
                return r;                                                                                            \
        }                                                                                                            \
        static int teardown(void **state) {                                                                          \
                var = NULL;                                                                                          \
                return scratch_teardown(state);                                                                      \
        }

static inline int write_file(const char *dir, const char *name, const char *text, mode_t mode) {
        char path[4096];
        int fd;
        ssize_t n;

        snprintf(path, sizeof path, "%s/%s", dir, name);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        if (fd < 0)
                return -1;
        n = write(fd, text, strlen(text));
        fchmod(fd, mode);
        close(fd);
        return n == (ssize_t) strlen(text) ? 0 : -1;
}

/* Tests that need root skip elsewhere, but fail where every tier must run (CI). */
#define REQUIRE_ROOT()                                                                                               \
        do {                                                                                                         \
                if (geteuid() != 0) {                                                                                \
                        if (getenv("CPUSLICE_REQUIRE_ALL"))                                                          \
                                fail_msg("needs root, and CPUSLICE_REQUIRE_ALL is set");                             \
                        skip();                                                                                      \
                }                                                                                                    \
        } while (0)

/* Up to 4 KiB of what fd has left to read, NUL-terminated (a control file, /proc/PID/cgroup). */
static inline char *read_fd_text(int fd) {
        char *buf = calloc(1, 4096);
        ssize_t n;

        if (!buf)
                abort();
        n = read(fd, buf, 4095);
        buf[n > 0 ? n : 0] = '\0';
        return buf;
}
