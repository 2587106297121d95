/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-stat.h"
#include "cpu-value.h"
#include "macro.h"
#include "parse-util.h"

/* Copies the next whitespace-free token of at most n-1 characters; returns what follows it. */
static const char *next_token(const char *p, char *buf, size_t n) {
        size_t k;

        p += strspn(p, " \t");
        k = strcspn(p, " \t\n");
        if (k == 0 || k >= n)
                return NULL;
        memcpy(buf, p, k);
        buf[k] = '\0';
        return p + k;
}

static const struct {
        const char *key;
        size_t offset;
        uint64_t divisor; /* v1 throttled_time is in ns */
} cpu_stat_keys[] = {
        { "usage_usec", offsetof(CpuStat, usage_usec), 1 },
        { "user_usec", offsetof(CpuStat, user_usec), 1 },
        { "system_usec", offsetof(CpuStat, system_usec), 1 },
        { "nr_periods", offsetof(CpuStat, nr_periods), 1 },
        { "nr_throttled", offsetof(CpuStat, nr_throttled), 1 },
        { "throttled_usec", offsetof(CpuStat, throttled_usec), 1 },
        { "throttled_time", offsetof(CpuStat, throttled_usec), 1000 },
};

int cgstat_parse_cpu_stat(const char *text, CpuStat *ret) {
        CpuStat st = CPU_STAT_NONE;

        for (const char *line = text; line && *line;) {
                const char *nl = strchr(line, '\n'), *p;
                char key[64], val[32];

                p = next_token(line, key, sizeof key);
                if (p && (p = next_token(p, val, sizeof val)))
                        for (size_t i = 0; i < ELEMENTSOF(cpu_stat_keys); i++) {
                                uint64_t v;

                                if (strcmp(key, cpu_stat_keys[i].key) != 0)
                                        continue;
                                if (safe_atou64(val, &v) < 0)
                                        return -EINVAL;
                                *(uint64_t *) ((char *) &st + cpu_stat_keys[i].offset) = v / cpu_stat_keys[i].divisor;
                        }
                line = nl ? nl + 1 : NULL;
        }
        *ret = st;
        return 0;
}

static int parse_single(const char *text, char *buf, size_t n) {
        const char *p;

        if (!text)
                return -EINVAL;
        p = next_token(text, buf, n);
        if (!p || strspn(p, " \t\n") != strlen(p))
                return -EINVAL;
        return 0;
}

int cgstat_parse_u64(const char *text, uint64_t *ret) {
        char buf[32];
        int r = parse_single(text, buf, sizeof buf);

        return r < 0 ? r : safe_atou64(buf, ret);
}

int cgstat_parse_cpuacct_usage(const char *text, uint64_t *ret_usec) {
        uint64_t ns;
        int r = cgstat_parse_u64(text, &ns);

        if (r < 0)
                return r;
        *ret_usec = ns / 1000;
        return 0;
}

int cgstat_parse_cfs_quota(const char *text, uint64_t *ret_usec) {
        char buf[32];
        uint64_t v;
        int r = parse_single(text, buf, sizeof buf);

        if (r < 0)
                return r;
        if (strcmp(buf, "-1") == 0) {
                *ret_usec = CPU_QUOTA_INFINITY;
                return 0;
        }
        r = safe_atou64(buf, &v);
        if (r < 0)
                return r;
        if (v == CPU_QUOTA_INFINITY)
                return -ERANGE;
        *ret_usec = v;
        return 0;
}

/* The value of KEY= (e.g. "avg10=") on cpu.pressure's "some" line, copied into buf; -ENODATA without
 * a "some" line, -EINVAL if it lacks KEY= or the value does not fit. */
static int pressure_some_field(const char *text, const char *key, char *buf, size_t n) {
        size_t k = strlen(key);

        for (const char *line = text; line && *line;) {
                const char *nl = strchr(line, '\n'), *p;
                char word[48];

                p = next_token(line, word, sizeof word);
                if (p && strcmp(word, "some") == 0) {
                        while ((p = next_token(p, word, sizeof word)))
                                if (strncmp(word, key, k) == 0) {
                                        if (!word[k] || strlen(word + k) >= n)
                                                return -EINVAL;
                                        strcpy(buf, word + k);
                                        return 0;
                                }
                        return -EINVAL;
                }
                line = nl ? nl + 1 : NULL;
        }
        return -ENODATA;
}

/* "some avg10=1.23 avg60=... total=..." */
int cgstat_parse_pressure(const char *text, double *ret_some_avg10) {
        char word[32], *end;
        double v;
        int r = pressure_some_field(text, "avg10=", word, sizeof word);

        if (r < 0)
                return r;
        errno = 0;
        v = strtod(word, &end);
        if (errno != 0 || *end || v < 0 || v > 100)
                return -EINVAL;
        *ret_some_avg10 = v;
        return 0;
}

int cgstat_parse_pressure_total(const char *text, uint64_t *ret_usec) {
        char word[32];
        int r = pressure_some_field(text, "total=", word, sizeof word);

        return r < 0 ? r : safe_atou64(word, ret_usec);
}

int cgstat_parse_procs(const char *text, pid_t **ret_pids, size_t *ret_n) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0, cap = 0;

        for (const char *line = text; line && *line;) {
                const char *start = line, *nl = strchr(line, '\n');
                size_t k = nl ? (size_t) (nl - line) : strlen(line);
                char buf[16];
                uint32_t v;

                line = nl ? nl + 1 : NULL;
                if (k == 0)
                        continue;
                if (k >= sizeof buf)
                        return -EINVAL;
                memcpy(buf, start, k);
                buf[k] = '\0';
                if (safe_atou32(buf, &v) < 0 || v == 0 || v > INT_MAX)
                        return -EINVAL;
                if (!GREEDY_REALLOC(pids, cap, n + 1))
                        return -ENOMEM;
                pids[n++] = (pid_t) v;
        }
        *ret_pids = TAKE_PTR(pids);
        *ret_n = n;
        return 0;
}
