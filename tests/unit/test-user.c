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

#include "conf-parse.h"
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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lookup),
                cmocka_unit_test(test_group_rule_through_nss),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
