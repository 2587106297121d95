/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroupfs backend in hostile trees: symlinks and files planted where a slice, scope,
 * hierarchy or control file goes, delegated cgroups (not root's), a tree that is not cgroupfs.
 * Nothing is created or written through what was planted. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgfs-fixture.h"

/* ---- hostile trees ---- */

typedef struct HostileCase {
        TestLayout tl;
        const char *where; /* below the root */
        bool symlink;      /* else a regular file */
        const char *id;
        const char *msg;
} HostileCase;

static const HostileCase hostile_cases[] = {
        { TL_UNIFIED, "user.slice", true, "7", "user.slice is not a directory" },
        { TL_UNIFIED, SLICE, true, "7", "user-1001.slice is not a directory" },
        { TL_UNIFIED, SCOPE, true, "7", "session-7.scope is not a directory" },
        { TL_UNIFIED, "user.slice", false, "7", "user.slice is not a directory" },
        { TL_UNIFIED, SLICE, false, "7", "user-1001.slice is not a directory" },
        { TL_UNIFIED, SCOPE, false, "7", "session-7.scope is not a directory" },
        { TL_HYBRID, "cpu/user.slice", true, "7", "user.slice is not a directory" },
        { TL_HYBRID, "cpu/" SLICE, true, "7", "user-1001.slice is not a directory" },
        { TL_HYBRID, "cpu/" SCOPE, true, "7", "session-7.scope is not a directory" },
        { TL_HYBRID, "cpu/" SLICE, false, "7", "user-1001.slice is not a directory" },
        /* the accounting mirror is walked the same way */
        { TL_HYBRID, "unified/user.slice", true, "7", "user.slice is not a directory" },
        { TL_HYBRID, "unified/" SLICE, true, NULL, "user-1001.slice is not a directory" },
        { TL_HYBRID, "unified/" SCOPE, true, "7", "session-7.scope is not a directory" },
        { TL_LEGACY, "cpuacct/" SLICE, false, "7", "user-1001.slice is not a directory" },
        /* a hierarchy that is a regular file */
        { TL_HYBRID, "unified", false, "7", "unified" },
        /* a control file: O_NOFOLLOW */
        { TL_UNIFIED, SLICE "/cpu.max", true, "7",
          "cannot open cpu.max for writing: Too many levels of symbolic links" },
        { TL_LEGACY, "cpu/" SLICE "/cpu.shares", true, "7", "cannot open cpu.shares for writing: Too many levels" },
        { TL_UNIFIED, SCOPE "/cgroup.procs", true, "7", "cannot open cgroup.procs for writing: Too many levels" },
        { TL_UNIFIED, "user.slice/cgroup.subtree_control", true, "7", "cannot open cgroup.subtree_control" },
};

static void test_hostile(void **state) {
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(hostile_cases); i++) {
                const HostileCase *t = &hostile_cases[i];
                CpuKernelValues k = W300_Q50;
                CgfsSession s = { .uid = 4242 };
                char path[1024], *before, *after, dir[1024];
                int r;

                rm_rf(f->root);
                rm_rf(f->outside);
                assert_int_equal(mkdir(f->root, 0755), 0);
                assert_int_equal(mkdir(f->outside, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                /* parents of the planted thing exist (left over from earlier logins) */
                snprintf(dir, sizeof dir, "%s", t->where);
                if (strrchr(dir, '/')) {
                        *strrchr(dir, '/') = '\0';
                        mkdir_p(f, dir);
                }
                snprintf(path, sizeof path, "%s/%s", f->root, t->where);
                if (t->symlink)
                        assert_int_equal(symlink(f->outside, path), 0);
                else
                        put(f, t->where, "");
                /* a planted control file symlink points at a file outside */
                if (t->symlink && (strncmp(strrchr(path, '/') + 1, "cpu.", 4) == 0 ||
                                   strncmp(strrchr(path, '/') + 1, "cgroup.", 7) == 0)) {
                        assert_int_equal(unlink(path), 0);
                        snprintf(dir, sizeof dir, "%s/target", f->outside);
                        assert_int_equal(write_file(f->outside, "target", "untouched\n", 0644), 0);
                        assert_int_equal(symlink(dir, path), 0);
                }
                before = manifest(f->outside);
                open_tl(f, t->tl, "", &fake_ops);
                r = cgfs_open_session(&f->c, UID, t->id, f->pid, &k, &s, &f->e);
                if (r >= 0 || !strstr(f->e.msg, t->msg))
                        fail_msg("case %zu (%s %s): r=%d msg '%s'", i, tl_names[t->tl], t->where, r, f->e.msg);
                assert_int_equal(f->e.code, r);
                assert_int_equal(s.uid, 4242); /* untouched */
                assert_null(s.orig_cpu);
                after = manifest(f->outside);
                assert_string_equal(before, after);
                free(before);
                free(after);
                /* nothing is created through a planted link, and it is left where it was */
                assert_true(exists(f, t->where));
        }
}

static int count_entries(const char *path) {
        DIR *d = opendir(path);
        struct dirent *de;
        int n = 0;

        assert_non_null(d);
        while ((de = readdir(d)))
                n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
        closedir(d);
        return n;
}

/* A cgroup on the path that is not root's was delegated: its owner could turn off +cpu, plant
 * a scope, or freeze root's processes there. Nothing is joined or written below it. */
static void test_delegated_refused(void **state) {
        static const struct {
                TestLayout tl;
                const char *where;
        } cases[] = {
                { TL_UNIFIED, "user.slice" }, { TL_UNIFIED, SLICE },           { TL_UNIFIED, SCOPE },
                { TL_HYBRID, "cpu/" SLICE },  { TL_HYBRID, "unified/" SCOPE },
        };
        Fx *f = *state;

        REQUIRE_ROOT();
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CpuKernelValues k = W300_Q50;
                CgfsSession s = { .uid = 4242 };
                char path[1024];
                int r;

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                mkdir_p(f, cases[i].where);
                snprintf(path, sizeof path, "%s/%s", f->root, cases[i].where);
                assert_int_equal(chown(path, 1001, 1001), 0);
                open_tl(f, cases[i].tl, "", NULL);
                r = cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e);
                if (r != -EPERM || !strstr(f->e.msg, "owned by uid 1001, not root"))
                        fail_msg("%s: r=%d msg '%s'", cases[i].where, r, f->e.msg);
                assert_int_equal(s.uid, 4242);
                /* nothing created or written in it (a scratch tree gets its files from us) */
                assert_int_equal(count_entries(path), 0);
        }
}

/* A cpu scope created before the mirror refused us is removed again. */
static void test_hostile_mirror_cleanup(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};
        char path[1024];

        mkdir_p(f, "unified/user.slice");
        snprintf(path, sizeof path, "%s/unified/" SLICE, f->root);
        assert_int_equal(symlink(f->outside, path), 0);
        open_tl(f, TL_HYBRID, "", NULL);
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -ENOTDIR);
        assert_false(exists(f, "cpu/" SCOPE));
        assert_true(exists(f, "cpu/" SLICE "/cpu.shares"));
        assert_tree(f->outside, f->pid, "");
}

static void test_check_fs(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};
        CgroupLayout l = {};

        mkdir_p(f, "cpu");
        mkdir_p(f, "unified");
        assert_int_equal(cgroup_layout_named(f->root, CGROUP_LAYOUT_HYBRID, &l, &f->e), 0);
        l.check_fs = true;
        assert_int_equal(cgfs_open(f->root, "", &l, &fake_ops, &f->c, &f->e), 0);
        cgroup_layout_done(&l);
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EXDEV);
        assert_non_null(strstr(f->e.msg, "cpu is not on cgroupfs"));
        assert_non_null(strstr(f->e.msg, "refused"));
        assert_int_equal(cgfs_apply_slice(&f->c, UID, &k, &f->e), -EXDEV);
        assert_int_equal(cgfs_update_slice(&f->c, UID, &k, &f->e), -EXDEV);
        assert_int_equal(cgfs_gc(&f->c, &f->e), -EXDEV);
        assert_int_equal(cgfs_open_dir(&f->c, f->c.root_fd, ".", &f->e), -EXDEV);
        assert_tree(f->root, f->pid, "cpu/", "unified/");
        /* fstatfs itself failing */
        fake_add((Fault) { OP_FSTATFS, "cpu", EIO });
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EIO);
        assert_string_equal(f->e.msg, "fstatfs cpu: Input/output error");
        /* unified at the root: the root itself is checked */
        cgfs_close(&f->c);
        assert_int_equal(cgroup_layout_named(f->root, CGROUP_LAYOUT_UNIFIED, &l, &f->e), 0);
        l.check_fs = true;
        assert_int_equal(cgfs_open(f->root, "", &l, NULL, &f->c, &f->e), 0);
        cgroup_layout_done(&l);
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EXDEV);
        assert_non_null(strstr(f->e.msg, "not on cgroupfs"));
        assert_tree(f->root, f->pid, "cpu/", "unified/");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_hostile),
                T(test_hostile_mirror_cleanup),
                T(test_delegated_refused),
                T(test_check_fs),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
