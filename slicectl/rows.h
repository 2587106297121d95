/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The data behind list, top and status: one row per user slice, live values joined with the
 * user's name, the config's resolution and a CPU% sampled between two reads of the usage. */

#include <stdint.h>

#include "backend.h"
#include "conf.h"
#include "penalty-state.h"
#include "rules.h"
#include "slice-read.h"

typedef struct SliceRow {
        SliceInfo info;
        char *user;           /* NSS name, or the uid as text (raw: escaped when printed) */
        bool have_config;     /* res is meaningful */
        Resolved res;         /* points into Rows.rules */
        uint64_t weight;      /* the CPUWeight= the kernel value stands for; CGSTAT_NONE: unknown */
        double quota_percent; /* < 0: no quota (or unknown: see info.quota_usec) */
        double cpu_percent;   /* < 0: not sampled */
        PenaltyState penalty; /* metrics only: the saved penalty state */
        bool penalty_refused; /* metrics only: its file was refused (not root's, corrupt) */
} SliceRow;

typedef struct Rows {
        SliceRow *rows;
        size_t n;
        SkippedSlice *skipped; /* entries with a slice's name that could not be read */
        size_t n_skipped;
        RuleSet rules;
} Rows;

/* Usage remembered between refreshes (top); the first collect samples over interval_usec. */
typedef struct Sampler {
        uint64_t interval_usec; /* --interval */
        UsageSample *prev;
        size_t n_prev;
        uint64_t t_prev; /* CLOCK_MONOTONIC, µs */
        bool primed;
} Sampler;

/* conf: the config, read only to sharpen the v1 weight (a config we cannot read is no error here) */
int rows_collect(SliceBackend *b, Sampler *s, const ConfPaths *conf, SliceReadFlags flags, Rows *ret, CsError *e);
/* rows_collect() for a verb, with --conf and friends: a failure is logged as one line, and returned. */
int rows_collect_or_log(SliceBackend *b, Sampler *s, SliceReadFlags flags, Rows *ret);
void rows_done(Rows *r);
/* One warning line on stderr per skipped slice, naming it and why (escaped). */
void log_skipped_slices(const SkippedSlice *skipped, size_t n);
static inline void rows_log_skipped(const Rows *r) {
        log_skipped_slices(r->skipped, r->n_skipped);
}
void sampler_done(Sampler *s);

/* The weight a kernel value stands for: v2 cpu.weight, or v1 cpu.shares mapped back (lossy:
 * the configured weight is shown when it maps to exactly these shares). */
uint64_t row_weight(bool v2, const SliceInfo *info, const Resolved *res);

/* Settings whose live value differs from what the config gives (k), as 1u << Setting; compared
 * in the kernel's units. */
unsigned slice_drift(bool v2, const SliceInfo *info, const CpuKernelValues *k);
/* A live value in config syntax: "400", "idle", "50%", "infinity", "100ms"; "?" if unreadable. */
const char *live_value(bool v2, const SliceInfo *info, const Resolved *res, Setting s,
                       char buf[static CPU_FORMAT_MAX]);
