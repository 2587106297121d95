/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the penalty pass remembers between passes to measure a user's use over a window: at each
 * pass, the slice's usage counter and the running total of its exempt processes' CPU time, on
 * CLOCK_BOOTTIME. Kept for all users in one file, /run/cpuslice/penalty-samples (state-file.h),
 * which a reboot empties along with the counters it differences: a pass reads it once and
 * replaces it once, instead of a file per user (which cost a pass over 100 users most of its
 * time).
 *
 * Exempt time is counted per process (pid and start time, since pids are reused): what a process
 * named in PenaltyExempt= used since the last pass (all of it when it is new), its reaped
 * children's included, so that `make` covers the compilers it waited for. A process that started
 * and ended between two passes is not seen, and counts as use. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc-stat.h"

#define PENALTY_SAMPLE_DIR "/run/cpuslice"
#define PENALTY_SAMPLE_FILE "penalty-samples"
#define PENALTY_SAMPLES_MAX 1024
#define PENALTY_PROCS_MAX 4096

typedef struct PenaltyProc {
        pid_t pid;
        uint64_t start_tick;
        uint64_t cpu_usec;
} PenaltyProc;

typedef struct PenaltySample {
        uint64_t time;       /* CLOCK_BOOTTIME, µs */
        uint64_t usage_usec; /* the slice's usage counter */
        uint64_t exempt_usec;
} PenaltySample;

typedef struct PenaltySamples {
        PenaltySample *samples; /* oldest first */
        size_t n, n_alloc;
        PenaltyProc *procs; /* the exempt processes at the newest sample */
        size_t n_procs, n_procs_alloc;
} PenaltySamples;

typedef struct PenaltySampleEntry {
        uid_t uid;
        PenaltySamples s;
        bool kept;    /* asked for since the load (penalty_store_get()) */
        bool dropped; /* penalty_store_forget() */
} PenaltySampleEntry;

typedef struct PenaltySampleStore {
        PenaltySampleEntry *entries; /* by uid */
        size_t n, n_alloc;
} PenaltySampleStore;

/* root: a prefix of PENALTY_SAMPLE_DIR for the tests. A missing, untrusted or oversized file is
 * the empty store, and a user's section that does not parse an empty history: samples are only a
 * cache, whose loss makes a window start again. */
int penalty_store_load(const char *root, PenaltySampleStore *ret);
/* uid's history, made empty if there is none; NULL when out of memory. */
PenaltySamples *penalty_store_get(PenaltySampleStore *st, uid_t uid);
/* Leaves uid's history out of the next save. */
void penalty_store_forget(PenaltySampleStore *st, uid_t uid);
/* Replaces the file with the non-empty histories (with only_kept, of the users penalty_store_get()
 * was asked for: a pass keeps the users it sampled, and drops those whose slice went away);
 * removes it when none is left. Not fsync()ed: /run is gone at a reboot anyway. */
int penalty_store_save(const char *root, const PenaltySampleStore *st, bool only_kept);
void penalty_store_done(PenaltySampleStore *st);

void penalty_samples_done(PenaltySamples *s);

/* The processes among pids (of one slice) whose name is in exempt (NULL-terminated), read from
 * /proc; the ones gone meanwhile are left out. */
int penalty_exempt_procs(const pid_t *pids, size_t n, char *const *exempt, PenaltyProc **ret, size_t *ret_n);

/* Adds the sample taken at now (usage, and procs, which it takes over) and drops the samples no
 * window of window µs needs. A usage counter that went back (the slice was made anew) starts the
 * history again. */
int penalty_samples_add(PenaltySamples *s, uint64_t now, uint64_t usage_usec, PenaltyProc *procs, size_t n_procs,
                        uint64_t window);

/* The use over the last window, exempt time taken out, in µs of CPU per second; PENALTY_USE_UNKNOWN
 * while the history does not reach back a whole window. */
uint64_t penalty_samples_use(const PenaltySamples *s, uint64_t window);
