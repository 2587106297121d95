/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Scratch directories and files for the unit tests. */

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

static inline void rm_rf(const char *p) {
        char *cmd;

        if (!p || asprintf(&cmd, "rm -rf -- '%s'", p) < 0)
                return;
        if (system(cmd) != 0)
                fprintf(stderr, "cleanup of %s failed\n", p);
        free(cmd);
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
#define REQUIRE_ROOT()                                                                         \
        do {                                                                                   \
                if (geteuid() != 0) {                                                          \
                        if (getenv("CPUSLICE_REQUIRE_ALL"))                                    \
                                fail_msg("needs root, and CPUSLICE_REQUIRE_ALL is set");       \
                        skip();                                                                \
                }                                                                              \
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
