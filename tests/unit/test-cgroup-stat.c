/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cgroup-stat.h"
#include "cpu-value.h"

static const struct {
        const char *text;
        int r;
        CpuStat want;
} cpu_stat_cases[] = {
        /* v2, as 6.x writes it */
        { "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\ncore_sched.force_idle_usec 0\n"
          "nr_periods 200\nnr_throttled 15\nthrottled_usec 123456\nnr_bursts 0\nburst_usec 0\n",
          0,
          { 1500000, 1000000, 500000, 200, 15, 123456 } },
        /* v2 without the cpu controller: usage only */
        { "usage_usec 42\nuser_usec 40\nsystem_usec 2\n", 0, { 42, 40, 2, CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE } },
        /* v1: throttled_time in ns */
        { "nr_periods 10\nnr_throttled 3\nthrottled_time 2500000\nnr_bursts 0\nburst_time 0\n",
          0,
          { CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE, 10, 3, 2500 } },
        /* no trailing newline, odd spacing */
        { "nr_periods  7\nnr_throttled\t1", 0, { CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE, 7, 1, CGSTAT_NONE } },
        { "", 0, { CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE } },
        { "nr_periods -1\n", -EINVAL, {} },
        { "usage_usec 99999999999999999999999\n", -EINVAL, {} },
        { "usage_usec 12x\n", -EINVAL, {} },
        /* unknown keys with odd values are not our business */
        { "future_key what\nnr_periods 1\n",
          0,
          { CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE, 1, CGSTAT_NONE, CGSTAT_NONE } },
};

static void test_cpu_stat(void **state) {
        for (size_t i = 0; i < sizeof cpu_stat_cases / sizeof cpu_stat_cases[0]; i++) {
                CpuStat st;
                int r = cgstat_parse_cpu_stat(cpu_stat_cases[i].text, &st);

                print_message("case %zu\n", i);
                assert_int_equal(r, cpu_stat_cases[i].r);
                if (r < 0)
                        continue;
                assert_memory_equal(&st, &cpu_stat_cases[i].want, sizeof st);
        }
}

static void test_cpuacct_usage(void **state) {
        uint64_t v;

        assert_int_equal(cgstat_parse_cpuacct_usage("1500000999\n", &v), 0);
        assert_int_equal(v, 1500000);
        assert_int_equal(cgstat_parse_cpuacct_usage("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(cgstat_parse_cpuacct_usage("", &v), -EINVAL);
        assert_int_equal(cgstat_parse_cpuacct_usage("1 2\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_cpuacct_usage("-5\n", &v), -EINVAL);
}

static void test_pressure(void **state) {
        double v;

        assert_int_equal(cgstat_parse_pressure("some avg10=9.48 avg60=7.69 avg300=4.12 total=21672642\n"
                                               "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                                               &v),
                         0);
        assert_true(v > 9.47 && v < 9.49);
        assert_int_equal(cgstat_parse_pressure("full avg10=1.00 avg60=0 avg300=0 total=0\n"
                                               "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                                               &v),
                         0);
        assert_true(v >= 0.0 && v <= 0.0); /* exactly 0 */
        assert_int_equal(cgstat_parse_pressure("", &v), -ENODATA);
        assert_int_equal(cgstat_parse_pressure("full avg10=1.00\n", &v), -ENODATA);
        assert_int_equal(cgstat_parse_pressure("some avg60=1.00\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_pressure("some avg10=abc\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_pressure("some avg10=\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_pressure("some avg10=101.00\n", &v), -EINVAL);
}

static void test_pressure_total(void **state) {
        uint64_t v;

        assert_int_equal(cgstat_parse_pressure_total("some avg10=9.48 avg60=7.69 avg300=4.12 total=21672642\n"
                                                     "full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n",
                                                     &v),
                         0);
        assert_int_equal(v, 21672642);
        assert_int_equal(cgstat_parse_pressure_total("full avg10=0 avg60=0 avg300=0 total=7\n"
                                                     "some avg10=0 avg60=0 avg300=0 total=18446744073709551614\n",
                                                     &v),
                         0);
        assert_int_equal(v, UINT64_C(18446744073709551614));
        assert_int_equal(cgstat_parse_pressure_total("full avg10=0 total=7\n", &v), -ENODATA);
        assert_int_equal(cgstat_parse_pressure_total("some avg10=0.00 avg60=0.00\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_pressure_total("some total=\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_pressure_total("some total=-3\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_pressure_total("some total=12x\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_pressure_total("some total=99999999999999999999999\n", &v), -ERANGE);
}

static void test_single_numbers(void **state) {
        uint64_t v;

        assert_int_equal(cgstat_parse_u64("100\n", &v), 0);
        assert_int_equal(v, 100);
        assert_int_equal(cgstat_parse_u64("1024", &v), 0);
        assert_int_equal(v, 1024);
        assert_int_equal(cgstat_parse_u64("\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_u64("max\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_u64("1\n2\n", &v), -EINVAL);
        assert_int_equal(cgstat_parse_cfs_quota("-1\n", &v), 0);
        assert_true(v == CPU_QUOTA_INFINITY);
        assert_int_equal(cgstat_parse_cfs_quota("50000\n", &v), 0);
        assert_int_equal(v, 50000);
        assert_int_equal(cgstat_parse_cfs_quota("-2\n", &v), -EINVAL);
}

static void test_cpu_max_roundtrip(void **state) {
        uint64_t q, p;

        /* cpu.max goes through cpu-value.c's parser: check the forms slice-read relies on */
        assert_int_equal(cpu_max_parse("max 100000\n", &q, &p), 0);
        assert_true(q == CPU_QUOTA_INFINITY);
        assert_int_equal(p, 100000);
        assert_int_equal(cpu_max_parse("50000 100000\n", &q, &p), 0);
        assert_int_equal(q, 50000);
}

static void test_procs(void **state) {
        pid_t *pids = NULL;
        size_t n = 99;

        assert_int_equal(cgstat_parse_procs("", &pids, &n), 0);
        assert_int_equal(n, 0);
        free(pids);
        assert_int_equal(cgstat_parse_procs("12\n345\n6789\n", &pids, &n), 0);
        assert_int_equal(n, 3);
        assert_int_equal(pids[0], 12);
        assert_int_equal(pids[2], 6789);
        free(pids);
        assert_int_equal(cgstat_parse_procs("12\n\n13", &pids, &n), 0);
        assert_int_equal(n, 2);
        assert_int_equal(pids[1], 13);
        free(pids);
        pids = NULL;
        assert_int_equal(cgstat_parse_procs("12\nabc\n", &pids, &n), -EINVAL);
        assert_int_equal(cgstat_parse_procs("0\n", &pids, &n), -EINVAL);
        assert_int_equal(cgstat_parse_procs("99999999999\n", &pids, &n), -EINVAL);
        assert_null(pids);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cpu_stat),       cmocka_unit_test(test_cpuacct_usage),
                cmocka_unit_test(test_pressure),       cmocka_unit_test(test_pressure_total),
                cmocka_unit_test(test_single_numbers), cmocka_unit_test(test_cpu_max_roundtrip),
                cmocka_unit_test(test_procs),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
