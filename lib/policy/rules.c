/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "macro.h"
#include "rules.h"
#include "string-table.h"

static const char *const setting_table[_SETTING_MAX] = {
        [SETTING_SLICE] = "CPUSlice",           [SETTING_WEIGHT] = "CPUWeight",          [SETTING_QUOTA] = "CPUQuota",
        [SETTING_PERIOD] = "CPUQuotaPeriodSec", [SETTING_QUOTA_SHARE] = "CPUQuotaShare", [SETTING_BURST] = "CPUBurst",
};

DEFINE_STRING_TABLE_LOOKUP(setting, Setting)

const char *settings_allowed(void) {
        return "CPUSlice=, CPUWeight=, CPUQuota=, CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=";
}

int ruleset_add_file(RuleSet *rs, const char *path) {
        char **f = realloc(rs->files, (rs->n_files + 1) * sizeof *f);

        if (!f)
                return -ENOMEM;
        rs->files = f;
        if (!(f[rs->n_files] = strdup(path)))
                return -ENOMEM;
        return (int) rs->n_files++;
}

int ruleset_push(RuleSet *rs, Rule *r) {
        if (!GREEDY_REALLOC(rs->rules, rs->cap, rs->n + 1))
                return -ENOMEM;
        rs->rules[rs->n++] = *r;
        if (r->domain.type == DOMAIN_GROUP)
                rs->has_groups = true;
        if (r->mask & (1u << SETTING_QUOTA_SHARE))
                rs->has_shares = true;
        if (r->domain.type == DOMAIN_SLICES)
                rs->has_slices = true;
        if (r->domain.type == DOMAIN_USER || r->domain.type == DOMAIN_GROUP)
                rs->has_names = true;
        *r = (Rule) {};
        return 0;
}

const char *rule_file(const RuleSet *rs, const Rule *r) {
        return r->file < rs->n_files ? rs->files[r->file] : "?";
}

void rule_done(Rule *r) {
        domain_done(&r->domain);
        penalty_rule_done(&r->penalty);
        free(r->text);
        r->text = NULL;
}

void ruleset_done(RuleSet *rs) {
        for (size_t i = 0; i < rs->n; i++)
                rule_done(&rs->rules[i]);
        for (size_t i = 0; i < rs->n_files; i++)
                free(rs->files[i]);
        free(rs->rules);
        free(rs->files);
        *rs = (RuleSet) {};
}

int rule_matches(const Rule *r, UserIdent *u) {
        const Domain *d = &r->domain;

        /* An unconstrained admin login must always exist: root only through lines naming it. */
        if (u->uid == 0)
                return domain_names_user(d, u->name, u->uid);
        switch (d->type) {
        case DOMAIN_ALL:
                return 1;
        case DOMAIN_USER:
        case DOMAIN_UID:
                return domain_names_user(d, u->name, u->uid);
        case DOMAIN_UID_RANGE:
                return u->uid >= d->uid_min && u->uid <= d->uid_max;
        case DOMAIN_GROUP:
                return user_in_group(u, d->name);
        case DOMAIN_SLICES:
                return 0;
        }
        return 0;
}

bool rule_overrides(const Rule *later, const Rule *earlier) {
        return domain_specificity(&later->domain) >= domain_specificity(&earlier->domain);
}

/* Where the caller did not read the CPUs users may run on: the online ones, as glibc counts them
 * from sysfs (never the caller's affinity, which a setuid program's caller chooses). */
static unsigned cpus_online_fallback(void) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);

        return n > 0 ? (unsigned) n : 1;
}

static void take_setting(Resolved *res, const Rule *r, Setting s) {
        res->source[s] = r;
        switch (s) {
        case SETTING_QUOTA_SHARE:
                res->source[SETTING_QUOTA] = NULL;
                /* counted only for a share: sysconf() reads sysfs at every call */
                if (!res->share_cpus)
                        res->share_cpus = cpus_online_fallback();
                res->limits.quota_per_sec = cpu_quota_of_share(r->quota_share, res->share_cpus);
                break;
        case SETTING_SLICE:
                res->slice = r->slice;
                break;
        case SETTING_WEIGHT:
                res->limits.weight = r->weight;
                break;
        case SETTING_QUOTA:
                res->source[SETTING_QUOTA_SHARE] = NULL;
                res->limits.quota_per_sec = r->quota_per_sec;
                break;
        case SETTING_PERIOD:
                res->limits.period_usec = r->period_usec;
                break;
        case SETTING_BURST:
                res->limits.burst_usec = r->burst_usec;
                break;
        default:
                break;
        }
}

static void take_penalty_key(Resolved *res, const Rule *r, PenaltyKey k) {
        const PenaltyPolicy *from = &r->penalty.policy;
        PenaltyPolicy *to = &res->penalty;

        res->penalty_source[k] = r;
        switch (k) {
        case PENALTY_KEY_ABOVE:
                to->above_per_sec = from->above_per_sec;
                break;
        case PENALTY_KEY_WINDOW:
                to->window_usec = from->window_usec;
                break;
        case PENALTY_KEY_QUOTA:
                memcpy(to->quota_per_sec, from->quota_per_sec, sizeof to->quota_per_sec);
                to->n_quota = from->n_quota;
                break;
        case PENALTY_KEY_TIME:
                memcpy(to->time_usec, from->time_usec, sizeof to->time_usec);
                to->n_time = from->n_time;
                break;
        case PENALTY_KEY_FORGET:
                to->forget_usec = from->forget_usec;
                break;
        case PENALTY_KEY_EXEMPT:
                res->penalty_exempt = r->penalty.exempt;
                break;
        default:
                break;
        }
}

static void take_line(Resolved *res, const Rule *r) {
        for (Setting s = 0; s < _SETTING_MAX; s++)
                if ((r->mask & (1u << s)) && (!resolved_holder(res, s) || rule_overrides(r, resolved_holder(res, s))))
                        take_setting(res, r, s);
        for (PenaltyKey k = 0; k < _PENALTY_KEY_MAX; k++)
                if ((r->penalty.mask & (1u << k)) &&
                    (!res->penalty_source[k] || rule_overrides(r, res->penalty_source[k])))
                        take_penalty_key(res, r, k);
}

static Resolved resolved_default(const RuleSet *rs) {
        return (Resolved) {
                .slice = true,
                .limits = CPU_LIMITS_DEFAULT,
                .penalty = PENALTY_POLICY_DEFAULT,
                .share_cpus = rs->share_cpus,
        };
}

void rules_resolve_slices(const RuleSet *rs, Resolved *ret) {
        Resolved res = resolved_default(rs);

        for (size_t i = 0; i < rs->n; i++)
                if (rs->rules[i].domain.type == DOMAIN_SLICES) {
                        res.matched = true;
                        take_line(&res, &rs->rules[i]);
                }
        *ret = res;
}

int rules_resolve(const RuleSet *rs, UserIdent *u, Resolved *ret) {
        Resolved res = resolved_default(rs);

        for (size_t i = 0; i < rs->n; i++) {
                const Rule *r = &rs->rules[i];
                int m = rule_matches(r, u);

                if (m < 0)
                        return m;
                if (m == 0)
                        continue;
                res.matched = true;
                take_line(&res, r);
        }
        *ret = res;
        return 0;
}

const char *resolved_share_format(const Resolved *res, char buf[static SHARE_FORMAT_MAX]) {
        const Rule *r = res->source[SETTING_QUOTA_SHARE];
        char share[CPU_FORMAT_MAX];

        if (!r)
                return NULL;
        snprintf(buf, SHARE_FORMAT_MAX, "CPUQuotaShare=%s of %u CPU%s", cpu_quota_format(r->quota_share, share),
                 res->share_cpus, res->share_cpus == 1 ? "" : "s");
        return buf;
}
