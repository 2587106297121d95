/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Parsed config lines and their resolution for one user: per setting, the most specific domain
 * wins; among equally specific lines the last one read wins. Each result remembers its line. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu-value.h"
#include "domain.h"
#include "penalty.h"
#include "user.h"

typedef enum Setting {
        SETTING_SLICE,
        SETTING_WEIGHT,
        SETTING_QUOTA,
        SETTING_PERIOD,
        SETTING_QUOTA_SHARE, /* the quota as a share of the CPUs: competes with SETTING_QUOTA as one */
        SETTING_BURST,
        _SETTING_MAX,
} Setting;

typedef struct Rule {
        Domain domain;
        unsigned mask; /* 1u << Setting for each setting the line gives */
        bool slice;
        uint64_t weight;
        uint64_t quota_per_sec;
        uint64_t quota_share; /* CPUQuotaShare= in CPUQuota='s units: USEC_PER_SEC is 100 % of the CPUs */
        uint64_t period_usec;
        uint64_t burst_usec;
        PenaltyRule penalty; /* the Penalty*= keys the line gives (penalty.mask) */
        size_t file;         /* index into RuleSet.files */
        unsigned line;
        char *text; /* the line without its comment, for explain */
} Rule;

typedef struct RuleSet {
        Rule *rules;
        size_t n, cap;
        char **files;
        size_t n_files;
        bool has_groups;     /* any @group line: only then is NSS asked for memberships */
        bool has_shares;     /* any CPUQuotaShare=: only then are the CPUs counted */
        bool has_slices;     /* any user.slice line */
        bool has_names;      /* any user-name or @group line: only then does a uid need its name */
        unsigned share_cpus; /* the CPUs a CPUQuotaShare= is of (ruleset_set_cpus()); 0: the online ones */
} RuleSet;

typedef struct Resolved {
        bool matched; /* some line applies to this user */
        bool slice;   /* CPUSlice=, yes unless a line says no */
        CpuLimits limits;
        const Rule *source[_SETTING_MAX]; /* the winning line per setting, NULL: default; of
                                           * SETTING_QUOTA and _SHARE, one at most */
        unsigned share_cpus;              /* what a CPUQuotaShare= was resolved against (0: none was) */
        PenaltyPolicy penalty;            /* PENALTY_POLICY_DEFAULT where no line gives a key */
        char *const *penalty_exempt;      /* the winning line's (borrowed from the RuleSet); NULL: none */
        const Rule *penalty_source[_PENALTY_KEY_MAX];
        bool penalty_capped; /* limits.quota_per_sec is an active penalty's cap (penalty-cap.h) */
} Resolved;

/* Whether res gives s a value of its own: a config line, or (the quota) an active penalty's cap. */
static inline bool resolved_gives(const Resolved *res, Setting s) {
        return res->source[s] || (s == SETTING_QUOTA && (res->source[SETTING_QUOTA_SHARE] || res->penalty_capped));
}

/* The line that gives the quota, in either spelling; NULL: none. */
static inline const Rule *resolved_quota_source(const Resolved *res) {
        return res->source[SETTING_QUOTA] ? res->source[SETTING_QUOTA] : res->source[SETTING_QUOTA_SHARE];
}

/* The settings whose lines compete with a line giving s: CPUQuota= and CPUQuotaShare= as one. */
static inline unsigned setting_rivals(Setting s) {
        return s == SETTING_QUOTA || s == SETTING_QUOTA_SHARE ? (1u << SETTING_QUOTA) | (1u << SETTING_QUOTA_SHARE)
                                                              : 1u << s;
}

/* The line that holds s for the user: for either spelling of the quota, the one that gave it. */
static inline const Rule *resolved_holder(const Resolved *res, Setting s) {
        return s == SETTING_QUOTA || s == SETTING_QUOTA_SHARE ? resolved_quota_source(res) : res->source[s];
}

/* CPUQuotaShare= is shown, explained and applied as the CPUQuota= it gives. */
static inline bool setting_is_spelling(Setting s) {
        return s == SETTING_QUOTA_SHARE;
}

const char *setting_to_string(Setting s); /* "CPUWeight" */
int setting_from_string(const char *s);   /* -EINVAL if unknown */
const char *settings_allowed(void);       /* "CPUSlice=, CPUWeight=, ..." */

/* Adds a file name; returns its index or -ENOMEM. */
int ruleset_add_file(RuleSet *rs, const char *path);
/* Takes ownership of r's allocations on success. */
int ruleset_push(RuleSet *rs, Rule *r);
const char *rule_file(const RuleSet *rs, const Rule *r);
void rule_done(Rule *r);
void ruleset_done(RuleSet *rs);

/* 1 if the line applies to the user (root only through lines that name it), 0 if not, <0 on NSS error. */
int rule_matches(const Rule *r, UserIdent *u);
/* Whether `later` (read after `earlier`) takes over a setting both give. */
bool rule_overrides(const Rule *later, const Rule *earlier);
int rules_resolve(const RuleSet *rs, UserIdent *u, Resolved *ret);
/* The same for the user.slice lines: the settings of the cgroup that holds every user slice. */
void rules_resolve_slices(const RuleSet *rs, Resolved *ret);

/* "CPUQuotaShare=25% of 64 CPUs" when the quota was given as a share; NULL otherwise. */
#define SHARE_FORMAT_MAX 64
const char *resolved_share_format(const Resolved *res, char buf[static SHARE_FORMAT_MAX]);

/* The CPUs users can run on, which CPUQuotaShare= is a share of (cpu-count.h reads them). */
static inline void ruleset_set_cpus(RuleSet *rs, unsigned cpus) {
        rs->share_cpus = cpus;
}
