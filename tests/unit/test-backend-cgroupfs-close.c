/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroupfs backend closing sessions: the process moved back to where it came from (or its
 * nearest ancestor), scope before slice, a slice another session still uses kept, removal errors. */
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

/* On a plain directory rmdir of a scope with files in it fails with ENOTEMPTY: "populated". */
static void test_close_scratch(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_HYBRID, "", NULL);
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
        assert_true(exists(f, "cpu/" SCOPE));
        assert_true(exists(f, "unified/" SCOPE));
        /* moved back to where it came from (the hierarchy roots on this host) */
        if (s.orig_cpu && strcmp(s.orig_cpu, "/") == 0)
                assert_file(f, "cpu/cgroup.procs", f->pidline);
        if (s.orig_acct && strcmp(s.orig_acct, "/") == 0)
                assert_file(f, "unified/cgroup.procs", f->pidline);
        cgfs_session_done(&s);
}

static void test_close_emulated(void **state) {
        Fx *f = *state;

        for (TestLayout tl = 0; tl < _TL_MAX; tl++) {
                CpuKernelValues k = W300_Q50;
                CgfsSession s = {};
                char rel[256];
                size_t first;

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                open_tl(f, tl, "", &fake_ops);
                fake.cgroupfs = true;
                assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
                orig_at_roots(f, &s);
                first = fake.n_calls;
                assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
                /* back at the root of each hierarchy, out of the scope */
                snprintf(rel, sizeof rel, "%scgroup.procs", tl_cpu[tl]);
                assert_file(f, rel, f->pidline);
                if (tl_acct[tl]) {
                        snprintf(rel, sizeof rel, "%scgroup.procs", tl_acct[tl]);
                        assert_file(f, rel, f->pidline);
                }
                /* scope before slice, in each hierarchy; user.slice stays */
                {
                        const char *order[4];
                        size_t n = 0;
                        for (size_t j = first; j < fake.n_calls; j++)
                                if (fake.calls[j].op == OP_UNLINKAT) {
                                        assert_int_equal(fake.calls[j].r, 0);
                                        assert_true(n < 4);
                                        order[n++] = fake.calls[j].name;
                                }
                        assert_int_equal(n, tl_acct[tl] ? 4 : 2);
                        for (size_t j = 0; j < n; j += 2) {
                                assert_string_equal(order[j], "session-7.scope");
                                assert_string_equal(order[j + 1], "user-1001.slice");
                        }
                }
                snprintf(rel, sizeof rel, "%suser.slice", tl_cpu[tl]);
                assert_true(exists(f, rel));
                snprintf(rel, sizeof rel, "%s" SLICE, tl_cpu[tl]);
                assert_false(exists(f, rel));
                if (tl_acct[tl]) {
                        snprintf(rel, sizeof rel, "%s" SLICE, tl_acct[tl]);
                        assert_false(exists(f, rel));
                }
                /* closing again: nothing left to do */
                assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
                cgfs_session_done(&s);
        }
}

static void test_close_two_sessions(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession a = {}, b = {};

        open_tl(f, TL_HYBRID, "", &fake_ops);
        fake.cgroupfs = true;
        assert_int_equal(cgfs_open_session(&f->c, UID, "1", f->pid, &k, &a, &f->e), 0);
        /* a second login by another process of the same user */
        put(f, "cpu/" SLICE "/session-1.scope/cgroup.procs", "");
        put(f, "unified/" SLICE "/session-1.scope/cgroup.procs", "");
        assert_int_equal(cgfs_open_session(&f->c, UID, "2", f->pid, &k, &b, &f->e), 0);
        /* closing the first: its scope goes, the slice stays for the second (EBUSY is no error) */
        assert_int_equal(cgfs_close_session(&f->c, &a, f->pid, &f->e), 0);
        assert_false(exists(f, "cpu/" SLICE "/session-1.scope"));
        assert_false(exists(f, "unified/" SLICE "/session-1.scope"));
        assert_true(exists(f, "cpu/" SLICE "/session-2.scope"));
        assert_int_equal(count_calls(OP_UNLINKAT, "user-1001.slice", false), 2);
        assert_int_equal(count_calls(OP_UNLINKAT, "user-1001.slice", true), 0);
        /* a background job keeps the second scope (and so the slice) */
        put(f, "cpu/" SLICE "/session-2.scope/cgroup.procs", "999999\n");
        assert_int_equal(cgfs_close_session(&f->c, &b, f->pid, &f->e), 0);
        assert_file(f, "cpu/" SLICE "/session-2.scope/cgroup.procs", "999999\n");
        assert_false(exists(f, "unified/" SLICE "/session-2.scope"));
        assert_false(exists(f, "unified/" SLICE));
        assert_true(exists(f, "cpu/" SLICE "/cpu.shares"));
        cgfs_session_done(&a);
        cgfs_session_done(&b);
}

static void test_close_unlink_errors(void **state) {
        static const struct {
                int err;
                int r;
                const char *msg;
        } cases[] = {
                { EBUSY, 0, NULL },
                { ENOTEMPTY, 0, NULL },
                { EEXIST, 0, NULL },
                { ENOENT, 0, NULL },
                { EACCES, -EACCES, "cannot remove session-7.scope: Permission denied" },
                { EROFS, -EROFS, "cannot remove session-7.scope: Read-only file system" },
        };
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CpuKernelValues k = W300_Q50;
                CgfsSession s = {};

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                open_tl(f, TL_UNIFIED, "", &fake_ops);
                fake.cgroupfs = true;
                assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
                free(s.orig_cpu);
                s.orig_cpu = strdup("/");
                fake_add((Fault) { OP_UNLINKAT, "session-7.scope", cases[i].err });
                f->e = (CsError) {};
                assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), cases[i].r);
                if (cases[i].msg)
                        assert_string_equal(f->e.msg, cases[i].msg);
                /* moved back before anything is removed */
                assert_file(f, "cgroup.procs", f->pidline);
                assert_file(f, SCOPE "/cgroup.procs", "");
                assert_true(exists(f, SCOPE));
                cgfs_session_done(&s);
        }
}

/* The cgroup the process came from is gone: its nearest existing ancestor takes it. */
static void test_close_orig_gone(void **state) {
        static const struct {
                const char *orig, *mkdir, *procs;
        } cases[] = {
                { "/old/gone/deeper", "cpu/old", "cpu/old/cgroup.procs" },
                { "/old/gone", "cpu/old", "cpu/old/cgroup.procs" },
                { "/old", "cpu/old", "cpu/old/cgroup.procs" },
                { "/gone", NULL, "cpu/cgroup.procs" },
                { "/", NULL, "cpu/cgroup.procs" },
                { "", NULL, "cpu/cgroup.procs" },
                { "/user.slice/user-1001.slice/session-1.scope", "cpu/" SLICE "/session-1.scope",
                  "cpu/" SLICE "/session-1.scope/cgroup.procs" },
        };
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CpuKernelValues k = W300_Q50;
                CgfsSession s = {};

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                open_tl(f, TL_LEGACY_NOACCT, "", &fake_ops);
                fake.cgroupfs = true;
                if (cases[i].mkdir)
                        mkdir_p(f, cases[i].mkdir);
                assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
                free(s.orig_cpu);
                s.orig_cpu = strdup(cases[i].orig);
                assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
                assert_file(f, cases[i].procs, f->pidline);
                assert_false(exists(f, "cpu/" SCOPE));
                cgfs_session_done(&s);
        }
}

/* Without a remembered cgroup, nothing is moved (and on cgroupfs the scope then stays populated). */
static void test_close_no_orig(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_UNIFIED, "", &fake_ops);
        fake.cgroupfs = true;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        free(s.orig_cpu);
        s.orig_cpu = NULL;
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
        assert_int_equal(count_calls(OP_OPENAT, "cgroup.procs", false), 1); /* only the open's */
        assert_file(f, SCOPE "/cgroup.procs", f->pidline);
        assert_false(exists(f, "cgroup.procs"));
        cgfs_session_done(&s);
}

/* Moving back refused: the error is reported, and removal is still attempted. */
static void test_close_move_back_refused(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_HYBRID, "", &fake_ops);
        fake.cgroupfs = true;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        orig_at_roots(f, &s);
        fake_add((Fault) { OP_WRITE, "cgroup.procs", EACCES });
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), -EACCES);
        assert_non_null(strstr(f->e.msg, "to cgroup.procs: Permission denied"));
        /* still populated: left alone */
        assert_true(exists(f, "cpu/" SCOPE));
        assert_true(exists(f, "unified/" SCOPE));
        cgfs_session_done(&s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_close_scratch),           T(test_close_emulated),  T(test_close_two_sessions),
                T(test_close_unlink_errors),     T(test_close_orig_gone), T(test_close_no_orig),
                T(test_close_move_back_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
