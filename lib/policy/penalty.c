/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-value.h"
#include "macro.h"
#include "penalty.h"
#include "strv.h"
#include "time-util.h"
#include "string-table.h"

static const char *const penalty_action_table[_PENALTY_ACTION_MAX] = {
        [PENALTY_NONE] = "none", [PENALTY_START] = "start",   [PENALTY_EXTEND] = "extend",
        [PENALTY_LIFT] = "lift", [PENALTY_FORGET] = "forget",
};

DEFINE_STRING_TABLE_LOOKUP(penalty_action, PenaltyAction);

static const char *const penalty_key_table[_PENALTY_KEY_MAX] = {
        [PENALTY_KEY_ABOVE] = "PenaltyAbove",   [PENALTY_KEY_WINDOW] = "PenaltyWindow",
        [PENALTY_KEY_QUOTA] = "PenaltyQuota",   [PENALTY_KEY_TIME] = "PenaltyTime",
        [PENALTY_KEY_FORGET] = "PenaltyForget", [PENALTY_KEY_EXEMPT] = "PenaltyExempt",
};

DEFINE_STRING_TABLE_LOOKUP(penalty_key, PenaltyKey);

static const char *const allowed[_PENALTY_KEY_MAX] = {
        [PENALTY_KEY_ABOVE] = "off, or N% of one CPU as CPUQuota= takes it",
        [PENALTY_KEY_WINDOW] = "a time of 10s to 24h (s, min, h)",
        [PENALTY_KEY_QUOTA] = "1 to 8 comma-separated CPUQuota= values, none above the one before",
        [PENALTY_KEY_TIME] = "1 to 8 comma-separated times above 0s",
        [PENALTY_KEY_FORGET] = "a time above 0s",
        [PENALTY_KEY_EXEMPT] = "process names of up to 15 characters, without '/', ',', '=' or spaces",
};

const char *penalty_key_allowed(PenaltyKey k) {
        return k < _PENALTY_KEY_MAX ? allowed[k] : NULL;
}

/* "a,b,c" into up to PENALTY_LEVELS_MAX values, each by parse; an empty item is an error. */
static int parse_list(const char *value, int (*parse)(const char *, uint64_t *),
                      uint64_t out[static PENALTY_LEVELS_MAX], size_t *ret_n) {
        _cleanup_free_ char *copy = strdup(value);
        size_t n = 0;
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        if (!*value || value[strlen(value) - 1] == ',' || strstr(value, ",,") || value[0] == ',')
                return -EINVAL;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int r;

                if (n == PENALTY_LEVELS_MAX)
                        return -ERANGE;
                r = parse(t, &out[n]);
                if (r < 0)
                        return r;
                n++;
        }
        *ret_n = n;
        return 0;
}

static int parse_quota(const char *s, uint64_t *ret) {
        int r = cpu_quota_parse(s, ret);

        return r < 0 ? r : *ret == CPU_QUOTA_INFINITY ? -EINVAL : 0;
}

static int parse_positive_sec(const char *s, uint64_t *ret) {
        int r = parse_sec(s, ret);

        return r < 0 ? r : *ret == 0 ? -ERANGE : 0;
}

static bool comm_valid(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > PENALTY_COMM_MAX)
                return false;
        for (const char *c = s; *c; c++)
                if (*c <= ' ' || *c == 0x7f || strchr("/,=#\\\"'", *c))
                        return false;
        return true;
}

int penalty_exempt_add(PenaltyRule *r, const char *name) {
        _cleanup_free_ char *copy = NULL;

        if (!comm_valid(name))
                return -EINVAL;
        if (r->n_exempt >= PENALTY_EXEMPT_MAX)
                return -ERANGE;
        copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        return strv_consume(&r->exempt, &r->n_exempt, TAKE_PTR(copy));
}

static int set_value(PenaltyPolicy *p, PenaltyKey k, const char *value) {
        uint64_t v, list[PENALTY_LEVELS_MAX];
        size_t n;
        int r;

        switch (k) {
        case PENALTY_KEY_ABOVE:
                if (strcmp(value, "off") == 0)
                        v = CPU_QUOTA_INFINITY;
                else if ((r = parse_quota(value, &v)) < 0)
                        return r;
                p->above_per_sec = v;
                return 0;
        case PENALTY_KEY_WINDOW:
                if ((r = parse_sec(value, &v)) < 0)
                        return r;
                if (v < PENALTY_WINDOW_MIN_USEC || v > PENALTY_WINDOW_MAX_USEC)
                        return -ERANGE;
                p->window_usec = v;
                return 0;
        case PENALTY_KEY_QUOTA:
                if ((r = parse_list(value, parse_quota, list, &n)) < 0)
                        return r;
                for (size_t i = 1; i < n; i++)
                        if (list[i] > list[i - 1])
                                return -ERANGE;
                memcpy(p->quota_per_sec, list, n * sizeof *list);
                p->n_quota = n;
                return 0;
        case PENALTY_KEY_TIME:
                if ((r = parse_list(value, parse_positive_sec, list, &n)) < 0)
                        return r;
                memcpy(p->time_usec, list, n * sizeof *list);
                p->n_time = n;
                return 0;
        case PENALTY_KEY_FORGET:
                if ((r = parse_positive_sec(value, &v)) < 0)
                        return r;
                p->forget_usec = v;
                return 0;
        default:
                return -EINVAL;
        }
}

int penalty_rule_set(PenaltyRule *r, PenaltyKey k, const char *value) {
        int q;

        if (k >= _PENALTY_KEY_MAX || (r->mask & (1u << k)))
                return -EINVAL;
        if (k == PENALTY_KEY_EXEMPT) {
                /* "PenaltyExempt=" alone empties the list a less specific line gave */
                q = *value ? penalty_exempt_add(r, value) : 0;
        } else {
                PenaltyPolicy p = r->policy;

                q = set_value(&p, k, value);
                if (q == 0)
                        r->policy = p;
        }
        if (q == 0)
                r->mask |= 1u << k;
        return q;
}

void penalty_rule_done(PenaltyRule *r) {
        strv_free(r->exempt);
        *r = (PenaltyRule) {};
}

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
