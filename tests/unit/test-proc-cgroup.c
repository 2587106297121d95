/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc-cgroup.h"

typedef struct Seen {
        int lines;
        int stop_at;
} Seen;

static int count(const char *id, const char *controllers, const char *path, void *userdata) {
        Seen *s = userdata;

        assert_true(*id && strspn(id, "0123456789") == strlen(id));
        assert_null(strchr(controllers, ':'));
        assert_true(path[0] == '/' && !strchr(path, '\n'));
        s->lines++;
        return s->lines == s->stop_at ? 7 : 0;
}

static void test_self(void **state) {
        Seen s = {};

        assert_int_equal(proc_cgroup_for_each(getpid(), count, &s), 0);
        assert_true(s.lines >= 1);
        /* a non-zero answer stops the walk and comes back as is */
        s = (Seen) { .stop_at = 1 };
        assert_int_equal(proc_cgroup_for_each(getpid(), count, &s), 7);
        assert_int_equal(s.lines, 1);
}

static void test_no_such_pid(void **state) {
        Seen s = {};

        assert_int_equal(proc_cgroup_for_each(INT_MAX, count, &s), -ENOENT);
        assert_int_equal(s.lines, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_self),
                cmocka_unit_test(test_no_such_pid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
