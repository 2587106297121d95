/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "atomic-file.h"
#include "macro.h"

static int setup(void **state) {
        char tmpl[] = "/tmp/test-atomic-file.XXXXXX";

        if (!mkdtemp(tmpl))
                return -1;
        *state = strdup(tmpl);
        return *state ? 0 : -1;
}

static int teardown(void **state) {
        char cmd[256];

        snprintf(cmd, sizeof cmd, "rm -rf '%s'", (char *) *state);
        free(*state);
        return system(cmd) == 0 ? 0 : -1;
}

static int fill_text(FILE *f, void *userdata) {
        return fputs(userdata, f) < 0 ? -EIO : 0;
}

static int fill_fail(FILE *f, void *userdata) {
        fputs("half a fi", f);
        return -EBADMSG;
}

static char *slurp(int dirfd, const char *name) {
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
        char *buf = calloc(1, 4096);
        ssize_t n;

        assert_true(fd >= 0);
        assert_non_null(buf);
        n = read(fd, buf, 4095);
        assert_true(n >= 0);
        return buf;
}

/* The directory holds exactly the names given (no temporary file left behind). */
static void assert_entries(const char *dir, size_t n, const char *const *names) {
        _cleanup_closedir_ DIR *d = opendir(dir);
        struct dirent *de;
        size_t seen = 0;

        assert_non_null(d);
        while ((de = readdir(d))) {
                bool known = false;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                for (size_t i = 0; i < n; i++)
                        known = known || strcmp(de->d_name, names[i]) == 0;
                if (!known)
                        fail_msg("unexpected entry %s", de->d_name);
                seen++;
        }
        assert_int_equal(seen, n);
}

static void test_replace(void **state) {
        const char *dir = *state;
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int old = -EBADF;
        _cleanup_free_ char *a = NULL, *b = NULL, *o = NULL;
        struct stat st;
        mode_t saved = umask(0777); /* the mode is set explicitly, whatever the umask */

        assert_true(dfd >= 0);
        assert_int_equal(atomic_file_replace(dfd, "m.prom", 0644, fill_text, (char *) "first\n"), 0);
        a = slurp(dfd, "m.prom");
        assert_string_equal(a, "first\n");
        assert_int_equal(fstatat(dfd, "m.prom", &st, 0), 0);
        assert_int_equal(st.st_mode & 07777, 0644);

        /* a reader that has the old file open keeps reading the old content: a new inode */
        old = openat(dfd, "m.prom", O_RDONLY | O_CLOEXEC);
        assert_true(old >= 0);
        assert_int_equal(atomic_file_replace(dfd, "m.prom", 0644, fill_text, (char *) "second\n"), 0);
        b = slurp(dfd, "m.prom");
        assert_string_equal(b, "second\n");
        o = calloc(1, 64);
        assert_int_equal(read(old, o, 63), 6);
        assert_string_equal(o, "first\n");
        assert_entries(dir, 1, (const char *const[]) { "m.prom" });
        umask(saved);
}

static void test_fill_fails(void **state) {
        const char *dir = *state;
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *a = NULL;

        assert_int_equal(atomic_file_replace(dfd, "m.prom", 0644, fill_text, (char *) "good\n"), 0);
        assert_int_equal(atomic_file_replace(dfd, "m.prom", 0644, fill_fail, NULL), -EBADMSG);
        a = slurp(dfd, "m.prom");
        assert_string_equal(a, "good\n"); /* untouched */
        assert_entries(dir, 1, (const char *const[]) { "m.prom" });
}

static void test_symlink_replaced_not_followed(void **state) {
        const char *dir = *state;
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *a = NULL, *t = NULL;
        struct stat st;

        assert_int_equal(atomic_file_replace(dfd, "target", 0600, fill_text, (char *) "keep\n"), 0);
        assert_int_equal(symlinkat("target", dfd, "m.prom"), 0);
        assert_int_equal(atomic_file_replace(dfd, "m.prom", 0644, fill_text, (char *) "new\n"), 0);
        assert_int_equal(fstatat(dfd, "m.prom", &st, AT_SYMLINK_NOFOLLOW), 0);
        assert_true(S_ISREG(st.st_mode));
        a = slurp(dfd, "m.prom");
        t = slurp(dfd, "target");
        assert_string_equal(a, "new\n");
        assert_string_equal(t, "keep\n");
        assert_entries(dir, 2, (const char *const[]) { "m.prom", "target" });
}

static ssize_t short_then_full(int fd, const void *buf, size_t n) {
        /* a short write first, as a signal or a pipe can give: the rest must still follow */
        if (n > 3)
                n = 3;
        return write(fd, buf, n);
}

static ssize_t disk_full(int fd, const void *buf, size_t n) {
        if (n > 2 && write(fd, buf, n / 2) < 0) /* half reaches the temporary file */
                return -1;
        errno = ENOSPC;
        return -1;
}

static int fsync_fails(int fd) {
        errno = EIO;
        return -1;
}

static int rename_fails(int a, const char *b, int c, const char *d) {
        errno = EXDEV;
        return -1;
}

static void test_ops(void **state) {
        const AtomicFileOps short_writes = { short_then_full, fsync, renameat };
        const AtomicFileOps broken[] = {
                { disk_full, fsync, renameat },
                { write, fsync_fails, renameat },
                { write, fsync, rename_fails },
        };
        const int expect[] = { -ENOSPC, -EIO, -EXDEV };
        const char *dir = *state;
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct stat st;

        assert_int_equal(atomic_file_replace_full(dfd, "c.conf", 0640, ATOMIC_FILE_OWNER_ROOT, &short_writes,
                                                  fill_text, (char *) "a longer line\n"),
                         0);
        assert_int_equal(fstatat(dfd, "c.conf", &st, AT_SYMLINK_NOFOLLOW), 0);
        assert_int_equal(st.st_mode & 07777, 0640);
        if (geteuid() == 0)
                assert_true(st.st_uid == 0 && st.st_gid == 0);
        for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
                _cleanup_free_ char *a = NULL;

                assert_int_equal(atomic_file_replace_full(dfd, "c.conf", 0644, 0, &broken[i], fill_text,
                                                          (char *) "new text\n"),
                                 expect[i]);
                a = slurp(dfd, "c.conf");
                assert_string_equal(a, "a longer line\n"); /* the old file, whole */
                assert_entries(dir, 1, (const char *const[]) { "c.conf" });
        }
}

static void test_bad_names(void **state) {
        const char *dir = *state;
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char longname[300];

        memset(longname, 'x', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        assert_int_equal(atomic_file_replace(dfd, "", 0644, fill_text, (char *) "x"), -EINVAL);
        assert_int_equal(atomic_file_replace(dfd, "a/b", 0644, fill_text, (char *) "x"), -EINVAL);
        assert_int_equal(atomic_file_replace(dfd, longname, 0644, fill_text, (char *) "x"), -EINVAL);
        assert_int_equal(atomic_file_replace(-EBADF, "m.prom", 0644, fill_text, (char *) "x"), -EBADF);
        assert_entries(dir, 0, NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fill_fails, setup, teardown),
                cmocka_unit_test_setup_teardown(test_symlink_replaced_not_followed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_names, setup, teardown),
                cmocka_unit_test_setup_teardown(test_ops, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
