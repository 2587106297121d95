/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The config-only verbs: explain and check. Neither needs a cgroup, nor a session. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-value.h"
#include "slicectl.h"

static const char *setting_value(const Resolved *res, Setting s, char buf[static CPU_FORMAT_MAX]) {
        switch (s) {
        case SETTING_SLICE:
                return res->slice ? "yes" : "no";
        case SETTING_WEIGHT:
                return cpu_weight_format(res->limits.weight, buf);
        case SETTING_QUOTA:
                return cpu_quota_format(res->limits.quota_per_sec, buf);
        case SETTING_PERIOD:
                return cpu_period_format(res->limits.period_usec, buf);
        default:
                return "?";
        }
}

static const char *spec_name(const Rule *r) {
        return specificity_to_string(domain_specificity(&r->domain));
}

/* Why `loser` did not decide: the winner is the last of the most specific lines. */
static void print_loser(const RuleSet *rs, const Rule *loser, const Rule *winner) {
        printf("  overridden  %s:%u: %s\n", rule_file(rs, loser), loser->line, loser->text);
        if (domain_specificity(&loser->domain) < domain_specificity(&winner->domain))
                printf("              (%s is less specific than %s)\n", spec_name(loser), spec_name(winner));
        else
                printf("              (as specific (%s), and read before %s:%u: the later line wins)\n",
                       spec_name(loser), rule_file(rs, winner), winner->line);
}

int verb_explain(int argc, char **argv) {
        _cleanup_(ruleset_free) RuleSet rs = {};
        _cleanup_(user_done) UserIdent u = {};
        Resolved res;
        int r;

        r = resolve_one_user("explain", argc, argv, &u, &rs, &res);
        if (r < 0)
                return r;

        printf("%s (uid %u)\n", u.name, (unsigned) u.uid);
        if (u.uid == 0)
                printf("root gets a slice only through lines that name it (root or 0).\n");
        for (Setting s = 0; s < _SETTING_MAX; s++) {
                const Rule *w = res.source[s];
                char buf[CPU_FORMAT_MAX];

                printf("\n%s=%s\n", setting_to_string(s), setting_value(&res, s, buf));
                if (!w) {
                        printf("  default     no line for this user sets it\n");
                        continue;
                }
                printf("  wins        %s:%u: %s\n", rule_file(&rs, w), w->line, w->text);
                printf("              (%s: the most specific domain that matches; the last such line read)\n",
                       spec_name(w));
                for (size_t i = 0; i < rs.n; i++) {
                        const Rule *l = &rs.rules[i];

                        if (l == w || !(l->mask & (1u << s)))
                                continue;
                        r = rule_matches(l, &u);
                        if (r < 0)
                                return log_error(r, "looking up groups of %s: %s", u.name, strerror(-r));
                        if (r > 0)
                                print_loser(&rs, l, w);
                }
                if (s == SETTING_PERIOD && res.limits.quota_per_sec != CPU_QUOTA_INFINITY) {
                        CpuKernelValues k;

                        cpu_limits_to_kernel(&res.limits, &k);
                        if (k.period_adjusted)
                                printf("  note        the kernel gets %s: a period must hold at least 1ms of quota "
                                       "and be 1ms..1s\n",
                                       cpu_period_format(k.period_usec, buf));
                }
        }
        if (!res.slice)
                printf("\nCPUSlice=no: this user gets no slice; the other settings are not applied.\n");
        return 0;
}

/* Names that NSS does not know: the module would never match them (maybe a typo). */
static void check_names(const RuleSet *rs, DiagList *d) {
        for (size_t i = 0; i < rs->n; i++) {
                const Rule *r = &rs->rules[i];

                if (r->domain.type == DOMAIN_USER && !getpwnam(r->domain.name))
                        diag_add(d, DIAG_WARNING, rule_file(rs, r), r->line, "unknown user '%s'", r->domain.name);
                else if (r->domain.type == DOMAIN_GROUP && !getgrnam(r->domain.name))
                        diag_add(d, DIAG_WARNING, rule_file(rs, r), r->line, "unknown group '%s'", r->domain.name);
        }
}

int check_collect(int argc, char **argv, DiagList *d) {
        _cleanup_(ruleset_free) RuleSet rs = {};
        int r;

        if (argc > 1) {
                /* files handed to us (a git checkout): ownership and mode only warn */
                for (int i = 1; i < argc; i++) {
                        r = conf_load_file(&rs, argv[i], CONF_PERMS_WARN, d);
                        if (r == -ENOENT)
                                diag_add(d, DIAG_ERROR, argv[i], 0, "no such file");
                        if (r == -ENOMEM)
                                return log_error(r, "out of memory");
                }
        } else {
                r = conf_load(&rs, &arg_conf, CONF_PERMS_ENFORCE, d);
                if (r == -ENOMEM)
                        return log_error(r, "out of memory");
        }
        check_names(&rs, d);
        return 0;
}

int verb_check(int argc, char **argv) {
        _cleanup_(diag_list_free) DiagList d = {};
        size_t errors;
        int r;

        r = check_collect(argc, argv, &d);
        if (r < 0)
                return r;
        for (size_t i = 0; i < d.n; i++) {
                const Diag *x = &d.items[i];
                const char *level = x->level == DIAG_ERROR ? "error" : "warning";

                if (x->file && x->line)
                        fprintf(stderr, "%s:%u: %s: %s\n", x->file, x->line, level, x->msg);
                else if (x->file)
                        fprintf(stderr, "%s: %s: %s\n", x->file, level, x->msg);
                else
                        fprintf(stderr, "%s: %s\n", level, x->msg);
        }
        errors = diag_count(&d, DIAG_ERROR);
        return errors > 0 ? 1 : 0;
}
