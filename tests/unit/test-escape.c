/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "escape.h"

static void test_escape_for_log(void **state) {
        static const struct {
                const char *in;
                size_t max, n;
                const char *out;
        } cases[] = {
                { "alice", 64, 64, "alice" },
                { "", 64, 64, "" },
                { "\x1b[2J", 64, 64, "\\x1b[2J" },
                { "a\nb\tc\r", 64, 64, "a\\x0ab\\x09c\\x0d" },
                { "back\\slash \"q\" 'q'", 64, 64, "back\\\\slash \"q\" 'q'" },
                { "\x7f\x80\xff", 64, 64, "\\x7f\\x80\\xff" },
                { "j\xc3\xbcrgen", 64, 64, "j\\xc3\\xbcrgen" }, /* not ASCII: escaped, as cescape */
                { "abcdef", 3, 64, "abc..." },                  /* at most max input bytes */
                { "abcdef", 64, 6, "a..." },                    /* room for "..." and the NUL */
                { "abcdef", 64, 7, "ab..." },
                { "\x01\x02\x03", 64, 9, "\\x01..." }, /* never half an escape */
                { "abc", 3, 64, "abc" },               /* exactly max: nothing cut */
        };
        char out[64];

        (void) state;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                memset(out, 'X', sizeof out);
                assert_ptr_equal(escape_for_log(cases[i].in, cases[i].max, out, cases[i].n), out);
                assert_string_equal(out, cases[i].out);
                assert_true(strlen(out) < cases[i].n);
        }
        assert_string_equal(escape_for_log(NULL, 64, out, sizeof out), "");
        out[0] = 'X';
        escape_for_log("abc", 64, out, 0); /* no room at all: untouched, no write */
        assert_int_equal(out[0], 'X');
}

static void test_escape_dup(void **state) {
        char in[256 + 1], *out;

        (void) state;
        /* every byte value, and nothing cut however long */
        for (int i = 1; i < 256; i++)
                in[i - 1] = (char) i;
        in[255] = '\0';
        out = escape_dup(in);
        assert_non_null(out);
        for (const char *p = out; *p; p++)
                assert_true(*p >= 0x20 && *p < 0x7f);
        assert_null(strstr(out, "..."));
        assert_non_null(strstr(out, "\\x01\\x02"));
        assert_non_null(strstr(out, "\\\\]^_`abc"));
        assert_non_null(strstr(out, "~\\x7f\\x80"));
        assert_int_equal(strlen(out), 31 * 4 + (0x7f - 0x20) + 1 /* the doubled backslash */ + 129 * 4);
        free(out);

        out = escape_dup(NULL);
        assert_non_null(out);
        assert_string_equal(out, "");
        free(out);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_escape_for_log),
                cmocka_unit_test(test_escape_dup),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
