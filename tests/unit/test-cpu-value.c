/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cpu-value.h"

static void test_weight_parse(void **state) {
        static const struct {
                const char *in;
                int r;
                uint64_t v;
        } t[] = {
                { "1", 0, 1 },          { "100", 0, 100 },
                { "10000", 0, 10000 },  { "idle", 0, CPU_WEIGHT_IDLE },
                { "0", -ERANGE, 0 },    { "10001", -ERANGE, 0 },
                { "-1", -EINVAL, 0 },   { "", -EINVAL, 0 },
                { "1e3", -EINVAL, 0 },  { " 5", -EINVAL, 0 },
                { "IDLE", -EINVAL, 0 }, { "99999999999999999999999", -ERANGE, 0 },
        };
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
                uint64_t v = 12345;
                assert_int_equal(cpu_weight_parse(t[i].in, &v), t[i].r);
                if (t[i].r == 0)
                        assert_int_equal(v, t[i].v);
        }
}

static void test_quota_parse(void **state) {
        static const struct {
                const char *in;
                int r;
                uint64_t v;
        } t[] = {
                { "50%", 0, 500000 },
                { "12.5%", 0, 125000 },
                { "250%", 0, 2500000 },
                { "0.5%", 0, 5000 },
                { "0.01%", 0, 100 },
                { "100%", 0, 1000000 },
                { "1000000%", 0, UINT64_C(10000000000) },
                { "infinity", 0, CPU_QUOTA_INFINITY },
                { "0%", -ERANGE, 0 },
                { "0.00%", -ERANGE, 0 },
                { "1000000.01%", -ERANGE, 0 },
                { "12.345%", -EINVAL, 0 },
                { "50", -EINVAL, 0 },
                { "%", -EINVAL, 0 },
                { "-5%", -EINVAL, 0 },
                { ".5%", -EINVAL, 0 },
                { "5.%", -EINVAL, 0 },
                { "5 %", -EINVAL, 0 },
        };
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
                uint64_t v = 0;
                int r = cpu_quota_parse(t[i].in, &v);
                if (r != t[i].r)
                        fail_msg("'%s': got %d want %d", t[i].in, r, t[i].r);
                if (t[i].r == 0)
                        assert_int_equal(v, t[i].v);
        }
}

static void test_period_parse(void **state) {
        static const struct {
                const char *in;
                int r;
                uint64_t v;
        } t[] = {
                { "100ms", 0, 100000 },   { "1ms", 0, 1000 },    { "1s", 0, 1000000 },  { "1000us", 0, 1000 },
                { "250msec", 0, 250000 }, { "0.5s", 0, 500000 }, { "1", 0, 1000000 },   { "1.5ms", 0, 1500 },
                { "999us", -ERANGE, 0 },  { "2s", -ERANGE, 0 },  { "0ms", -ERANGE, 0 }, { "1001ms", -ERANGE, 0 },
                { "10m", -ERANGE, 0 },    { "ms", -EINVAL, 0 },  { "", -EINVAL, 0 },    { "1.0001s", -EINVAL, 0 },
                { "5 ms", -EINVAL, 0 },
        };
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
                uint64_t v = 0;
                int r = cpu_period_parse(t[i].in, &v);
                if (r != t[i].r)
                        fail_msg("'%s': got %d want %d", t[i].in, r, t[i].r);
                if (t[i].r == 0)
                        assert_int_equal(v, t[i].v);
        }
}

static void test_shares_translation(void **state) {
        /* the boundaries systemd's cgroup_cpu_weight_to_shares()/shares_to_weight() produce */
        assert_int_equal(cpu_weight_to_shares(1), 10);
        assert_int_equal(cpu_weight_to_shares(100), 1024);
        assert_int_equal(cpu_weight_to_shares(10000), 102400);
        assert_int_equal(cpu_weight_to_shares(CPU_WEIGHT_IDLE), CPU_SHARES_MIN);
        assert_int_equal(cpu_weight_to_shares(300), 3072);
        assert_int_equal(cpu_shares_to_weight(2), 1);
        assert_int_equal(cpu_shares_to_weight(1024), 100);
        assert_int_equal(cpu_shares_to_weight(262144), 10000);
        assert_int_equal(cpu_shares_to_weight(102400), 10000);
        assert_int_equal(cpu_shares_to_weight(1), 1);
        /* lossy: compare live values in the kernel's units */
        assert_int_equal(cpu_weight_to_shares(3), 30);
        assert_int_equal(cpu_shares_to_weight(30), 2);
}

static void check_kernel_raised(const char *quota, const char *period, const char *want_max, bool adjusted,
                                bool raised) {
        CpuLimits l = CPU_LIMITS_DEFAULT;
        CpuKernelValues k;
        char buf[64];

        assert_int_equal(cpu_quota_parse(quota, &l.quota_per_sec), 0);
        if (period)
                assert_int_equal(cpu_period_parse(period, &l.period_usec), 0);
        cpu_limits_to_kernel(&l, &k);
        assert_int_equal(cpu_max_format(&k, buf, sizeof buf), 0);
        if (strcmp(buf, want_max) != 0)
                fail_msg("CPUQuota=%s period=%s: got '%s' want '%s'", quota, period ? period : "-", buf, want_max);
        assert_int_equal(k.period_adjusted, adjusted);
        assert_int_equal(k.quota_raised, raised);
}

static void check_kernel(const char *quota, const char *period, const char *want_max, bool adjusted) {
        check_kernel_raised(quota, period, want_max, adjusted, false);
}

static void test_quota_to_kernel(void **state) {
        check_kernel("0.5%", NULL, "1000 200000\n", true);
        check_kernel("1%", NULL, "1000 100000\n", false);
        check_kernel("100%", NULL, "100000 100000\n", false);
        check_kernel("250%", NULL, "250000 100000\n", false);
        check_kernel("50%", NULL, "50000 100000\n", false);
        check_kernel("12.5%", NULL, "12500 100000\n", false);
        check_kernel("0.5%", "10ms", "1000 200000\n", true);
        check_kernel("1%", "10ms", "1000 100000\n", true);
        check_kernel("100%", "10ms", "10000 10000\n", false);
        check_kernel("250%", "1s", "2500000 1000000\n", false);
        check_kernel("250%", "1ms", "2500 1000\n", false);
        check_kernel_raised("0.05%", NULL, "1000 1000000\n", true, true);  /* wants 2 s, clamped to 1 s */
        check_kernel_raised("0.01%", "1s", "1000 1000000\n", false, true); /* raised to the 1 ms minimum */
        check_kernel_raised("0.05%", "1s", "1000 1000000\n", false, true);
        check_kernel("infinity", NULL, "max 100000\n", false);
        check_kernel("infinity", "20ms", "max 100000\n", false); /* systemd ignores the period here */
}

static void test_kernel_weight(void **state) {
        CpuLimits l = CPU_LIMITS_DEFAULT;
        CpuKernelValues k;

        l.weight = CPU_WEIGHT_IDLE;
        cpu_limits_to_kernel(&l, &k);
        assert_true(k.idle);
        assert_int_equal(k.shares, 2);
        l.weight = 300;
        cpu_limits_to_kernel(&l, &k);
        assert_false(k.idle);
        assert_int_equal(k.weight, 300);
        assert_int_equal(k.shares, 3072);
        assert_int_equal(k.quota_usec, CPU_QUOTA_INFINITY);
}

/* CPUBurst= reaches the kernel only under a quota, and at most the quota per period. */
static void test_kernel_burst(void **state) {
        CpuLimits l = CPU_LIMITS_DEFAULT;
        CpuKernelValues k;
        uint64_t v;

        l.burst_usec = 20 * USEC_PER_MSEC;
        cpu_limits_to_kernel(&l, &k); /* no quota */
        assert_int_equal(k.burst_usec, 0);
        assert_true(k.burst_dropped);
        l.quota_per_sec = USEC_PER_SEC / 2; /* 50000 per 100 ms */
        cpu_limits_to_kernel(&l, &k);
        assert_int_equal(k.burst_usec, 20000);
        assert_false(k.burst_dropped);
        l.burst_usec = 50000; /* all of it: allowed */
        cpu_limits_to_kernel(&l, &k);
        assert_int_equal(k.burst_usec, 50000);
        l.burst_usec = 50001;
        cpu_limits_to_kernel(&l, &k);
        assert_int_equal(k.burst_usec, 0);
        assert_true(k.burst_dropped);
        l.period_usec = 200 * USEC_PER_MSEC; /* 100000 per 200 ms */
        cpu_limits_to_kernel(&l, &k);
        assert_int_equal(k.burst_usec, 50001);

        assert_int_equal(cpu_burst_parse("50ms", &v), 0);
        assert_int_equal(v, 50000);
        assert_int_equal(cpu_burst_parse("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(cpu_burst_parse("1h", &v), 0);
        assert_int_equal(v, 3600 * USEC_PER_SEC);
        assert_int_equal(cpu_burst_parse("3601s", &v), -ERANGE);
        assert_int_equal(cpu_burst_parse("-5ms", &v), -EINVAL);
}

static void test_cpu_max_parse(void **state) {
        uint64_t q, p;

        assert_int_equal(cpu_max_parse("max 100000\n", &q, &p), 0);
        assert_true(q == CPU_QUOTA_INFINITY);
        assert_int_equal(p, 100000);
        assert_int_equal(cpu_max_parse("50000 100000", &q, &p), 0);
        assert_int_equal(q, 50000);
        assert_int_equal(cpu_max_parse("50000 0", &q, &p), -EINVAL);
        assert_int_equal(cpu_max_parse("50000", &q, &p), -EINVAL);
        assert_int_equal(cpu_max_parse(" 5 6", &q, &p), -EINVAL);
        assert_int_equal(cpu_max_parse("5 6 7", &q, &p), -EINVAL);
        assert_int_equal(cpu_max_parse("x 100000", &q, &p), -EINVAL);
        assert_int_equal(cpu_max_parse("", &q, &p), -EINVAL);
        double pct = cpu_quota_percent(50000, 100000);
        assert_true(pct >= 50.0 && pct <= 50.0); /* exactly 50 */
        assert_true(cpu_quota_percent(CPU_QUOTA_INFINITY, 100000) < 0);
}

static void test_format(void **state) {
        char b[CPU_FORMAT_MAX];

        assert_string_equal(cpu_weight_format(CPU_WEIGHT_IDLE, b), "idle");
        assert_string_equal(cpu_weight_format(250, b), "250");
        assert_string_equal(cpu_quota_format(CPU_QUOTA_INFINITY, b), "infinity");
        assert_string_equal(cpu_quota_format(500000, b), "50%");
        assert_string_equal(cpu_quota_format(125000, b), "12.5%");
        assert_string_equal(cpu_quota_format(100, b), "0.01%");
        assert_string_equal(cpu_quota_format(2500000, b), "250%");
        assert_string_equal(cpu_period_format(100000, b), "100ms");
        assert_string_equal(cpu_period_format(1000000, b), "1s");
        assert_string_equal(cpu_period_format(1500, b), "1500us");
        /* formatted values parse back to themselves */
        for (uint64_t pm = 1; pm < 100000; pm += 37) {
                uint64_t q = pm * 100, back;
                assert_int_equal(cpu_quota_parse(cpu_quota_format(q, b), &back), 0);
                assert_int_equal(back, q);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_weight_parse),    cmocka_unit_test(test_quota_parse),
                cmocka_unit_test(test_period_parse),    cmocka_unit_test(test_shares_translation),
                cmocka_unit_test(test_quota_to_kernel), cmocka_unit_test(test_kernel_weight),
                cmocka_unit_test(test_cpu_max_parse),   cmocka_unit_test(test_format),
                cmocka_unit_test(test_kernel_burst),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
