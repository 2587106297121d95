/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cpu-value.h"
#include "penalty.h"

#define S(x) ((uint64_t) (x) *UINT64_C(1000000))
#define PCT(x) ((uint64_t) (x) *UINT64_C(10000)) /* percent of one CPU → µs per s */
#define T0 S(1800000000)                         /* a wall clock in 2027 */

/* The example: 150 % over 5 min; caps 100 %, 50 %, 25 %; 30 min, 1 h, 2 h; forget 3 h. */
static PenaltyPolicy policy(void) {
        return (PenaltyPolicy) {
                .above_per_sec = PCT(150),
                .window_usec = S(300),
                .quota_per_sec = { PCT(100), PCT(50), PCT(25) },
                .n_quota = 3,
                .time_usec = { S(1800), S(3600), S(7200) },
                .n_time = 3,
                .forget_usec = S(3 * 3600),
        };
}

static void test_no_verdict_without_a_window(void **state) {
        PenaltyPolicy p = policy();
        PenaltyState s = {};

        assert_int_equal(penalty_decide(&p, &s, PENALTY_USE_UNKNOWN, T0), PENALTY_NONE);
        assert_false(s.active);
        assert_int_equal(s.level, 0);
}

static void test_start_at_the_line(void **state) {
        PenaltyPolicy p = policy();
        PenaltyState s = {};

        /* at the line is not over it */
        assert_int_equal(penalty_decide(&p, &s, PCT(150), T0), PENALTY_NONE);
        assert_false(s.active);
        assert_int_equal(penalty_decide(&p, &s, PCT(150) + 1, T0), PENALTY_START);
        assert_true(s.active);
        assert_int_equal(s.level, 1);
        assert_int_equal(s.since, T0);
        assert_int_equal(s.until, T0 + S(1800));
        assert_int_equal(s.cause_per_sec, PCT(150) + 1);
        assert_int_equal(penalty_level_quota(&p, s.level), PCT(100));
}

static void test_held_then_lifted(void **state) {
        PenaltyPolicy p = policy();
        PenaltyState s = {};

        assert_int_equal(penalty_decide(&p, &s, PCT(200), T0), PENALTY_START);
        /* over the line or not, the penalty holds until its end */
        assert_int_equal(penalty_decide(&p, &s, PCT(100), T0 + S(30)), PENALTY_NONE);
        assert_int_equal(penalty_decide(&p, &s, PCT(900), T0 + S(1799)), PENALTY_NONE);
        assert_true(s.active);
        /* the timer comes a little late: forgetting counts from the end, not from the pass */
        assert_int_equal(penalty_decide(&p, &s, PCT(90), T0 + S(1830)), PENALTY_LIFT);
        assert_false(s.active);
        assert_int_equal(s.level, 1);
        assert_int_equal(s.clean_since, T0 + S(1800));
}

static void test_repeat_offence_needs_a_whole_window_after(void **state) {
        PenaltyPolicy p = policy();
        PenaltyState s = {};
        uint64_t end = T0 + S(1800);

        assert_int_equal(penalty_decide(&p, &s, PCT(200), T0), PENALTY_START);
        assert_int_equal(penalty_decide(&p, &s, PCT(50), end), PENALTY_LIFT);
        /* a window that reaches into the penalty mixes capped time with the time before */
        assert_int_equal(penalty_decide(&p, &s, PCT(400), end + S(299)), PENALTY_NONE);
        assert_false(s.active);
        assert_int_equal(penalty_decide(&p, &s, PCT(400), end + S(300)), PENALTY_START);
        assert_int_equal(s.level, 2);
        assert_int_equal(penalty_level_quota(&p, s.level), PCT(50));
        assert_int_equal(s.until, end + S(300) + S(3600));
}

static void test_levels_past_the_lists_repeat_the_last(void **state) {
        PenaltyPolicy p = policy();
        PenaltyState s = {};
        uint64_t now = T0;

        for (unsigned level = 1; level <= 5; level++) {
                assert_int_equal(penalty_decide(&p, &s, PCT(300), now), PENALTY_START);
                assert_int_equal(s.level, level);
                now = s.until;
                assert_int_equal(penalty_decide(&p, &s, PCT(10), now), PENALTY_LIFT);
                now += p.window_usec;
        }
        assert_int_equal(penalty_level_quota(&p, 5), PCT(25));
        assert_int_equal(penalty_level_time(&p, 5), S(7200));
        assert_int_equal(penalty_level_quota(&p, 3), PCT(25));
        assert_int_equal(penalty_level_time(&p, 2), S(3600));
}

static void test_forget_one_level_per_period(void **state) {
        PenaltyPolicy p = policy();
        PenaltyState s = { .level = 3, .since = T0, .until = T0 + S(7200), .clean_since = T0 + S(7200) };
        uint64_t end = s.until;

        assert_int_equal(penalty_decide(&p, &s, PCT(10), end + S(3 * 3600) - 1), PENALTY_NONE);
        assert_int_equal(s.level, 3);
        assert_int_equal(penalty_decide(&p, &s, PCT(10), end + S(3 * 3600)), PENALTY_FORGET);
        assert_int_equal(s.level, 2);
        /* a long quiet time forgives several levels in one pass, each period counted once */
        assert_int_equal(penalty_decide(&p, &s, PENALTY_USE_UNKNOWN, end + S(9 * 3600) + S(5)), PENALTY_FORGET);
        assert_int_equal(s.level, 0);
        assert_int_equal(penalty_decide(&p, &s, PCT(10), end + S(20 * 3600)), PENALTY_NONE);
}

static void test_forget_before_judging(void **state) {
        PenaltyPolicy p = policy();
        PenaltyState s = { .level = 2, .since = T0, .until = T0 + S(3600), .clean_since = T0 + S(3600) };

        /* one forget period later the level is 1, so this offence is level 2 again, not 3 */
        assert_int_equal(penalty_decide(&p, &s, PCT(400), T0 + S(3600) + S(3 * 3600)), PENALTY_START);
        assert_int_equal(s.level, 2);
}

static void test_extend_only_over_the_line_under_the_cap(void **state) {
        PenaltyPolicy p = policy();
        PenaltyState s = {};

        /* a cap above the line: still over it for a whole window inside the penalty */
        p.quota_per_sec[0] = PCT(200);
        p.quota_per_sec[1] = PCT(200);
        assert_int_equal(penalty_decide(&p, &s, PCT(300), T0), PENALTY_START);
        assert_int_equal(penalty_decide(&p, &s, PCT(190), T0 + S(1800)), PENALTY_EXTEND);
        assert_true(s.active);
        assert_int_equal(s.level, 2);
        assert_int_equal(s.since, T0 + S(1800));
        assert_int_equal(s.until, T0 + S(1800) + S(3600));
        assert_int_equal(penalty_decide(&p, &s, PCT(100), T0 + S(5400)), PENALTY_LIFT);
}

static void test_no_extend_when_the_window_reaches_before(void **state) {
        PenaltyPolicy p = policy();
        PenaltyState s = {};

        p.time_usec[0] = S(60); /* shorter than the window */
        p.quota_per_sec[0] = PCT(400);
        assert_int_equal(penalty_decide(&p, &s, PCT(300), T0), PENALTY_START);
        assert_int_equal(penalty_decide(&p, &s, PCT(300), T0 + S(60)), PENALTY_LIFT);
        assert_int_equal(s.level, 1);
}

static void test_policy_switched_off(void **state) {
        PenaltyPolicy p = policy(), off = policy();
        PenaltyState s = {};

        off.above_per_sec = CPU_QUOTA_INFINITY;
        assert_int_equal(penalty_decide(&off, &s, PCT(900), T0), PENALTY_NONE);
        assert_int_equal(penalty_decide(&p, &s, PCT(900), T0), PENALTY_START);
        assert_int_equal(penalty_decide(&off, &s, PCT(900), T0 + S(10)), PENALTY_LIFT);
        assert_false(s.active);
        assert_int_equal(s.level, 0);

        s = (PenaltyState) { .level = 2, .until = T0, .clean_since = T0 };
        assert_int_equal(penalty_decide(&off, &s, PCT(10), T0 + S(10)), PENALTY_FORGET);
        assert_int_equal(s.level, 0);
}

static void test_policy_check(void **state) {
        PenaltyPolicy p = policy();
        CsError e = {};

        assert_int_equal(penalty_policy_check(&p, &e), 0);

        p.window_usec = S(10);
        assert_int_equal(penalty_policy_check(&p, &e), 0);
        p.window_usec = S(10) - 1;
        assert_int_equal(penalty_policy_check(&p, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "at least 10s"));

        p = policy();
        p.quota_per_sec[2] = PCT(60); /* 100 %, 50 %, 60 %: grows at level 3 */
        assert_int_equal(penalty_policy_check(&p, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "level 3 allows more than level 2"));

        p = policy();
        p.n_quota = 0;
        assert_int_equal(penalty_policy_check(&p, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "needs PenaltyQuota= and PenaltyTime="));

        p = policy();
        p.time_usec[1] = 0;
        assert_int_equal(penalty_policy_check(&p, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "level 2 lasts 0s"));

        p = policy();
        p.above_per_sec = 0;
        assert_int_equal(penalty_policy_check(&p, &e), -EINVAL);

        p = policy();
        p.forget_usec = 0;
        assert_int_equal(penalty_policy_check(&p, &e), -EINVAL);

        /* off is valid, whatever the rest says */
        p = (PenaltyPolicy) { .above_per_sec = CPU_QUOTA_INFINITY };
        assert_int_equal(penalty_policy_check(&p, &e), 0);
        assert_false(penalty_policy_enabled(&p));
}

static void test_action_names(void **state) {
        assert_string_equal(penalty_action_to_string(PENALTY_NONE), "none");
        assert_string_equal(penalty_action_to_string(PENALTY_START), "start");
        assert_string_equal(penalty_action_to_string(PENALTY_EXTEND), "extend");
        assert_string_equal(penalty_action_to_string(PENALTY_LIFT), "lift");
        assert_string_equal(penalty_action_to_string(PENALTY_FORGET), "forget");
        assert_null(penalty_action_to_string(_PENALTY_ACTION_MAX));
        assert_null(penalty_action_to_string((PenaltyAction) -1));
        assert_int_equal(penalty_action_from_string("extend"), PENALTY_EXTEND);
        assert_int_equal(penalty_action_from_string("Extend"), -EINVAL);
}

static void test_rule_values(void **state) {
        static const struct {
                PenaltyKey k;
                const char *v;
                int r;
        } t[] = {
                { PENALTY_KEY_ABOVE, "150%", 0 },
                { PENALTY_KEY_ABOVE, "off", 0 },
                { PENALTY_KEY_ABOVE, "infinity", -EINVAL },
                { PENALTY_KEY_ABOVE, "0%", -ERANGE },
                { PENALTY_KEY_ABOVE, "1.5", -EINVAL },
                { PENALTY_KEY_WINDOW, "10s", 0 },
                { PENALTY_KEY_WINDOW, "5min", 0 },
                { PENALTY_KEY_WINDOW, "9s", -ERANGE },
                { PENALTY_KEY_WINDOW, "24h", 0 },
                { PENALTY_KEY_WINDOW, "25h", -ERANGE },
                { PENALTY_KEY_WINDOW, "soon", -EINVAL },
                { PENALTY_KEY_QUOTA, "100%,50%,25%", 0 },
                { PENALTY_KEY_QUOTA, "50%", 0 },
                { PENALTY_KEY_QUOTA, "50%,100%", -ERANGE },
                { PENALTY_KEY_QUOTA, "100%,,50%", -EINVAL },
                { PENALTY_KEY_QUOTA, "100%,", -EINVAL },
                { PENALTY_KEY_QUOTA, "", -EINVAL },
                { PENALTY_KEY_QUOTA, "9%,8%,7%,6%,5%,4%,3%,2%,1%", -ERANGE },
                { PENALTY_KEY_QUOTA, "infinity", -EINVAL },
                { PENALTY_KEY_TIME, "30min,1h,2h", 0 },
                { PENALTY_KEY_TIME, "0s", -ERANGE },
                { PENALTY_KEY_TIME, "1h,x", -EINVAL },
                { PENALTY_KEY_FORGET, "3h", 0 },
                { PENALTY_KEY_FORGET, "0", -ERANGE },
                { PENALTY_KEY_EXEMPT, "make", 0 },
                { PENALTY_KEY_EXEMPT, "", 0 },
                { PENALTY_KEY_EXEMPT, "/usr/bin/make", -EINVAL },
                { PENALTY_KEY_EXEMPT, "x86_64-linux-gnu", -EINVAL },
                { PENALTY_KEY_EXEMPT, "a,b", -EINVAL },
        };
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
                PenaltyRule r = {};
                int got = penalty_rule_set(&r, t[i].k, t[i].v);

                if (got != t[i].r)
                        fail_msg("%s=%s: got %d, expected %d", penalty_key_to_string(t[i].k), t[i].v, got, t[i].r);
                assert_int_equal(r.mask, got == 0 ? 1u << t[i].k : 0);
                penalty_rule_done(&r);
        }
}

static void test_rule_parsed(void **state) {
        PenaltyRule r = {};

        assert_int_equal(penalty_rule_set(&r, PENALTY_KEY_ABOVE, "150%"), 0);
        assert_int_equal(penalty_rule_set(&r, PENALTY_KEY_QUOTA, "100%,50%,25%"), 0);
        assert_int_equal(penalty_rule_set(&r, PENALTY_KEY_TIME, "30min,1h,2h"), 0);
        assert_int_equal(penalty_rule_set(&r, PENALTY_KEY_EXEMPT, "make"), 0);
        assert_int_equal(penalty_exempt_add(&r, "cc1"), 0);
        assert_int_equal(penalty_exempt_add(&r, "rsync"), 0);
        assert_int_equal(penalty_exempt_add(&r, "bad/name"), -EINVAL);
        /* a key once per line */
        assert_int_equal(penalty_rule_set(&r, PENALTY_KEY_ABOVE, "200%"), -EINVAL);
        assert_int_equal(r.policy.above_per_sec, PCT(150));
        assert_int_equal(r.policy.n_quota, 3);
        assert_int_equal(r.policy.quota_per_sec[2], PCT(25));
        assert_int_equal(r.policy.n_time, 3);
        assert_int_equal(r.policy.time_usec[1], S(3600));
        assert_int_equal(r.n_exempt, 3);
        assert_string_equal(r.exempt[1], "cc1");
        assert_null(r.exempt[3]);
        assert_int_equal(r.mask, (1u << PENALTY_KEY_ABOVE) | (1u << PENALTY_KEY_QUOTA) | (1u << PENALTY_KEY_TIME) |
                                         (1u << PENALTY_KEY_EXEMPT));
        penalty_rule_done(&r);
        assert_int_equal(penalty_key_from_string("PenaltyForget"), PENALTY_KEY_FORGET);
        assert_int_equal(penalty_key_from_string("CPUQuota"), -EINVAL);
        assert_non_null(penalty_key_allowed(PENALTY_KEY_QUOTA));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_verdict_without_a_window),
                cmocka_unit_test(test_start_at_the_line),
                cmocka_unit_test(test_held_then_lifted),
                cmocka_unit_test(test_repeat_offence_needs_a_whole_window_after),
                cmocka_unit_test(test_levels_past_the_lists_repeat_the_last),
                cmocka_unit_test(test_forget_one_level_per_period),
                cmocka_unit_test(test_forget_before_judging),
                cmocka_unit_test(test_extend_only_over_the_line_under_the_cap),
                cmocka_unit_test(test_no_extend_when_the_window_reaches_before),
                cmocka_unit_test(test_policy_switched_off),
                cmocka_unit_test(test_policy_check),
                cmocka_unit_test(test_action_names),
                cmocka_unit_test(test_rule_values),
                cmocka_unit_test(test_rule_parsed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
