/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpu-value.h"
#include "macro.h"
#include "parse-util.h"

/* The end of every number's parse here: r, the parser's result, or -ERANGE outside min..max. */
static int in_range(int r, uint64_t v, uint64_t min, uint64_t max, uint64_t *ret) {
        if (r < 0)
                return r;
        if (v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int cpu_weight_parse(const char *s, uint64_t *ret) {
        uint64_t v = 0;
        int r;

        if (s && strcmp(s, "idle") == 0) {
                *ret = CPU_WEIGHT_IDLE;
                return 0;
        }
        r = safe_atou64(s, &v); /* before in_range() reads v: arguments have no order */
        return in_range(r, v, CPU_WEIGHT_MIN, CPU_WEIGHT_MAX, ret);
}

int cpu_quota_parse(const char *s, uint64_t *ret_per_sec) {
        _cleanup_free_ char *num = NULL;
        uint64_t permyriad;
        size_t n;
        int r;

        if (s && strcmp(s, "infinity") == 0) {
                *ret_per_sec = CPU_QUOTA_INFINITY;
                return 0;
        }
        n = s ? strlen(s) : 0;
        if (n < 2 || s[n - 1] != '%')
                return -EINVAL;
        num = strndup(s, n - 1);
        if (!num)
                return -ENOMEM;
        /* hundredths of a percent, as systemd's parse_permyriad() */
        r = parse_fixed_point(num, 2, &permyriad);
        if (r < 0)
                return r;
        if (permyriad == 0 || permyriad > CPU_QUOTA_MAX_PER_SEC / 100)
                return -ERANGE;
        *ret_per_sec = permyriad * USEC_PER_SEC / 10000;
        return 0;
}

int cpu_share_parse(const char *s, uint64_t *ret) {
        uint64_t v;
        int r = cpu_quota_parse(s, &v);

        if (r < 0)
                return r;
        if (v == CPU_QUOTA_INFINITY || v > USEC_PER_SEC)
                return -ERANGE;
        *ret = v;
        return 0;
}

int cpu_burst_parse(const char *s, uint64_t *ret_usec) {
        uint64_t usec = 0;
        int r = parse_sec(s, &usec);

        return in_range(r, usec, 0, CPU_BURST_MAX_USEC, ret_usec);
}

int cpu_period_parse(const char *s, uint64_t *ret_usec) {
        uint64_t usec = 0;
        int r = parse_sec(s, &usec);

        return in_range(r, usec, CPU_PERIOD_MIN_USEC, CPU_PERIOD_MAX_USEC, ret_usec);
}

uint64_t cpu_weight_to_shares(uint64_t weight) {
        return CLAMP(weight * CPU_SHARES_DEFAULT / CPU_WEIGHT_DEFAULT, CPU_SHARES_MIN, CPU_SHARES_MAX);
}

uint64_t cpu_shares_to_weight(uint64_t shares) {
        return CLAMP(shares * CPU_WEIGHT_DEFAULT / CPU_SHARES_DEFAULT, CPU_WEIGHT_MIN, CPU_WEIGHT_MAX);
}

/* systemd's cgroup_cpu_adjust_period(): the kernel needs both the period and the per-period
 * quota to be at least 1 ms, and the period at most 1 s. */
uint64_t cpu_period_adjust(uint64_t period_usec, uint64_t quota_per_sec) {
        uint64_t p = period_usec;

        if (quota_per_sec == CPU_QUOTA_INFINITY)
                return CPU_PERIOD_DEFAULT_USEC; /* systemd always uses the default here */
        p = MAX(p, CPU_PERIOD_MIN_USEC);
        if (quota_per_sec > 0)
                p = MAX(p, CPU_PERIOD_MIN_USEC * USEC_PER_SEC / quota_per_sec);
        return MIN(p, CPU_PERIOD_MAX_USEC);
}

uint64_t cpu_quota_per_period(uint64_t quota_per_sec, uint64_t period_usec) {
        if (quota_per_sec == CPU_QUOTA_INFINITY)
                return CPU_QUOTA_INFINITY;
        return MAX(quota_per_sec * period_usec / USEC_PER_SEC, USEC_PER_MSEC);
}

void cpu_limits_to_kernel(const CpuLimits *l, CpuKernelValues *ret) {
        uint64_t period = cpu_period_adjust(l->period_usec, l->quota_per_sec);

        *ret = (CpuKernelValues) {
                .idle = l->weight == CPU_WEIGHT_IDLE,
                .weight = l->weight == CPU_WEIGHT_IDLE ? CPU_WEIGHT_DEFAULT : l->weight,
                .shares = cpu_weight_to_shares(l->weight),
                .quota_usec = cpu_quota_per_period(l->quota_per_sec, period),
                .period_usec = period,
                .period_adjusted = l->quota_per_sec != CPU_QUOTA_INFINITY && period != l->period_usec,
        };
        ret->quota_raised =
                l->quota_per_sec != CPU_QUOTA_INFINITY && l->quota_per_sec * period / USEC_PER_SEC < USEC_PER_MSEC;
        /* the kernel refuses a burst above the quota per period, and a burst means nothing without one */
        if (l->burst_usec > 0 && (ret->quota_usec == CPU_QUOTA_INFINITY || l->burst_usec > ret->quota_usec))
                ret->burst_dropped = true;
        else
                ret->burst_usec = l->burst_usec;
}

int cpu_max_format(const CpuKernelValues *k, char *buf, size_t n) {
        int r;

        if (k->quota_usec == CPU_QUOTA_INFINITY)
                r = snprintf(buf, n, "max %" PRIu64 "\n", k->period_usec);
        else
                r = snprintf(buf, n, "%" PRIu64 " %" PRIu64 "\n", k->quota_usec, k->period_usec);
        return r < 0 || (size_t) r >= n ? -ENOBUFS : 0;
}

int cpu_max_parse(const char *s, uint64_t *ret_quota_usec, uint64_t *ret_period_usec) {
        char q[32], p[32];
        uint64_t quota, period;
        size_t a, b;

        if (!s)
                return -EINVAL;
        a = strcspn(s, " ");
        if (a == 0 || a >= sizeof q || s[a] != ' ')
                return -EINVAL;
        memcpy(q, s + 0, a);
        q[a] = '\0';
        b = strcspn(s + a + 1, " \n");
        if (b == 0 || b >= sizeof p || strspn(s + a + 1 + b, "\n") != strlen(s + a + 1 + b))
                return -EINVAL;
        memcpy(p, s + a + 1, b);
        p[b] = '\0';
        if (strcmp(q, "max") == 0)
                quota = CPU_QUOTA_INFINITY;
        else if (safe_atou64(q, &quota) < 0 || quota == CPU_QUOTA_INFINITY)
                return -EINVAL;
        if (safe_atou64(p, &period) < 0 || period == 0)
                return -EINVAL;
        *ret_quota_usec = quota;
        *ret_period_usec = period;
        return 0;
}

const char *cpu_weight_format(uint64_t weight, char buf[static CPU_FORMAT_MAX]) {
        if (weight == CPU_WEIGHT_IDLE)
                return strcpy(buf, "idle");
        snprintf(buf, CPU_FORMAT_MAX, "%" PRIu64, weight);
        return buf;
}

const char *cpu_quota_format(uint64_t quota_per_sec, char buf[static CPU_FORMAT_MAX]) {
        uint64_t permyriad;

        if (quota_per_sec == CPU_QUOTA_INFINITY)
                return strcpy(buf, "infinity");
        permyriad = quota_per_sec * 10000 / USEC_PER_SEC;
        if (permyriad % 100 == 0)
                snprintf(buf, CPU_FORMAT_MAX, "%" PRIu64 "%%", permyriad / 100);
        else if (permyriad % 10 == 0)
                snprintf(buf, CPU_FORMAT_MAX, "%" PRIu64 ".%" PRIu64 "%%", permyriad / 100, permyriad % 100 / 10);
        else
                snprintf(buf, CPU_FORMAT_MAX, "%" PRIu64 ".%02" PRIu64 "%%", permyriad / 100, permyriad % 100);
        return buf;
}

const char *cpu_period_format(uint64_t usec, char buf[static CPU_FORMAT_MAX]) {
        if (usec % USEC_PER_SEC == 0)
                snprintf(buf, CPU_FORMAT_MAX, "%" PRIu64 "s", usec / USEC_PER_SEC);
        else if (usec % USEC_PER_MSEC == 0)
                snprintf(buf, CPU_FORMAT_MAX, "%" PRIu64 "ms", usec / USEC_PER_MSEC);
        else
                snprintf(buf, CPU_FORMAT_MAX, "%" PRIu64 "us", usec);
        return buf;
}

double cpu_quota_percent(uint64_t quota_usec, uint64_t period_usec) {
        if (quota_usec == CPU_QUOTA_INFINITY || period_usec == 0)
                return -1.0;
        return (double) quota_usec * 100.0 / (double) period_usec;
}
