/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs under nss_wrapper with tests/data/{passwd,group}: never the host's own databases. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <pwd.h>

#include "conf-parse.h"
#include "macro.h"
#include "user.h"

static void test_lookup(void **state) {
        UserIdent u;

        assert_int_equal(user_lookup("alice", &u), 0);
        assert_int_equal(u.uid, 1001);
        assert_int_equal(u.gid, 1001);
        assert_string_equal(u.home, "/home/alice");
        assert_int_equal(user_in_group(&u, "staff"), 1);
        assert_int_equal(user_in_group(&u, "alice"), 1); /* primary */
        assert_int_equal(user_in_group(&u, "2000"), 1);  /* by gid */
        assert_int_equal(user_in_group(&u, "students"), 0);
        assert_int_equal(user_in_group(&u, "nosuchgroup"), 0);
        user_done(&u);
        /* the group named "12345" has gid 3000: a rule's digits are a gid, never that name, and
         * the name NSS gives gid 3000 is never compared with a rule */
        assert_int_equal(user_lookup("12345", &u), 0);
        assert_int_equal(user_in_group(&u, "3000"), 1);
        assert_int_equal(user_in_group(&u, "12345"), 0);
        user_done(&u);
        assert_int_equal(user_lookup_uid(1002, &u), 0);
        assert_string_equal(u.name, "bob");
        assert_int_equal(user_in_group(&u, "students"), 1);
        user_done(&u);
        assert_int_equal(user_lookup("nosuchuser", &u), -ENOENT);
        assert_int_equal(user_lookup("", &u), -ENOENT);
        assert_int_equal(user_lookup("../../etc", &u), -ENOENT);
}

static void test_group_rule_through_nss(void **state) {
        static const char conf[] = "@students CPUWeight=50\n@staff CPUWeight=300\n* CPUWeight=100\n"
                                   "12345 CPUWeight=7\n";
        RuleSet rs = {};
        DiagList d = {};
        UserIdent u;
        Resolved r;

        assert_int_equal(conf_parse_buffer(&rs, "t.conf", conf, sizeof conf - 1, &d), 0);
        assert_int_equal(user_lookup("carol", &u), 0);
        assert_int_equal(rules_resolve(&rs, &u, &r), 0);
        assert_int_equal(r.limits.weight, 50);
        user_done(&u);
        assert_int_equal(user_lookup("erin", &u), 0);
        assert_int_equal(rules_resolve(&rs, &u, &r), 0);
        assert_int_equal(r.limits.weight, 300);
        user_done(&u);
        /* a domain that is all digits is a uid, even where a user has that name */
        assert_int_equal(user_lookup("12345", &u), 0);
        assert_int_equal(u.uid, 3000);
        assert_int_equal(rules_resolve(&rs, &u, &r), 0);
        assert_int_equal(r.limits.weight, 100);
        user_done(&u);
        ruleset_done(&rs);
        diag_list_done(&d);
}

/* The table answers as getpwuid() does, for every user NSS has, and asks NSS for a uid it lacks. */
static void test_table(void **state) {
        _cleanup_(user_table_done) UserTable t = {};
        UserIdent a, b;
        struct passwd *pw;

        assert_int_equal(user_table_load(&t), 0);
        assert_true(t.n >= 3);
        for (size_t i = 1; i < t.n; i++)
                assert_true(t.users[i - 1].uid < t.users[i].uid);
        setpwent();
        while ((pw = getpwent())) {
                assert_int_equal(user_table_lookup_uid(&t, pw->pw_uid, &a), 0);
                assert_int_equal(user_lookup_uid(pw->pw_uid, &b), 0);
                assert_string_equal(a.name, b.name);
                assert_string_equal(a.home, b.home);
                assert_int_equal(a.gid, b.gid);
                assert_false(a.groups_loaded);
                user_done(&a);
                user_done(&b);
        }
        endpwent();
        assert_int_equal(user_table_lookup_uid(&t, 1001, &a), 0);
        assert_int_equal(user_in_group(&a, "staff"), 1);
        user_done(&a);
        assert_int_equal(user_table_lookup_uid(&t, 4242424, &a), -ENOENT);
        assert_int_equal(user_table_lookup_uid(NULL, 1002, &a), 0);
        assert_string_equal(a.name, "bob");
        user_done(&a);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lookup),
                cmocka_unit_test(test_group_rule_through_nss),
                cmocka_unit_test(test_table),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
