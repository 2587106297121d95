/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "read-file.h"

static int pipe_with(const char *text, size_t n) {
        int p[2];

        assert_int_equal(pipe(p), 0);
        assert_int_equal(write(p[1], text, n), (ssize_t) n);
        close(p[1]);
        return p[0];
}

static void test_sizes(void **state) {
        static const size_t sizes[] = { 0, 1, 8190, 8191, 8192, 20000 };

        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                char *text = malloc(sizes[i] + 1), *got = NULL;
                size_t len = 99;
                int fd;

                assert_non_null(text);
                memset(text, 'x', sizes[i]);
                fd = pipe_with(text, sizes[i]);
                /* exactly at the limit is fine, one byte over is not */
                assert_int_equal(read_full_fd(fd, sizes[i], NULL, &got, &len), 0);
                close(fd);
                assert_int_equal(len, sizes[i]);
                assert_int_equal(strlen(got), sizes[i]); /* NUL-terminated */
                free(got);
                got = NULL;
                if (sizes[i] > 0) {
                        fd = pipe_with(text, sizes[i]);
                        assert_int_equal(read_full_fd(fd, sizes[i] - 1, NULL, &got, NULL), -EFBIG);
                        assert_null(got);
                        close(fd);
                }
                free(text);
        }
}

static int calls;
static ssize_t interrupted_once(int fd, void *buf, size_t n) {
        if (calls++ == 0) {
                errno = EINTR;
                return -1;
        }
        return read(fd, buf, n < 3 ? n : 3); /* short reads too */
}

static ssize_t failing(int fd, void *buf, size_t n) {
        errno = EIO;
        return -1;
}

static void test_read_function(void **state) {
        char *got = NULL;
        int fd = pipe_with("hello\n", 6);

        calls = 0;
        assert_int_equal(read_full_fd(fd, 100, interrupted_once, &got, NULL), 0);
        assert_string_equal(got, "hello\n");
        free(got);
        close(fd);
        fd = pipe_with("x", 1);
        got = NULL;
        assert_int_equal(read_full_fd(fd, 100, failing, &got, NULL), -EIO);
        assert_null(got);
        close(fd);
}

/* one buffer for many files: grown to the largest, each text whole and NUL-terminated */
static void test_reused_buffer(void **state) {
        static const size_t sizes[] = { 10, 20000, 3, 0, 9000 };
        ReadBuf b = {};

        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                char *text = malloc(sizes[i] + 1);
                size_t len = 99;
                int fd;

                assert_non_null(text);
                memset(text, 'a' + (int) i, sizes[i]);
                fd = pipe_with(text, sizes[i]);
                assert_int_equal(read_full_fd_buf(fd, 100000, NULL, false, &b, &len), 0);
                close(fd);
                assert_int_equal(len, sizes[i]);
                assert_int_equal(strlen(b.buf), sizes[i]);
                assert_true(sizes[i] == 0 || b.buf[sizes[i] - 1] == 'a' + (int) i);
                free(text);
        }
        assert_true(b.cap >= 20001);
        /* a smaller limit than the buffer already holds is still a limit */
        {
                int fd = pipe_with("0123456789", 10);
                assert_int_equal(read_full_fd_buf(fd, 9, NULL, false, &b, NULL), -EFBIG);
                close(fd);
        }
        read_buf_done(&b);
        assert_null(b.buf);
}

static ssize_t three_at_a_time(int fd, void *buf, size_t n) {
        return read(fd, buf, n < 3 ? n : 3);
}

/* short_read_ends: a read that leaves room is the end (a file made whole by each read) */
static void test_short_read_ends(void **state) {
        ReadBuf b = {};
        size_t len;
        int fd;

        fd = pipe_with("0123456789", 10);
        assert_int_equal(read_full_fd_buf(fd, 100, NULL, true, &b, &len), 0);
        close(fd);
        assert_string_equal(b.buf, "0123456789");
        /* what it costs with a file that is not so: a read function that stops short */
        fd = pipe_with("0123456789", 10);
        assert_int_equal(read_full_fd_buf(fd, 100, three_at_a_time, true, &b, &len), 0);
        close(fd);
        assert_string_equal(b.buf, "012");
        fd = pipe_with("0123456789", 10);
        assert_int_equal(read_full_fd_buf(fd, 100, three_at_a_time, false, &b, &len), 0);
        close(fd);
        assert_string_equal(b.buf, "0123456789");
        read_buf_done(&b);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sizes),
                cmocka_unit_test(test_read_function),
                cmocka_unit_test(test_reused_buffer),
                cmocka_unit_test(test_short_read_ends),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
