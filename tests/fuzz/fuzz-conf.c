/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whole config files through conf_parse_buffer, then resolution for a few users. The input is
 * split at "\n--8<--\n" into up to 8 files: the main file and its drop-ins, read in that order as
 * conf_load reads them. */
#include <stdbool.h>

#include "diag.h"
#include "conf.h"
#include "conf-parse.h"
#include "fuzz-check.h"
#include "user.h"

#define SEP "\n--8<--\n"
#define FILES_MAX 8

static void resolve_for(const RuleSet *rs, const char *name, uid_t uid, const char *const *groups) {
        UserIdent u = { .uid = uid };
        Resolved res;

        u.name = strdup(name);
        FUZZ_CHECK(u.name);
        FUZZ_CHECK(user_set_groups(&u, groups) == 0);
        FUZZ_CHECK(rules_resolve(rs, &u, &res) == 0);
        check_kernel_values(&res.limits);
        for (Setting s = 0; s < _SETTING_MAX; s++) {
                const Rule *r = res.source[s];
                if (!r)
                        continue;
                FUZZ_CHECK(r >= rs->rules && r < rs->rules + rs->n && (r->mask & (1u << s)));
                FUZZ_CHECK(rule_matches(r, &u) == 1);
                /* root gets a slice only from a line naming it */
                if (uid == 0)
                        FUZZ_CHECK(domain_names_user(&r->domain, name, uid));
        }
        for (PenaltyKey k = 0; k < _PENALTY_KEY_MAX; k++) {
                const Rule *r = res.penalty_source[k];
                if (!r)
                        continue;
                FUZZ_CHECK(r >= rs->rules && r < rs->rules + rs->n && (r->penalty.mask & (1u << k)));
                FUZZ_CHECK(rule_matches(r, &u) == 1);
                if (uid == 0)
                        FUZZ_CHECK(domain_names_user(&r->domain, name, uid));
        }
        /* the quota comes from one line, in one spelling; a share is at most all the CPUs */
        FUZZ_CHECK(!res.source[SETTING_QUOTA] || !res.source[SETTING_QUOTA_SHARE]);
        FUZZ_CHECK(!res.source[SETTING_QUOTA_SHARE] ||
                   res.limits.quota_per_sec ==
                           cpu_quota_of_share(res.source[SETTING_QUOTA_SHARE]->quota_share, res.share_cpus));
        FUZZ_CHECK(!res.source[SETTING_QUOTA_SHARE] || res.share_cpus > 0);
        /* a line matched: it gave a CPU setting or a Penalty*= key */
        if (uid == 0 && res.matched) {
                bool any = false;
                for (Setting s = 0; s < _SETTING_MAX; s++)
                        any = any || res.source[s];
                for (PenaltyKey k = 0; k < _PENALTY_KEY_MAX; k++)
                        any = any || res.penalty_source[k];
                FUZZ_CHECK(any);
        }
        user_done(&u);
}

static bool ends_with(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);

        return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool has_rule(const RuleSet *rs, const char *file, unsigned line) {
        for (size_t i = 0; i < rs->n; i++)
                if (rs->rules[i].line == line && strcmp(rule_file(rs, &rs->rules[i]), file) == 0)
                        return true;
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char *const staff[] = { "alice", "staff", "wheel", NULL }, *const none[] = { NULL },
                                 *const odd[] = { "12345", "a b", "..", NULL };
        const char *p = (const char *) data, *end = p + size;
        RuleSet rs = {};
        DiagList diags = {};
        unsigned files = 0, lines = 0;
        size_t lines_skipped = 0;

        while (p <= end && files < FILES_MAX) {
                const char *sep = memmem(p, (size_t) (end - p), SEP, strlen(SEP));
                size_t len = sep ? (size_t) (sep - p) : (size_t) (end - p);
                char name[64];

                snprintf(name, sizeof name, files == 0 ? "cpuslice.conf" : "cpuslice.d/%02u.conf", files);
                FUZZ_CHECK(conf_parse_buffer(&rs, name, p, len, &diags) == 0);
                for (size_t i = 0; i < len; i++)
                        lines += p[i] == '\n';
                lines++;
                files++;
                if (!sep)
                        break;
                p = sep + strlen(SEP);
        }
        FUZZ_CHECK(rs.n_files == files);
        for (size_t i = 0; i < rs.n; i++) {
                check_rule(&rs.rules[i]);
                FUZZ_CHECK(rs.rules[i].file < rs.n_files && rs.rules[i].line >= 1);
                /* one rule per line */
                FUZZ_CHECK(i == 0 || rs.rules[i].file != rs.rules[i - 1].file ||
                           rs.rules[i].line > rs.rules[i - 1].line);
        }
        /* a bad setting costs only itself: its line still gives a rule; a line skipped gives none */
        for (size_t i = 0; i < diags.n; i++) {
                const Diag *x = &diags.items[i], *prev = i > 0 ? &diags.items[i - 1] : NULL;
                bool whole, part;
                char buf[1024];

                FUZZ_CHECK(x->msg && x->file && x->line >= 1);
                diag_format(x, buf, sizeof buf);
                whole = ends_with(x->msg, "; line skipped");
                part = ends_with(x->msg, "; setting skipped");
                FUZZ_CHECK(whole != part);
                FUZZ_CHECK(has_rule(&rs, x->file, x->line) == part);
                if (whole && !(prev && prev->line == x->line && strcmp(prev->file, x->file) == 0))
                        lines_skipped++;
        }
        FUZZ_CHECK(rs.n + lines_skipped <= lines);
        resolve_for(&rs, "alice", 1001, staff);
        resolve_for(&rs, "root", 0, none);
        resolve_for(&rs, "12345", 3000, odd);
        resolve_for(&rs, "nobody", 4294967294u, none);
        ruleset_done(&rs);
        diag_list_done(&diags);
        return 0;
}
