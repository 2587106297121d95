/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "string-table.h"

/* A table with a hole, as an enum whose values are not all named. */
typedef enum Color {
        COLOR_RED,
        COLOR_GREEN,
        COLOR_UNNAMED,
        COLOR_BLUE,
        _COLOR_MAX,
} Color;

static const char *const color_table[_COLOR_MAX] = {
        [COLOR_RED] = "red",
        [COLOR_GREEN] = "green",
        [COLOR_BLUE] = "blue",
};

DEFINE_PRIVATE_STRING_TABLE_LOOKUP(color, Color)

/* The same table, for printing: a name never NULL. */
static const char *const shade_table[_COLOR_MAX] = {
        [COLOR_RED] = "red",
        [COLOR_GREEN] = "green",
        [COLOR_BLUE] = "blue",
};

const char *shade_to_string(Color c); /* the macro defines it extern: a prototype for -Wmissing-prototypes */
DEFINE_STRING_TABLE_LOOKUP_TO_STRING_FALLBACK(shade, Color, "?")

static void test_to_string(void **state) {
        (void) state;
        assert_string_equal(color_to_string(COLOR_RED), "red");
        assert_string_equal(color_to_string(COLOR_GREEN), "green");
        assert_string_equal(color_to_string(COLOR_BLUE), "blue");
        assert_null(color_to_string(COLOR_UNNAMED));
        assert_null(color_to_string(_COLOR_MAX));
        assert_null(color_to_string((Color) -1)); /* a negative value is outside too, not a read before */
}

static void test_to_string_fallback(void **state) {
        (void) state;
        assert_string_equal(shade_to_string(COLOR_RED), "red");
        assert_string_equal(shade_to_string(COLOR_BLUE), "blue");
        assert_string_equal(shade_to_string(COLOR_UNNAMED), "?"); /* the hole too */
        assert_string_equal(shade_to_string(_COLOR_MAX), "?");
        assert_string_equal(shade_to_string((Color) -1), "?");
}

static void test_from_string(void **state) {
        (void) state;
        assert_int_equal(color_from_string("red"), COLOR_RED);
        assert_int_equal(color_from_string("green"), COLOR_GREEN);
        assert_int_equal(color_from_string("blue"), COLOR_BLUE);
        /* exact names only: no case folding, no prefixes, the hole matches nothing */
        assert_int_equal(color_from_string("Red"), -EINVAL);
        assert_int_equal(color_from_string("re"), -EINVAL);
        assert_int_equal(color_from_string("redd"), -EINVAL);
        assert_int_equal(color_from_string(""), -EINVAL);
        assert_int_equal(color_from_string(NULL), -EINVAL);
        for (Color c = 0; c < _COLOR_MAX; c++)
                if (color_to_string(c))
                        assert_int_equal(color_from_string(color_to_string(c)), c);
}

static void test_lookup(void **state) {
        static const char *const t[] = { "a", NULL, "b", "a" };

        (void) state;
        assert_int_equal(string_table_lookup(t, 4, "a"), 0); /* the first of two */
        assert_int_equal(string_table_lookup(t, 4, "b"), 2);
        assert_int_equal(string_table_lookup(t, 2, "b"), -EINVAL); /* only len entries are looked at */
        assert_int_equal(string_table_lookup(t, 0, "a"), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_to_string),
                cmocka_unit_test(test_to_string_fallback),
                cmocka_unit_test(test_from_string),
                cmocka_unit_test(test_lookup),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
