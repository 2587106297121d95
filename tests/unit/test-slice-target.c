/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slice-target: who writes the slices (auto/cgroupfs/systemd), where the cgroupfs handle opens
 * (parent=, slice_root=, a named, known or detected layout, the filesystem check a plain tree may
 * skip only where it is not cgroupfs), and which settings systemd is given. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <cmocka.h>

#include "slice-target.h"
#include "test-util.h"

static void test_backend_from_string(void **state) {
        static const char *const bad[] = { "", "AUTO", "Systemd", "cgroupfs ", " auto", "cgroup", "systemd\n" };

        (void) state;
        assert_int_equal(slice_backend_from_string("auto"), SLICE_BACKEND_AUTO);
        assert_int_equal(slice_backend_from_string("cgroupfs"), SLICE_BACKEND_CGROUPFS);
        assert_int_equal(slice_backend_from_string("systemd"), SLICE_BACKEND_SYSTEMD);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_int_equal(slice_backend_from_string(bad[i]), -EINVAL);
}

static void test_uses_systemd(void **state) {
        struct stat st;
        bool booted = lstat("/run/systemd/system/", &st) >= 0 && S_ISDIR(st.st_mode);
        SliceTarget t = { .layout = -1 };

        (void) state;
        /* sd_booted()'s own test, whatever this host is */
        assert_int_equal(systemd_booted(), booted);
        t.backend = SLICE_BACKEND_SYSTEMD;
        assert_true(slice_target_uses_systemd(&t));
        t.backend = SLICE_BACKEND_CGROUPFS;
        assert_false(slice_target_uses_systemd(&t));
        t.backend = SLICE_BACKEND_AUTO;
        assert_int_equal(slice_target_uses_systemd(&t), booted);
}

typedef struct Fx {
        char *dir;
        Cgfs c;
        CsError e;
} Fx;

static int setup(void **state) {
        Fx *f = calloc(1, sizeof *f);
        char p[PATH_MAX];

        if (!f || !(f->dir = scratch_dir()))
                return -1;
        snprintf(p, sizeof p, "%s/cpu", f->dir);
        if (mkdir(p, 0755) < 0)
                return -1;
        snprintf(p, sizeof p, "%s/unified", f->dir);
        if (mkdir(p, 0755) < 0)
                return -1;
        f->c.root_fd = -EBADF;
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fx *f = *state;

        cgfs_close(&f->c);
        rm_rf(f->dir);
        free(f->dir);
        free(f);
        return 0;
}

static void test_open_where(void **state) {
        static const struct {
                const char *parent, *slice_root;
                int layout;
                const char *slices; /* Cgfs.slices on success */
                CgroupLayoutKind kind;
        } cases[] = {
                { NULL, NULL, CGROUP_LAYOUT_UNIFIED, "user.slice", CGROUP_LAYOUT_UNIFIED },
                { "", NULL, CGROUP_LAYOUT_HYBRID, "user.slice", CGROUP_LAYOUT_HYBRID },
                { "test/p", NULL, CGROUP_LAYOUT_LEGACY, "test/p/user.slice", CGROUP_LAYOUT_LEGACY },
                { "test/p/", NULL, CGROUP_LAYOUT_LEGACY, "test/p/user.slice", CGROUP_LAYOUT_LEGACY },
                /* slice_root=: leading and trailing slashes go, "/" is each hierarchy's root */
                { NULL, "/", CGROUP_LAYOUT_UNIFIED, "", CGROUP_LAYOUT_UNIFIED },
                { NULL, "///", CGROUP_LAYOUT_UNIFIED, "", CGROUP_LAYOUT_UNIFIED },
                { NULL, "users", CGROUP_LAYOUT_HYBRID, "users", CGROUP_LAYOUT_HYBRID },
                { NULL, "/a/b//", CGROUP_LAYOUT_HYBRID, "a/b", CGROUP_LAYOUT_HYBRID },
                /* an empty parent beside a slice root is no parent */
                { "", "/flat", CGROUP_LAYOUT_LEGACY, "flat", CGROUP_LAYOUT_LEGACY },
        };
        Fx *f = *state;

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                SliceTarget t = { .backend = SLICE_BACKEND_CGROUPFS,
                                  .cgroup_root = f->dir,
                                  .parent = cases[i].parent,
                                  .slice_root = cases[i].slice_root,
                                  .layout = cases[i].layout,
                                  .allow_plain_tree = true };
                int r = slice_target_open_cgfs(&t, NULL, &f->c, &f->e);

                if (r < 0)
                        fail_msg("case %zu: %d %s", i, r, f->e.msg);
                assert_string_equal(f->c.slices, cases[i].slices);
                assert_int_equal(f->c.layout.kind, cases[i].kind);
                /* a plain tree stands in for cgroupfs only when allowed */
                assert_false(f->c.layout.check_fs);
                assert_true(f->c.root_fd >= 0);
                assert_ptr_equal(f->c.ops, &cgfs_default_ops);
                cgfs_close(&f->c);
        }
}

static void test_open_refused(void **state) {
        static const struct {
                const char *parent, *slice_root;
                int r;
                const char *msg;
        } cases[] = {
                { "p", "/s", -EINVAL, "parent and slice root both given; give one" },
                { "../up", NULL, -EINVAL, "bad cgroup parent '../up' (a relative path without . or ..)" },
                { "/abs", NULL, -EINVAL, "bad cgroup parent '/abs'" },
                { NULL, "a/../b", -EINVAL, "bad cgroup path 'a/../b' for the user slices" },
                { NULL, "/./", -EINVAL, "bad cgroup path '.' for the user slices" },
        };
        Fx *f = *state;
        char *longroot;

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                SliceTarget t = { .cgroup_root = f->dir,
                                  .parent = cases[i].parent,
                                  .slice_root = cases[i].slice_root,
                                  .layout = CGROUP_LAYOUT_UNIFIED,
                                  .allow_plain_tree = true };
                f->e = (CsError) {};
                assert_int_equal(slice_target_open_cgfs(&t, NULL, &f->c, &f->e), cases[i].r);
                if (!strstr(f->e.msg, cases[i].msg))
                        fail_msg("case %zu: '%s' lacks '%s'", i, f->e.msg, cases[i].msg);
                assert_int_equal(f->c.root_fd, -EBADF); /* nothing handed out */
        }
        /* a slice root longer than a path */
        longroot = malloc(PATH_MAX + 10);
        assert_non_null(longroot);
        memset(longroot, 'a', PATH_MAX + 9);
        longroot[PATH_MAX + 9] = '\0';
        {
                SliceTarget t = { .cgroup_root = f->dir, .slice_root = longroot, .layout = CGROUP_LAYOUT_UNIFIED };
                assert_int_equal(slice_target_open_cgfs(&t, NULL, &f->c, &f->e), -ENAMETOOLONG);
                assert_int_equal(f->e.code, -ENAMETOOLONG);
                /* the message quotes the whole value first, so CsError's 512 bytes end before "is too
                 * long" (a lib/ fix would quote a prefix); the start is all a reader gets */
                assert_int_equal(strncmp(f->e.msg, "slice root 'aaaa", 16), 0);
                assert_int_equal(strlen(f->e.msg), sizeof f->e.msg - 1);
        }
        free(longroot);
        /* no such cgroup root */
        {
                char p[PATH_MAX];
                SliceTarget t = { .cgroup_root = p, .layout = CGROUP_LAYOUT_HYBRID, .allow_plain_tree = true };
                snprintf(p, sizeof p, "%s/nonexistent", f->dir);
                assert_int_equal(slice_target_open_cgfs(&t, NULL, &f->c, &f->e), -ENOENT);
                assert_non_null(strstr(f->e.msg, "cannot open cgroup root"));
        }
        /* an unknown layout number */
        {
                SliceTarget t = { .cgroup_root = f->dir, .layout = 42 };
                assert_int_equal(slice_target_open_cgfs(&t, NULL, &f->c, &f->e), -EINVAL);
                assert_string_equal(f->e.msg, "unknown cgroup layout");
        }
}

/* detection (layout -1) reads mountinfo for mounts below the root: a scratch dir has none */
static void test_open_detect(void **state) {
        Fx *f = *state;
        SliceTarget t = { .cgroup_root = f->dir, .layout = -1, .allow_plain_tree = true };
        int r;

        r = slice_target_open_cgfs(&t, NULL, &f->c, &f->e);
        assert_true(r < 0);
        assert_int_equal(f->e.code, r);
        assert_non_null(strstr(f->e.msg, "no cgroup hierarchy with the cpu controller is mounted"));
        assert_int_equal(f->c.root_fd, -EBADF);
}

/* close_session passes the layout open saw: it is taken as it is, named layout and check alike */
static void test_open_known(void **state) {
        Fx *f = *state;
        CgroupLayout known = {};
        SliceTarget t = {
                .cgroup_root = f->dir, .parent = "p", .layout = CGROUP_LAYOUT_UNIFIED, .allow_plain_tree = true
        };

        assert_int_equal(cgroup_layout_named(f->dir, CGROUP_LAYOUT_HYBRID, &known, &f->e), 0);
        known.check_fs = true;
        assert_int_equal(slice_target_open_cgfs(&t, &known, &f->c, &f->e), 0);
        assert_int_equal(f->c.layout.kind, CGROUP_LAYOUT_HYBRID);
        assert_string_equal(f->c.layout.cpu.path, "cpu");
        assert_string_equal(f->c.layout.acct.path, "unified");
        assert_true(f->c.layout.check_fs);
        assert_string_equal(f->c.slices, "p/user.slice");
        /* a copy: the caller's may go */
        assert_ptr_not_equal(f->c.layout.cpu.path, known.cpu.path);
        cgroup_layout_done(&known);
}

/* allow_plain_tree: off, a named layout is checked to be cgroupfs; on, only where it is not */
static void test_plain_tree_check(void **state) {
        Fx *f = *state;
        SliceTarget t = { .cgroup_root = f->dir, .layout = CGROUP_LAYOUT_LEGACY };
        struct statfs s;

        assert_int_equal(slice_target_open_cgfs(&t, NULL, &f->c, &f->e), 0);
        assert_true(f->c.layout.check_fs);
        cgfs_close(&f->c);
        t.allow_plain_tree = true;
        assert_int_equal(slice_target_open_cgfs(&t, NULL, &f->c, &f->e), 0);
        assert_false(f->c.layout.check_fs);
        cgfs_close(&f->c);
        /* a real cgroup hierarchy stays checked, allowed or not (opened only, nothing written) */
        if (statfs("/sys/fs/cgroup/cpu", &s) < 0 ||
            (s.f_type != CGROUP_SUPER_MAGIC && s.f_type != CGROUP2_SUPER_MAGIC)) {
                print_message("no cgroupfs at /sys/fs/cgroup/cpu: the real-hierarchy half is not run here\n");
                return;
        }
        t.cgroup_root = "/sys/fs/cgroup";
        assert_int_equal(slice_target_open_cgfs(&t, NULL, &f->c, &f->e), 0);
        assert_true(f->c.layout.check_fs);
}

static void test_bus_settings(void **state) {
        Rule w = { .weight = 300 }, q = { .quota_per_sec = 500000 };
        Resolved res = { .matched = true, .slice = true, .limits = { 300, 500000, 100000 } };
        BusSliceSettings b;

        (void) state;
        b = slice_target_bus_settings(&res);
        /* nothing from the config: nothing given, whatever the limits hold (systemd's own files decide) */
        assert_false(b.weight_set);
        assert_false(b.quota_set);
        assert_false(b.period_set);
        res.source[SETTING_WEIGHT] = &w;
        res.source[SETTING_QUOTA] = &q;
        b = slice_target_bus_settings(&res);
        assert_true(b.weight_set);
        assert_true(b.quota_set);
        assert_false(b.period_set);
        assert_int_equal(b.limits.weight, 300);
        assert_int_equal(b.limits.quota_per_sec, 500000);
        assert_int_equal(b.limits.period_usec, 100000);
        res.source[SETTING_PERIOD] = &q;
        res.source[SETTING_SLICE] = &w;
        b = slice_target_bus_settings(&res);
        assert_true(b.period_set);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_backend_from_string),
                cmocka_unit_test(test_uses_systemd),
                T(test_open_where),
                T(test_open_refused),
                T(test_open_detect),
                T(test_open_known),
                T(test_plain_tree_check),
                cmocka_unit_test(test_bus_settings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
