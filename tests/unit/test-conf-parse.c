/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf-parse.h"
#include "macro.h"

static void test_domains(void **state) {
        static const struct {
                const char *line;
                DomainType type;
                const char *name;
                uint32_t min, max;
        } t[] = {
                { "alice CPUWeight=200", DOMAIN_USER, "alice", 0, 0 },
                { "1001 CPUWeight=200", DOMAIN_UID, NULL, 1001, 1001 },
                { "0 CPUWeight=200", DOMAIN_UID, NULL, 0, 0 },
                { "1000:1999 CPUWeight=200", DOMAIN_UID_RANGE, NULL, 1000, 1999 },
                { "1000: CPUWeight=200", DOMAIN_UID_RANGE, NULL, 1000, UINT32_MAX - 1 },
                { ":999 CPUSlice=no", DOMAIN_UID_RANGE, NULL, 0, 999 },
                { "5:5 CPUWeight=1", DOMAIN_UID_RANGE, NULL, 5, 5 },
                { "@staff CPUWeight=300", DOMAIN_GROUP, "staff", 0, 0 },
                { "* CPUWeight=100", DOMAIN_ALL, NULL, 0, 0 },
                { "user@REALM CPUWeight=100", DOMAIN_USER, "user@REALM", 0, 0 },
                { "svc.backup CPUWeight=100", DOMAIN_USER, "svc.backup", 0, 0 },
        };
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
                Rule r;
                ConfSkips sk = {};
                assert_int_equal(conf_parse_line(t[i].line, &r, &sk), 0);
                assert_int_equal(sk.n, 0);
                assert_int_equal(r.domain.type, t[i].type);
                if (t[i].name)
                        assert_string_equal(r.domain.name, t[i].name);
                if (t[i].type == DOMAIN_UID || t[i].type == DOMAIN_UID_RANGE) {
                        assert_int_equal(r.domain.uid_min, t[i].min);
                        assert_int_equal(r.domain.uid_max, t[i].max);
                }
                rule_done(&r);
        }
}

static void test_settings(void **state) {
        Rule r;
        ConfSkips sk = {};

        assert_int_equal(conf_parse_line("  alice\tCPUWeight=idle  CPUQuota=12.5% CPUQuotaPeriodSec=20ms "
                                         "CPUSlice=yes # a comment",
                                         &r, &sk),
                         0);
        assert_int_equal(r.mask, 0xf);
        assert_int_equal(r.weight, CPU_WEIGHT_IDLE);
        assert_int_equal(r.quota_per_sec, 125000);
        assert_int_equal(r.period_usec, 20000);
        assert_true(r.slice);
        assert_string_equal(r.text, "alice\tCPUWeight=idle  CPUQuota=12.5% CPUQuotaPeriodSec=20ms CPUSlice=yes");
        rule_done(&r);

        assert_int_equal(conf_parse_line("bob CPUSlice=no", &r, &sk), 0);
        assert_false(r.slice);
        assert_int_equal(r.mask, 1u << SETTING_SLICE);
        rule_done(&r);

        assert_int_equal(conf_parse_line("bob CPUQuota=infinity", &r, &sk), 0);
        assert_true(r.quota_per_sec == CPU_QUOTA_INFINITY);
        rule_done(&r);

        assert_int_equal(conf_parse_line("   # only a comment", &r, &sk), 1);
        assert_int_equal(conf_parse_line("", &r, &sk), 1);
        assert_int_equal(conf_parse_line(" \t ", &r, &sk), 1);
        assert_int_equal(sk.n, 0);
        conf_skips_done(&sk);
}

/* The line gives no rule: the first reason (of one per bad setting) has needle. */
static void expect_error(const char *line, const char *needle) {
        ConfSkips sk = {};
        Rule r;
        int k = conf_parse_line(line, &r, &sk);

        if (k >= 0)
                fail_msg("'%s' parsed, expected an error with '%s'", line, needle);
        assert_true(sk.n >= 1);
        assert_non_null(sk.items[0].reason);
        if (!strstr(sk.items[0].reason, needle))
                fail_msg("'%s': message '%s' lacks '%s'", line, sk.items[0].reason, needle);
        conf_skips_done(&sk);
}

static void test_errors(void **state) {
        expect_error("alice CPUWeigh=5", "unknown setting 'CPUWeigh=' (allowed: CPUSlice=, CPUWeight=");
        expect_error("alice CPUWeight=0", "bad CPUWeight= value '0' (allowed: 1..10000 or idle)");
        expect_error("alice CPUWeight=10001", "allowed: 1..10000");
        expect_error("alice CPUQuota=50", "bad CPUQuota= value '50'");
        expect_error("alice CPUQuota=0%", "above 0%");
        expect_error("alice CPUQuotaPeriodSec=2s", "allowed: 1ms..1s");
        expect_error("alice CPUSlice=maybe", "allowed: yes, no");
        expect_error("alice", "no settings after the domain");
        expect_error("alice CPUWeight", "expected SETTING=VALUE");
        expect_error("alice =5", "expected SETTING=VALUE");
        expect_error("2000:1000 CPUWeight=5", "uid range is empty");
        expect_error("a:b CPUWeight=5", "bad uid range");
        expect_error(": CPUWeight=5", "bad uid range");
        expect_error("4294967295 CPUWeight=5", "uid out of range");
        expect_error("99999999999 CPUWeight=5", "uid out of range");
        expect_error("@ CPUWeight=5", "bad group name");
        expect_error("al=ice CPUWeight=5", "bad domain");
        expect_error("** CPUWeight=5", "bad domain");
        expect_error("alice CPUQuo", "expected SETTING=VALUE, got 'CPUQuo'"); /* a setting's name, cut */
        /* a share is of all the CPUs: above 0 and up to 100 %, never infinity */
        expect_error("alice CPUQuotaShare=0%", "bad CPUQuotaShare= value '0%' (allowed: N% of all the CPUs");
        expect_error("alice CPUQuotaShare=100.01%", "bad CPUQuotaShare= value '100.01%'");
        expect_error("alice CPUQuotaShare=infinity", "bad CPUQuotaShare= value 'infinity'");
        expect_error("alice CPUQuotaShare=25", "bad CPUQuotaShare= value '25'");
}

static void test_quota_share(void **state) {
        ConfSkips sk = {};
        Rule r;

        assert_int_equal(conf_parse_line("@staff CPUQuotaShare=12.5% CPUWeight=200", &r, &sk), 0);
        assert_int_equal(sk.n, 0);
        assert_int_equal(r.mask, (1u << SETTING_QUOTA_SHARE) | (1u << SETTING_WEIGHT));
        assert_int_equal(r.quota_share, 125000); /* CPUQuota='s units: 12.5 % of one CPU's second */
        rule_done(&r);
        assert_int_equal(conf_parse_line("* CPUQuotaShare=100%", &r, &sk), 0);
        assert_int_equal(r.quota_share, 1000000);
        rule_done(&r);
        /* the first of the two stays */
        assert_int_equal(conf_parse_line("alice CPUQuotaShare=25% CPUQuota=50%", &r, &sk), 0);
        assert_int_equal(r.mask, 1u << SETTING_QUOTA_SHARE);
        assert_string_equal(r.text, "alice CPUQuotaShare=25%");
        assert_int_equal(sk.n, 1);
        assert_string_equal(sk.items[0].reason, "CPUQuota= and CPUQuotaShare= on one line: one quota per line "
                                                "(the first one applies)");
        assert_string_equal(sk.items[0].token, "CPUQuota=50%");
        rule_done(&r);
        conf_skips_done(&sk);
}

/* Neither a reason nor the text explain shows has the secret, nor quotes anything. */
static void expect_quotes_nothing(const char *line, const char *needle, const char *secret) {
        ConfSkips sk = {};
        Rule r;
        int k = conf_parse_line(line, &r, &sk);

        assert_true(k <= 0);
        assert_true(sk.n >= 1);
        for (size_t i = 0; i < sk.n; i++) {
                const char *why = sk.items[i].reason;
                if ((i == 0 && !strstr(why, needle)) || strstr(why, secret) || strchr(why, '\''))
                        fail_msg("'%s': message '%s' should have '%s' and quote nothing", line, why, needle);
        }
        if (k == 0) {
                if (strstr(r.text, secret))
                        fail_msg("'%s': rule text '%s' has the skipped '%s'", line, r.text, secret);
                rule_done(&r);
        }
        conf_skips_done(&sk);
}

/* `slicectl check /etc/shadow` through a sudo rule must not print a hash: nothing of a
 * line is quoted unless it starts with a valid domain, and then only setting names and values */
static void test_errors_quote_no_secret(void **state) {
        expect_quotes_nothing("root:$6$Zx9Salt$HashHashHash:19000:0:99999:7:::", "bad uid range", "Zx9");
        expect_quotes_nothing("root:$6$Zx9Salt$HashHashHash:19000:0:99999:7::: more", "at the start of the line",
                              "Hash");
        expect_quotes_nothing("-----BEGIN PRIVATE KEY-----", "expected SETTING=VALUE after the domain", "PRIVATE");
        expect_quotes_nothing("MIIEvQIBADANBgkqhkiG9w0B=AQEFAASC", "bad domain", "MIIE");
        expect_quotes_nothing("alice hunter2", "expected SETTING=VALUE after the domain", "hunter2");
        expect_quotes_nothing("alice * s3cret *", "expected SETTING=VALUE after the domain", "s3cret");
        expect_quotes_nothing("alice $6$abc=def", "unknown setting (allowed:", "abc");
        expect_quotes_nothing("12345 token:abcdef=x", "unknown setting (allowed:", "abcdef");
        /* a valid setting beside it: the rest of the line applies, the secret is still not quoted */
        expect_quotes_nothing("alice hunter2 CPUWeight=5", "expected SETTING=VALUE after the domain", "hunter2");
        expect_quotes_nothing("alice CPUWeight=5 $6$abc=def", "unknown setting (allowed:", "abc");
}

/* a bad setting is skipped alone, the rest of the line applies (as systemd skips one unknown
 * key in a unit file); the rule's text, which explain shows, holds only what was used */
static void test_setting_skipped(void **state) {
        static const struct {
                const char *line;
                unsigned mask;
                const char *text;
                const char *reason; /* of the one skipped setting */
                const char *token;
                int setting;
        } t[] = {
                { "@students CPUWieght=100 CPUQuota=200%", 1u << SETTING_QUOTA, "@students CPUQuota=200%",
                  "unknown setting 'CPUWieght=' (allowed: CPUSlice=", "CPUWieght=100", -1 },
                { "alice\tCPUWeight=0  CPUQuota=50% # why", 1u << SETTING_QUOTA, "alice CPUQuota=50%",
                  "bad CPUWeight= value '0' (allowed: 1..10000 or idle)", "CPUWeight=0", SETTING_WEIGHT },
                { "alice CPUWeight=5 CPUWeight=6", 1u << SETTING_WEIGHT, "alice CPUWeight=5",
                  "CPUWeight= given twice on one line (the first one applies)", "CPUWeight=6", SETTING_WEIGHT },
                { "alice CPUWeight=banana CPUWeight=7", 1u << SETTING_WEIGHT, "alice CPUWeight=7",
                  "bad CPUWeight= value 'banana'", "CPUWeight=banana", SETTING_WEIGHT },
                { "1000:1999 CPUQuotaPeriodSec=2s CPUQuota=10%", 1u << SETTING_QUOTA, "1000:1999 CPUQuota=10%",
                  "allowed: 1ms..1s", "CPUQuotaPeriodSec=2s", SETTING_PERIOD },
                { "bob CPUSlice=no CPUWeight", 1u << SETTING_SLICE, "bob CPUSlice=no",
                  "expected SETTING=VALUE, got 'CPUWeight'", "CPUWeight", -1 },
                { "* CPUSlice=maybe CPUWeight=50 CPUQuota=1%", (1u << SETTING_WEIGHT) | (1u << SETTING_QUOTA),
                  "* CPUWeight=50 CPUQuota=1%", "allowed: yes, no", "CPUSlice=maybe", SETTING_SLICE },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                ConfSkips sk = {};
                Rule r;

                assert_int_equal(conf_parse_line(t[i].line, &r, &sk), 0);
                assert_int_equal(r.mask, t[i].mask);
                assert_string_equal(r.text, t[i].text);
                assert_int_equal(sk.n, 1);
                if (!strstr(sk.items[0].reason, t[i].reason))
                        fail_msg("'%s': reason '%s' lacks '%s'", t[i].line, sk.items[0].reason, t[i].reason);
                assert_string_equal(sk.items[0].token, t[i].token);
                assert_int_equal(sk.items[0].setting, t[i].setting);
                rule_done(&r);
                conf_skips_done(&sk);
        }
}

/* Values of the settings kept are those of the line; every bad one is reported; a line left with
 * no setting gives no rule. */
static void test_setting_skipped_values(void **state) {
        ConfSkips sk = {};
        Rule r;

        assert_int_equal(conf_parse_line("alice CPUWeight=5 CPUWeight=6 CPUQota=1% CPUQuota=250%", &r, &sk), 0);
        assert_int_equal(r.weight, 5);
        assert_int_equal(r.quota_per_sec, 2500000);
        assert_int_equal(sk.n, 2);
        assert_non_null(strstr(sk.items[0].reason, "given twice"));
        assert_non_null(strstr(sk.items[1].reason, "unknown setting 'CPUQota='"));
        rule_done(&r);

        assert_true(conf_parse_line("@students CPUWieght=100 CPUQota=200%", &r, &sk) < 0);
        assert_int_equal(sk.n, 2);
        assert_non_null(strstr(sk.items[1].reason, "unknown setting 'CPUQota='"));
        /* a bad domain: nothing after it is looked at */
        assert_true(conf_parse_line("al=ice CPUWeight=5 CPUWieght=1", &r, &sk) < 0);
        assert_int_equal(sk.n, 1);
        assert_null(sk.items[0].token);
        conf_skips_done(&sk);
}

/* Names follow only a PenaltyExempt= that was taken: after a skipped one they are skipped too, and
 * the line's text (what explain shows, what parses again) carries none of them (found by fuzz-conf-line). */
static void test_penalty_exempt_skipped(void **state) {
        _cleanup_(conf_skips_done) ConfSkips sk = {};
        Rule r = {};

        assert_int_equal(conf_parse_line("alice CPUWeight=100 PenaltyExempt=a/b make cc1", &r, &sk), 0);
        assert_int_equal(sk.n, 3);
        assert_int_equal(r.penalty.mask, 0);
        assert_int_equal(r.penalty.n_exempt, 0);
        assert_string_equal(r.text, "alice CPUWeight=100");
        rule_done(&r);
}

static void test_penalty_keys(void **state) {
        _cleanup_(conf_skips_done) ConfSkips sk = {};
        Rule r = {};

        /* names after PenaltyExempt= up to the next KEY=; the CPU settings beside them */
        assert_int_equal(conf_parse_line("@students CPUWeight=100 PenaltyAbove=150% PenaltyExempt=make cc1 rsync "
                                         "PenaltyQuota=100%,50%,25% PenaltyTime=30min,1h,2h",
                                         &r, &sk),
                         0);
        assert_int_equal(sk.n, 0);
        assert_int_equal(r.mask, 1u << SETTING_WEIGHT);
        assert_int_equal(r.penalty.n_exempt, 3);
        assert_string_equal(r.penalty.exempt[2], "rsync");
        assert_int_equal(r.penalty.policy.n_quota, 3);
        rule_done(&r);

        /* a line of penalty keys alone is a rule */
        assert_int_equal(conf_parse_line("* PenaltyAbove=off", &r, &sk), 0);
        assert_int_equal(r.mask, 0);
        assert_int_equal(r.penalty.mask, 1u << PENALTY_KEY_ABOVE);
        rule_done(&r);

        /* a bad value or name is skipped alone, with what is allowed; the rest applies */
        assert_int_equal(conf_parse_line("bob PenaltyWindow=5s PenaltyQuota=50%,100% PenaltyExempt=make /bin/sh "
                                         "PenaltyAbove=200% PenaltyAbove=300%",
                                         &r, &sk),
                         0);
        assert_int_equal(sk.n, 4);
        assert_string_equal(sk.items[0].reason, "bad PenaltyWindow= value '5s' (allowed: a time of 10s to 24h (s, "
                                                "min, h))");
        assert_non_null(strstr(sk.items[1].reason, "none above the one before"));
        assert_non_null(strstr(sk.items[2].reason, "bad PenaltyExempt= name"));
        assert_string_equal(sk.items[3].reason, "PenaltyAbove= given twice on one line (the first one applies)");
        assert_int_equal(r.penalty.policy.above_per_sec, 2000000);
        assert_int_equal(r.penalty.n_exempt, 1);
        assert_string_equal(r.text, "bob PenaltyExempt=make PenaltyAbove=200%");
        rule_done(&r);
}

static void test_long_line(void **state) {
        char *line = malloc(CONF_LINE_MAX + 2);
        ConfSkips sk = {};
        Rule r;

        memset(line, 'a', CONF_LINE_MAX + 1);
        line[CONF_LINE_MAX + 1] = '\0';
        assert_int_equal(conf_parse_line(line, &r, &sk), -E2BIG);
        assert_int_equal(sk.n, 1);
        assert_non_null(strstr(sk.items[0].reason, "longer than 4096"));
        conf_skips_done(&sk);
        free(line);
}

static void test_buffer(void **state) {
        static const char buf[] = "# cpuslice.conf\n"
                                  "* CPUWeight=100\n"
                                  "bogus line\n"
                                  "\n"
                                  "alice CPUWeight=5\0 CPUQuota=1%\n"
                                  "bob CPUQuota=50%";
        RuleSet rs = {};
        DiagList d = {};
        char fmt[512];

        assert_int_equal(conf_parse_buffer(&rs, "test.conf", buf, sizeof buf - 1, &d), 0);
        assert_int_equal(rs.n, 2);
        assert_int_equal(rs.rules[0].line, 2);
        assert_int_equal(rs.rules[1].line, 6);
        assert_string_equal(rule_file(&rs, &rs.rules[1]), "test.conf");
        assert_int_equal(d.n, 2);
        assert_string_equal(
                diag_format(&d.items[0], fmt, sizeof fmt),
                "test.conf:3: expected SETTING=VALUE after the domain (settings: CPUSlice=, CPUWeight=, "
                "CPUQuota=, CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=, PenaltyAbove=, PenaltyWindow=, PenaltyQuota=, PenaltyTime=, PenaltyForget=, PenaltyExempt=); line skipped");
        assert_string_equal(diag_format(&d.items[1], fmt, sizeof fmt), "test.conf:5: NUL byte in line; line skipped");
        assert_int_equal(d.items[1].level, DIAG_ERROR);
        assert_false(rs.has_groups);
        ruleset_done(&rs);
        diag_list_done(&d);
}

/* the diagnostic names file:line and says that only the setting went; the rest applies */
static void test_buffer_setting_skipped(void **state) {
        static const char buf[] = "* CPUWeight=100\n"
                                  "@students CPUWieght=100 CPUQuota=200%\n"
                                  "alice CPUWieght=5 CPUQota=1%\n";
        RuleSet rs = {};
        DiagList d = {};
        char fmt[512];

        assert_int_equal(conf_parse_buffer(&rs, "/etc/security/cpuslice.conf", buf, sizeof buf - 1, &d), 0);
        assert_int_equal(rs.n, 2);
        assert_int_equal(rs.rules[1].line, 2);
        assert_int_equal(rs.rules[1].mask, 1u << SETTING_QUOTA);
        assert_int_equal(rs.rules[1].quota_per_sec, 2000000);
        assert_string_equal(rs.rules[1].text, "@students CPUQuota=200%");
        assert_int_equal(d.n, 3);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 3);
        assert_string_equal(
                diag_format(&d.items[0], fmt, sizeof fmt),
                "/etc/security/cpuslice.conf:2: unknown setting 'CPUWieght=' (allowed: CPUSlice=, "
                "CPUWeight=, CPUQuota=, CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=, PenaltyAbove=, PenaltyWindow=, PenaltyQuota=, PenaltyTime=, PenaltyForget=, PenaltyExempt=); setting skipped");
        /* nothing of line 3 is usable: each problem is named, and the line goes */
        assert_string_equal(
                diag_format(&d.items[1], fmt, sizeof fmt),
                "/etc/security/cpuslice.conf:3: unknown setting 'CPUWieght=' (allowed: CPUSlice=, "
                "CPUWeight=, CPUQuota=, CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=, PenaltyAbove=, PenaltyWindow=, PenaltyQuota=, PenaltyTime=, PenaltyForget=, PenaltyExempt=); line skipped");
        assert_string_equal(
                diag_format(&d.items[2], fmt, sizeof fmt),
                "/etc/security/cpuslice.conf:3: unknown setting 'CPUQota=' (allowed: CPUSlice=, "
                "CPUWeight=, CPUQuota=, CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=, PenaltyAbove=, PenaltyWindow=, PenaltyQuota=, PenaltyTime=, PenaltyForget=, PenaltyExempt=); line skipped");
        ruleset_done(&rs);
        diag_list_done(&d);
}

static void test_buffer_long_line_skipped(void **state) {
        size_t n = 1024 * 1024;
        char *buf = malloc(n + 64);
        RuleSet rs = {};
        DiagList d = {};

        memset(buf, 'x', n);
        strcpy(buf + n, "\n@g CPUWeight=7\n");
        assert_int_equal(conf_parse_buffer(&rs, "big.conf", buf, strlen(buf), &d), 0);
        assert_int_equal(rs.n, 1);
        assert_true(rs.has_groups);
        assert_int_equal(d.n, 1);
        assert_int_equal(d.items[0].line, 1);
        assert_non_null(strstr(d.items[0].msg, "longer than 4096 bytes"));
        ruleset_done(&rs);
        diag_list_done(&d);
        free(buf);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_domains),
                cmocka_unit_test(test_settings),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_quota_share),
                cmocka_unit_test(test_errors_quote_no_secret),
                cmocka_unit_test(test_setting_skipped),
                cmocka_unit_test(test_setting_skipped_values),
                cmocka_unit_test(test_long_line),
                cmocka_unit_test(test_penalty_keys),
                cmocka_unit_test(test_penalty_exempt_skipped),
                cmocka_unit_test(test_buffer),
                cmocka_unit_test(test_buffer_setting_skipped),
                cmocka_unit_test(test_buffer_long_line_skipped),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
