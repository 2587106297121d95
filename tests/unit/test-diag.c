/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* diag: the file:line diagnostics lib/ collects for the edges to print; each added one is kept
 * in order with its level, file and line, counted per level, formatted in three shapes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "diag.h"

static void test_add_and_format(void **state) {
        DiagList l = {};
        char buf[256];

        (void) state;
        assert_int_equal(diag_add(&l, DIAG_ERROR, "/etc/security/cpuslice.conf", 3, "bad %s value '%s'",
                                  "CPUQuota=", "5"),
                         0);
        assert_int_equal(diag_add(&l, DIAG_WARNING, "/etc/security/cpuslice.d", 0, "directory is writable by %s",
                                  "others"),
                         0);
        assert_int_equal(diag_add(&l, DIAG_WARNING, NULL, 7, "%d users without a slice", 2), 0);
        assert_int_equal(l.n, 3);
        assert_int_equal(l.items[0].level, DIAG_ERROR);
        assert_int_equal(l.items[0].line, 3);
        assert_string_equal(l.items[0].file, "/etc/security/cpuslice.conf");
        assert_string_equal(diag_format(&l.items[0], buf, sizeof buf),
                            "/etc/security/cpuslice.conf:3: bad CPUQuota= value '5'");
        /* line 0: about the whole file */
        assert_string_equal(diag_format(&l.items[1], buf, sizeof buf),
                            "/etc/security/cpuslice.d: directory is writable by others");
        /* no file: the message alone, whatever the line */
        assert_null(l.items[2].file);
        assert_string_equal(diag_format(&l.items[2], buf, sizeof buf), "2 users without a slice");
        assert_int_equal(diag_count(&l, DIAG_ERROR), 1);
        assert_int_equal(diag_count(&l, DIAG_WARNING), 2);
        diag_list_done(&l);
        assert_int_equal(l.n, 0);
        assert_null(l.items);
        assert_int_equal(diag_count(&l, DIAG_ERROR), 0);
}

static void test_file_copied(void **state) {
        DiagList l = {};
        char file[] = "a.conf", buf[64];

        (void) state;
        assert_int_equal(diag_add(&l, DIAG_ERROR, file, 1, "x"), 0);
        /* the caller's buffer may change or go: the list holds its own copy */
        file[0] = 'b';
        assert_string_equal(diag_format(&l.items[0], buf, sizeof buf), "a.conf:1: x");
        diag_list_done(&l);
}

static void test_format_truncates(void **state) {
        DiagList l = {};
        char buf[8];

        (void) state;
        assert_int_equal(diag_add(&l, DIAG_ERROR, "cpuslice.conf", 12, "long message"), 0);
        assert_string_equal(diag_format(&l.items[0], buf, sizeof buf), "cpuslic");
        diag_list_done(&l);
}

static void test_many(void **state) {
        DiagList l = {};
        char buf[64], want[64];

        (void) state;
        for (unsigned i = 1; i <= 1000; i++)
                assert_int_equal(diag_add(&l, i % 3 ? DIAG_WARNING : DIAG_ERROR, "f", i, "n%u", i), 0);
        assert_int_equal(l.n, 1000);
        assert_true(l.cap >= l.n);
        assert_int_equal(diag_count(&l, DIAG_ERROR), 333);
        assert_int_equal(diag_count(&l, DIAG_WARNING), 667);
        /* kept in the order added */
        for (unsigned i = 0; i < 1000; i += 111) {
                snprintf(want, sizeof want, "f:%u: n%u", i + 1, i + 1);
                assert_string_equal(diag_format(&l.items[i], buf, sizeof buf), want);
        }
        diag_list_done(&l);
        /* reusable after done */
        assert_int_equal(diag_add(&l, DIAG_ERROR, NULL, 0, "again"), 0);
        assert_int_equal(l.n, 1);
        diag_list_done(&l);
}

static void test_null_list(void **state) {
        (void) state;
        /* callers that want no diagnostics pass NULL */
        assert_int_equal(diag_add(NULL, DIAG_ERROR, "f", 1, "dropped %s", "quietly"), 0);
        assert_int_equal(diag_count(NULL, DIAG_ERROR), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_add_and_format),   cmocka_unit_test(test_file_copied),
                cmocka_unit_test(test_format_truncates), cmocka_unit_test(test_many),
                cmocka_unit_test(test_null_list),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
