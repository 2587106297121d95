/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Slice, scope and session names, both ways: what the cgroupfs backend creates, what gc and list
 * accept, and what the systemd backend asks for are one set of names. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "macro.h"
#include "session-id-cases.h"
#include "slice-name.h"

static void test_slice_name(void **state) {
        static const struct {
                uid_t uid;
                const char *name;
        } cases[] = {
                { 0, "user-0.slice" },
                { 1001, "user-1001.slice" },
                { 65534, "user-65534.slice" },
                { 4294967294u, "user-4294967294.slice" },
                { SLICE_ROOT_UID, "user.slice" }, /* no user: the cgroup that holds them */
        };
        char buf[SLICE_NAME_MAX];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                slice_name(cases[i].uid, buf);
                assert_string_equal(buf, cases[i].name);
        }
}

static void test_scope_name(void **state) {
        char buf[SLICE_NAME_MAX];

        assert_int_equal(sizeof id64 - 1, SESSION_ID_MAX);
        for (size_t i = 0; i < ELEMENTSOF(id_cases); i++) {
                const char *r = scope_name(id_cases[i].id, buf);
                if (id_cases[i].scope) {
                        assert_ptr_equal(r, buf);
                        assert_string_equal(buf, id_cases[i].scope);
                } else if (r)
                        fail_msg("case %zu: '%s' accepted as '%s'", i, id_cases[i].id, r);
        }
}

static void test_name_to_uid(void **state) {
        uid_t uid;

        assert_int_equal(slice_name_to_uid("user-1000.slice", &uid), 0);
        assert_int_equal(uid, 1000);
        assert_int_equal(slice_name_to_uid("user-0.slice", &uid), 0);
        assert_int_equal(uid, 0);
        assert_int_equal(slice_name_to_uid("user-.slice", &uid), -EINVAL);
        assert_int_equal(slice_name_to_uid("user-1000.scope", &uid), -EINVAL);
        assert_int_equal(slice_name_to_uid("user-x.slice", &uid), -EINVAL);
        assert_int_equal(slice_name_to_uid("user-4294967295.slice", &uid), -EINVAL);
        assert_int_equal(slice_name_to_uid("user-99999999999.slice", &uid), -EINVAL);
        assert_int_equal(slice_name_to_uid("user.slice", &uid), -EINVAL);
}

static void test_scope_name_valid(void **state) {
        assert_true(scope_name_valid("session-3.scope"));
        assert_true(scope_name_valid("x.scope"));
        assert_false(scope_name_valid(".scope"));
        assert_false(scope_name_valid(".x.scope"));
        assert_false(scope_name_valid("session-3.scopex"));
        assert_false(scope_name_valid("session-3.slice"));
        assert_false(scope_name_valid(""));
}

static void test_path_in_slice(void **state) {
        static const struct {
                const char *path, *slices;
                uid_t uid;
                bool in;
        } cases[] = {
                { "/user.slice/user-1001.slice/session-3.scope\n", "user.slice", 1001, true },
                { "/user.slice/user-1001.slice/", "user.slice", 1001, true },
                { "/user.slice/user-1001.slice", "user.slice", 1001, false }, /* the slice itself holds no process */
                { "/user.slice/user-10010.slice/x", "user.slice", 1001, false },
                { "/user.slice/user-1001.slicex/x", "user.slice", 1001, false },
                { "/user.slice/user-1002.slice/user@1002.service/app.slice/user-1001.slice/x", "user.slice", 1001,
                  false },
                { "/x/user.slice/user-1001.slice/s", "user.slice", 1001, false }, /* exactly a prefix */
                { "/p/q/user.slice/user-1001.slice/s", "p/q/user.slice", 1001, true },
                { "/user.slice/user-1001.slice/s", "p/q/user.slice", 1001, false },
                /* slices at the root: /user-UID.slice/, and nothing deeper that ends the same way */
                { "/user-1001.slice/session-3.scope", "", 1001, true },
                { "/user-1001.slice", "", 1001, false },
                { "/user.slice/user-1001.slice/s", "", 1001, false },
                { "/user-1002.slice/user@1002.service/user-1001.slice/s", "", 1001, false },
                { "/user-1001.slice/s", "user.slice", 1001, false },
                { NULL, "", 1001, false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                if (slice_path_in_slice(cases[i].path, cases[i].slices, cases[i].uid) != cases[i].in)
                        fail_msg("case %zu: '%s' under '%s'", i, cases[i].path, cases[i].slices);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_slice_name),    cmocka_unit_test(test_scope_name),
                cmocka_unit_test(test_name_to_uid),   cmocka_unit_test(test_scope_name_valid),
                cmocka_unit_test(test_path_in_slice),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
