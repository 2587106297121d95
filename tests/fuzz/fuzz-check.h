/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Invariants of parsed config values, shared by the config targets. */

#include "cpu-value.h"
#include "fuzz.h"
#include "rules.h"

static inline void check_weight(uint64_t w) {
        FUZZ_CHECK(w == CPU_WEIGHT_IDLE || (w >= CPU_WEIGHT_MIN && w <= CPU_WEIGHT_MAX));
}

static inline void check_quota(uint64_t q) {
        FUZZ_CHECK(q == CPU_QUOTA_INFINITY || (q > 0 && q <= CPU_QUOTA_MAX_PER_SEC));
}

static inline void check_period(uint64_t p) {
        FUZZ_CHECK(p >= CPU_PERIOD_MIN_USEC && p <= CPU_PERIOD_MAX_USEC);
}

/* What is formatted back for slicectl explain/status parses to the same value. */
static inline void check_roundtrip(const Rule *r) {
        char buf[CPU_FORMAT_MAX];
        uint64_t v;

        if (r->mask & (1u << SETTING_WEIGHT)) {
                FUZZ_CHECK(cpu_weight_parse(cpu_weight_format(r->weight, buf), &v) == 0 && v == r->weight);
        }
        if (r->mask & (1u << SETTING_QUOTA)) {
                FUZZ_CHECK(cpu_quota_parse(cpu_quota_format(r->quota_per_sec, buf), &v) == 0 &&
                           v == r->quota_per_sec);
        }
        if (r->mask & (1u << SETTING_PERIOD)) {
                FUZZ_CHECK(cpu_period_parse(cpu_period_format(r->period_usec, buf), &v) == 0 && v == r->period_usec);
        }
}

static inline void check_rule(const Rule *r) {
        /* a line gives some setting: a CPU one, or only Penalty*= keys */
        FUZZ_CHECK((r->mask != 0 || r->penalty.mask != 0) && r->mask < (1u << _SETTING_MAX) &&
                   r->penalty.mask < (1u << _PENALTY_KEY_MAX));
        FUZZ_CHECK(r->text && *r->text && !strchr(r->text, '\n') && !strchr(r->text, '#'));
        switch (r->domain.type) {
        case DOMAIN_ALL:
                break;
        case DOMAIN_USER:
        case DOMAIN_GROUP:
                FUZZ_CHECK(r->domain.name && *r->domain.name && strlen(r->domain.name) <= DOMAIN_NAME_MAX);
                /* a name never carries the characters the syntax uses, nor blanks or controls */
                FUZZ_CHECK(strcspn(r->domain.name, " \t\r\n:#=*") == strlen(r->domain.name));
                break;
        case DOMAIN_UID:
                FUZZ_CHECK(r->domain.uid_min == r->domain.uid_max && r->domain.uid_min != UINT32_MAX);
                break;
        case DOMAIN_UID_RANGE:
                FUZZ_CHECK(r->domain.uid_min <= r->domain.uid_max);
                break;
        case DOMAIN_SLICES:
                /* the cgroup of every user slice: CPU settings only, never a user's */
                FUZZ_CHECK(!r->domain.name && !(r->mask & (1u << SETTING_SLICE)) && r->penalty.mask == 0);
                break;
        default:
                FUZZ_CHECK(!"unknown domain type");
        }
        if (r->mask & (1u << SETTING_WEIGHT))
                check_weight(r->weight);
        if (r->mask & (1u << SETTING_QUOTA))
                check_quota(r->quota_per_sec);
        if (r->mask & (1u << SETTING_PERIOD))
                check_period(r->period_usec);
        if (r->mask & (1u << SETTING_BURST))
                FUZZ_CHECK(r->burst_usec <= CPU_BURST_MAX_USEC);
        check_roundtrip(r);
}

/* What the module would write: within the kernel's ranges, and cpu.max reads back as written. */
static inline void check_kernel_values(const CpuLimits *l) {
        CpuKernelValues k;
        uint64_t q, p;
        char buf[64];

        check_weight(l->weight);
        check_quota(l->quota_per_sec);
        check_period(l->period_usec);
        cpu_limits_to_kernel(l, &k);
        FUZZ_CHECK(k.shares >= CPU_SHARES_MIN && k.shares <= CPU_SHARES_MAX);
        FUZZ_CHECK(k.weight >= CPU_WEIGHT_MIN && k.weight <= CPU_WEIGHT_MAX);
        FUZZ_CHECK(k.period_usec >= CPU_PERIOD_MIN_USEC && k.period_usec <= CPU_PERIOD_MAX_USEC);
        FUZZ_CHECK(k.quota_usec == CPU_QUOTA_INFINITY || k.quota_usec >= USEC_PER_MSEC);
        FUZZ_CHECK(cpu_max_format(&k, buf, sizeof buf) == 0);
        FUZZ_CHECK(cpu_max_parse(buf, &q, &p) == 0 && q == k.quota_usec && p == k.period_usec);
}
