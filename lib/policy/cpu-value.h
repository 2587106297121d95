/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The CPU value model: systemd's CPUWeight=/CPUQuota=/CPUQuotaPeriodSec= and their translation
 * to the kernel's files, rounded and clamped exactly as systemd's src/core/cgroup.c does, so a
 * host moving between pam_cpuslice's backends (or to plain systemd) sees the same numbers. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "time-util.h"

#define CPU_WEIGHT_IDLE UINT64_C(0) /* systemd's CGROUP_WEIGHT_IDLE */
#define CPU_WEIGHT_MIN UINT64_C(1)
#define CPU_WEIGHT_DEFAULT UINT64_C(100)
#define CPU_WEIGHT_MAX UINT64_C(10000)

#define CPU_SHARES_MIN UINT64_C(2)
#define CPU_SHARES_DEFAULT UINT64_C(1024)
#define CPU_SHARES_MAX UINT64_C(262144)

#define CPU_QUOTA_INFINITY UINT64_MAX
/* 10000 CPUs; far above any machine, low enough that quota * period cannot overflow */
#define CPU_QUOTA_MAX_PER_SEC (UINT64_C(10000) * USEC_PER_SEC)

#define CPU_PERIOD_DEFAULT_USEC (100 * USEC_PER_MSEC)
#define CPU_PERIOD_MIN_USEC USEC_PER_MSEC
#define CPU_PERIOD_MAX_USEC USEC_PER_SEC

/* CPUBurst=: how much of the quota unused in earlier periods a period may take on top (Linux
 * 5.14+). At most the quota per period, as the kernel requires. */
#define CPU_BURST_MAX_USEC (3600 * USEC_PER_SEC)

/* What the config resolves to for one user. */
typedef struct CpuLimits {
        uint64_t weight;        /* CPU_WEIGHT_IDLE or 1..10000 */
        uint64_t quota_per_sec; /* µs of CPU time per second, or CPU_QUOTA_INFINITY */
        uint64_t period_usec;   /* as requested; adjusted when translated */
        uint64_t burst_usec;    /* per period; 0: none */
} CpuLimits;

#define CPU_LIMITS_DEFAULT ((CpuLimits) { CPU_WEIGHT_DEFAULT, CPU_QUOTA_INFINITY, CPU_PERIOD_DEFAULT_USEC, 0 })

/* The same limits in the kernel's units, for both hierarchies. */
typedef struct CpuKernelValues {
        bool idle;            /* v2 cpu.idle */
        uint64_t weight;      /* v2 cpu.weight (not written when idle) */
        uint64_t shares;      /* v1 cpu.shares */
        uint64_t quota_usec;  /* per period; CPU_QUOTA_INFINITY = "max" / -1 */
        uint64_t period_usec; /* after adjustment */
        bool period_adjusted; /* the requested period had to change (warn, as systemd does) */
        bool quota_raised;    /* the per-period quota was raised to the kernel's 1 ms minimum */
        uint64_t burst_usec;  /* v2 cpu.max.burst, v1 cpu.cfs_burst_us: 0 without a quota */
        bool burst_dropped;   /* a burst was asked for without a quota, or above the quota per period */
} CpuKernelValues;

int cpu_weight_parse(const char *s, uint64_t *ret);
int cpu_quota_parse(const char *s, uint64_t *ret_per_sec);
int cpu_period_parse(const char *s, uint64_t *ret_usec);
/* CPUQuotaShare=: "N%" above 0 and up to 100 % (of all the CPUs), in CPUQuota='s units
 * (USEC_PER_SEC is 100 %); -ERANGE outside. */
int cpu_share_parse(const char *s, uint64_t *ret);
/* CPUBurst=: a time as CPUQuotaPeriodSec= takes it, 0 (none) up to CPU_BURST_MAX_USEC. */
int cpu_burst_parse(const char *s, uint64_t *ret_usec);
/* The absolute quota (µs per second) a share gives on cpus CPUs. */
static inline uint64_t cpu_quota_of_share(uint64_t share, unsigned cpus) {
        return share * cpus;
}

uint64_t cpu_weight_to_shares(uint64_t weight);
uint64_t cpu_shares_to_weight(uint64_t shares);
uint64_t cpu_period_adjust(uint64_t period_usec, uint64_t quota_per_sec);
uint64_t cpu_quota_per_period(uint64_t quota_per_sec, uint64_t period_usec);
void cpu_limits_to_kernel(const CpuLimits *l, CpuKernelValues *ret);

/* "50000 100000\n" / "max 100000\n"; "-1" for v1 cfs_quota_us when infinite */
int cpu_max_format(const CpuKernelValues *k, char *buf, size_t n);
int cpu_max_parse(const char *s, uint64_t *ret_quota_usec, uint64_t *ret_period_usec);

/* Human/config forms: "idle", "250", "12.5%", "infinity", "100ms". Buffers of CPU_FORMAT_MAX. */
#define CPU_FORMAT_MAX 32
const char *cpu_weight_format(uint64_t weight, char buf[static CPU_FORMAT_MAX]);
const char *cpu_quota_format(uint64_t quota_per_sec, char buf[static CPU_FORMAT_MAX]);
const char *cpu_period_format(uint64_t usec, char buf[static CPU_FORMAT_MAX]);
/* quota per period → percent of one CPU, for reading live values back (e.g. 50000/100000 → 50.0) */
double cpu_quota_percent(uint64_t quota_usec, uint64_t period_usec);
