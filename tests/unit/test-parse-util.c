/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parse-util.h"

static void test_list_has_word(void **state) {
        assert_true(list_has_word("cpu memory pids\n", " \n", "cpu"));
        assert_true(list_has_word("memory pids cpu\n", " \n", "cpu"));
        assert_true(list_has_word("  cpu  ", " \n", "cpu"));
        assert_false(list_has_word("cpuset memory\n", " \n", "cpu")); /* a prefix is not the word */
        assert_false(list_has_word("memory pids\n", " \n", "cpu"));
        assert_false(list_has_word("", " \n", "cpu"));
        assert_false(list_has_word(NULL, " \n", "cpu"));
        assert_true(list_has_word("rw,cpu,cpuacct", ",", "cpuacct"));
        assert_false(list_has_word("rw,cpu,cpuacct", ",", "cpuac"));
        assert_false(list_has_word("rw,nsdelegate", ",", "favordynmods"));
        assert_true(list_has_word("rw,,favordynmods", ",", "favordynmods"));
}

static void test_parse_boolean(void **state) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on", "YES", "Yes", "TRUE", "On", "Y", "T" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off", "NO", "No", "FALSE", "Off", "N", "F" };
        static const char *const bad[] = { "",  "2",    "-1",   "yess",   "ye", "of",
                                           "o", " yes", "yes ", "enable", "00", "nope" };

        (void) state;
        for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
                assert_int_equal(parse_boolean(yes[i]), 1);
        for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
                assert_int_equal(parse_boolean(no[i]), 0);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                if (parse_boolean(bad[i]) != -EINVAL)
                        fail_msg("'%s' taken as a boolean", bad[i]);
        assert_int_equal(parse_boolean(NULL), -EINVAL);
}

static void test_name_is_safe(void **state) {
        static const struct {
                const char *s;
                size_t max;
                bool ok;
        } cases[] = {
                { "3", 64, true },     { "c1", 64, true },       { "Session_2-a", 64, true }, { "", 64, false },
                { "../x", 64, false }, { "a/b", 64, false },     { ".", 64, false },          { "a b", 64, false },
                { "a\nb", 64, false }, { "\x1b[2J", 64, false }, { "j\xc3\xbc", 64, false },  { "abcd", 4, true },
                { "abcde", 4, false },
        };

        (void) state;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
                assert_int_equal(name_is_safe(cases[i].s, cases[i].max), cases[i].ok);
        assert_false(name_is_safe(NULL, 64));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_boolean),
                cmocka_unit_test(test_list_has_word),
                cmocka_unit_test(test_name_is_safe),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
