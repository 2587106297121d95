/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroupfs backend's values: a second login re-applies changed settings (v2 cpu.weight,
 * cpu.max, cpu.idle; v1 cpu.shares, cpu.cfs_*), writes nothing that is unchanged, and goes to
 * and from CPUWeight=idle in the order the kernel accepts. */
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

#define V1 "cpu/" SLICE

/* A second login re-applies the (maybe changed) settings; those not given go back to defaults. */
static void test_reapply(void **state) {
        static const struct {
                TestLayout tl;
                const char *files[3];
                const char *first[3], *second[3];
        } cases[] = {
                { TL_UNIFIED,
                  { SLICE "/cpu.weight", SLICE "/cpu.max", SLICE "/cpu.idle" },
                  { "300\n", "50000 100000\n", "0\n" },
                  { "100\n", "max 100000\n", "0\n" } },
                { TL_LEGACY,
                  { V1 "/cpu.shares", V1 "/cpu.cfs_quota_us", V1 "/cpu.cfs_period_us" },
                  { "3072\n", "50000\n", "100000\n" },
                  { "1024\n", "-1\n", "100000\n" } },
                { TL_HYBRID,
                  { V1 "/cpu.shares", V1 "/cpu.cfs_quota_us", V1 "/cpu.cfs_period_us" },
                  { "3072\n", "50000\n", "100000\n" },
                  { "1024\n", "-1\n", "100000\n" } },
        };
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CpuKernelValues a = W300_Q50, b = DEFAULTS;
                CgfsSession s1 = {}, s2 = {};

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                open_tl(f, cases[i].tl, "", NULL);
                assert_int_equal(cgfs_open_session(&f->c, UID, "1", f->pid, &a, &s1, &f->e), 0);
                for (size_t j = 0; j < 3; j++)
                        assert_file(f, cases[i].files[j], cases[i].first[j]);
                assert_int_equal(cgfs_open_session(&f->c, UID, "2", f->pid, &b, &s2, &f->e), 0);
                for (size_t j = 0; j < 3; j++)
                        assert_file(f, cases[i].files[j], cases[i].second[j]);
                assert_string_equal(s2.scope, "session-2.scope");
                cgfs_session_done(&s1);
                cgfs_session_done(&s2);
        }
}

/* A second login with the same values writes no setting: they are read and found equal. */
static void test_reapply_unchanged_writes_nothing(void **state) {
        static const TestLayout tls[] = { TL_UNIFIED, TL_LEGACY, TL_HYBRID };
        static const char *const files[] = { "cpu.idle",   "cpu.weight",        "cpu.max",
                                             "cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us" };
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(tls); i++) {
                CpuKernelValues a = W300_Q50, b = W300_Q50, q = W300_Q50;
                CgfsSession s1 = {}, s2 = {}, s3 = {};
                unsigned writes = 0;

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                open_tl(f, tls[i], "", &fake_ops);
                assert_int_equal(cgfs_open_session(&f->c, UID, "1", f->pid, &a, &s1, &f->e), 0);
                fake_reset();
                assert_int_equal(cgfs_open_session(&f->c, UID, "2", f->pid, &b, &s2, &f->e), 0);
                for (size_t j = 0; j < ELEMENTSOF(files); j++)
                        writes += count_calls(OP_WRITE, files[j], false);
                assert_int_equal(writes, 0);
                /* one value changed: that file alone is written */
                q.quota_usec = 70000;
                fake_reset();
                assert_int_equal(cgfs_open_session(&f->c, UID, "3", f->pid, &q, &s3, &f->e), 0);
                writes = 0;
                for (size_t j = 0; j < ELEMENTSOF(files); j++)
                        writes += count_calls(OP_WRITE, files[j], false);
                assert_int_equal(writes, 1);
                assert_int_equal(count_calls(OP_WRITE, f->c.layout.cpu.v2 ? "cpu.max" : "cpu.cfs_quota_us", true), 1);
                cgfs_session_done(&s1);
                cgfs_session_done(&s2);
                cgfs_session_done(&s3);
        }
}

/* idle and back: cpu.weight is written again once idle is off */
static void test_reapply_idle_unified(void **state) {
        Fx *f = *state;
        CpuKernelValues idle = IDLE_Q05, k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_UNIFIED, "", NULL);
        assert_int_equal(cgfs_apply_slice(&f->c, UID, &idle, &f->e), 0);
        assert_file(f, SLICE "/cpu.idle", "1\n");
        assert_false(exists(f, SLICE "/cpu.weight"));
        assert_file(f, SLICE "/cpu.max", "1000 200000\n");
        assert_int_equal(cgfs_open_session(&f->c, UID, "3", f->pid, &k, &s, &f->e), 0);
        assert_file(f, SLICE "/cpu.idle", "0\n");
        assert_file(f, SLICE "/cpu.weight", "300\n");
        assert_file(f, SLICE "/cpu.max", "50000 100000\n");
        cgfs_session_done(&s);
}

/* v1 with cpu.idle (5.15+): idle is cpu.idle, and the kernel refuses cpu.shares while it is on,
 * so going back to a weight turns idle off first (the emulation refuses the other order) */
static void test_reapply_idle_legacy(void **state) {
        Fx *f = *state;
        CpuKernelValues idle = IDLE_Q05, k = W300_Q50;
        CgfsSession s = {};

        fake_reset();
        open_tl(f, TL_LEGACY, "", &fake_ops);
        fake.cgroupfs = true;
        mkdir_p(f, V1);
        put(f, V1 "/cpu.idle", "0\n");
        put(f, V1 "/cpu.shares", "1024\n");
        assert_int_equal(cgfs_apply_slice(&f->c, UID, &idle, &f->e), 0);
        assert_file(f, V1 "/cpu.idle", "1\n");
        assert_int_equal(count_calls(OP_WRITE, "cpu.shares", false), 0);
        assert_file(f, V1 "/cpu.cfs_quota_us", "1000\n");
        /* idle again: nothing to write for the weight */
        fake.n_calls = 0; /* the calls from here on; the hierarchies stay known */
        assert_int_equal(cgfs_apply_slice(&f->c, UID, &idle, &f->e), 0);
        assert_int_equal(count_calls(OP_WRITE, "cpu.idle", false) + count_calls(OP_WRITE, "cpu.shares", false), 0);
        /* and back */
        if (cgfs_open_session(&f->c, UID, "3", f->pid, &k, &s, &f->e) < 0)
                fail_msg("back from idle: %s", f->e.msg);
        assert_file(f, V1 "/cpu.idle", "0\n");
        assert_file(f, V1 "/cpu.shares", "3072\n");
        cgfs_session_done(&s);
        /* the emulation does refuse: shares written while idle fail */
        put(f, V1 "/cpu.idle", "1\n");
        fake.n_calls = 0; /* the calls from here on; the hierarchies stay known */
        {
                _cleanup_close_ int fd = openat(f->c.root_fd, V1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                assert_true(fd >= 0);
                assert_int_equal(cgfs_write_file(&f->c, fd, "cpu.shares", "2048\n", &f->e), -EINVAL);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_reapply),
                T(test_reapply_unchanged_writes_nothing),
                T(test_reapply_idle_unified),
                T(test_reapply_idle_legacy),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
