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
#include <unistd.h>
#include <cmocka.h>

#include "cgfs-fake.h"
#include "macro.h"
#include "slice-read.h"
#include "test-util.h"

/* mkdir -p below the scratch root, then the files as name=content pairs */
static void make(const char *root, const char *dir, const char *const *files) {
        char path[1024], cmd[1200];

        snprintf(path, sizeof path, "%s/%s", root, dir);
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
        assert_int_equal(system(cmd), 0);
        for (size_t i = 0; files && files[i]; i += 2)
                assert_int_equal(write_file(path, files[i], files[i + 1], 0644), 0);
}

static Cgfs open_tree_ops(const char *root, CgroupLayoutKind kind, const char *parent, const CgfsOps *ops) {
        CgroupLayout l;
        CsError e = {};
        Cgfs c;

        assert_int_equal(cgroup_layout_named(root, kind, &l, &e), 0);
        assert_int_equal(cgfs_open(root, parent, &l, ops, &c, &e), 0);
        cgroup_layout_done(&l);
        return c;
}

static Cgfs open_tree(const char *root, CgroupLayoutKind kind, const char *parent) {
        return open_tree_ops(root, kind, parent, NULL);
}

static void test_unified(void **state) {
        const char *root = *state;
        char mypid[32];
        SliceList l = {};
        CsError e = {};
        Cgfs c;

        snprintf(mypid, sizeof mypid, "%d\n", (int) getpid());
        make(root, "user.slice/user-1001.slice",
             (const char *const[]) { "cpu.weight", "400\n", "cpu.max", "50000 100000\n", "cpu.idle", "0\n",
                                     "cpu.stat",
                                     "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n"
                                     "nr_periods 200\nnr_throttled 15\nthrottled_usec 123456\n",
                                     "cpu.pressure",
                                     "some avg10=3.25 avg60=0 avg300=0 total=9\n"
                                     "full avg10=1.00 avg60=0 avg300=0 total=1\n",
                                     NULL });
        make(root, "user.slice/user-1001.slice/session-10.scope",
             (const char *const[]) { "cgroup.procs", mypid, NULL });
        make(root, "user.slice/user-1001.slice/session-2.scope", (const char *const[]) { "cgroup.procs", "", NULL });
        make(root, "user.slice/user-1002.slice",
             (const char *const[]) { "cpu.weight", "100\n", "cpu.max", "max 100000\n", "cpu.idle", "1\n", NULL });
        /* not slices: ignored */
        make(root, "user.slice/user-abc.slice", NULL);
        make(root, "user.slice/other.slice", NULL);

        c = open_tree(root, CGROUP_LAYOUT_UNIFIED, "");
        assert_int_equal(slice_read_all(&c, SLICE_READ_PROCS, &l, &e), 0);
        assert_int_equal(l.n, 2);

        SliceInfo *a = &l.slices[0], *b = &l.slices[1];
        assert_int_equal(a->uid, 1001);
        assert_false(a->idle);
        assert_int_equal(a->weight, 400);
        assert_true(a->shares == CGSTAT_NONE);
        assert_true(a->have_quota);
        assert_int_equal(a->quota_usec, 50000);
        assert_int_equal(a->period_usec, 100000);
        assert_int_equal(a->stat.usage_usec, 1500000);
        assert_int_equal(a->stat.nr_periods, 200);
        assert_int_equal(a->stat.nr_throttled, 15);
        assert_int_equal(a->stat.throttled_usec, 123456);
        assert_true(a->pressure > 3.24 && a->pressure < 3.26);
        assert_int_equal(a->pressure_total_usec, 9);
        assert_int_equal(a->n_scopes, 2);
        assert_string_equal(a->scopes[0].name, "session-2.scope"); /* version order */
        assert_int_equal(a->scopes[0].n_pids, 0);
        assert_string_equal(a->scopes[1].name, "session-10.scope");
        assert_int_equal(a->scopes[1].n_pids, 1);
        assert_int_equal(a->scopes[1].pids[0], getpid());
        {
                char comm[64] = "";
                FILE *f = fopen("/proc/self/comm", "re");
                assert_non_null(f);
                assert_non_null(fgets(comm, sizeof comm, f));
                fclose(f);
                comm[strcspn(comm, "\n")] = '\0';
                assert_string_equal(a->scopes[1].comms[0], comm); /* "memcheck-amd64-" under valgrind */
        }

        assert_int_equal(b->uid, 1002);
        assert_true(b->idle);
        assert_true(b->have_quota && b->quota_usec == CPU_QUOTA_INFINITY);
        /* files the kernel did not give stay absent */
        assert_true(b->stat.usage_usec == CGSTAT_NONE);
        assert_true(b->pressure < 0);
        assert_true(b->pressure_total_usec == CGSTAT_NONE);
        assert_int_equal(b->n_scopes, 0);
        slice_list_done(&l);

        /* without SLICE_READ_SCOPES the count is still there */
        assert_int_equal(slice_read_all(&c, 0, &l, &e), 0);
        assert_int_equal(l.slices[0].n_scopes, 2);
        assert_null(l.slices[0].scopes);
        slice_list_done(&l);

        SliceInfo one;
        assert_int_equal(slice_read_one(&c, 1002, 0, &one, &e), 0);
        assert_int_equal(one.uid, 1002);
        slice_info_done(&one);
        assert_int_equal(slice_read_one(&c, 1003, 0, &one, &e), -ENOENT);

        UsageSample *u;
        size_t n;
        assert_int_equal(slice_read_usage(&c, &u, &n, &e), 0);
        assert_int_equal(n, 2);
        assert_int_equal(u[0].uid + u[1].uid, 1001 + 1002);
        assert_int_equal(u[0].uid == 1001 ? u[0].usage_usec : u[1].usage_usec, 1500000);
        free(u);
        cgfs_close(&c);
}

static void test_legacy_with_cpuacct(void **state) {
        const char *root = *state;
        SliceList l = {};
        CsError e = {};
        Cgfs c;

        make(root, "cpu/test/user.slice/user-1001.slice",
             (const char *const[]) { "cpu.shares", "4096\n", "cpu.cfs_quota_us", "-1\n", "cpu.cfs_period_us",
                                     "100000\n", "cpu.stat",
                                     "nr_periods 10\nnr_throttled 3\nthrottled_time 2500000000\n", NULL });
        make(root, "cpu/test/user.slice/user-1001.slice/session-1.scope", NULL);
        make(root, "cpuacct/test/user.slice/user-1001.slice",
             (const char *const[]) { "cpuacct.usage", "7000000000\n", NULL });
        /* a slice present only in the cpu hierarchy has no usage */
        make(root, "cpu/test/user.slice/user-1500.slice",
             (const char *const[]) { "cpu.shares", "2\n", "cpu.cfs_quota_us", "25000\n", "cpu.cfs_period_us",
                                     "50000\n", NULL });

        c = open_tree(root, CGROUP_LAYOUT_LEGACY, "test");
        assert_int_equal(slice_read_all(&c, SLICE_READ_SCOPES, &l, &e), 0);
        assert_int_equal(l.n, 2);
        assert_int_equal(l.slices[0].shares, 4096);
        assert_true(l.slices[0].weight == CGSTAT_NONE);
        assert_true(l.slices[0].quota_usec == CPU_QUOTA_INFINITY);
        assert_int_equal(l.slices[0].period_usec, 100000);
        assert_int_equal(l.slices[0].stat.usage_usec, 7000000);
        assert_int_equal(l.slices[0].stat.throttled_usec, 2500000);
        assert_int_equal(l.slices[0].stat.nr_throttled, 3);
        assert_true(l.slices[0].pressure < 0); /* no cgroup2 anywhere: no PSI */
        assert_true(l.slices[0].pressure_total_usec == CGSTAT_NONE);
        assert_int_equal(l.slices[0].n_scopes, 1);
        assert_int_equal(l.slices[1].uid, 1500);
        assert_int_equal(l.slices[1].shares, 2);
        assert_int_equal(l.slices[1].quota_usec, 25000);
        assert_int_equal(l.slices[1].period_usec, 50000);
        assert_true(l.slices[1].stat.usage_usec == CGSTAT_NONE);
        slice_list_done(&l);

        /* a slice whose control files cannot be read: every figure absent, nothing made up */
        make(root, "cpu/test/user.slice/user-1600.slice", NULL);
        assert_int_equal(slice_read_all(&c, 0, &l, &e), 0);
        assert_int_equal(l.n, 3);
        assert_false(l.slices[2].have_quota);
        assert_true(l.slices[2].shares == CGSTAT_NONE);
        assert_true(l.slices[2].period_usec == CGSTAT_NONE);
        assert_true(l.slices[2].stat.nr_periods == CGSTAT_NONE);
        slice_list_done(&l);
        cgfs_close(&c);
}

static void test_hybrid(void **state) {
        const char *root = *state;
        SliceList l = {};
        CsError e = {};
        Cgfs c;

        make(root, "cpu/user.slice/user-1001.slice",
             (const char *const[]) { "cpu.shares", "1024\n", "cpu.cfs_quota_us", "50000\n", "cpu.cfs_period_us",
                                     "100000\n", "cpu.stat", "nr_periods 4\nnr_throttled 1\nthrottled_time 1000\n",
                                     NULL });
        make(root, "unified/user.slice/user-1001.slice",
             (const char *const[]) { "cpu.stat", "usage_usec 999\nuser_usec 900\nsystem_usec 99\n", "cpu.pressure",
                                     "some avg10=12.50 avg60=0 avg300=0 total=4242\n", NULL });

        c = open_tree(root, CGROUP_LAYOUT_HYBRID, NULL);
        assert_int_equal(slice_read_all(&c, 0, &l, &e), 0);
        assert_int_equal(l.n, 1);
        assert_int_equal(l.slices[0].stat.usage_usec, 999);
        assert_int_equal(l.slices[0].stat.user_usec, 900);
        assert_int_equal(l.slices[0].stat.nr_periods, 4);
        assert_int_equal(l.slices[0].stat.throttled_usec, 1);
        assert_true(l.slices[0].pressure > 12.4 && l.slices[0].pressure < 12.6);
        assert_int_equal(l.slices[0].pressure_total_usec, 4242); /* from the cgroup2 mirror */
        slice_list_done(&l);
        cgfs_close(&c);

        /* what a penalty pass needs, and only the files it needs: no settings, throttling,
         * pressure or scopes; each directory opened once */
        fake_reset();
        c = open_tree_ops(root, CGROUP_LAYOUT_HYBRID, NULL, &fake_ops);
        assert_int_equal(slice_read_all(&c, SLICE_READ_USAGE | SLICE_READ_QUOTA, &l, &e), 0);
        assert_int_equal(l.n, 1);
        assert_int_equal(l.slices[0].stat.usage_usec, 999);
        assert_true(l.slices[0].have_quota);
        assert_int_equal(l.slices[0].quota_usec, 50000);
        assert_true(l.slices[0].period_usec == CGSTAT_NONE); /* v1: a file of its own, not asked for */
        assert_true(l.slices[0].shares == CGSTAT_NONE);
        assert_true(l.slices[0].stat.nr_periods == CGSTAT_NONE);
        assert_true(l.slices[0].pressure < 0);
        assert_true(l.slices[0].pressure_total_usec == CGSTAT_NONE);
        assert_int_equal(l.slices[0].n_scopes, 0);
        slice_list_done(&l);
        assert_int_equal(count_calls(OP_OPENAT, "cpu.stat", false), 1); /* the mirror's */
        assert_int_equal(count_calls(OP_OPENAT, "cpu.shares", false), 0);
        assert_int_equal(count_calls(OP_OPENAT, "cpu.idle", false), 0);
        assert_int_equal(count_calls(OP_OPENAT, "cpu.cfs_period_us", false), 0);
        assert_int_equal(count_calls(OP_OPENAT, "cpu.pressure", false), 0);
        assert_int_equal(count_calls(OP_OPENAT, "user-1001.slice", false), 2); /* cpu and mirror */
        assert_int_equal(count_calls(OP_GETDENTS, "user-1001.slice", false), 0);
        /* the full read lists the scopes on the slice's own fd: no second open of it */
        fake_reset();
        assert_int_equal(slice_read_all(&c, 0, &l, &e), 0);
        assert_int_equal(l.slices[0].pressure_total_usec, 4242);
        slice_list_done(&l);
        assert_int_equal(count_calls(OP_OPENAT, ".", false), 0);
        assert_int_equal(count_calls(OP_OPENAT, "user-1001.slice", false), 2);
        assert_true(count_calls(OP_GETDENTS, "user-1001.slice", false) >= 1);
        /* usage alone: no settings file read */
        fake_reset();
        assert_int_equal(slice_read_all(&c, SLICE_READ_USAGE, &l, &e), 0);
        assert_int_equal(l.slices[0].stat.usage_usec, 999);
        assert_false(l.slices[0].have_quota);
        assert_true(l.slices[0].quota_usec == CGSTAT_NONE && l.slices[0].period_usec == CGSTAT_NONE);
        slice_list_done(&l);
        assert_int_equal(count_calls(OP_OPENAT, "cpu.cfs_quota_us", false), 0);
        cgfs_close(&c);
}

/* The real CgfsOps read a pass's files past the slice's directory (one openat2() each, see
 * cgfs_read_child_file_buf()): the same figures, and a symlink is still not followed, for a
 * control file nor for a slice; an absent file is absent, the slice still there. */
static void test_pass_past_the_directory(void **state) {
        const char *root = *state;
        char path[1024];
        SliceList l = {};
        CsError e = {};
        Cgfs c;

        make(root, "cpu/user.slice/user-1001.slice", (const char *const[]) { "cpu.cfs_quota_us", "50000\n", NULL });
        make(root, "unified/user.slice/user-1001.slice",
             (const char *const[]) { "cpu.stat", "usage_usec 999\nuser_usec 900\nsystem_usec 99\n", NULL });
        make(root, "cpu/user.slice/user-1002.slice", NULL); /* no quota file */
        make(root, "unified/user.slice/user-1002.slice", NULL);
        make(root, "elsewhere", (const char *const[]) { "cpu.stat", "usage_usec 5\n", "quota", "7\n", NULL });
        snprintf(path, sizeof path, "%s/unified/user.slice/user-1002.slice/cpu.stat", root);
        assert_int_equal(symlink("../../../elsewhere/cpu.stat", path), 0);
        snprintf(path, sizeof path, "%s/cpu/user.slice/user-1002.slice/cpu.cfs_quota_us", root);
        assert_int_equal(symlink("../../../elsewhere/quota", path), 0);
        snprintf(path, sizeof path, "%s/cpu/user.slice/user-1003.slice", root);
        assert_int_equal(symlink("../../elsewhere", path), 0);

        c = open_tree(root, CGROUP_LAYOUT_HYBRID, NULL);
        assert_int_equal(slice_read_all(&c, SLICE_READ_USAGE | SLICE_READ_QUOTA, &l, &e), 0);
        assert_int_equal(l.n, 2);
        assert_int_equal(l.slices[0].uid, 1001);
        assert_int_equal(l.slices[0].stat.usage_usec, 999);
        assert_true(l.slices[0].have_quota);
        assert_int_equal(l.slices[0].quota_usec, 50000);
        assert_int_equal(l.slices[1].uid, 1002);
        assert_true(l.slices[1].stat.usage_usec == CGSTAT_NONE);
        assert_false(l.slices[1].have_quota);
        assert_int_equal(l.n_skipped, 1);
        assert_int_equal(l.skipped[0].error, -ENOTDIR);
        slice_list_done(&l);
        cgfs_close(&c);
}

static void test_no_user_slice(void **state) {
        const char *root = *state;
        SliceList l = {};
        CsError e = {};
        Cgfs c;

        make(root, "cpu", NULL);
        c = open_tree(root, CGROUP_LAYOUT_LEGACY, NULL);
        assert_int_equal(slice_read_all(&c, 0, &l, &e), 0);
        assert_int_equal(l.n, 0);
        cgfs_close(&c);
}

static const char *const slice_files[] = { "cpu.weight", "200\n",
                                           "cpu.max",    "max 100000\n",
                                           "cpu.stat",   "usage_usec 700\nuser_usec 600\nsystem_usec 100\n",
                                           NULL };

static const SkippedSlice *find_skipped(const SliceList *l, const char *name) {
        for (size_t i = 0; i < l->n_skipped; i++)
                if (strcmp(l->skipped[i].name, name) == 0)
                        return &l->skipped[i];
        return NULL;
}

/* one slice a reader cannot trust or read is named and left out; the rest are read */
static void test_skips_and_goes_on(void **state) {
        const char *root = *state;
        char path[1024];
        const SkippedSlice *sk;
        SliceList l = {};
        SliceInfo one;
        CsError e = {};
        Cgfs c;

        make(root, "user.slice/user-1001.slice", slice_files);
        make(root, "user.slice/user-1001.slice/session-1.scope", (const char *const[]) { "cgroup.procs", "", NULL });
        /* delegated (a container runtime's, or Delegate=yes): read-only, shown with its owner */
        make(root, "user.slice/user-1002.slice", slice_files);
        snprintf(path, sizeof path, "%s/user.slice/user-1002.slice", root);
        if (geteuid() == 0)
                assert_int_equal(chown(path, 1002, 1002), 0);
        /* not directories: a file and a symlink with a slice's name */
        assert_int_equal(write_file(root, "user.slice/user-1234.slice", "planted\n", 0644), 0);
        snprintf(path, sizeof path, "%s/user.slice/user-1235.slice", root);
        assert_int_equal(symlink("user-1001.slice", path), 0);
        /* one that cannot be opened */
        make(root, "user.slice/user-1003.slice", slice_files);

        fake_reset();
        fake_add((Fault) { OP_OPENAT, "user-1003.slice", EACCES });
        c = open_tree_ops(root, CGROUP_LAYOUT_UNIFIED, "", &fake_ops);
        assert_int_equal(slice_read_all(&c, SLICE_READ_SCOPES, &l, &e), 0);
        assert_int_equal(l.n, 2);
        assert_int_equal(l.slices[0].uid, 1001);
        assert_int_equal(l.slices[0].owner, geteuid());
        assert_int_equal(l.slices[0].n_scopes, 1);
        assert_int_equal(l.slices[1].uid, 1002);
        assert_int_equal(l.slices[1].weight, 200);
        assert_int_equal(l.slices[1].stat.usage_usec, 700);
        if (geteuid() == 0)
                assert_int_equal(l.slices[1].owner, 1002);
        assert_int_equal(l.n_skipped, 3);
        assert_non_null(sk = find_skipped(&l, "user-1234.slice"));
        assert_int_equal(sk->error, -ENOTDIR);
        assert_non_null(strstr(sk->reason, "not a directory"));
        assert_non_null(sk = find_skipped(&l, "user-1235.slice"));
        assert_int_equal(sk->error, -ENOTDIR);
        assert_non_null(sk = find_skipped(&l, "user-1003.slice"));
        assert_int_equal(sk->error, -EACCES);
        assert_string_equal(sk->reason, "permission denied");
        slice_list_done(&l);

        /* the same for one slice: an error other than -ENOENT, with the reason */
        assert_int_equal(slice_read_one(&c, 1234, 0, &one, &e), -ENOTDIR);
        assert_non_null(strstr(e.msg, "not a directory"));
        assert_int_equal(slice_read_one(&c, 1002, 0, &one, &e), 0);
        slice_info_done(&one);
        cgfs_close(&c);
}

/* user-1001.slice and user-1002.slice, read through the fake ops */
static Cgfs two_slices(const char *root) {
        make(root, "user.slice/user-1001.slice", slice_files);
        make(root, "user.slice/user-1002.slice", slice_files);
        return open_tree_ops(root, CGROUP_LAYOUT_UNIFIED, "", &fake_ops);
}

/* slice_read_all() with one fault: it succeeds, and skips nothing */
static void read_with_fault(Cgfs *c, Fault ft, SliceReadFlags flags, SliceList *ret) {
        CsError e = {};

        fake_reset();
        fake_add(ft);
        assert_int_equal(slice_read_all(c, flags, ret, &e), 0);
        assert_int_equal(ret->n_skipped, 0);
}

/* an unreadable control file leaves its figure absent; the slice and the others are still there */
static void test_unreadable_cpu_stat(void **state) {
        static const Fault faults[] = {
                /* EACCES at open, EIO while reading */
                { OP_OPENAT, "cpu.stat", EACCES, .under = "/user-1001.slice/" },
                { OP_READ, "cpu.stat", EIO, .under = "/user-1001.slice/" },
        };
        Cgfs c = two_slices(*state);
        SliceList l = {};

        for (size_t i = 0; i < ELEMENTSOF(faults); i++) {
                read_with_fault(&c, faults[i], 0, &l);
                assert_int_equal(l.n, 2);
                assert_true(l.slices[0].stat.usage_usec == CGSTAT_NONE);
                assert_true(l.slices[0].stat.nr_periods == CGSTAT_NONE);
                assert_int_equal(l.slices[0].weight, 200);
                assert_int_equal(l.slices[1].stat.usage_usec, 700);
                slice_list_done(&l);
        }
        cgfs_close(&c);
}

/* a slice removed while it is read (its last session closed) is not there: not an error, not skipped */
static void test_vanishes_mid_read(void **state) {
        static const Fault faults[] = {
                /* listing its scopes finds the directory gone, or ENODEV */
                { OP_GETDENTS, "user-1002.slice", ENOENT },
                { OP_GETDENTS, "user-1002.slice", ENODEV },
        };
        Cgfs c = two_slices(*state);
        SliceList l = {};
        CsError e = {};

        for (size_t i = 0; i < ELEMENTSOF(faults); i++) {
                read_with_fault(&c, faults[i], SLICE_READ_SCOPES, &l);
                assert_int_equal(l.n, 1);
                assert_int_equal(l.slices[0].uid, 1001);
                slice_list_done(&l);
        }
        /* one that cannot be listed for another reason is skipped, with it */
        fake_reset();
        fake_add((Fault) { OP_GETDENTS, "user-1002.slice", EIO });
        assert_int_equal(slice_read_all(&c, 0, &l, &e), 0);
        assert_int_equal(l.n, 1);
        assert_int_equal(l.n_skipped, 1);
        assert_int_equal(l.skipped[0].error, -EIO);
        slice_list_done(&l);
        /* and for one slice it is no running slice */
        fake_reset();
        fake_add((Fault) { OP_GETDENTS, "user-1002.slice", ENOENT });
        SliceInfo one;
        assert_int_equal(slice_read_one(&c, 1002, SLICE_READ_SCOPES, &one, &e), -ENOENT);
        cgfs_close(&c);
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, scratch_setup, scratch_teardown)
        const struct CMUnitTest tests[] = {
                T(test_unified),           T(test_legacy_with_cpuacct),     T(test_hybrid),
                T(test_no_user_slice),     T(test_skips_and_goes_on),       T(test_unreadable_cpu_stat),
                T(test_vanishes_mid_read), T(test_pass_past_the_directory),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
