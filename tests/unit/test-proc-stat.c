/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc-stat.h"

/* fields 14..17 (utime stime cutime cstime) and 22 (starttime) of proc(5) */
#define TAIL(u, s, cu, cs, start)                                                                                    \
        " R 1 2 3 4 5 6 7 8 9 10 " u " " s " " cu " " cs " 20 0 1 0 " start " 1000 50 18446744073709551615 0"

static void test_parse(void **state) {
        ProcStat st;

        assert_int_equal(proc_stat_parse("42 (cc1)" TAIL("300", "100", "50", "50", "777"), 100, &st), 0);
        assert_string_equal(st.comm, "cc1");
        assert_int_equal(st.cpu_usec, 500 * 10000); /* 500 ticks at 100 Hz */
        assert_int_equal(st.start_tick, 777);
}

/* A name may hold blanks and parentheses: it ends at the line's last ')'. */
static void test_hostile_name(void **state) {
        ProcStat st;

        assert_int_equal(proc_stat_parse("7 (a) R 1 (x)" TAIL("1", "0", "0", "0", "9"), 100, &st), 0);
        assert_string_equal(st.comm, "a) R 1 (x");
        assert_int_equal(st.cpu_usec, 10000);
        assert_int_equal(st.start_tick, 9);
}

static void test_negative_children(void **state) {
        ProcStat st;

        assert_int_equal(proc_stat_parse("7 (x)" TAIL("2", "2", "-1", "-5", "1"), 100, &st), 0);
        assert_int_equal(st.cpu_usec, 40000);
}

static void test_bad(void **state) {
        ProcStat st;

        assert_int_equal(proc_stat_parse("", 100, &st), -EBADMSG);
        assert_int_equal(proc_stat_parse("7 x R 1 2", 100, &st), -EBADMSG);
        assert_int_equal(proc_stat_parse("7 (x) R 1 2 3", 100, &st), -EBADMSG);
        assert_int_equal(proc_stat_parse("7 (x)" TAIL("a", "0", "0", "0", "1"), 100, &st), -EBADMSG);
        assert_int_equal(proc_stat_parse("7 (x)" TAIL("1", "0", "0", "0", "1"), 0, &st), -EBADMSG);
}

static void test_self(void **state) {
        ProcStat st;

        char comm[32] = "";
        FILE *f = fopen("/proc/self/comm", "re");

        /* our own name as the kernel has it (under valgrind it is valgrind's) */
        assert_non_null(f);
        assert_non_null(fgets(comm, sizeof comm, f));
        fclose(f);
        comm[strcspn(comm, "\n")] = '\0';
        assert_int_equal(proc_stat_read(getpid(), &st), 0);
        assert_string_equal(st.comm, comm);
        assert_true(st.start_tick > 0);
        assert_int_equal(proc_stat_read(0, &st), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_hostile_name),
                cmocka_unit_test(test_negative_children),
                cmocka_unit_test(test_bad),
                cmocka_unit_test(test_self),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
