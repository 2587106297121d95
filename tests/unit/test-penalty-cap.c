/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "macro.h"
#include "penalty-cap.h"
#include "test-util.h"
#include "time-util.h"

#define NOW (UINT64_C(1800000000) * USEC_PER_SEC)

static const Rule quota_line = { .line = 3 };

static Resolved policy(void) {
        Resolved res = {
                .matched = true, .slice = true, .limits = CPU_LIMITS_DEFAULT, .penalty = PENALTY_POLICY_DEFAULT
        };

        res.penalty.above_per_sec = 3 * USEC_PER_SEC / 2;
        res.penalty.quota_per_sec[0] = USEC_PER_SEC;
        res.penalty.quota_per_sec[1] = USEC_PER_SEC / 2;
        res.penalty.n_quota = 2;
        res.penalty.time_usec[0] = USEC_PER_HOUR;
        res.penalty.n_time = 1;
        return res;
}

static const PenaltyState level2 = {
        .level = 2, .active = true, .since = NOW - 60 * USEC_PER_SEC, .until = NOW + USEC_PER_HOUR
};

static void test_caps(void **state) {
        Resolved res = policy();

        assert_true(penalty_cap_apply(&res, &level2, NOW));
        assert_int_equal(res.limits.quota_per_sec, USEC_PER_SEC / 2);
        assert_true(res.penalty_capped);
        assert_true(resolved_gives(&res, SETTING_QUOTA));
        assert_false(resolved_gives(&res, SETTING_WEIGHT));
}

/* The stricter of the two: a configured quota below the cap stays, and is not the penalty's. */
static void test_stricter(void **state) {
        Resolved res = policy();

        res.limits.quota_per_sec = USEC_PER_SEC / 4;
        res.source[SETTING_QUOTA] = &quota_line;
        assert_false(penalty_cap_apply(&res, &level2, NOW));
        assert_int_equal(res.limits.quota_per_sec, USEC_PER_SEC / 4);
        assert_false(res.penalty_capped);
        res.limits.quota_per_sec = 3 * USEC_PER_SEC;
        assert_true(penalty_cap_apply(&res, &level2, NOW));
        assert_int_equal(res.limits.quota_per_sec, USEC_PER_SEC / 2);
}

/* Over (at its end), not running, or under a policy switched off since: no cap. */
static void test_none(void **state) {
        PenaltyState ended = level2, free_ = { .level = 1, .until = NOW - 1 };
        Resolved res = policy();

        ended.until = NOW;
        assert_false(penalty_cap_apply(&res, &ended, NOW));
        assert_false(penalty_cap_apply(&res, &free_, NOW));
        res.penalty.above_per_sec = CPU_QUOTA_INFINITY;
        assert_false(penalty_cap_apply(&res, &level2, NOW));
        assert_int_equal(res.limits.quota_per_sec, CPU_QUOTA_INFINITY);
        assert_false(res.penalty_capped);
}

/* From the saved state; a state that does not parse is an error, and leaves the config's values. */
static void test_load(void **state) {
        _cleanup_free_ char *root = scratch_dir();
        Resolved res = policy();
        PenaltyState st = level2;
        char p[512], why[128];
        FILE *f;

        assert_non_null(root);
        assert_int_equal(penalty_cap_load_apply(&res, root, 1000, why, sizeof why), 0);
        st.since = realtime_usec();
        st.until = st.since + USEC_PER_HOUR;
        assert_int_equal(penalty_state_save(root, 1000, &st), 0);
        assert_int_equal(penalty_cap_load_apply(&res, root, 1000, why, sizeof why), 1);
        assert_int_equal(res.limits.quota_per_sec, USEC_PER_SEC / 2);
        snprintf(p, sizeof p, "%s" PENALTY_STATE_DIR "/1001", root);
        f = fopen(p, "we");
        assert_non_null(f);
        fputs("level 1\n", f);
        assert_int_equal(fclose(f), 0);
        res = policy();
        assert_int_equal(penalty_cap_load_apply(&res, root, 1001, why, sizeof why), -EBADMSG);
        assert_false(res.penalty_capped);
        assert_int_equal(res.limits.quota_per_sec, CPU_QUOTA_INFINITY);
        rm_rf(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_caps),
                cmocka_unit_test(test_stricter),
                cmocka_unit_test(test_none),
                cmocka_unit_test(test_load),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
