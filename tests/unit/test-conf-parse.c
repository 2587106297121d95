/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"

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
                char *why = NULL;
                assert_int_equal(conf_parse_line(t[i].line, &r, &why), 0);
                assert_null(why);
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
        char *why = NULL;

        assert_int_equal(conf_parse_line("  alice\tCPUWeight=idle  CPUQuota=12.5% CPUQuotaPeriodSec=20ms "
                                         "CPUSlice=yes # a comment", &r, &why), 0);
        assert_int_equal(r.mask, 0xf);
        assert_int_equal(r.weight, CPU_WEIGHT_IDLE);
        assert_int_equal(r.quota_per_sec, 125000);
        assert_int_equal(r.period_usec, 20000);
        assert_true(r.slice);
        assert_string_equal(r.text, "alice\tCPUWeight=idle  CPUQuota=12.5% CPUQuotaPeriodSec=20ms CPUSlice=yes");
        rule_done(&r);

        assert_int_equal(conf_parse_line("bob CPUSlice=no", &r, &why), 0);
        assert_false(r.slice);
        assert_int_equal(r.mask, 1u << SETTING_SLICE);
        rule_done(&r);

        assert_int_equal(conf_parse_line("bob CPUQuota=infinity", &r, &why), 0);
        assert_true(r.quota_per_sec == CPU_QUOTA_INFINITY);
        rule_done(&r);

        assert_int_equal(conf_parse_line("   # only a comment", &r, &why), 1);
        assert_int_equal(conf_parse_line("", &r, &why), 1);
        assert_int_equal(conf_parse_line(" \t ", &r, &why), 1);
}

static void expect_error(const char *line, const char *needle) {
        Rule r;
        char *why = NULL;
        int k = conf_parse_line(line, &r, &why);

        if (k >= 0)
                fail_msg("'%s' parsed, expected an error with '%s'", line, needle);
        assert_non_null(why);
        if (!strstr(why, needle))
                fail_msg("'%s': message '%s' lacks '%s'", line, why, needle);
        free(why);
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
        expect_error("alice CPUWeight=5 CPUWeight=6", "given twice");
        expect_error("2000:1000 CPUWeight=5", "uid range is empty");
        expect_error("a:b CPUWeight=5", "bad uid range");
        expect_error(": CPUWeight=5", "bad uid range");
        expect_error("4294967295 CPUWeight=5", "uid out of range");
        expect_error("99999999999 CPUWeight=5", "uid out of range");
        expect_error("@ CPUWeight=5", "bad group name");
        expect_error("al=ice CPUWeight=5", "bad domain");
        expect_error("** CPUWeight=5", "bad domain");
        expect_error("alice CPUQuo", "expected SETTING=VALUE, got 'CPUQuo'"); /* a setting's name, cut */
}

static void expect_quotes_nothing(const char *line, const char *needle, const char *secret) {
        Rule r;
        char *why = NULL;

        assert_true(conf_parse_line(line, &r, &why) < 0);
        assert_non_null(why);
        if (!strstr(why, needle) || strstr(why, secret) || strchr(why, '\''))
                fail_msg("'%s': message '%s' should have '%s' and quote nothing", line, why, needle);
        free(why);
}

/* #24 item 5: `slicectl check /etc/shadow` through a sudo rule must not print a hash: nothing of a
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
}

static void test_long_line(void **state) {
        char *line = malloc(CONF_LINE_MAX + 2);
        Rule r;
        char *why = NULL;

        memset(line, 'a', CONF_LINE_MAX + 1);
        line[CONF_LINE_MAX + 1] = '\0';
        assert_int_equal(conf_parse_line(line, &r, &why), -E2BIG);
        assert_non_null(strstr(why, "longer than 4096"));
        free(why);
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
        assert_string_equal(diag_format(&d.items[0], fmt, sizeof fmt),
                            "test.conf:3: expected SETTING=VALUE after the domain (settings: CPUSlice=, CPUWeight=, "
                            "CPUQuota=, CPUQuotaPeriodSec=); line skipped");
        assert_string_equal(diag_format(&d.items[1], fmt, sizeof fmt), "test.conf:5: NUL byte in line; line skipped");
        assert_int_equal(d.items[1].level, DIAG_ERROR);
        assert_false(rs.has_groups);
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
                cmocka_unit_test(test_domains),   cmocka_unit_test(test_settings),
                cmocka_unit_test(test_errors),    cmocka_unit_test(test_errors_quote_no_secret),
                cmocka_unit_test(test_long_line),
                cmocka_unit_test(test_buffer),    cmocka_unit_test(test_buffer_long_line_skipped),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
