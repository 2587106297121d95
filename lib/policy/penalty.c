/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>

#include "cpu-value.h"
#include "penalty.h"
#include "string-table.h"

static const char *const penalty_action_table[_PENALTY_ACTION_MAX] = {
        [PENALTY_NONE] = "none", [PENALTY_START] = "start",   [PENALTY_EXTEND] = "extend",
        [PENALTY_LIFT] = "lift", [PENALTY_FORGET] = "forget",
};

DEFINE_STRING_TABLE_LOOKUP(penalty_action, PenaltyAction);

bool penalty_policy_enabled(const PenaltyPolicy *p) {
        return p->above_per_sec != CPU_QUOTA_INFINITY;
}

int penalty_policy_check(const PenaltyPolicy *p, CsError *e) {
        if (!penalty_policy_enabled(p))
                return 0;
        if (p->above_per_sec == 0)
                return cs_error(e, -EINVAL, "PenaltyAbove= must be above 0%% (off: never penalized)");
        if (p->window_usec < PENALTY_WINDOW_MIN_USEC)
                return cs_error(e, -EINVAL, "PenaltyWindow= must be at least 10s");
        if (p->n_quota == 0 || p->n_time == 0)
                return cs_error(e, -EINVAL, "PenaltyAbove= needs PenaltyQuota= and PenaltyTime=");
        for (size_t i = 1; i < p->n_quota; i++)
                if (p->quota_per_sec[i] > p->quota_per_sec[i - 1])
                        return cs_error(e, -EINVAL,
                                        "PenaltyQuota= level %zu allows more than level %zu: "
                                        "a repeat offence must not cap less",
                                        i + 1, i);
        for (size_t i = 0; i < p->n_time; i++)
                if (p->time_usec[i] == 0)
                        return cs_error(e, -EINVAL, "PenaltyTime= level %zu lasts 0s", i + 1);
        if (p->forget_usec == 0)
                return cs_error(e, -EINVAL, "PenaltyForget= must be above 0s");
        return 0;
}

static size_t level_index(unsigned level, size_t n) {
        return level == 0 ? 0 : level - 1 < n ? level - 1 : n - 1;
}

uint64_t penalty_level_quota(const PenaltyPolicy *p, unsigned level) {
        return p->n_quota == 0 ? CPU_QUOTA_INFINITY : p->quota_per_sec[level_index(level, p->n_quota)];
}

uint64_t penalty_level_time(const PenaltyPolicy *p, unsigned level) {
        return p->n_time == 0 ? 0 : p->time_usec[level_index(level, p->n_time)];
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static bool over_the_line(const PenaltyPolicy *p, uint64_t use_per_sec) {
        return use_per_sec != PENALTY_USE_UNKNOWN && use_per_sec > p->above_per_sec;
}

static void start(const PenaltyPolicy *p, PenaltyState *s, uint64_t use_per_sec, uint64_t now) {
        if (s->level < UINT_MAX)
                s->level++;
        s->active = true;
        s->since = now;
        s->until = add_sat(now, penalty_level_time(p, s->level));
        s->cause_per_sec = use_per_sec;
}

/* One level less per PenaltyForget= without an offence, counted from the last penalty's end. */
static bool forget(const PenaltyPolicy *p, PenaltyState *s, uint64_t now) {
        bool forgot = false;

        while (s->level > 0 && now >= add_sat(s->clean_since, p->forget_usec)) {
                s->level--;
                s->clean_since = add_sat(s->clean_since, p->forget_usec);
                forgot = true;
        }
        return forgot;
}

/* At the end of a penalty the window is judged only if it lies wholly inside the penalty: use that
 * stays over the line even under the cap earns the next level. Any other window that reaches into
 * a penalty would mix capped time with the time before it. */
static PenaltyAction at_the_end(const PenaltyPolicy *p, PenaltyState *s, uint64_t use_per_sec, uint64_t now) {
        if (now - s->since >= p->window_usec && over_the_line(p, use_per_sec)) {
                start(p, s, use_per_sec, now);
                return PENALTY_EXTEND;
        }
        s->active = false;
        s->clean_since = s->until;
        return PENALTY_LIFT;
}

PenaltyAction penalty_decide(const PenaltyPolicy *p, PenaltyState *s, uint64_t use_per_sec, uint64_t now) {
        if (!penalty_policy_enabled(p)) {
                PenaltyAction a = s->active ? PENALTY_LIFT : s->level > 0 ? PENALTY_FORGET : PENALTY_NONE;

                *s = (PenaltyState) {};
                return a;
        }
        if (s->active)
                return now < s->until ? PENALTY_NONE : at_the_end(p, s, use_per_sec, now);

        bool forgot = forget(p, s, now);
        /* the first whole window after the last penalty, not one that reaches into it */
        if (now >= add_sat(s->until, p->window_usec) && over_the_line(p, use_per_sec)) {
                start(p, s, use_per_sec, now);
                return PENALTY_START;
        }
        return forgot ? PENALTY_FORGET : PENALTY_NONE;
}
