/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "conf-parse.h"

typedef struct Fixture {
        RuleSet rs;
        DiagList d;
} Fixture;

static void load(Fixture *f, const char *name, const char *text) {
        assert_int_equal(conf_parse_buffer(&f->rs, name, text, strlen(text), &f->d), 0);
        assert_int_equal(f->d.n, 0);
}

static UserIdent user(const char *name, uid_t uid, const char *const *groups) {
        UserIdent u = { .name = strdup(name), .uid = uid, .gid = uid };
        assert_int_equal(user_set_groups(&u, groups), 0);
        return u;
}

static Resolved resolve(Fixture *f, const char *name, uid_t uid, const char *const *groups) {
        UserIdent u = user(name, uid, groups);
        Resolved res;
        assert_int_equal(rules_resolve(&f->rs, &u, &res), 0);
        user_done(&u);
        return res;
}

static int teardown(void **state) {
        Fixture *f = *state;
        ruleset_done(&f->rs);
        diag_list_done(&f->d);
        free(f);
        return 0;
}

static int setup(void **state) {
        *state = calloc(1, sizeof(Fixture));
        return *state ? 0 : -1;
}

static const char *const STAFF[] = { "alice", "staff", NULL };
static const char *const NONE[] = { NULL };

/* Each Penalty*= key is merged on its own, by specificity, like the CPU settings. */
static void test_penalty_merge(void **state) {
        Fixture *f = *state;
        Resolved r;

        load(f, "main.conf",
             "alice PenaltyQuota=200%\n"
             "@staff PenaltyAbove=off\n"
             "* PenaltyAbove=150% PenaltyQuota=100%,50% PenaltyTime=30min,1h PenaltyExempt=make cc1\n"
             "1000:1999 PenaltyWindow=1min PenaltyExempt=\n");
        r = resolve(f, "bob", 1500, NONE);
        assert_int_equal(r.penalty.above_per_sec, 1500000);
        assert_int_equal(r.penalty.window_usec, 60 * UINT64_C(1000000));
        assert_int_equal(r.penalty.n_quota, 2);
        assert_int_equal(r.penalty.quota_per_sec[1], 500000);
        assert_int_equal(r.penalty.time_usec[1], 3600 * UINT64_C(1000000));
        assert_int_equal(r.penalty.forget_usec, PENALTY_FORGET_DEFAULT_USEC);
        assert_null(r.penalty_exempt); /* the uid range's empty list beats '*' */
        assert_int_equal(r.penalty_source[PENALTY_KEY_WINDOW]->line, 4);
        assert_true(penalty_policy_enabled(&r.penalty));

        r = resolve(f, "carol", 2500, NONE);
        assert_int_equal(r.penalty.window_usec, PENALTY_WINDOW_DEFAULT_USEC);
        assert_non_null(r.penalty_exempt);
        assert_string_equal(r.penalty_exempt[0], "make");
        assert_string_equal(r.penalty_exempt[1], "cc1");
        assert_null(r.penalty_source[PENALTY_KEY_FORGET]);

        /* the group's off beats '*'; alice's own cap beats both, and the rest stays '*''s */
        r = resolve(f, "alice", 1001, STAFF);
        assert_false(penalty_policy_enabled(&r.penalty));
        assert_int_equal(r.penalty.n_quota, 1);
        assert_int_equal(r.penalty.quota_per_sec[0], 2000000);
        assert_int_equal(r.penalty.n_time, 2);

        /* no line about penalties: off, with the defaults */
        ruleset_done(&f->rs);
        load(f, "other.conf", "* CPUWeight=100\n");
        r = resolve(f, "bob", 1500, NONE);
        assert_false(penalty_policy_enabled(&r.penalty));
        assert_int_equal(r.penalty.window_usec, PENALTY_WINDOW_DEFAULT_USEC);
}

static void test_specificity_levels(void **state) {
        Fixture *f = *state;
        Resolved r;

        /* written least specific last, so file order alone would pick the wrong winner */
        load(f, "main.conf",
             "alice CPUWeight=400\n"
             "1000:1999 CPUWeight=300\n"
             "@staff CPUWeight=200\n"
             "* CPUWeight=100\n");
        r = resolve(f, "alice", 1001, STAFF);
        assert_true(r.matched);
        assert_int_equal(r.limits.weight, 400);
        assert_int_equal(r.source[SETTING_WEIGHT]->line, 1);
        r = resolve(f, "bob", 1002, STAFF);
        assert_int_equal(r.limits.weight, 300);
        assert_int_equal(r.source[SETTING_WEIGHT]->line, 2);
        r = resolve(f, "carol", 2500, STAFF);
        assert_int_equal(r.limits.weight, 200);
        assert_int_equal(r.source[SETTING_WEIGHT]->line, 3);
        r = resolve(f, "dave", 2500, NONE);
        assert_int_equal(r.limits.weight, 100);
        assert_int_equal(r.source[SETTING_WEIGHT]->line, 4);
}

static void test_uid_equals_name(void **state) {
        Fixture *f = *state;
        Resolved r;

        load(f, "main.conf", "1001 CPUWeight=50\nalice CPUWeight=60\n");
        r = resolve(f, "alice", 1001, NONE);
        assert_int_equal(r.limits.weight, 60); /* same specificity: last read wins */
        load(f, "drop.conf", "1001 CPUWeight=70\n");
        r = resolve(f, "alice", 1001, NONE);
        assert_int_equal(r.limits.weight, 70);
        assert_string_equal(rule_file(&f->rs, r.source[SETTING_WEIGHT]), "drop.conf");
}

static void test_drop_in_order(void **state) {
        Fixture *f = *state;
        Resolved r;

        load(f, "/etc/security/cpuslice.conf", "* CPUWeight=100 CPUQuota=50%\n@staff CPUWeight=200\n");
        load(f, "/etc/security/cpuslice.d/10-a.conf", "* CPUWeight=110\n");
        load(f, "/etc/security/cpuslice.d/20-b.conf", "* CPUWeight=120\n");
        r = resolve(f, "bob", 1002, NONE);
        assert_int_equal(r.limits.weight, 120);
        assert_int_equal(r.limits.quota_per_sec, 500000);
        assert_string_equal(rule_file(&f->rs, r.source[SETTING_WEIGHT]), "/etc/security/cpuslice.d/20-b.conf");
        assert_string_equal(rule_file(&f->rs, r.source[SETTING_QUOTA]), "/etc/security/cpuslice.conf");
        /* a later but less specific line does not beat a group line */
        r = resolve(f, "alice", 1001, STAFF);
        assert_int_equal(r.limits.weight, 200);
}

static void test_merge(void **state) {
        Fixture *f = *state;
        Resolved r;

        load(f, "main.conf",
             "@staff CPUWeight=300 CPUQuotaPeriodSec=50ms\n"
             "alice CPUQuota=150%\n"
             "* CPUQuota=100%\n");
        r = resolve(f, "alice", 1001, STAFF);
        assert_int_equal(r.limits.weight, 300);
        assert_int_equal(r.limits.quota_per_sec, 1500000);
        assert_int_equal(r.limits.period_usec, 50000);
        assert_int_equal(r.source[SETTING_WEIGHT]->line, 1);
        assert_int_equal(r.source[SETTING_QUOTA]->line, 2);
        assert_int_equal(r.source[SETTING_PERIOD]->line, 1);
        assert_null(r.source[SETTING_SLICE]);
        assert_true(r.slice);
}

static void test_infinity_removes_quota(void **state) {
        Fixture *f = *state;
        Resolved r;

        load(f, "main.conf", "* CPUQuota=20%\n@staff CPUQuota=infinity\n");
        r = resolve(f, "alice", 1001, STAFF);
        assert_true(r.limits.quota_per_sec == CPU_QUOTA_INFINITY);
        r = resolve(f, "bob", 1002, NONE);
        assert_int_equal(r.limits.quota_per_sec, 200000);
}

static void test_slice_no_and_unmatched(void **state) {
        Fixture *f = *state;
        Resolved r;

        load(f, "main.conf", ":999 CPUSlice=no\n1000:1999 CPUWeight=100\nspecial CPUSlice=yes\n");
        r = resolve(f, "daemon", 1, NONE);
        assert_true(r.matched);
        assert_false(r.slice);
        r = resolve(f, "outsider", 5000, NONE);
        assert_false(r.matched);
        r = resolve(f, "special", 500, NONE);
        assert_true(r.slice); /* the user line beats the range's opt-out */
        r = resolve(f, "alice", 1001, NONE);
        assert_true(r.matched);
        assert_true(r.slice);
        assert_int_equal(r.limits.weight, 100);
        assert_true(r.limits.quota_per_sec == CPU_QUOTA_INFINITY);
        assert_int_equal(r.limits.period_usec, CPU_PERIOD_DEFAULT_USEC);
}

static void test_root_rule(void **state) {
        Fixture *f = *state;
        static const char *const ROOTG[] = { "root", "staff", NULL };
        Resolved r;

        load(f, "main.conf", "* CPUWeight=100\n0:10 CPUWeight=5\n@root CPUWeight=6\n@staff CPUWeight=7\n");
        r = resolve(f, "root", 0, ROOTG);
        assert_false(r.matched);
        load(f, "drop.conf", "root CPUQuota=200%\n");
        r = resolve(f, "root", 0, ROOTG);
        assert_true(r.matched);
        assert_int_equal(r.limits.quota_per_sec, 2000000);
        assert_int_equal(r.limits.weight, 100); /* default: no line naming root set it */
        assert_null(r.source[SETTING_WEIGHT]);
        load(f, "drop2.conf", "0 CPUWeight=50\n");
        r = resolve(f, "root", 0, ROOTG);
        assert_int_equal(r.limits.weight, 50);
}

static void test_lazy_groups(void **state) {
        Fixture *f = *state;
        UserIdent u = { .name = strdup("alice"), .uid = 1001, .gid = 1001 };
        Resolved r;

        /* without @group lines NSS is never asked for memberships */
        load(f, "main.conf", "* CPUWeight=100\n");
        assert_int_equal(rules_resolve(&f->rs, &u, &r), 0);
        assert_false(u.groups_loaded);
        user_done(&u);
}

static void test_generated_100k(void **state) {
        Fixture *f = *state;
        size_t cap = 100000 * 48, len = 0;
        char *buf = malloc(cap);
        static const char *const G[] = { "g778", NULL };
        struct timespec a, b;
        Resolved r;

        for (unsigned i = 0; i < 100000; i++) {
                switch (i % 4) {
                case 0:
                        len += (size_t) snprintf(buf + len, cap - len, "user%u CPUWeight=%u\n", i, 1 + i % 9999);
                        break;
                case 1:
                        len += (size_t) snprintf(buf + len, cap - len, "%u:%u CPUQuota=%u%%\n", 100000 + i,
                                                 100000 + i + 10, 1 + i % 400);
                        break;
                case 2:
                        len += (size_t) snprintf(buf + len, cap - len, "@g%u CPUWeight=%u\n", i, 1 + i % 500);
                        break;
                default:
                        len += (size_t) snprintf(buf + len, cap - len, "%u CPUQuotaPeriodSec=%ums\n", 200000 + i,
                                                 1 + i % 1000);
                }
        }
        clock_gettime(CLOCK_MONOTONIC, &a);
        assert_int_equal(conf_parse_buffer(&f->rs, "big.conf", buf, len, &f->d), 0);
        assert_int_equal(f->rs.n, 100000);
        assert_int_equal(f->d.n, 0);
        r = resolve(f, "user4000", 4000, NONE);
        assert_int_equal(r.limits.weight, 1 + 4000 % 9999);
        r = resolve(f, "x", 100006, NONE); /* lines i=1 and i=5 both cover it: the later wins */
        assert_int_equal(r.limits.quota_per_sec, (1 + 5 % 400) * 10000);
        r = resolve(f, "y", 5, G);
        assert_true(r.matched);
        assert_int_equal(r.source[SETTING_WEIGHT]->line, 779);
        clock_gettime(CLOCK_MONOTONIC, &b);
        /* a figure, not an assertion: timing belongs to bench/ */
        print_message("100000 lines: parse + 3 resolves in %.1f ms\n",
                      (double) (b.tv_sec - a.tv_sec) * 1e3 + (double) (b.tv_nsec - a.tv_nsec) / 1e6);
        free(buf);
}

/* CPUQuotaShare= is the quota as a share of the CPUs: it competes with CPUQuota= as one setting,
 * by specificity and then order, and resolves against the CPUs the caller counted. */
static void test_quota_share(void **state) {
        Fixture *f = *state;
        char buf[SHARE_FORMAT_MAX];
        Resolved r;

        load(f, "main.conf",
             "* CPUQuotaShare=25%\n"
             "@staff CPUQuota=300%\n"
             "bob CPUQuotaShare=50%\n"
             "carol CPUQuota=150%\n"
             "carol CPUQuotaShare=10%\n");
        ruleset_set_cpus(&f->rs, 64);
        assert_true(f->rs.has_shares);

        r = resolve(f, "dave", 1003, NONE); /* 25 % of 64 CPUs */
        assert_int_equal(r.limits.quota_per_sec, 16 * USEC_PER_SEC);
        assert_ptr_equal(resolved_quota_source(&r), &f->rs.rules[0]);
        assert_true(resolved_gives(&r, SETTING_QUOTA));
        assert_null(r.source[SETTING_QUOTA]);
        assert_string_equal(resolved_share_format(&r, buf), "CPUQuotaShare=25% of 64 CPUs");

        r = resolve(f, "alice", 1000, STAFF); /* the group's CPUQuota= is more specific */
        assert_int_equal(r.limits.quota_per_sec, 3 * USEC_PER_SEC);
        assert_ptr_equal(r.source[SETTING_QUOTA], &f->rs.rules[1]);
        assert_null(r.source[SETTING_QUOTA_SHARE]);
        assert_null(resolved_share_format(&r, buf));

        r = resolve(f, "bob", 1001, STAFF); /* the user's share beats the group's quota */
        assert_int_equal(r.limits.quota_per_sec, 32 * USEC_PER_SEC);
        assert_null(r.source[SETTING_QUOTA]);

        r = resolve(f, "carol", 1002, NONE); /* as specific: the later line, in either spelling */
        assert_int_equal(r.limits.quota_per_sec, 64 * USEC_PER_SEC / 10);
        assert_ptr_equal(resolved_holder(&r, SETTING_QUOTA), &f->rs.rules[4]);

        ruleset_set_cpus(&f->rs, 1);
        r = resolve(f, "dave", 1003, NONE);
        assert_int_equal(r.limits.quota_per_sec, USEC_PER_SEC / 4);
        assert_string_equal(resolved_share_format(&r, buf), "CPUQuotaShare=25% of 1 CPU");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_specificity_levels),     T(test_penalty_merge), T(test_uid_equals_name),
                T(test_drop_in_order),          T(test_merge),         T(test_infinity_removes_quota),
                T(test_slice_no_and_unmatched), T(test_root_rule),     T(test_lazy_groups),
                T(test_generated_100k),         T(test_quota_share),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
