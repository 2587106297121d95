/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* penalty list and penalty clear: what the passes decided, and an admin's way to undo it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "json-out.h"
#include "login-policy.h"
#include "penalty-notify.h"
#include "penalty-sample.h"
#include "penalty-state.h"
#include "slicectl-util.h"
#include "time-util.h"
#include "verbs.h"

typedef struct PenaltyRow {
        UserIdent user;
        PenaltyState st;
        uint64_t cap; /* the level's cap under today's config; CPU_QUOTA_INFINITY: none */
        const char *error;
        char why[128];
} PenaltyRow;

static void row_done(PenaltyRow *r) {
        user_done(&r->user);
}

static void load_row(const RuleSet *rs, uid_t uid, PenaltyRow *row) {
        Resolved res;
        int r;

        row->cap = CPU_QUOTA_INFINITY;
        if (ident_for_uid(uid, &row->user) < 0) {
                row->error = "out of memory";
                return;
        }
        r = penalty_state_load(arg_state_root, uid, &row->st, row->why, sizeof row->why);
        if (r < 0) {
                row->error = r == -EPERM || r == -EBADMSG ? row->why : strerror(-r);
                return;
        }
        if (row->st.level > 0 && rules_resolve(rs, &row->user, &res) >= 0)
                row->cap = penalty_level_quota(&res.penalty, row->st.level);
}

static void print_text(const PenaltyRow *rows, size_t n) {
        printf("%-16s %10s %5s %-8s %7s %-19s %-19s %7s\n", "USER", "UID", "LEVEL", "STATE", "CAP", "SINCE", "UNTIL",
               "CAUSE");
        for (size_t i = 0; i < n; i++) {
                const PenaltyRow *r = &rows[i];
                char cap[CPU_FORMAT_MAX], cause[CPU_FORMAT_MAX], since[FORMAT_MAX], until[FORMAT_MAX];

                if (r->error) {
                        print_line(stdout, "%-16s %10u     - refused: %s", r->user.name, (unsigned) r->user.uid,
                                   r->error);
                        continue;
                }
                print_line(stdout, "%-16s %10u %5u %-8s %7s %-19s %-19s %7s", r->user.name, (unsigned) r->user.uid,
                           r->st.level, r->st.active ? "capped" : "free", cpu_quota_format(r->cap, cap),
                           format_walltime(r->st.since, since), format_walltime(r->st.until, until),
                           r->st.cause_per_sec ? cpu_quota_format(r->st.cause_per_sec, cause) : "-");
        }
}

static void print_json(const PenaltyRow *rows, size_t n) {
        JsonOut j = { .f = stdout };

        json_open(&j, NULL, '{');
        json_open(&j, "penalties", '[');
        for (size_t i = 0; i < n; i++) {
                const PenaltyRow *r = &rows[i];
                char cap[CPU_FORMAT_MAX], cause[CPU_FORMAT_MAX];

                json_open(&j, NULL, '{');
                json_string(&j, "user", r->user.name);
                json_u64(&j, "uid", r->user.uid);
                if (r->error)
                        json_string(&j, "error", r->error);
                else {
                        json_u64(&j, "level", r->st.level);
                        json_bool(&j, "active", r->st.active);
                        json_string(&j, "cap", r->cap == CPU_QUOTA_INFINITY ? NULL : cpu_quota_format(r->cap, cap));
                        json_u64(&j, "since", r->st.since / USEC_PER_SEC);
                        json_u64(&j, "until", r->st.until / USEC_PER_SEC);
                        json_string(&j, "cause", cpu_quota_format(r->st.cause_per_sec, cause));
                }
                json_close(&j, '{');
        }
        json_close(&j, '[');
        json_close(&j, '{');
}

int penalty_list(void) {
        _cleanup_(ruleset_done) RuleSet rs = {};
        _cleanup_free_ uid_t *uids = NULL;
        PenaltyRow *rows;
        size_t n = 0;
        int r;

        r = load_config(&rs);
        if (r < 0)
                return r;
        r = penalty_state_list(arg_state_root, &uids, &n);
        if (r < 0)
                return log_error(r, "cannot list " PENALTY_STATE_DIR ": %s", strerror(-r));
        rows = calloc(n ? n : 1, sizeof *rows);
        if (!rows)
                return log_error(-ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
                load_row(&rs, uids[i], &rows[i]);
        if (arg_json)
                print_json(rows, n);
        else
                print_text(rows, n);
        for (size_t i = 0; i < n; i++)
                row_done(&rows[i]);
        free(rows);
        return 0;
}

/* The configured values back on a running slice. */
static int reapply(const UserIdent *u) {
        _cleanup_(ruleset_done) RuleSet rs = {};
        _cleanup_(backend_closep) SliceBackend b = {};
        Resolved res;
        CsError e = {};
        int r;

        r = load_config(&rs);
        if (r >= 0)
                r = backend_open_or_log(&b, &arg_target);
        if (r < 0)
                return r;
        r = rules_resolve(&rs, (UserIdent *) u, &res);
        if (r < 0)
                return log_error(r, "resolving the config for %s: %s", u->name, strerror(-r));
        if (!login_gets_slice(&res))
                return 0;
        r = b.ops->update(&b, u->uid, &res, &e);
        if (r == -ENOENT || r == -ENODEV)
                return 0; /* no running slice: the next login gets the configured values */
        if (r < 0)
                return log_error(r, "%s: applying the configured values: %s", u->name, cs_error_text(&e, r));
        backend_report_apply(&b, u->name, u->uid, "penalty cleared");
        return 0;
}

/* So that the use before the clear does not penalize again at the next pass (under the lock). */
static void forget_samples(uid_t uid) {
        _cleanup_(penalty_store_done) PenaltySampleStore st = {};

        if (penalty_store_load(arg_state_root, &st) < 0)
                return;
        penalty_store_forget(&st, uid);
        (void) penalty_store_save(arg_state_root, &st, false);
}

int penalty_clear(int argc, char **argv) {
        _cleanup_(user_done) UserIdent u = {};
        PenaltyState st;
        char why[128];
        int r, load;

        if (argc != 2)
                return log_error(-EINVAL, "'penalty clear' takes one USER or UID");
        r = require_root("penalty clear", "lifts a penalty");
        if (r >= 0)
                r = resolve_user_arg(argv[1], true, &u);
        if (r >= 0)
                r = penalty_lock();
        if (r < 0)
                return r;
        load = penalty_state_load(arg_state_root, u.uid, &st, why, sizeof why);
        if (load == 0 && st.level == 0 && !st.active) {
                print_line(stdout, "%s (uid %u): no penalty", u.name, (unsigned) u.uid);
                return 0;
        }
        r = penalty_state_remove(arg_state_root, u.uid);
        if (r < 0)
                return log_error(r, "%s: cannot remove the penalty state: %s", u.name, strerror(-r));
        forget_samples(u.uid);
        if (load < 0)
                print_line(stdout, "%s (uid %u): penalty state removed (it was refused: %s)", u.name,
                           (unsigned) u.uid, load == -EPERM || load == -EBADMSG ? why : strerror(-load));
        else
                print_line(stdout, "%s (uid %u): penalty cleared (was level %u%s)", u.name, (unsigned) u.uid,
                           st.level, st.active ? ", capped" : "");
        log_change("cleared the penalty of %s (uid %u)", u.name, (unsigned) u.uid);
        r = reapply(&u);
        if (load == 0 && st.active)
                penalty_notify_user(&u, "an administrator lifted your CPU penalty");
        return r;
}
