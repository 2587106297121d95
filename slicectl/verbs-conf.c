/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The config-only verbs: explain and check. Neither needs a cgroup, nor a session. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu-value.h"
#include "format.h"
#include "time-util.h"
#include "login-policy.h"
#include "penalty-cap.h"
#include "slicectl-util.h"
#include "backend.h"
#include "verbs.h"
#include "json-out.h"
#include "table.h"

static const char *setting_value(const Resolved *res, Setting s, char buf[static CPU_FORMAT_MAX]) {
        switch (s) {
        case SETTING_SLICE:
                return login_gets_slice(res) ? "yes" : "no";
        case SETTING_WEIGHT:
                return cpu_weight_format(res->limits.weight, buf);
        case SETTING_QUOTA:
                return cpu_quota_format(res->limits.quota_per_sec, buf);
        case SETTING_PERIOD:
                return cpu_period_format(res->limits.period_usec, buf);
        case SETTING_BURST:
                return cpu_period_format(res->limits.burst_usec, buf);
        default:
                return "?";
        }
}

/* A time as cpuslice.conf spells it: "30min", "1h", "90s", "250ms". */
static const char *config_time(uint64_t usec, char buf[static FORMAT_MAX]) {
        static const struct {
                uint64_t unit;
                const char *name;
        } units[] = {
                { USEC_PER_HOUR, "h" }, { USEC_PER_MINUTE, "min" }, { USEC_PER_SEC, "s" }, { USEC_PER_MSEC, "ms" }
        };

        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (usec >= units[i].unit && usec % units[i].unit == 0) {
                        snprintf(buf, FORMAT_MAX, "%" PRIu64 "%s", usec / units[i].unit, units[i].name);
                        return buf;
                }
        snprintf(buf, FORMAT_MAX, "%" PRIu64 "us", usec);
        return buf;
}

/* A Penalty*= key's resolved value, as cpuslice.conf spells it. */
static const char *penalty_value(const Resolved *res, PenaltyKey k, char *buf, size_t n) {
        const PenaltyPolicy *p = &res->penalty;
        char v[CPU_FORMAT_MAX], t[FORMAT_MAX];
        size_t len = 0;

        buf[0] = '\0';
        switch (k) {
        case PENALTY_KEY_ABOVE:
                return penalty_policy_enabled(p) ? cpu_quota_format(p->above_per_sec, buf) : "off";
        case PENALTY_KEY_WINDOW:
                return config_time(p->window_usec, buf);
        case PENALTY_KEY_FORGET:
                return config_time(p->forget_usec, buf);
        case PENALTY_KEY_QUOTA:
                for (size_t i = 0; i < p->n_quota && len < n; i++)
                        len += (size_t) snprintf(buf + len, n - len, "%s%s", i ? "," : "",
                                                 cpu_quota_format(p->quota_per_sec[i], v));
                return buf[0] ? buf : "-";
        case PENALTY_KEY_TIME:
                for (size_t i = 0; i < p->n_time && len < n; i++)
                        len += (size_t) snprintf(buf + len, n - len, "%s%s", i ? "," : "",
                                                 config_time(p->time_usec[i], t));
                return buf[0] ? buf : "-";
        default:
                for (size_t i = 0; res->penalty_exempt && res->penalty_exempt[i] && len < n; i++)
                        len += (size_t) snprintf(buf + len, n - len, "%s%s", i ? " " : "", res->penalty_exempt[i]);
                return buf[0] ? buf : "-";
        }
}

/* A user.slice line ranks as a user's line only to compete with its own kind: named for itself. */
static const char *spec_name(const Rule *r) {
        if (r->domain.type == DOMAIN_SLICES)
                return "user.slice";
        return specificity_to_string(domain_specificity(&r->domain));
}

/* Why `loser` did not decide: the winner is the last of the most specific lines. */
static void print_loser(const RuleSet *rs, const Rule *loser, const Rule *winner) {
        print_line(stdout, "  overridden  %s:%u: %s", rule_file(rs, loser), loser->line, loser->text);
        if (domain_specificity(&loser->domain) < domain_specificity(&winner->domain))
                print_line(stdout, "              (%s is less specific than %s)", spec_name(loser),
                           spec_name(winner));
        else
                print_line(stdout, "              (as specific (%s), and read before %s:%u: the later line wins)",
                           spec_name(loser), rule_file(rs, winner), winner->line);
}

static void json_rule(JsonOut *j, const RuleSet *rs, const Rule *r) {
        json_string(j, "file", rule_file(rs, r));
        json_u64(j, "line", r->line);
        json_string(j, "rule", r->text);
        json_string(j, "domain", spec_name(r));
}

/* A setting's object in explain --json, left open on its "overridden" array: the value, for a
 * CPUQuotaShare= the share and the CPUs it was resolved on, and the winning line. */
static void json_setting_open(JsonOut *j, const RuleSet *rs, const Resolved *res, Setting s) {
        const Rule *w = resolved_holder(res, s);
        char buf[CPU_FORMAT_MAX], share[SHARE_FORMAT_MAX];

        json_open(j, NULL, '{');
        json_string(j, "setting", setting_to_string(s));
        json_string(j, "value", setting_value(res, s, buf));
        if (s == SETTING_QUOTA) {
                json_string(j, "share",
                            resolved_share_format(res, share) ? cpu_quota_format(w->quota_share, buf) : NULL);
                json_u64(j, "cpus", res->share_cpus);
        }
        if (w) {
                json_open(j, "source", '{');
                json_rule(j, rs, w);
                json_close(j, '{');
        } else
                json_null(j, "source");
        json_open(j, "overridden", '[');
}

/* explain --json: the same answer as the text, one object */
static int explain_json(const RuleSet *rs, UserIdent *u, const Resolved *res) {
        JsonOut j = { .f = stdout };

        json_open(&j, NULL, '{');
        json_string(&j, "user", u->name);
        json_u64(&j, "uid", u->uid);
        json_bool(&j, "gets_slice", login_gets_slice(res));
        json_string(&j, "reason", login_skip_reason(res));
        json_open(&j, "settings", '[');
        for (Setting s = 0; s < _SETTING_MAX; s++) {
                const Rule *w = resolved_holder(res, s);

                if (setting_is_spelling(s))
                        continue;
                json_setting_open(&j, rs, res, s);
                for (size_t i = 0; w && i < rs->n; i++) {
                        const Rule *l = &rs->rules[i];
                        int r;

                        if (l == w || !(l->mask & setting_rivals(s)))
                                continue;
                        r = rule_matches(l, u);
                        if (r < 0)
                                return log_error(r, "looking up groups of %s: %s", u->name, strerror(-r));
                        if (r > 0) {
                                json_open(&j, NULL, '{');
                                json_rule(&j, rs, l);
                                json_close(&j, '{');
                        }
                }
                json_close(&j, '[');
                json_close(&j, '{');
        }
        json_close(&j, '[');
        json_open(&j, "penalty", '[');
        for (PenaltyKey k = 0; k < _PENALTY_KEY_MAX; k++) {
                char buf[512];

                if (!res->penalty_source[k])
                        continue;
                json_open(&j, NULL, '{');
                json_string(&j, "setting", penalty_key_to_string(k));
                json_string(&j, "value", penalty_value(res, k, buf, sizeof buf));
                json_open(&j, "source", '{');
                json_rule(&j, rs, res->penalty_source[k]);
                json_close(&j, '{');
                json_close(&j, '{');
        }
        json_close(&j, '[');
        json_close(&j, '{');
        return 0;
}

/* The Penalty*= keys some line gives this user, each with its line and the lines it overrode. */
static int explain_penalty(const RuleSet *rs, UserIdent *u, const Resolved *res) {
        for (PenaltyKey k = 0; k < _PENALTY_KEY_MAX; k++) {
                const Rule *w = res->penalty_source[k];
                char buf[512];
                int r;

                if (!w)
                        continue;
                putchar('\n');
                print_line(stdout, "%s=%s", penalty_key_to_string(k), penalty_value(res, k, buf, sizeof buf));
                print_line(stdout, "  wins        %s:%u: %s", rule_file(rs, w), w->line, w->text);
                for (size_t i = 0; i < rs->n; i++) {
                        const Rule *l = &rs->rules[i];

                        if (l == w || !(l->penalty.mask & (1u << k)))
                                continue;
                        r = rule_matches(l, u);
                        if (r < 0)
                                return log_error(r, "looking up groups of %s: %s", u->name, strerror(-r));
                        if (r > 0)
                                print_loser(rs, l, w);
                }
        }
        return 0;
}

/* "\nCPUQuota=1600% (CPUQuotaShare=25% of 64 CPUs)": a setting's section in explain */
static void print_setting_heading(const Resolved *res, Setting s) {
        char buf[CPU_FORMAT_MAX], share[SHARE_FORMAT_MAX];

        putchar('\n');
        if (s == SETTING_QUOTA && resolved_share_format(res, share))
                print_line(stdout, "%s=%s (%s)", setting_to_string(s), setting_value(res, s, buf), share);
        else
                print_line(stdout, "%s=%s", setting_to_string(s), setting_value(res, s, buf));
}

/* A user.slice line other than the winner that gives setting s (or another spelling of it). */
static bool slices_rival(const Rule *l, const Rule *w, Setting s) {
        return l != w && l->domain.type == DOMAIN_SLICES && (l->mask & setting_rivals(s));
}

/* explain --json user.slice: the shape of explain --json USER, "slice" where a user's object has
 * "user"; no CPUSlice= (a user.slice line refuses it) and no penalty (same). */
static void explain_slices_json(const RuleSet *rs, const Resolved *res) {
        JsonOut j = { .f = stdout };

        json_open(&j, NULL, '{');
        json_string(&j, "slice", "user.slice");
        json_open(&j, "settings", '[');
        for (Setting s = SETTING_WEIGHT; s < _SETTING_MAX; s++) {
                const Rule *w = resolved_holder(res, s);

                if (setting_is_spelling(s))
                        continue;
                json_setting_open(&j, rs, res, s);
                for (size_t i = 0; w && i < rs->n; i++)
                        if (slices_rival(&rs->rules[i], w, s)) {
                                json_open(&j, NULL, '{');
                                json_rule(&j, rs, &rs->rules[i]);
                                json_close(&j, '{');
                        }
                json_close(&j, '[');
                json_close(&j, '{');
        }
        json_close(&j, '[');
        json_close(&j, '{');
}

/* explain user.slice: the user.slice lines, the last one per setting winning. */
static int explain_slices(void) {
        _cleanup_(ruleset_done) RuleSet rs = {};
        Resolved res;
        int r;

        r = load_config(&rs);
        if (r < 0)
                return r;
        rules_resolve_slices(&rs, &res);
        if (arg_json) {
                explain_slices_json(&rs, &res);
                return 0;
        }
        printf("user.slice (the cgroup that holds every user slice)\n");
        for (Setting s = SETTING_WEIGHT; s < _SETTING_MAX; s++) {
                const Rule *w = resolved_holder(&res, s);

                if (setting_is_spelling(s))
                        continue;
                print_setting_heading(&res, s);
                if (!w) {
                        printf("  default     no user.slice line sets it\n");
                        continue;
                }
                print_line(stdout, "  wins        %s:%u: %s", rule_file(&rs, w), w->line, w->text);
                for (size_t i = 0; i < rs.n; i++) {
                        const Rule *l = &rs.rules[i];

                        if (slices_rival(l, w, s))
                                print_loser(&rs, l, w);
                }
        }
        return 0;
}

int verb_explain(int argc, char **argv) {
        _cleanup_(ruleset_done) RuleSet rs = {};
        _cleanup_(user_done) UserIdent u = {};
        bool systemd = slice_target_uses_systemd(&arg_target);
        char held[CPU_FORMAT_MAX], path[PATH_MAX];
        Resolved res;
        int r;

        if (argc == 2 && strcmp(argv[1], "user.slice") == 0)
                return explain_slices();
        r = resolve_one_user("explain", argc, argv, &u, &rs, &res);
        if (r < 0)
                return r;
        if (arg_json)
                return explain_json(&rs, &u, &res);

        print_line(stdout, "%s (uid %u)", u.name, (unsigned) u.uid);
        if (u.uid == 0)
                printf("root gets a slice only through lines that name it (root or 0).\n");
        for (Setting s = 0; s < _SETTING_MAX; s++) {
                const Rule *w = resolved_holder(&res, s);
                char buf[CPU_FORMAT_MAX];

                if (setting_is_spelling(s))
                        continue;
                print_setting_heading(&res, s);
                if (!w && s == SETTING_SLICE && !res.matched) {
                        printf("  no line     no config line matches this user\n");
                        continue;
                }
                if (!w) {
                        printf("  default     no line for this user sets it%s\n",
                               systemd && s != SETTING_SLICE
                                       ? "; systemd's own value stays (unit files, user-.slice.d/, set-property)"
                                       : "");
                        continue;
                }
                print_line(stdout, "  wins        %s:%u: %s", rule_file(&rs, w), w->line, w->text);
                if (systemd &&
                    backend_admin_value(&arg_target, u.uid, s, held, path, sizeof path) == ADMIN_VALUE_PERSISTENT)
                        print_line(stdout,
                                   "  held        systemctl set-property keeps %s=%s (%s): this line is not "
                                   "applied while that file exists",
                                   setting_to_string(s), held, path);
                printf("              (%s: the most specific domain that matches; the last such line read)\n",
                       spec_name(w));
                for (size_t i = 0; i < rs.n; i++) {
                        const Rule *l = &rs.rules[i];

                        if (l == w || !(l->mask & setting_rivals(s)))
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
        r = explain_penalty(&rs, &u, &res);
        if (r < 0)
                return r;
        if (!login_gets_slice(&res))
                printf("\n%s: a login of this user gets no slice; the other settings are not applied.\n",
                       login_skip_reason(&res));
        return 0;
}

/* Names that NSS does not know: the module would never match them (maybe a typo). */
static void check_names(const RuleSet *rs, DiagList *d) {
        for (size_t i = 0; i < rs->n; i++) {
                const Rule *r = &rs->rules[i];
                const char *unknown = domain_unknown_kind(&r->domain);

                if (unknown)
                        diag_add(d, DIAG_WARNING, rule_file(rs, r), r->line, "unknown %s '%s'", unknown,
                                 r->domain.name);
        }
}

/* Whether key k reaches the users of r from r itself, a line for the same domain or a '*' line. */
static bool penalty_key_near(const RuleSet *rs, const Rule *r, PenaltyKey k) {
        for (size_t i = 0; i < rs->n; i++) {
                const Rule *o = &rs->rules[i];

                if ((o->penalty.mask & (1u << k)) &&
                    (o == r || o->domain.type == DOMAIN_ALL || domain_equal(&o->domain, &r->domain)))
                        return true;
        }
        return false;
}

/* A PenaltyAbove= whose caps or times come from nowhere near it: the passes would skip its users
 * with a warning each time; said once here instead. */
static void check_penalties(const RuleSet *rs, DiagList *d) {
        for (size_t i = 0; i < rs->n; i++) {
                const Rule *r = &rs->rules[i];

                if (!(r->penalty.mask & (1u << PENALTY_KEY_ABOVE)) || !penalty_policy_enabled(&r->penalty.policy))
                        continue;
                for (PenaltyKey k = PENALTY_KEY_QUOTA; k <= PENALTY_KEY_TIME; k++)
                        if (!penalty_key_near(rs, r, k))
                                diag_add(d, DIAG_WARNING, rule_file(rs, r), r->line,
                                         "PenaltyAbove= without %s= on this line, a line for the same domain or a "
                                         "'*' line: its users get no penalty unless another line that matches "
                                         "them gives it",
                                         penalty_key_to_string(k));
        }
}

/* A CPUBurst= on a line whose own CPUQuota= (and period) leave less per period: the kernel would
 * refuse it, so a login leaves it out. A quota from another line is the resolution's to judge. */
static void check_bursts(const RuleSet *rs, DiagList *d) {
        for (size_t i = 0; i < rs->n; i++) {
                const Rule *r = &rs->rules[i];
                CpuLimits l = CPU_LIMITS_DEFAULT;
                CpuKernelValues k;
                char b[CPU_FORMAT_MAX], q[CPU_FORMAT_MAX];

                if (!(r->mask & (1u << SETTING_BURST)) || !(r->mask & (1u << SETTING_QUOTA)))
                        continue;
                l.quota_per_sec = r->quota_per_sec;
                l.burst_usec = r->burst_usec;
                if (r->mask & (1u << SETTING_PERIOD))
                        l.period_usec = r->period_usec;
                cpu_limits_to_kernel(&l, &k);
                if (k.burst_dropped)
                        diag_add(d, DIAG_ERROR, rule_file(rs, r), r->line,
                                 "CPUBurst=%s is more than this line's quota per period (%s): the kernel refuses "
                                 "it, a login leaves it out",
                                 cpu_period_format(r->burst_usec, b),
                                 k.quota_usec == CPU_QUOTA_INFINITY ? "none" : cpu_period_format(k.quota_usec, q));
        }
}

int check_collect(int argc, char **argv, DiagList *d) {
        _cleanup_(ruleset_done) RuleSet rs = {};
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
                /* the installed config switches penalties on: the timer's passes may start */
                if (r >= 0)
                        penalty_marker_note(&rs);
        }
        check_names(&rs, d);
        check_penalties(&rs, d);
        check_bursts(&rs, d);
        return 0;
}

/* 0 clean, 1 errors, 2 warnings only: a script can tell a suspect config (a misspelled group is
 * only a warning) from a clean one. */
static int check_status(const DiagList *d) {
        return diag_count(d, DIAG_ERROR) > 0 ? CHECK_ERRORS : diag_count(d, DIAG_WARNING) > 0 ? CHECK_WARNINGS : 0;
}

int verb_check(int argc, char **argv) {
        _cleanup_(diag_list_done) DiagList d = {};
        int r;

        r = check_collect(argc, argv, &d);
        if (r < 0)
                return r;
        if (arg_json) {
                r = diags_print_json(&d);
                return r < 0 ? r : check_status(&d);
        }
        for (size_t i = 0; i < d.n; i++) {
                const Diag *x = &d.items[i];
                const char *level = x->level == DIAG_ERROR ? "error" : "warning";

                if (x->file && x->line)
                        print_line(stderr, "%s:%u: %s: %s", x->file, x->line, level, x->msg);
                else if (x->file)
                        print_line(stderr, "%s: %s: %s", x->file, level, x->msg);
                else
                        print_line(stderr, "%s: %s", level, x->msg);
        }
        return check_status(&d);
}
