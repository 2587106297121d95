/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf-parse.h"
#include "macro.h"
#include "parse-util.h"

void conf_skips_done(ConfSkips *s) {
        for (size_t i = 0; i < s->n; i++) {
                free(s->items[i].reason);
                free(s->items[i].token);
        }
        free(s->items);
        *s = (ConfSkips) {};
}

/* Records what of the line is not used and why; returns r (or -ENOMEM). */
static int skip(ConfSkips *skips, int r, const char *token, int setting, const char *fmt, ...) _printf_(5, 6);
static int skip(ConfSkips *skips, int r, const char *token, int setting, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL, *tok = NULL;
        va_list ap;
        int k;

        va_start(ap, fmt);
        k = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (k < 0) {
                msg = NULL; /* undefined after a failure */
                return -ENOMEM;
        }
        if (token && !(tok = strdup(token)))
                return -ENOMEM;
        if (!GREEDY_REALLOC(skips->items, skips->cap, skips->n + 1))
                return -ENOMEM;
        skips->items[skips->n++] = (ConfSkip) { TAKE_PTR(msg), TAKE_PTR(tok), setting };
        return r;
}

/* What a message may quote of a line. `slicectl check FILE` may run as root through a sudo rule and
 * be pointed at /etc/shadow: a message must not be a way to read a file that is not a config. So
 * nothing is quoted of a line that does not start with a valid domain; after one, a token without
 * '=' only when it is (the start of) a setting's name, and of an unknown setting only its name when
 * that looks like one; a value only after a known setting's name. */
#define LETTERS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#define DIGITS "0123456789"

static bool looks_like_name(const char *s) {
        size_t n = strlen(s);

        return n > 0 && n <= 32 && strchr(LETTERS, s[0]) && strspn(s, LETTERS DIGITS "_") == n;
}

static bool is_setting_prefix(const char *s) {
        size_t n = strlen(s);

        for (Setting i = 0; n > 0 && i < _SETTING_MAX; i++)
                if (strncasecmp(setting_to_string(i), s, n) == 0)
                        return true;
        return false;
}

/* Every key a config line may give: the CPU settings, then the penalty keys. */
static const char *keys_allowed(void) {
        return "CPUSlice=, CPUWeight=, CPUQuota=, CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=, PenaltyAbove=, "
               "PenaltyWindow=, PenaltyQuota=, PenaltyTime=, PenaltyForget=, PenaltyExempt=";
}

static bool is_key_prefix(const char *s) {
        size_t n = strlen(s);

        for (PenaltyKey k = 0; n > 0 && k < _PENALTY_KEY_MAX; k++)
                if (strncasecmp(penalty_key_to_string(k), s, n) == 0)
                        return true;
        return is_setting_prefix(s);
}

/* KEY=VALUE of the penalty keys into the rule: 0 if used, <0 if skipped (recorded). */
static int parse_penalty(Rule *rule, PenaltyKey k, const char *token, const char *name, const char *val,
                         ConfSkips *skips) {
        int r;

        if (rule->penalty.mask & (1u << k))
                return skip(skips, -EINVAL, token, -1, "%s= given twice on one line (the first one applies)", name);
        r = penalty_rule_set(&rule->penalty, k, val);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return skip(skips, r, token, -1, "bad %s= value '%s' (allowed: %s)", name, val,
                            penalty_key_allowed(k));
        return 0;
}

/* What a setting takes, for the message that skips a bad value (cpuslice.conf(5), SETTINGS). */
static const char *const allowed_values[_SETTING_MAX] = {
        [SETTING_SLICE] = "yes, no",
        [SETTING_WEIGHT] = "1..10000 or idle",
        [SETTING_QUOTA] = "N% of one CPU with up to two decimals, above 0% and up to 1000000%, or infinity",
        [SETTING_QUOTA_SHARE] = ("N% of all the CPUs users can run on, with up to two decimals, above 0% and "
                                 "up to 100%"),
        [SETTING_PERIOD] = "1ms..1s, a number with unit us, ms or s",
        [SETTING_BURST] = "a time from 0 to 1h such as 50ms, at most the quota per period",
};

/* One SETTING=VALUE into the rule: 0 if used, <0 if skipped (recorded in skips) or -ENOMEM. */
static int parse_assignment(Rule *rule, const char *token, ConfSkips *skips) {
        _cleanup_free_ char *tok = strdup(token);
        const char *val;
        char *eq;
        int s, r;

        if (!tok)
                return -ENOMEM;
        eq = strchr(tok, '=');
        if ((!eq || eq == tok) && is_key_prefix(tok))
                return skip(skips, -EINVAL, token, -1, "expected SETTING=VALUE, got '%s' (settings: %s)", tok,
                            keys_allowed());
        if (!eq || eq == tok)
                return skip(skips, -EINVAL, token, -1, "expected SETTING=VALUE after the domain (settings: %s)",
                            keys_allowed());
        *eq = '\0';
        val = eq + 1;
        s = setting_from_string(tok);
        /* the cgroup that holds every user slice: a CPU setting, never a user's */
        if (rule->domain.type == DOMAIN_SLICES &&
            (s == SETTING_SLICE || (s < 0 && penalty_key_from_string(tok) >= 0)))
                return skip(skips, -EINVAL, token, s >= 0 ? s : -1,
                            "%s= makes no sense on a user.slice line (it sets the cgroup that holds every user "
                            "slice: CPUWeight=, CPUQuota=, CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=)",
                            tok);
        if (s < 0 && penalty_key_from_string(tok) >= 0)
                return parse_penalty(rule, penalty_key_from_string(tok), token, tok, val, skips);
        if (s < 0 && looks_like_name(tok))
                return skip(skips, -EINVAL, token, -1, "unknown setting '%s=' (allowed: %s)", tok, keys_allowed());
        if (s < 0)
                return skip(skips, -EINVAL, token, -1, "unknown setting (allowed: %s)", keys_allowed());
        /* the repeat is the mistake: the first one, already taken, stays */
        if (rule->mask & (1u << s))
                return skip(skips, -EINVAL, token, s, "%s= given twice on one line (the first one applies)", tok);
        if ((s == SETTING_QUOTA && (rule->mask & (1u << SETTING_QUOTA_SHARE))) ||
            (s == SETTING_QUOTA_SHARE && (rule->mask & (1u << SETTING_QUOTA))))
                return skip(skips, -EINVAL, token, s,
                            "CPUQuota= and CPUQuotaShare= on one line: one quota per line (the first one applies)");
        switch (s) {
        case SETTING_SLICE:
                r = parse_boolean(val);
                if (r >= 0)
                        rule->slice = r;
                break;
        case SETTING_WEIGHT:
                r = cpu_weight_parse(val, &rule->weight);
                break;
        case SETTING_QUOTA:
                r = cpu_quota_parse(val, &rule->quota_per_sec);
                break;
        case SETTING_QUOTA_SHARE:
                r = cpu_share_parse(val, &rule->quota_share);
                break;
        case SETTING_PERIOD:
                r = cpu_period_parse(val, &rule->period_usec);
                break;
        case SETTING_BURST:
                r = cpu_burst_parse(val, &rule->burst_usec);
                break;
        default:
                r = -EINVAL; /* setting_from_string() gives none other */
        }
        if (r < 0)
                return skip(skips, r, token, s, "bad %s= value '%s' (allowed: %s)", setting_to_string(s), val,
                            allowed_values[s]);
        rule->mask |= 1u << s;
        return 0;
}

static int parse_tokens(char *line, Rule *rule, ConfSkips *skips) {
        _cleanup_free_ char *used = NULL;
        const char *why = NULL;
        char *save = NULL, *tok, *end;
        bool last_exempt = false;
        int r;

        tok = strtok_r(line, " \t", &save);
        r = domain_parse(tok, &rule->domain, &why);
        if (r == -ENOMEM)
                return r;
        if (r < 0) /* quoted nothing: this may be no config at all */
                return skip(skips, r, NULL, -1, "%s at the start of the line", why);
        /* the line as explain shows it: what was used, never a skipped token */
        used = malloc(strlen(rule->text) + 1);
        if (!used)
                return -ENOMEM;
        end = stpcpy(used, tok);
        while ((tok = strtok_r(NULL, " \t", &save))) {
                /* "PenaltyExempt=make cc1 rsync": the names after the first, up to the next KEY= */
                if (last_exempt && !strchr(tok, '=')) {
                        r = penalty_exempt_add(&rule->penalty, tok);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0)
                                r = skip(skips, r, tok, -1, "bad PenaltyExempt= name (allowed: %s)",
                                         penalty_key_allowed(PENALTY_KEY_EXEMPT));
                        if (r == 0)
                                end = stpcpy(stpcpy(end, " "), tok);
                        continue;
                }
                r = parse_assignment(rule, tok, skips);
                if (r == -ENOMEM)
                        return r;
                /* names follow only a PenaltyExempt= that was taken: after a skipped one they are
                 * skipped too, rather than joined to nothing */
                last_exempt = r == 0 && strncmp(tok, "PenaltyExempt=", strlen("PenaltyExempt=")) == 0;
                if (r == 0)
                        end = stpcpy(stpcpy(end, " "), tok);
        }
        if (rule->mask == 0 && rule->penalty.mask == 0 && skips->n == 0)
                return skip(skips, -EINVAL, NULL, -1, "no settings after the domain (allowed: %s)", keys_allowed());
        if (rule->mask == 0 && rule->penalty.mask == 0)
                return -EINVAL;
        if (skips->n > 0) {
                free(rule->text);
                rule->text = TAKE_PTR(used);
        }
        return 0;
}

int conf_parse_line(const char *line, Rule *ret, ConfSkips *skips) {
        _cleanup_free_ char *copy = NULL;
        Rule rule = {};
        char *hash, *s;
        int r;

        conf_skips_done(skips);
        if (strlen(line) > CONF_LINE_MAX)
                return skip(skips, -E2BIG, NULL, -1, "line longer than %u bytes", CONF_LINE_MAX);
        copy = strdup(line);
        if (!copy)
                return -ENOMEM;
        hash = strchr(copy, '#');
        if (hash)
                *hash = '\0';
        s = strstrip(copy);
        if (!*s)
                return 1;
        rule.text = strdup(s);
        if (!rule.text)
                return -ENOMEM;
        r = parse_tokens(s, &rule, skips);
        if (r < 0) {
                rule_done(&rule);
                return r;
        }
        *ret = rule;
        return 0;
}

static int parse_one(RuleSet *rs, size_t file, const char *name, unsigned lineno, const char *line, size_t len,
                     DiagList *diags) {
        _cleanup_(conf_skips_done) ConfSkips skips = {};
        _cleanup_free_ char *copy = NULL;
        Rule rule;
        int r;

        if (memchr(line, '\0', len))
                return diag_add(diags, DIAG_ERROR, name, lineno, "NUL byte in line; line skipped");
        if (len > CONF_LINE_MAX)
                return diag_add(diags, DIAG_ERROR, name, lineno, "line longer than %u bytes; line skipped",
                                CONF_LINE_MAX);
        copy = strndup(line, len);
        if (!copy)
                return -ENOMEM;
        r = conf_parse_line(copy, &rule, &skips);
        if (r == -ENOMEM)
                return r;
        /* a bad setting costs only itself, as an unknown key in a systemd unit file */
        for (size_t i = 0; i < skips.n; i++) {
                int k = diag_add(diags, DIAG_ERROR, name, lineno, "%s; %s skipped", skips.items[i].reason,
                                 r < 0 ? "line" : "setting");
                if (k < 0) {
                        if (r == 0)
                                rule_done(&rule);
                        return k;
                }
        }
        if (r != 0)
                return 0;
        rule.file = file;
        rule.line = lineno;
        r = ruleset_push(rs, &rule);
        if (r < 0)
                rule_done(&rule);
        return r;
}

int conf_parse_buffer(RuleSet *rs, const char *name, const char *buf, size_t len, DiagList *diags) {
        unsigned lineno = 0;
        int file, r;

        file = ruleset_add_file(rs, name);
        if (file < 0)
                return file;
        for (size_t pos = 0; pos < len;) {
                const char *nl = memchr(buf + pos, '\n', len - pos);
                size_t end = nl ? (size_t) (nl - buf) : len;

                r = parse_one(rs, (size_t) file, name, ++lineno, buf + pos, end - pos, diags);
                if (r < 0)
                        return r;
                pos = end + 1;
        }
        return 0;
}
