/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "prom-text.h"

#define FFFD "\xef\xbf\xbd"

static const struct {
        const char *in;
        const char *want;
} escape_cases[] = {
        { "alice", "alice" },
        { "", "" },
        /* the three escapes the format defines */
        { "a\"b", "a\\\"b" },
        { "a\\b", "a\\\\b" },
        { "a\nb", "a\\nb" },
        { "\\\"\n", "\\\\\\\"\\n" },
        { "x\\n", "x\\\\n" }, /* a literal backslash-n stays two characters */
        /* other control bytes never reach the file raw */
        { "a\rb\tc", "a" FFFD "b" FFFD "c" },
        { "\x1b[31mred", FFFD "[31mred" },
        { "\x01\x7f", FFFD FFFD },
        { "c1\xc2\x85", "c1" FFFD }, /* U+0085 NEL, a C1 control */
        /* well-formed UTF-8 is kept */
        { "jos\xc3\xa9", "jos\xc3\xa9" },           /* é */
        { "\xe2\x82\xac", "\xe2\x82\xac" },         /* € */
        { "\xf0\x9f\x90\xa7", "\xf0\x9f\x90\xa7" }, /* U+1F427 */
        /* ill-formed UTF-8: each offending byte becomes U+FFFD */
        { "\xff", FFFD },
        { "a\xc3", "a" FFFD },                       /* truncated at the end */
        { "\xc3(", FFFD "(" },                       /* bad continuation */
        { "\xc0\xaf", FFFD FFFD },                   /* overlong '/' */
        { "\xe0\x80\xaf", FFFD FFFD FFFD },          /* overlong, 3 bytes */
        { "\xed\xa0\x80", FFFD FFFD FFFD },          /* a surrogate */
        { "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD }, /* above U+10FFFF */
        { "\x80q", FFFD "q" },                       /* a lone continuation byte */
};

static void test_escape(void **state) {
        for (size_t i = 0; i < sizeof escape_cases / sizeof escape_cases[0]; i++) {
                char *got = prom_escape_label_value(escape_cases[i].in);

                assert_non_null(got);
                if (strcmp(got, escape_cases[i].want) != 0)
                        fail_msg("case %zu: got \"%s\", wanted \"%s\"", i, got, escape_cases[i].want);
                free(got);
        }
}

/* Whatever the input, the output has no raw control byte and no unescaped quote. */
static void test_escape_every_byte(void **state) {
        char in[256 * 2 + 1], *got;
        size_t n = 0;

        for (int b = 1; b < 256; b++)
                in[n++] = (char) b, in[n++] = 'x';
        in[n] = '\0';
        got = prom_escape_label_value(in);
        assert_non_null(got);
        for (const unsigned char *p = (const unsigned char *) got; *p; p++) {
                assert_true(*p >= 0x20 && *p != 0x7f);
                if (*p == '\\') {
                        assert_true(p[1] == '\\' || p[1] == '"' || p[1] == 'n');
                        p++;
                } else
                        assert_true(*p != '"');
        }
        free(got);
}

static char *render(int (*f)(FILE *), int *ret_r) {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);

        assert_non_null(m);
        *ret_r = f(m);
        assert_int_equal(fclose(m), 0);
        return buf;
}

static int write_some(FILE *f) {
        int r = 0;

        r |= prom_write_family(f, "x_seconds_total", PROM_COUNTER, "Some \\ help\nwith a newline.");
        r |= prom_write_sample(f, "x_seconds_total", "user=\"a\",uid=\"1\"", PROM_USEC(12300000));
        r |= prom_write_sample(f, "x_seconds_total", "user=\"b\",uid=\"2\"", PROM_USEC(7));
        r |= prom_write_sample(f, "x_seconds_total", "user=\"c\",uid=\"3\"", PROM_USEC(UINT64_MAX - 1));
        r |= prom_write_family(f, "y", PROM_GAUGE, "Y.");
        r |= prom_write_sample(f, "y", NULL, PROM_U64(UINT64_MAX - 1));
        r |= prom_write_sample(f, "y", "", PROM_DOUBLE(0.5));
        r |= prom_write_sample(f, "y", "a=\"1\"", PROM_DOUBLE(1.0 / 3.0));
        r |= prom_write_sample(f, "y", "a=\"2\"", PROM_DOUBLE(NAN));
        r |= prom_write_sample(f, "y", "a=\"3\"", PROM_DOUBLE(-INFINITY));
        return r;
}

static void test_write(void **state) {
        int r;
        char *got = render(write_some, &r);

        assert_int_equal(r, 0);
        assert_string_equal(got, "# HELP x_seconds_total Some \\\\ help\\nwith a newline.\n"
                                 "# TYPE x_seconds_total counter\n"
                                 "x_seconds_total{user=\"a\",uid=\"1\"} 12.300000\n"
                                 "x_seconds_total{user=\"b\",uid=\"2\"} 0.000007\n"
                                 "x_seconds_total{user=\"c\",uid=\"3\"} 18446744073709.551614\n"
                                 "# HELP y Y.\n"
                                 "# TYPE y gauge\n"
                                 "y 18446744073709551614\n"
                                 "y 0.5\n"
                                 "y{a=\"1\"} 0.333333333333333\n"
                                 "y{a=\"2\"} NaN\n"
                                 "y{a=\"3\"} -Inf\n");
        free(got);
}

/* A full disk shows as -EIO, not as a silently short file. */
static void test_write_error(void **state) {
        FILE *f = fopen("/dev/full", "we");
        int r = 0;

        if (!f)
                skip();
        setvbuf(f, NULL, _IONBF, 0);
        assert_int_equal(prom_write_family(f, "x", PROM_GAUGE, "X."), -EIO);
        clearerr(f);
        r = prom_write_sample(f, "x", NULL, PROM_U64(1));
        assert_int_equal(r, -EIO);
        fclose(f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_escape),
                cmocka_unit_test(test_escape_every_byte),
                cmocka_unit_test(test_write),
                cmocka_unit_test(test_write_error),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
