/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf.h"
#include "conf-fixture.h"

static void test_missing_everything(void **state) {
        Fx *f = *state;
        ConfPaths p = { "/nonexistent/cpuslice.conf", "/nonexistent/d", "/nonexistent/r" };

        assert_int_equal(conf_load(&f->rs, &p, CONF_PERMS_ENFORCE, &f->d), 0);
        assert_int_equal(f->rs.n, 0);
        assert_int_equal(f->d.n, 0);
}

static void test_order_and_filter(void **state) {
        Fx *f = *state;

        assert_int_equal(write_file(f->dir, "cpuslice.conf", "* CPUWeight=1\n", 0644), 0);
        /* C-locale order: digits < upper case < lower case */
        assert_int_equal(write_file(f->dropin, "b.conf", "* CPUWeight=4\n", 0644), 0);
        assert_int_equal(write_file(f->dropin, "10-x.conf", "* CPUWeight=2\n", 0644), 0);
        assert_int_equal(write_file(f->dropin, "Z.conf", "* CPUWeight=3\n", 0644), 0);
        /* never read: hidden, backups, other suffixes, a bare ".conf" */
        assert_int_equal(write_file(f->dropin, ".hidden.conf", "* CPUWeight=90\n", 0644), 0);
        assert_int_equal(write_file(f->dropin, "c.conf~", "* CPUWeight=91\n", 0644), 0);
        assert_int_equal(write_file(f->dropin, "c.conf.bak", "* CPUWeight=92\n", 0644), 0);
        assert_int_equal(write_file(f->dropin, "c.conf.dpkg-old", "* CPUWeight=93\n", 0644), 0);
        assert_int_equal(write_file(f->dropin, ".conf", "* CPUWeight=94\n", 0644), 0);
        assert_int_equal(write_file(f->dropin, "cconf", "* CPUWeight=95\n", 0644), 0);
        assert_int_equal(write_file(f->run, "50-slicectl.conf", "* CPUWeight=5\n", 0644), 0);

        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_ENFORCE, &f->d), 0);
        assert_int_equal(f->d.n, 0);
        assert_int_equal(f->rs.n, 5);
        for (size_t i = 0; i < 5; i++)
                assert_int_equal(f->rs.rules[i].weight, i + 1);
        assert_non_null(strstr(rule_file(&f->rs, &f->rs.rules[1]), "cpuslice.d/10-x.conf"));
        assert_non_null(strstr(rule_file(&f->rs, &f->rs.rules[4]), "run.d/50-slicectl.conf"));
}

static void test_bad_line_rest_applies(void **state) {
        Fx *f = *state;

        assert_int_equal(write_file(f->dir, "cpuslice.conf", "* CPUWeight=1\nalice CPUQuota=5\nbob CPUWeight=9\n",
                                    0644),
                         0);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_ENFORCE, &f->d), 0);
        assert_int_equal(f->rs.n, 2);
        assert_int_equal(f->d.n, 1);
        assert_non_null(strstr(conf_fx_msg(f, 0), "cpuslice.conf:2: bad CPUQuota= value '5'"));
}

static void test_world_writable_refused(void **state) {
        Fx *f = *state;

        assert_int_equal(write_file(f->dir, "cpuslice.conf", "* CPUWeight=1\n", 0666), 0);
        assert_int_equal(write_file(f->dropin, "a.conf", "* CPUWeight=2\n", 0620), 0);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_ENFORCE, &f->d), -EPERM);
        assert_int_equal(f->rs.n, 0);
        assert_int_equal(f->d.n, 2);
        assert_non_null(strstr(conf_fx_msg(f, 0), "cpuslice.conf: file is writable by others (mode 0666); refused"));
        assert_non_null(strstr(conf_fx_msg(f, 1), "a.conf: file is writable by its group (mode 0620); refused"));
        assert_int_equal(f->d.items[0].level, DIAG_ERROR);
}

static void test_warn_mode(void **state) {
        Fx *f = *state;

        assert_int_equal(write_file(f->dir, "cpuslice.conf", "* CPUWeight=1\n", 0666), 0);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_WARN, &f->d), 0);
        assert_int_equal(f->rs.n, 1);
        assert_int_equal(f->d.n, 1);
        assert_int_equal(f->d.items[0].level, DIAG_WARNING);
        assert_non_null(strstr(conf_fx_msg(f, 0), "(the module would refuse it)"));
}

static void test_not_root_owned(void **state) {
        Fx *f = *state;
        char p[600];

        REQUIRE_ROOT();
        assert_int_equal(write_file(f->dir, "cpuslice.conf", "* CPUWeight=1\n", 0644), 0);
        assert_int_equal(chown(f->main, 65534, 0), 0);
        assert_int_equal(write_file(f->run, "a.conf", "* CPUWeight=2\n", 0644), 0);
        assert_int_equal(chown(f->run, 65534, 65534), 0);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_ENFORCE, &f->d), -EPERM);
        assert_int_equal(f->rs.n, 0);
        assert_int_equal(f->d.n, 2);
        assert_non_null(strstr(conf_fx_msg(f, 0), "file is owned by uid 65534, not root; refused"));
        assert_non_null(strstr(conf_fx_msg(f, 1), "run.d: directory is owned by uid 65534, not root; refused"));
        /* the same as warnings for a checkout */
        diag_list_done(&f->d);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_WARN, &f->d), 0);
        assert_int_equal(f->rs.n, 2);
        assert_int_equal(diag_count(&f->d, DIAG_WARNING), 2);
        snprintf(p, sizeof p, "%s/cpuslice.d", f->dir);
        assert_int_equal(chmod(p, 0777), 0);
        diag_list_done(&f->d);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_ENFORCE, &f->d), -EPERM);
        assert_non_null(
                strstr(conf_fx_msg(f, 1), "cpuslice.d: directory is writable by others (mode 0777); refused"));
}

static void test_symlink_followed(void **state) {
        Fx *f = *state;
        char target[600];

        snprintf(target, sizeof target, "%s/real.conf", f->dir);
        assert_int_equal(write_file(f->dir, "real.conf", "* CPUWeight=42\n", 0644), 0);
        assert_int_equal(symlink(target, f->main), 0);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_ENFORCE, &f->d), 0);
        assert_int_equal(f->rs.n, 1);
        assert_int_equal(f->rs.rules[0].weight, 42);
}

static void test_not_regular(void **state) {
        Fx *f = *state;
        char p[600];
        time_t t0 = time(NULL);

        assert_int_equal(mkfifo(f->main, 0644), 0);
        snprintf(p, sizeof p, "%s/dir.conf", f->dropin);
        assert_int_equal(mkdir(p, 0755), 0);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_ENFORCE, &f->d), -EBADFD);
        assert_true(time(NULL) - t0 < 3); /* a FIFO must not block */
        assert_int_equal(f->d.n, 2);
        assert_non_null(strstr(conf_fx_msg(f, 0), "cpuslice.conf: not a regular file; refused"));
        assert_non_null(strstr(conf_fx_msg(f, 1), "dir.conf: not a regular file; refused"));
}

static void test_size_cap(void **state) {
        Fx *f = *state;
        int fd;

        fd = open(f->main, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, CONF_FILE_MAX + 1), 0);
        close(fd);
        assert_int_equal(write_file(f->dropin, "ok.conf", "* CPUWeight=3\n", 0644), 0);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_ENFORCE, &f->d), -EFBIG);
        assert_non_null(strstr(conf_fx_msg(f, 0), "cpuslice.conf: larger than 16 MiB; refused"));
        /* other files are still read, so every problem is reported */
        assert_int_equal(f->rs.n, 1);
}

static void test_exactly_at_cap(void **state) {
        Fx *f = *state;
        int fd;

        fd = open(f->main, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "* CPUWeight=8\n", 14), 14);
        assert_int_equal(ftruncate(fd, CONF_FILE_MAX), 0); /* the rest is NULs: one bad line */
        close(fd);
        assert_int_equal(conf_load(&f->rs, &f->paths, CONF_PERMS_ENFORCE, &f->d), 0);
        assert_int_equal(f->rs.n, 1);
        assert_int_equal(f->d.n, 1);
        assert_non_null(strstr(conf_fx_msg(f, 0), ":2: NUL byte in line"));
}

static void test_list_dir(void **state) {
        Fx *f = *state;
        char **paths;
        size_t n;

        assert_int_equal(write_file(f->dropin, "b.conf", "", 0644), 0);
        assert_int_equal(write_file(f->dropin, "a.conf", "", 0644), 0);
        assert_int_equal(conf_list_dir(f->dropin, CONF_PERMS_ENFORCE, &paths, &n, &f->d), 0);
        assert_int_equal(n, 2);
        assert_non_null(strstr(paths[0], "/a.conf"));
        strv_free(paths);
        assert_int_equal(conf_list_dir("/nonexistent", CONF_PERMS_ENFORCE, &paths, &n, &f->d), -ENOENT);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, conf_fx_setup, conf_fx_teardown)

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_missing_everything),     T(test_order_and_filter), T(test_bad_line_rest_applies),
                T(test_world_writable_refused), T(test_warn_mode),        T(test_not_root_owned),
                T(test_symlink_followed),       T(test_not_regular),      T(test_size_cap),
                T(test_exactly_at_cap),         T(test_list_dir),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
