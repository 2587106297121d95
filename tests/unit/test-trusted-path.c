/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "macro.h"
#include "test-util.h"
#include "trusted-path.h"

static void test_check(void **state) {
        const char *root = *state;
        static const struct {
                const char *name; /* "d" a directory, else a file */
                mode_t mode;
                uid_t owner; /* (uid_t) -1: leave as made (the euid) */
                mode_t type;
                int want;
                const char *why;
        } t[] = {
                { "f", 0644, (uid_t) -1, S_IFREG, 0, "" },
                { "f", 0755, 0, S_IFREG, 0, "" },
                { "f", 0664, (uid_t) -1, S_IFREG, -EPERM, "writable by its group or others (mode 0664)" },
                { "f", 0646, (uid_t) -1, S_IFREG, -EPERM, "writable by its group or others (mode 0646)" },
                { "f", 0644, (uid_t) -1, S_IFDIR, -EPERM, "not a directory" },
                { "d", 0755, (uid_t) -1, S_IFDIR, 0, "" },
                { "d", 01777, (uid_t) -1, S_IFDIR, -EPERM, "writable by its group or others (mode 1777)" },
                { "d", 0755, (uid_t) -1, S_IFREG, -EPERM, "not a regular file" },
                { "f", 0644, 1001, S_IFREG, -EPERM, "owned by uid 1001, not root" }, /* root only */
                { "d", 0755, 1001, S_IFDIR, -EPERM, "owned by uid 1001, not root" },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_close_ int fd = -EBADF;
                char path[1024], why[128] = "";

                if (t[i].owner != (uid_t) -1 && t[i].owner != 0 && geteuid() != 0)
                        continue; /* cannot give a file away */
                snprintf(path, sizeof path, "%s/%zu", root, i);
                if (strcmp(t[i].name, "d") == 0)
                        assert_int_equal(mkdir(path, 0700), 0);
                else
                        assert_int_equal(close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)), 0);
                assert_int_equal(chmod(path, t[i].mode), 0);
                if (t[i].owner != (uid_t) -1 && geteuid() == 0)
                        assert_int_equal(chown(path, t[i].owner, 0), 0);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                assert_true(fd >= 0);
                if (trusted_fd_check(fd, t[i].type, why, sizeof why) != t[i].want || strcmp(why, t[i].why) != 0)
                        fail_msg("case %zu: got '%s', want %d '%s'", i, why, t[i].want, t[i].why);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_check, scratch_setup, scratch_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
