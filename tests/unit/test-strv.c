/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "strv.h"

static void test_consume_and_length(void **state) {
        _cleanup_strv_free_ char **v = NULL;
        size_t n = 0;

        (void) state;
        assert_int_equal(strv_length(NULL), 0);
        assert_int_equal(strv_consume(&v, &n, strdup("b")), 0);
        assert_int_equal(strv_consume(&v, &n, strdup("a")), 0);
        assert_int_equal(strv_consume(&v, &n, strdup("c")), 0);
        assert_int_equal(n, 3);
        assert_int_equal(strv_length(v), 3);
        assert_null(v[3]); /* kept terminated after every append */
        assert_string_equal(v[0], "b");
        assert_string_equal(v[2], "c");
        /* a string that could not be made is no entry, and the array is untouched */
        assert_int_equal(strv_consume(&v, &n, NULL), -ENOMEM);
        assert_int_equal(n, 3);
        assert_int_equal(strv_length(v), 3);
}

static void test_sort(void **state) {
        _cleanup_strv_free_ char **v = NULL;
        static const char *const in[] = { "b.conf", "a.conf", "B.conf", "10-x.conf", "9-y.conf" };
        static const char *const want[] = { "10-x.conf", "9-y.conf", "B.conf", "a.conf", "b.conf" };
        size_t n = 0;

        (void) state;
        strv_sort(NULL, 0);
        for (size_t i = 0; i < 5; i++)
                assert_int_equal(strv_consume(&v, &n, strdup(in[i])), 0);
        strv_sort(v, n);
        for (size_t i = 0; i < 5; i++)
                assert_string_equal(v[i], want[i]); /* C-locale order: bytes, not a human's */
        assert_null(v[5]);
}

static void test_strv_free(void **state) {
        char **v = calloc(3, sizeof *v);

        (void) state;
        assert_non_null(v);
        v[0] = strdup("x");
        v[1] = strdup("y");
        assert_null(strv_free(v)); /* valgrind and ASan see a leak if anything stays */
        assert_null(strv_free(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_consume_and_length),
                cmocka_unit_test(test_sort),
                cmocka_unit_test(test_strv_free),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
