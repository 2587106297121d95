/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Parsers for the cgroup files slicectl reads: cpu.stat (v1 and v2), cpuacct.usage, cpu.pressure,
 * the single-number files (cpu.weight, cpu.shares, cpu.idle, cpu.cfs_*) and cgroup.procs. Pure
 * text in, numbers out: reading the files is slice-read.c's job. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CGSTAT_NONE UINT64_MAX /* a figure the kernel did not give */

typedef struct CpuStat {
        uint64_t usage_usec; /* v2 only (v1: cpuacct.usage) */
        uint64_t user_usec;
        uint64_t system_usec;
        uint64_t nr_periods;
        uint64_t nr_throttled;
        uint64_t throttled_usec; /* v2 throttled_usec, or v1 throttled_time (ns) / 1000 */
} CpuStat;

#define CPU_STAT_NONE ((CpuStat) { CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE, CGSTAT_NONE })

/* "key value" lines of either version; unknown keys are skipped, keys not present stay CGSTAT_NONE.
 * -EINVAL on a malformed value of a known key. */
int cgstat_parse_cpu_stat(const char *text, CpuStat *ret);
/* cpuacct.usage: nanoseconds → µs. */
int cgstat_parse_cpuacct_usage(const char *text, uint64_t *ret_usec);
/* cpu.pressure: the "some" line's avg10; -ENODATA if there is none. */
int cgstat_parse_pressure(const char *text, double *ret_some_avg10);
/* cpu.pressure: the "some" line's total (µs stalled since the cgroup was made); -ENODATA if there is none. */
int cgstat_parse_pressure_total(const char *text, uint64_t *ret_usec);
/* One unsigned number and an optional newline (cpu.weight, cpu.shares, cpu.idle, cpu.cfs_period_us). */
int cgstat_parse_u64(const char *text, uint64_t *ret);
/* v1 cpu.cfs_quota_us: "-1" is CPU_QUOTA_INFINITY. */
int cgstat_parse_cfs_quota(const char *text, uint64_t *ret_usec);
/* cgroup.procs: one pid per line, in the kernel's order. */
int cgstat_parse_procs(const char *text, pid_t **ret_pids, size_t *ret_n);
