/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Sustained-use penalties, the decision alone: given a user's penalty rules, what was decided for
 * them before and their use over the last window, what holds now. No clock, no file, no cgroup:
 * the caller samples, keeps the state and applies the cap, so every rule here is testable with
 * numbers. Times are wall-clock µs (CLOCK_REALTIME): a penalty's end must survive a reboot. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu-value.h"
#include "error.h"

#define PENALTY_LEVELS_MAX 8
/* a window shorter than two passes of the 30 s timer would judge a compile, not a habit */
#define PENALTY_WINDOW_MIN_USEC (10 * UINT64_C(1000000))
/* a day: beyond it "sustained" is a policy for accounting, not for a login node */
#define PENALTY_WINDOW_MAX_USEC (24 * 3600 * UINT64_C(1000000))
#define PENALTY_WINDOW_DEFAULT_USEC (5 * 60 * UINT64_C(1000000))
#define PENALTY_FORGET_DEFAULT_USEC (3 * 3600 * UINT64_C(1000000))
/* "the window is not covered yet": no verdict, whatever the use so far */
#define PENALTY_USE_UNKNOWN UINT64_MAX

typedef struct PenaltyPolicy {
        uint64_t above_per_sec; /* µs of CPU per s; CPU_QUOTA_INFINITY: off */
        uint64_t window_usec;
        uint64_t quota_per_sec[PENALTY_LEVELS_MAX]; /* the cap per level; the last one repeats */
        size_t n_quota;
        uint64_t time_usec[PENALTY_LEVELS_MAX]; /* how long each level lasts; the last repeats */
        size_t n_time;
        uint64_t forget_usec; /* a level drops by one after this long clean */
} PenaltyPolicy;

typedef struct PenaltyState {
        unsigned level;         /* 0: never penalized or all forgiven; else the last penalty's level */
        bool active;            /* capped now */
        uint64_t since;         /* the current (or last) penalty's start */
        uint64_t until;         /* its end */
        uint64_t clean_since;   /* forgetting counts from here: the end of the last penalty, or the
                                 * last step down */
        uint64_t cause_per_sec; /* the use over the window that started it */
} PenaltyState;

/* The cpuslice.conf keys, merged by specificity per key like the CPU settings. */
typedef enum PenaltyKey {
        PENALTY_KEY_ABOVE,
        PENALTY_KEY_WINDOW,
        PENALTY_KEY_QUOTA,
        PENALTY_KEY_TIME,
        PENALTY_KEY_FORGET,
        PENALTY_KEY_EXEMPT,
        _PENALTY_KEY_MAX,
} PenaltyKey;

#define PENALTY_EXEMPT_MAX 32
#define PENALTY_COMM_MAX 15 /* a process name as the kernel keeps it (TASK_COMM_LEN - 1) */

/* What one config line gives: the keys it sets (mask: 1u << PenaltyKey) and their values. */
typedef struct PenaltyRule {
        unsigned mask;
        PenaltyPolicy policy;
        char **exempt; /* NULL-terminated */
        size_t n_exempt;
} PenaltyRule;

#define PENALTY_POLICY_DEFAULT                                                                                       \
        ((PenaltyPolicy) { .above_per_sec = CPU_QUOTA_INFINITY,                                                      \
                           .window_usec = PENALTY_WINDOW_DEFAULT_USEC,                                               \
                           .forget_usec = PENALTY_FORGET_DEFAULT_USEC })

const char *penalty_key_to_string(PenaltyKey k); /* "PenaltyAbove" */
int penalty_key_from_string(const char *s);      /* -EINVAL if unknown */
/* What a key takes, for the message that skips a bad value (cpuslice.conf(5)). */
const char *penalty_key_allowed(PenaltyKey k);

/* KEY=VALUE into r (the key not yet in r->mask): 0, -EINVAL or -ERANGE (r unchanged), -ENOMEM.
 * PenaltyExempt= takes its first name here and more through penalty_exempt_add(). */
int penalty_rule_set(PenaltyRule *r, PenaltyKey k, const char *value);
/* One more exempt process name (a token after PenaltyExempt= without '='). */
int penalty_exempt_add(PenaltyRule *r, const char *name);
void penalty_rule_done(PenaltyRule *r);

typedef enum PenaltyAction {
        PENALTY_NONE,   /* nothing changes */
        PENALTY_START,  /* capped from now on, at a new level */
        PENALTY_EXTEND, /* still over the line at the end: the next level follows at once */
        PENALTY_LIFT,   /* the cap ends: back to the configured values */
        PENALTY_FORGET, /* not capped; the level dropped by one or more */
        _PENALTY_ACTION_MAX,
} PenaltyAction;

const char *penalty_action_to_string(PenaltyAction a);
int penalty_action_from_string(const char *s);

/* Whether the policy can be used: above set and not 0, window at least PENALTY_WINDOW_MIN_USEC,
 * at least one cap and one time, caps that never grow with the level, times not 0. -EINVAL with
 * the reason in e. A policy with above_per_sec == CPU_QUOTA_INFINITY (off) is valid. */
int penalty_policy_check(const PenaltyPolicy *p, CsError *e);
bool penalty_policy_enabled(const PenaltyPolicy *p);

/* The cap of level (1-based; the lists' last entries repeat) and how long it lasts. */
uint64_t penalty_level_quota(const PenaltyPolicy *p, unsigned level);
uint64_t penalty_level_time(const PenaltyPolicy *p, unsigned level);

/* One pass for one user: *state is what held before (all zero for a user never seen), use_per_sec
 * the use over the last window with the exempt processes' time taken out, or PENALTY_USE_UNKNOWN
 * while the samples do not cover a whole window yet; now the wall clock. Updates *state and
 * returns what changed. A policy switched off lifts an active penalty and forgets the level. */
PenaltyAction penalty_decide(const PenaltyPolicy *p, PenaltyState *state, uint64_t use_per_sec, uint64_t now);
