/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "macro.h"
#include "state-file.h"
#include "test-util.h"

DEFINE_SCRATCH_FIXTURE(dir)

static mode_t mode_of(const char *p) {
        struct stat st;

        assert_int_equal(lstat(p, &st), 0);
        return st.st_mode & 07777;
}

static void test_dir_made_with_its_mode(void **state) {
        char p[512], q[512];
        mode_t old = umask(0777);
        int fd;

        snprintf(p, sizeof p, "%s/var/lib/cpuslice/penalty", dir);
        assert_int_equal(state_dir_open(p, false), -ENOENT);
        fd = state_dir_open(p, true);
        umask(old);
        assert_true(fd >= 0);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        close(fd);
        assert_int_equal(mode_of(p), 0755);
        snprintf(q, sizeof q, "%s/var", dir);
        assert_int_equal(mode_of(q), 0755);
        /* there already: opened as it is */
        fd = state_dir_open(p, true);
        assert_true(fd >= 0);
        close(fd);
        /* a symlink in its place is not followed */
        snprintf(q, sizeof q, "%s/link", dir);
        assert_int_equal(symlink(p, q), 0);
        assert_int_equal(state_dir_open(q, false), -ENOTDIR); /* O_DIRECTORY|O_NOFOLLOW on a link */
        assert_int_equal(state_dir_open("relative/path", true), -EINVAL);
}

static int fill_hello(FILE *f, void *userdata) {
        fputs(userdata, f);
        return 0;
}

static void test_write_read_remove(void **state) {
        _cleanup_close_ int dfd = state_dir_open(dir, false);
        _cleanup_free_ char *text = NULL;
        char p[512], why[128] = "";
        mode_t old;

        assert_true(dfd >= 0);
        assert_int_equal(state_file_read(dfd, "1001", 64, &text, why, sizeof why), 0);
        assert_null(text);
        old = umask(0777);
        assert_int_equal(state_file_write(dfd, "1001", 0, fill_hello, (char[]) { "level 2\n" }), 0);
        umask(old);
        snprintf(p, sizeof p, "%s/1001", dir);
        assert_int_equal(mode_of(p), 0644);
        assert_int_equal(state_file_read(dfd, "1001", 64, &text, why, sizeof why), 0);
        assert_string_equal(text, "level 2\n");
        free(TAKE_PTR(text));
        assert_int_equal(state_file_read(dfd, "1001", 4, &text, why, sizeof why), -EFBIG);
        assert_null(text);

        /* others may write it: refused, with the reason */
        assert_int_equal(chmod(p, 0666), 0);
        assert_int_equal(state_file_read(dfd, "1001", 64, &text, why, sizeof why), -EPERM);
        assert_null(text);
        assert_string_equal(why, "writable by its group or others (mode 0666)");
        assert_int_equal(state_file_read(dfd, "1001", 64, &text, NULL, 0), -EPERM);

        assert_int_equal(state_file_remove(dfd, "1001"), 0);
        assert_int_equal(state_file_remove(dfd, "1001"), 0);
        assert_int_equal(access(p, F_OK), -1);

        /* a symlink planted under the name is not followed, nor a directory read */
        assert_int_equal(symlink("/etc/shadow", p), 0);
        assert_int_equal(state_file_read(dfd, "1001", 64, &text, why, sizeof why), -EPERM);
        assert_string_equal(why, "a symbolic link");
        assert_int_equal(unlink(p), 0);
        assert_int_equal(mkdir(p, 0755), 0);
        assert_int_equal(state_file_read(dfd, "1001", 64, &text, why, sizeof why), -EPERM);
        assert_string_equal(why, "not a regular file");
        assert_int_equal(rmdir(p), 0);
}

static int digits_to_uid(const char *name, uid_t *ret) {
        char *end;
        unsigned long v;

        if (!*name || strspn(name, "0123456789") != strlen(name))
                return -EINVAL;
        v = strtoul(name, &end, 10);
        *ret = (uid_t) v;
        return 0;
}

static void test_list_uids(void **state) {
        _cleanup_free_ uid_t *uids = NULL;
        char p[512];
        size_t n = 99;
        uid_t sum = 0;
        int dfd;

        snprintf(p, sizeof p, "%s/none", dir);
        assert_int_equal(state_dir_list_uids(p, digits_to_uid, &uids, &n), 0);
        assert_null(uids);
        assert_int_equal(n, 0);

        dfd = state_dir_open(dir, false);
        assert_true(dfd >= 0);
        assert_int_equal(state_file_write(dfd, "1001", 0, fill_hello, (char[]) { "x" }), 0);
        assert_int_equal(state_file_write(dfd, "1002", 0, fill_hello, (char[]) { "x" }), 0);
        assert_int_equal(state_file_write(dfd, "notes", 0, fill_hello, (char[]) { "x" }), 0); /* not a key: skipped */
        snprintf(p, sizeof p, "%s/1003", dir);
        assert_int_equal(mkdir(p, 0755), 0); /* not regular files: listed, for the reader to refuse */
        snprintf(p, sizeof p, "%s/1004", dir);
        assert_int_equal(symlink("1001", p), 0);
        assert_int_equal(state_dir_list_uids(dir, digits_to_uid, &uids, &n), 0);
        assert_int_equal(n, 4);
        for (size_t i = 0; i < n; i++)
                sum += uids[i];
        assert_int_equal(sum, 4010);
        close(dfd);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_dir_made_with_its_mode, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_read_remove, setup, teardown),
                cmocka_unit_test_setup_teardown(test_list_uids, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
