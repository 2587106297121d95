/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the penalty pass remembers between passes to measure a user's use over a window: at each
 * pass, the slice's usage counter and the running total of its exempt processes' CPU time, on
 * CLOCK_BOOTTIME. Kept per uid under /run/cpuslice/penalty (state-file.h), which a reboot empties
 * along with the counters it differences.
 *
 * Exempt time is counted per process (pid and start time, since pids are reused): what a process
 * named in PenaltyExempt= used since the last pass (all of it when it is new), its reaped
 * children's included, so that `make` covers the compilers it waited for. A process that started
 * and ended between two passes is not seen, and counts as use. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc-stat.h"

#define PENALTY_SAMPLE_DIR "/run/cpuslice/penalty"
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

/* root: a prefix of PENALTY_SAMPLE_DIR for the tests. A missing, untrusted or unparsable file is
 * the empty history (samples are only a cache: the window starts again). */
int penalty_samples_load(const char *root, uid_t uid, PenaltySamples *ret);
int penalty_samples_save(const char *root, uid_t uid, const PenaltySamples *s);
int penalty_samples_remove(const char *root, uid_t uid);
/* The same from the directory, opened once for a whole pass (with create, made if missing):
 * load_at takes -ENOENT for the empty history, save_at with s NULL removes. The files are not
 * fsync()ed: /run is gone at a reboot anyway. */
int penalty_samples_dir_open(const char *root, bool create);
int penalty_samples_load_at(int dfd, uid_t uid, PenaltySamples *ret);
int penalty_samples_save_at(int dfd, uid_t uid, const PenaltySamples *s);
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
