/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "macro.h"
#include "penalty-sample.h"
#include "test-util.h"
#include "time-util.h"

#define S USEC_PER_SEC
#define WINDOW (10 * S)

DEFINE_SCRATCH_FIXTURE(root)

/* procs: pairs of (pid, cpu seconds), start tick = pid */
static void add(PenaltySamples *s, uint64_t t, uint64_t usage, size_t n, const uint64_t *procs) {
        PenaltyProc *v = n ? calloc(n, sizeof *v) : NULL;

        for (size_t i = 0; i < n; i++)
                v[i] = (PenaltyProc) { (pid_t) procs[2 * i], procs[2 * i], procs[2 * i + 1] * S };
        assert_int_equal(penalty_samples_add(s, t * S, usage * S, v, n, WINDOW), 0);
}

/* Until the history reaches a whole window back there is no verdict; then the rate over it. */
static void test_window(void **state) {
        _cleanup_(penalty_samples_done) PenaltySamples s = {};

        add(&s, 100, 0, 0, NULL);
        assert_int_equal(penalty_samples_use(&s, WINDOW), PENALTY_USE_UNKNOWN);
        add(&s, 105, 10, 0, NULL);
        assert_int_equal(penalty_samples_use(&s, WINDOW), PENALTY_USE_UNKNOWN);
        add(&s, 110, 20, 0, NULL); /* 20 s of CPU in 10 s: two CPUs */
        assert_int_equal(penalty_samples_use(&s, WINDOW), 2 * S);
        add(&s, 115, 25, 0, NULL); /* from 105: 15 s in 10 s */
        assert_int_equal(penalty_samples_use(&s, WINDOW), 3 * S / 2);
        /* only what a window needs is kept: the start (105) and after */
        assert_int_equal(s.n, 3);
        assert_int_equal(s.samples[0].time, 105 * S);
}

/* Exempt processes' time comes off: per process, since the last pass, all of it for a new one;
 * a reused pid with another start time is a new process. */
static void test_exempt(void **state) {
        _cleanup_(penalty_samples_done) PenaltySamples s = {};

        add(&s, 0, 0, 1, (uint64_t[]) { 7, 50 });        /* before counting started: not in any window */
        add(&s, 5, 10, 2, (uint64_t[]) { 7, 54, 8, 3 }); /* 4 + 3 exempt of 10 */
        add(&s, 10, 20, 1, (uint64_t[]) { 7, 56 });      /* 2 exempt; 8 gone */
        assert_int_equal(s.samples[2].exempt_usec, 9 * S);
        assert_int_equal(penalty_samples_use(&s, WINDOW), 11 * S / 10);
        add(&s, 15, 30, 1, (uint64_t[]) { 7, 1 });               /* a time that went back (it cannot, same start) */
        assert_int_equal(s.samples[s.n - 1].exempt_usec, 9 * S); /* min(before, now): nothing negative */
}

/* The measured span starts inside the window (an irregular pass does not stretch it back), but
 * passes sparser than the window measure from the last one before it. */
static void test_window_start(void **state) {
        _cleanup_(penalty_samples_done) PenaltySamples s = {}, t = {};

        add(&s, 0, 0, 0, NULL);
        add(&s, 30, 30, 0, NULL);
        assert_int_equal(penalty_samples_use(&s, WINDOW), S); /* sparse: 0..30 */
        add(&s, 38, 46, 0, NULL);
        assert_int_equal(penalty_samples_use(&s, WINDOW), 2 * S); /* 30..38, not 0..38 */
        /* passes far closer than the history can hold for a window: the newest moves on */
        add(&t, 0, 0, 0, NULL);
        for (uint64_t i = 1; i <= 100; i++)
                assert_int_equal(penalty_samples_add(&t, i, i, NULL, 0, WINDOW), 0);
        assert_int_equal(t.n, 2);
}

/* An exempt process first seen now counts only if it started since the last pass: what an older
 * one used before is not this window's. */
static void test_exempt_new_old(void **state) {
        _cleanup_(penalty_samples_done) PenaltySamples s = {};
        PenaltyProc *v = calloc(2, sizeof *v);
        uint64_t tick = S / (uint64_t) sysconf(_SC_CLK_TCK);

        assert_non_null(v);
        add(&s, 100, 0, 0, NULL);
        v[0] = (PenaltyProc) { 7, 50 * S / tick, 40 * S }; /* started at 50 s: before the last pass */
        v[1] = (PenaltyProc) { 8, 105 * S / tick, 3 * S }; /* started at 105 s */
        assert_int_equal(penalty_samples_add(&s, 110 * S, 20 * S, v, 2, WINDOW), 0);
        assert_int_equal(s.samples[1].exempt_usec, 3 * S);
}

/* More exempt time than use (children reaped into an exempt parent) is no use, not less than none. */
static void test_exempt_clamped(void **state) {
        _cleanup_(penalty_samples_done) PenaltySamples s = {};

        add(&s, 0, 0, 0, NULL);
        add(&s, 10, 5, 1, (uint64_t[]) { 9, 30 });
        assert_int_equal(penalty_samples_use(&s, WINDOW), 0);
}

/* A usage counter that went back is a new slice: the history starts again. */
static void test_counter_reset(void **state) {
        _cleanup_(penalty_samples_done) PenaltySamples s = {};

        add(&s, 0, 100, 0, NULL);
        add(&s, 10, 120, 0, NULL);
        add(&s, 20, 3, 0, NULL);
        assert_int_equal(s.n, 1);
        assert_int_equal(penalty_samples_use(&s, WINDOW), PENALTY_USE_UNKNOWN);
}

static void put_file(const char *text) {
        char p[512];
        FILE *f;

        snprintf(p, sizeof p, "%s" PENALTY_SAMPLE_DIR "/" PENALTY_SAMPLE_FILE, root);
        f = fopen(p, "we");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

static void assert_same(const PenaltySamples *t, const PenaltySamples *s) {
        assert_int_equal(t->n, s->n);
        assert_int_equal(t->n_procs, s->n_procs);
        assert_memory_equal(t->samples, s->samples, s->n * sizeof *s->samples);
        for (size_t i = 0; i < s->n_procs; i++) {
                assert_int_equal(t->procs[i].pid, s->procs[i].pid);
                assert_int_equal(t->procs[i].start_tick, s->procs[i].start_tick);
                assert_int_equal(t->procs[i].cpu_usec, s->procs[i].cpu_usec);
        }
}

/* One file for every user: what a pass asked for is kept, the others dropped; forget() drops one. */
static void test_store(void **state) {
        _cleanup_(penalty_store_done) PenaltySampleStore st = {}, ld = {};
        PenaltySamples *a, *b;
        char p[512];

        assert_int_equal(penalty_store_load(root, &st), 0); /* no file: empty */
        assert_int_equal(st.n, 0);
        a = penalty_store_get(&st, 2000);
        b = penalty_store_get(&st, 1000); /* kept in uid order */
        assert_non_null(a);
        assert_non_null(b);
        b = penalty_store_get(&st, 1000);
        add(b, 0, 0, 0, NULL);
        add(b, 10, 15, 2, (uint64_t[]) { 7, 1, 8, 2 });
        a = penalty_store_get(&st, 2000);
        add(a, 0, 5, 0, NULL);
        (void) penalty_store_get(&st, 3000); /* asked for, but no sample: not written */
        assert_int_equal(st.n, 3);
        assert_int_equal(st.entries[0].uid, 1000);
        assert_int_equal(penalty_store_save(root, &st, true), 0);

        assert_int_equal(penalty_store_load(root, &ld), 0);
        assert_int_equal(ld.n, 2);
        assert_false(ld.entries[0].kept);
        assert_same(penalty_store_get(&ld, 1000), penalty_store_get(&st, 1000));
        assert_same(penalty_store_get(&ld, 2000), penalty_store_get(&st, 2000));
        assert_int_equal(penalty_samples_use(penalty_store_get(&ld, 1000), WINDOW),
                         penalty_samples_use(penalty_store_get(&st, 1000), WINDOW));

        /* a pass that sampled only 2000: 1000's slice is gone, its history with it */
        penalty_store_done(&ld);
        assert_int_equal(penalty_store_load(root, &ld), 0);
        (void) penalty_store_get(&ld, 2000);
        assert_int_equal(penalty_store_save(root, &ld, true), 0);
        penalty_store_done(&ld);
        assert_int_equal(penalty_store_load(root, &ld), 0);
        assert_int_equal(ld.n, 1);
        assert_int_equal(ld.entries[0].uid, 2000);

        /* penalty clear: the others stay; the last one gone removes the file */
        penalty_store_forget(&ld, 2000);
        assert_int_equal(penalty_store_save(root, &ld, false), 0);
        snprintf(p, sizeof p, "%s" PENALTY_SAMPLE_DIR "/" PENALTY_SAMPLE_FILE, root);
        assert_int_equal(access(p, F_OK), -1);
}

/* The samples are a cache: what does not parse is an empty history for that user alone. */
static void test_corrupt(void **state) {
        _cleanup_(penalty_store_done) PenaltySampleStore st = {};

        add(penalty_store_get(&st, 1), 0, 0, 0, NULL);
        assert_int_equal(penalty_store_save(root, &st, true), 0); /* the directory made */
        penalty_store_done(&st);

        put_file("user 1001\nsample 10 20 0\nsample 5 30 0\n" /* time going back */
                 "user 1002\nsample 1 2\n"                    /* a field missing */
                 "user 1003\nsample 1 2 0\nproc 0 1 1\n"      /* no pid 0 */
                 "user 1004\nsample 1 2 0\nsample 3 4 0\nproc 9 1 1\n"
                 "user 1005\nsample 1 2 0\nuser 1005\nsample 1 2 0\n" /* twice */
                 "sample 1 2 0\n");
        assert_int_equal(penalty_store_load(root, &st), 0);
        for (uid_t uid = 1001; uid <= 1005; uid++)
                assert_int_equal(penalty_store_get(&st, uid)->n, uid == 1004 ? 2 : 0);
        assert_int_equal(penalty_store_get(&st, 1004)->n_procs, 1);
}

/* The lines are the writer's own: every u64 survives the round trip, and a number that overflows,
 * carries a sign or sits between two spaces is not a line of ours. */
static void test_lines_exact(void **state) {
        _cleanup_(penalty_store_done) PenaltySampleStore st = {};
        PenaltySamples *s;

        s = penalty_store_get(&st, 7);
        s->samples = calloc(2, sizeof *s->samples);
        assert_non_null(s->samples);
        s->n = s->n_alloc = 2;
        s->samples[0] = (PenaltySample) { 0, UINT64_MAX, 10 };
        s->samples[1] = (PenaltySample) { UINT64_MAX, 0, UINT64_MAX - 1 };
        s->procs = calloc(1, sizeof *s->procs);
        assert_non_null(s->procs);
        s->n_procs = s->n_procs_alloc = 1;
        s->procs[0] = (PenaltyProc) { 2147483647, UINT64_MAX, 1 };
        assert_int_equal(penalty_store_save(root, &st, false), 0);
        penalty_store_done(&st);
        assert_int_equal(penalty_store_load(root, &st), 0);
        assert_non_null(s = penalty_store_get(&st, 7));
        assert_int_equal(s->n, 2);
        assert_true(s->samples[0].time == 0 && s->samples[0].usage_usec == UINT64_MAX);
        assert_true(s->samples[1].time == UINT64_MAX && s->samples[1].exempt_usec == UINT64_MAX - 1);
        assert_int_equal(s->n_procs, 1);
        assert_true(s->procs[0].pid == 2147483647 && s->procs[0].start_tick == UINT64_MAX);
        penalty_store_done(&st);

        put_file("user 1\nsample 1 18446744073709551616 0\n" /* UINT64_MAX + 1 */
                 "user 2\nsample 1 +2 0\n"
                 "user 3\nsample 1  2 0\n"
                 "user 4\nsample 1 2 0 \n"
                 "user 5\nproc 2147483648 1 1\n" /* beyond a pid */
                 "user 6\nsample 1 2 0\nproc 5 6 7\n");
        assert_int_equal(penalty_store_load(root, &st), 0);
        for (uid_t uid = 1; uid <= 6; uid++)
                assert_int_equal(penalty_store_get(&st, uid)->n, uid == 6 ? 1 : 0);
        assert_int_equal(penalty_store_get(&st, 6)->procs[0].cpu_usec, 7);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_window),         cmocka_unit_test(test_exempt),
                cmocka_unit_test(test_exempt_clamped), cmocka_unit_test(test_counter_reset),
                cmocka_unit_test(test_store),          cmocka_unit_test(test_corrupt),
                cmocka_unit_test(test_window_start),   cmocka_unit_test(test_exempt_new_old),
                cmocka_unit_test(test_lines_exact),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
