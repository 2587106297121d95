/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* error: CsError records a failure's text, %m names the error being returned, the text falls back
 * to strerror() when none was recorded, and a prefix is prepended within the buffer's size. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"

static void test_record(void **state) {
        CsError e = {};

        (void) state;
        assert_int_equal(cs_error(&e, -ENOENT, "mkdir %s: %m", "user.slice"), -ENOENT);
        assert_int_equal(e.code, -ENOENT);
        assert_string_equal(e.msg, "mkdir user.slice: No such file or directory");
        /* %m is the error returned, also when errno said something else before */
        errno = EINTR;
        assert_int_equal(cs_error(&e, -EACCES, "write: %m"), -EACCES);
        assert_string_equal(e.msg, "write: Permission denied");
        assert_int_equal(errno, EACCES);
        /* a positive r (a count some callers pass through) is recorded as it is */
        assert_int_equal(cs_error(&e, EPERM, "%m"), EPERM);
        assert_int_equal(e.code, EPERM);
        assert_string_equal(e.msg, "Operation not permitted");
}

static void test_null_error(void **state) {
        (void) state;
        /* a caller that wants no text passes NULL: the error is still returned */
        assert_int_equal(cs_error(NULL, -EIO, "never formatted %s", "x"), -EIO);
        assert_int_equal(cs_error_prefix(NULL, "ctx: "), 0);
        assert_string_equal(cs_error_text(NULL, -ENOMEM), strerror(ENOMEM));
}

static void test_text(void **state) {
        CsError e = {};

        (void) state;
        /* nothing recorded: strerror of the failure */
        assert_string_equal(cs_error_text(&e, -EROFS), "Read-only file system");
        cs_error(&e, -EROFS, "cpu.max is read-only here");
        assert_string_equal(cs_error_text(&e, -EROFS), "cpu.max is read-only here");
        /* the recorded text wins even for another r: it describes the first failure */
        assert_string_equal(cs_error_text(&e, -EINVAL), "cpu.max is read-only here");
}

static void test_truncated(void **state) {
        CsError e = {};
        char big[2000];

        (void) state;
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        assert_int_equal(cs_error(&e, -E2BIG, "%s", big), -E2BIG);
        assert_int_equal(strlen(e.msg), sizeof e.msg - 1);
        assert_int_equal(e.msg[0], 'x');
}

static void test_prefix(void **state) {
        CsError e = {};
        char big[1000];

        (void) state;
        cs_error(&e, -EBUSY, "writing '%s' to cpu.max: %m", "50000 100000");
        assert_int_equal(cs_error_prefix(&e, "%s: ", "user-1001.slice"), -EBUSY);
        assert_string_equal(e.msg, "user-1001.slice: writing '50000 100000' to cpu.max: Device or resource busy");
        assert_int_equal(e.code, -EBUSY);
        /* twice: the outer context comes first */
        cs_error_prefix(&e, "login of %s: ", "alice");
        assert_string_equal(e.msg, "login of alice: user-1001.slice: writing '50000 100000' to cpu.max: "
                                   "Device or resource busy");

        /* nothing recorded: the prefix alone, and code stays 0 (the text is still strerror's) */
        e = (CsError) {};
        assert_int_equal(cs_error_prefix(&e, "ctx: "), 0);
        assert_string_equal(e.msg, "ctx: ");
        assert_string_equal(cs_error_text(&e, -EIO), "Input/output error");

        /* a long prefix and a long message: at most 255 bytes of each, NUL-terminated */
        memset(big, 'p', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        cs_error(&e, -EIO, "%.511s", big);
        for (char *c = e.msg; *c; c++)
                *c = 'm';
        assert_int_equal(cs_error_prefix(&e, "%s", big), -EIO);
        assert_int_equal(strlen(e.msg), 510);
        assert_int_equal(e.msg[0], 'p');
        assert_int_equal(e.msg[254], 'p');
        assert_int_equal(e.msg[255], 'm');
        assert_int_equal(e.msg[509], 'm');
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_record),    cmocka_unit_test(test_null_error), cmocka_unit_test(test_text),
                cmocka_unit_test(test_truncated), cmocka_unit_test(test_prefix),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
