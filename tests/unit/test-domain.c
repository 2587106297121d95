/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* domain: the first field of a config line (user, uid, uid range, @group, *), what each one is
 * refused for and why, how specific it is, and when it names one user outright. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "domain.h"
#include "macro.h"

#define NONE UINT32_MAX /* uid_min/uid_max not looked at */

static const struct {
        const char *in;
        int r;
        DomainType type;
        const char *name;
        uint32_t min, max;
        const char *reason; /* r < 0: the start of the reason given */
} cases[] = {
        { "*", 0, DOMAIN_ALL, NULL, 0, 0 },
        { "0", 0, DOMAIN_UID, NULL, 0, 0 },
        { "1001", 0, DOMAIN_UID, NULL, 1001, 1001 },
        { "007", 0, DOMAIN_UID, NULL, 7, 7 },
        { "4294967294", 0, DOMAIN_UID, NULL, 4294967294u, 4294967294u },
        { "4294967295", -ERANGE, 0, NULL, 0, 0, "uid out of range (0..4294967294)" },
        { "99999999999999999999999", -ERANGE, 0, NULL, 0, 0, "uid out of range" },
        { "1000:1999", 0, DOMAIN_UID_RANGE, NULL, 1000, 1999 },
        { "1000:1000", 0, DOMAIN_UID_RANGE, NULL, 1000, 1000 },
        { "1000:", 0, DOMAIN_UID_RANGE, NULL, 1000, 4294967294u },
        { ":999", 0, DOMAIN_UID_RANGE, NULL, 0, 999 },
        { "2000:1000", -ERANGE, 0, NULL, 0, 0, "uid range is empty" },
        { ":", -EINVAL, 0, NULL, 0, 0, "bad uid range" },
        { "a:b", -EINVAL, 0, NULL, 0, 0, "bad uid range" },
        { "1000:x", -EINVAL, 0, NULL, 0, 0, "bad uid range" },
        { "1:2:3", -EINVAL, 0, NULL, 0, 0, "bad uid range" },
        { "+1:5", -EINVAL, 0, NULL, 0, 0, "bad uid range" },
        { "-1:5", -EINVAL, 0, NULL, 0, 0, "bad uid range" },
        { "1:99999999999", -EINVAL, 0, NULL, 0, 0, "bad uid range" },
        { "@staff", 0, DOMAIN_GROUP, "staff", NONE, NONE },
        { "@domain users@corp", -EINVAL, 0, NULL, 0, 0, "bad group name after '@'" },
        { "@", -EINVAL, 0, NULL, 0, 0, "bad group name after '@'" },
        { "@st#aff", -EINVAL, 0, NULL, 0, 0, "bad group name after '@'" },
        { "@@x", 0, DOMAIN_GROUP, "@x", NONE, NONE },
        { "alice", 0, DOMAIN_USER, "alice", NONE, NONE },
        { "user@realm", 0, DOMAIN_USER, "user@realm", NONE, NONE },
        { "DOMAIN\\user", 0, DOMAIN_USER, "DOMAIN\\user", NONE, NONE },
        { "12345x", 0, DOMAIN_USER, "12345x", NONE, NONE },
        { "-1", 0, DOMAIN_USER, "-1", NONE, NONE },
        { "", -EINVAL, 0, NULL, 0, 0, "bad domain (allowed: user name, uid, FIRST:LAST uid range, @group or *)" },
        { "a b", -EINVAL, 0, NULL, 0, 0, "bad domain" },
        { "a\tb", -EINVAL, 0, NULL, 0, 0, "bad domain" },
        { "a#b", -EINVAL, 0, NULL, 0, 0, "bad domain" },
        { "a=b", -EINVAL, 0, NULL, 0, 0, "bad domain" },
        { "a*", -EINVAL, 0, NULL, 0, 0, "bad domain" },
        { "**", -EINVAL, 0, NULL, 0, 0, "bad domain" },
        { "a\x7f", -EINVAL, 0, NULL, 0, 0, "bad domain" },
        { "\xc3\xa9mile", 0, DOMAIN_USER, "\xc3\xa9mile", NONE, NONE },
};

static void test_parse(void **state) {
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Domain d = { .type = DOMAIN_ALL, .uid_min = 77, .uid_max = 77 };
                const char *reason = NULL;
                int r;

                r = domain_parse(cases[i].in, &d, &reason);
                if (r != cases[i].r)
                        fail_msg("'%s': %d, expected %d", cases[i].in, r, cases[i].r);
                if (r < 0) {
                        assert_non_null(reason);
                        if (strncmp(reason, cases[i].reason, strlen(cases[i].reason)) != 0)
                                fail_msg("'%s': reason '%s', expected '%s'", cases[i].in, reason, cases[i].reason);
                        /* nothing handed out on failure */
                        assert_null(d.name);
                        assert_int_equal(d.uid_min, 77);
                        continue;
                }
                assert_null(reason);
                assert_int_equal(d.type, cases[i].type);
                if (cases[i].name) {
                        assert_non_null(d.name);
                        assert_string_equal(d.name, cases[i].name);
                } else
                        assert_null(d.name);
                if (cases[i].min != NONE) {
                        assert_int_equal(d.uid_min, cases[i].min);
                        assert_int_equal(d.uid_max, cases[i].max);
                }
                domain_done(&d);
                assert_null(d.name);
                domain_done(&d); /* twice is harmless */
        }
}

static void test_name_length(void **state) {
        char s[DOMAIN_NAME_MAX + 3];
        const char *reason = NULL;
        Domain d = {};

        (void) state;
        memset(s, 'a', DOMAIN_NAME_MAX);
        s[DOMAIN_NAME_MAX] = '\0';
        assert_int_equal(domain_parse(s, &d, &reason), 0);
        assert_int_equal(strlen(d.name), DOMAIN_NAME_MAX);
        domain_done(&d);
        s[DOMAIN_NAME_MAX] = 'a';
        s[DOMAIN_NAME_MAX + 1] = '\0';
        assert_int_equal(domain_parse(s, &d, &reason), -EINVAL);
        assert_non_null(strstr(reason, "bad domain"));
        /* the same limit after '@' */
        s[0] = '@';
        assert_int_equal(domain_parse(s, &d, &reason), 0);
        assert_int_equal(d.type, DOMAIN_GROUP);
        domain_done(&d);
        s[DOMAIN_NAME_MAX + 1] = 'a';
        s[DOMAIN_NAME_MAX + 2] = '\0';
        assert_int_equal(domain_parse(s, &d, &reason), -EINVAL);
        assert_string_equal(reason, "bad group name after '@'");
}

static Domain parse(const char *s) {
        const char *reason = NULL;
        Domain d = {};

        if (domain_parse(s, &d, &reason) < 0)
                fail_msg("'%s': %s", s, reason);
        return d;
}

static void test_specificity(void **state) {
        static const struct {
                const char *in;
                Specificity s;
                const char *name;
        } sp[] = {
                { "*", SPECIFICITY_ALL, "*" },
                { "@staff", SPECIFICITY_GROUP, "group" },
                { "1000:1999", SPECIFICITY_RANGE, "uid range" },
                { ":0", SPECIFICITY_RANGE, "uid range" },
                { "alice", SPECIFICITY_USER, "user" },
                { "1001", SPECIFICITY_USER, "user" },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(sp); i++) {
                Domain d = parse(sp[i].in);
                assert_int_equal(domain_specificity(&d), sp[i].s);
                assert_string_equal(specificity_to_string(domain_specificity(&d)), sp[i].name);
                domain_done(&d);
        }
        /* higher wins: the order the resolver relies on */
        assert_true(SPECIFICITY_ALL < SPECIFICITY_GROUP && SPECIFICITY_GROUP < SPECIFICITY_RANGE &&
                    SPECIFICITY_RANGE < SPECIFICITY_USER);
        assert_string_equal(specificity_to_string((Specificity) 42), "?");
        assert_string_equal(specificity_to_string((Specificity) -1), "?");
}

static void test_names_user(void **state) {
        Domain alice = parse("alice"), uid = parse("1001"), root = parse("0"), range = parse("0:2000"),
               all = parse("*"), grp = parse("@alice");

        (void) state;
        assert_true(domain_names_user(&alice, "alice", 1001));
        assert_true(domain_names_user(&alice, "alice", 4242)); /* by name, whatever the uid */
        assert_false(domain_names_user(&alice, "bob", 1001));
        assert_false(domain_names_user(&alice, NULL, 1001));
        assert_true(domain_names_user(&uid, "bob", 1001));
        assert_true(domain_names_user(&uid, NULL, 1001));
        assert_false(domain_names_user(&uid, "alice", 1002));
        assert_true(domain_names_user(&root, "root", 0));
        /* a range, a group or * never names one user, not even root inside the range */
        assert_false(domain_names_user(&range, "root", 0));
        assert_false(domain_names_user(&all, "root", 0));
        assert_false(domain_names_user(&grp, "alice", 1001));
        domain_done(&alice);
        domain_done(&grp);
}

static void test_equal(void **state) {
        static const struct {
                const char *a, *b;
                bool eq;
        } eq[] = {
                { "alice", "alice", true },
                { "alice", "bob", false },
                { "alice", "@alice", false },
                { "@staff", "@staff", true },
                { "@staff", "@students", false },
                { "1001", "1001", true },
                { "1001", "1001:1001", false }, /* the same users, written otherwise */
                { "1000:", "1000:4294967294", true },
                { "1000:1999", "1000:2000", false },
                { ":10", "0:10", true },
                { "*", "*", true },
                { "*", "0:", false },
                { "1001", "alice", false },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(eq); i++) {
                Domain a = parse(eq[i].a), b = parse(eq[i].b);
                if (domain_equal(&a, &b) != eq[i].eq || domain_equal(&b, &a) != eq[i].eq)
                        fail_msg("'%s' vs '%s': expected %s", eq[i].a, eq[i].b, eq[i].eq ? "equal" : "different");
                domain_done(&a);
                domain_done(&b);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),       cmocka_unit_test(test_name_length),
                cmocka_unit_test(test_specificity), cmocka_unit_test(test_names_user),
                cmocka_unit_test(test_equal),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
