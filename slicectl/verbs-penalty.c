/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* penalty run | list | clear: sustained-use penalties without a daemon. One pass samples every
 * slice whose user has PenaltyAbove=, decides with penalty_decide() and applies the cap through
 * the backend, as a login and `apply` give it (lib/login/penalty-cap.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "penalty-cap.h"
#include "penalty-notify.h"
#include "penalty-sample.h"
#include "penalty-state.h"
#include "format.h"
#include "fs-util.h"
#include "login-policy.h"
#include "rows.h"
#include "slicectl-util.h"
#include "state-file.h"
#include "time-util.h"
#include "verbs.h"

#define PENALTY_LOCK_DIR "/run/cpuslice"

typedef struct Pass {
        SliceBackend backend;
        RuleSet rules;
        SliceList slices;
        uint64_t now;               /* wall clock: the states' times */
        uint64_t boottime;          /* the samples' */
        PenaltySampleStore samples; /* read once, written once */
        int state_dfd;              /* opened once */
        int failed;
} Pass;

static void pass_done(Pass *p) {
        penalty_store_done(&p->samples);
        closep(&p->state_dfd);
        slice_list_done(&p->slices);
        ruleset_done(&p->rules);
        backend_close(&p->backend);
}

/* Passes run one at a time (the timer's and an admin's): held until the process exits. */
int penalty_lock(void) {
        _cleanup_close_ int dfd = -EBADF;
        char d[PATH_MAX];
        int fd;

        snprintf(d, sizeof d, "%s" PENALTY_LOCK_DIR, strempty(arg_state_root));
        dfd = state_dir_open(d, true);
        if (dfd < 0)
                return log_error(dfd, "cannot open %s: %s", d, strerror(-dfd));
        fd = openat_mode(dfd, "penalty.lock", O_RDWR | O_NOCTTY, 0600);
        if (fd < 0)
                return log_error(fd, "cannot lock %s/penalty.lock: %s", d, strerror(-fd));
        if (flock(fd, LOCK_EX) < 0)
                return log_error(-errno, "cannot lock %s/penalty.lock: %m", d);
        return 0; /* the fd stays open: the lock is the pass's */
}

static const SliceInfo *find_slice(const SliceList *l, uid_t uid) {
        for (size_t i = 0; i < l->n; i++)
                if (l->slices[i].uid == uid)
                        return &l->slices[i];
        return NULL;
}

/* Every process of uid's slice (none when it cannot be read). */
static int slice_pids(Pass *p, uid_t uid, pid_t **ret, size_t *ret_n) {
        _cleanup_(slice_info_done) SliceInfo info = {};
        pid_t *pids;
        size_t n = 0;
        CsError e = {};

        *ret = NULL;
        *ret_n = 0;
        if (p->backend.ops->read_one(&p->backend, uid, SLICE_READ_PROCS, &info, &e) < 0)
                return 0;
        for (size_t i = 0; i < info.n_scopes; i++)
                n += info.scopes[i].n_pids;
        pids = calloc(n ? n : 1, sizeof *pids);
        if (!pids)
                return -ENOMEM;
        n = 0;
        for (size_t i = 0; i < info.n_scopes; i++)
                for (size_t j = 0; j < info.scopes[i].n_pids; j++)
                        pids[n++] = info.scopes[i].pids[j];
        *ret = pids;
        *ret_n = n;
        return 0;
}

/* The use over the window, exempt processes' time taken out; the history kept under /run. */
/* The use over the window, exempt processes' time taken out; the history kept under /run. */
static uint64_t sample_use(Pass *p, const Resolved *res, const SliceInfo *info) {
        PenaltySamples *s;
        PenaltyProc *exempt = NULL;
        size_t n_exempt = 0;

        if (info->stat.usage_usec == CGSTAT_NONE)
                return PENALTY_USE_UNKNOWN;
        s = penalty_store_get(&p->samples, info->uid);
        if (!s)
                return PENALTY_USE_UNKNOWN;
        if (res->penalty_exempt) {
                _cleanup_free_ pid_t *pids = NULL;
                size_t n = 0;

                if (slice_pids(p, info->uid, &pids, &n) < 0)
                        return PENALTY_USE_UNKNOWN;
                (void) penalty_exempt_procs(pids, n, res->penalty_exempt, &exempt, &n_exempt);
        }
        if (penalty_samples_add(s, p->boottime, info->stat.usage_usec, exempt, n_exempt, res->penalty.window_usec) <
            0)
                return PENALTY_USE_UNKNOWN;
        return penalty_samples_use(s, res->penalty.window_usec);
}

static void describe(const char *user, uid_t uid, PenaltyAction a, const Resolved *res, const PenaltyState *st,
                     char *buf, size_t n) {
        char cap[CPU_FORMAT_MAX], use[CPU_FORMAT_MAX], above[CPU_FORMAT_MAX], until[FORMAT_MAX], win[FORMAT_MAX];
        const char *w = arg_dry_run ? "would be " : "";

        cpu_quota_format(penalty_level_quota(&res->penalty, st->level), cap);
        cpu_quota_format(st->cause_per_sec, use);
        cpu_quota_format(res->penalty.above_per_sec, above);
        format_walltime(st->until, until);
        format_usec(res->penalty.window_usec, win);
        switch (a) {
        case PENALTY_START:
        case PENALTY_EXTEND:
                snprintf(buf, n,
                         "%s (uid %u): penalty %s%s: level %u, CPUQuota=%s until %s (used %s over %s, above %s)",
                         user, (unsigned) uid, w, a == PENALTY_START ? "started" : "extended", st->level, cap, until,
                         use, win, above);
                break;
        case PENALTY_LIFT:
                snprintf(buf, n,
                         "%s (uid %u): penalty %slifted: back to the configured values (level %u, forgotten "
                         "one by one after PenaltyForget= without an offence)",
                         user, (unsigned) uid, w, st->level);
                break;
        default:
                snprintf(buf, n, "%s (uid %u): penalty level %sdown to %u", user, (unsigned) uid, w, st->level);
        }
}

/* The config's values with the cap of st (if any) over them, to the running slice. */
static int apply_cap(Pass *p, const char *user, uid_t uid, const Resolved *res, const PenaltyState *st,
                     PenaltyAction a) {
        Resolved capped = *res;
        CsError e = {};
        int r;

        penalty_cap_apply(&capped, st, p->now);
        r = p->backend.ops->update(&p->backend, uid, &capped, &e);
        if (r == -ENOENT || r == -ENODEV)
                return 0; /* the slice ended meanwhile: the next login gives the cap */
        if (r < 0)
                return log_error(r, "%s: applying the penalty: %s", user, cs_error_text(&e, r));
        backend_report_apply(&p->backend, user, uid, a == PENALTY_LIFT ? "penalty lifted" : "penalty");
        return 0;
}

/* During a penalty the live quota is not what it should be (a daemon-reload, an admin's write, a
 * PenaltyQuota= or CPUQuota= edited since): given again. */
static bool cap_missing(Pass *p, const Resolved *res, const PenaltyState *st, const SliceInfo *info) {
        Resolved want = *res;
        CpuKernelValues k;

        if (!info || !st->active)
                return false;
        if (!penalty_cap_apply(&want, st, p->now) && p->backend.systemd)
                /* no cap now: the quota is the admin's or the config's, unless ours is still there */
                return backend_revert_pending(&p->backend, info->uid, &want);
        cpu_limits_to_kernel(&want.limits, &k);
        return slice_drift(p->backend.v2, info, &k) & (1u << SETTING_QUOTA);
}

/* The user as the rules need them: with only uid, range and '*' lines the uid alone (an NSS
 * lookup per user was most of a pass over 100 users with glibc's files module). */
static int pass_ident(const Pass *p, uid_t uid, bool named, UserIdent *ret) {
        if (named || p->rules.has_names)
                return ident_for_uid(uid, ret);
        *ret = (UserIdent) { .uid = uid, .gid = (gid_t) -1, .groups_loaded = true };
        return asprintf(&ret->name, "%u", (unsigned) uid) < 0 ? -ENOMEM : 0;
}

/* Messages name the user: the lookup the rules did not need, made now. */
static void name_user(const Pass *p, UserIdent *u) {
        UserIdent named;

        if (!p->rules.has_names && pass_ident(p, u->uid, true, &named) >= 0) {
                named.groups_loaded = u->groups_loaded;
                user_done(u);
                *u = named;
        }
}

static int load_state(const Pass *p, UserIdent *u, PenaltyState *st) {
        char why[128];
        int r = penalty_state_load_at(p->state_dfd, u->uid, st, why, sizeof why);

        if (r < 0)
                name_user(p, u);
        if (r < 0)
                log_error(r,
                          "%s (uid %u): the penalty state " PENALTY_STATE_DIR
                          "/%u is refused (%s); nothing is decided for "
                          "this user until it is fixed or removed ('slicectl penalty clear %u'): a cap on the "
                          "running slice stays, a new login gets the configured values",
                          u->name, (unsigned) u->uid, (unsigned) u->uid,
                          r == -EPERM || r == -EBADMSG ? why : strerror(-r), (unsigned) u->uid);
        return r;
}

/* The policy res gives, or none when the user gets no slice from us or the merge is not usable. */
static void effective_policy(const Pass *p, UserIdent *u, Resolved *res) {
        CsError e = {};

        if (!login_gets_slice(res))
                res->penalty = PENALTY_POLICY_DEFAULT;
        else if (penalty_policy_check(&res->penalty, &e) < 0) {
                name_user(p, u);
                log_warning("%s: %s; no penalties for this user", u->name, cs_error_text(&e, -EINVAL));
                res->penalty = PENALTY_POLICY_DEFAULT;
        }
}

static void notify(Pass *p, const UserIdent *u, PenaltyAction a, const Resolved *res, const PenaltyState *st) {
        _cleanup_free_ pid_t *pids = NULL;
        PenaltyNote n = {
                .user = u,
                .action = a,
                .st = st,
                .cap = penalty_level_quota(&res->penalty, st->level),
                .above = res->penalty.above_per_sec,
                .window = res->penalty.window_usec,
        };

        if (a != PENALTY_LIFT)
                (void) slice_pids(p, u->uid, &pids, &n.n_pids);
        n.pids = pids;
        penalty_notify(&n);
}

static int decide_user(Pass *p, uid_t uid) {
        _cleanup_(user_done) UserIdent u = {};
        const SliceInfo *info = find_slice(&p->slices, uid);
        PenaltyState st, before;
        PenaltyAction a;
        Resolved res;
        uint64_t use = PENALTY_USE_UNKNOWN;
        char line[512];
        int r;

        r = pass_ident(p, uid, false, &u);
        if (r >= 0)
                r = rules_resolve(&p->rules, &u, &res);
        if (r < 0)
                return log_error(r, "uid %u: %s", (unsigned) uid, strerror(-r));
        effective_policy(p, &u, &res);
        r = load_state(p, &u, &st);
        if (r < 0)
                return r;
        if (!penalty_policy_enabled(&res.penalty) || !info) {
                if (st.level == 0 && !st.active)
                        return 0;
        } else
                use = sample_use(p, &res, info);
        before = st;
        a = penalty_decide(&res.penalty, &st, use, p->now);
        if (a != PENALTY_NONE) {
                name_user(p, &u);
                describe(u.name, uid, a, &res, a == PENALTY_LIFT ? &before : &st, line, sizeof line);
                print_line(stdout, "%s", line);
        }
        if (arg_dry_run)
                return 0;
        if (a != PENALTY_NONE) {
                log_change("%s", line);
                r = penalty_state_save(arg_state_root, uid, &st);
                if (r < 0)
                        return log_error(r, "%s: cannot save the penalty state: %s", u.name, strerror(-r));
        }
        /* on systemd a stopped slice keeps the runtime value for its next start: lifted there too */
        if ((info || (p->backend.systemd && a == PENALTY_LIFT)) &&
            (a == PENALTY_START || a == PENALTY_EXTEND || a == PENALTY_LIFT || cap_missing(p, &res, &st, info)))
                r = apply_cap(p, u.name, uid, &res, &st, a);
        if (a == PENALTY_START || a == PENALTY_EXTEND || a == PENALTY_LIFT)
                notify(p, &u, a, &res, a == PENALTY_LIFT ? &before : &st);
        return r;
}

/* The running slices and every user with a penalty state (a capped user who logged out is still
 * let go, and forgiven, on time). */
static int pass_uids(const Pass *p, const uid_t *saved, size_t n_saved, uid_t **ret, size_t *ret_n) {
        uid_t *v = calloc(p->slices.n + n_saved + 1, sizeof *v);
        size_t n = 0;

        if (!v)
                return log_error(-ENOMEM, "out of memory");
        for (size_t i = 0; i < p->slices.n; i++)
                v[n++] = p->slices.slices[i].uid;
        for (size_t i = 0; i < n_saved; i++)
                if (!find_slice(&p->slices, saved[i]))
                        v[n++] = saved[i];
        *ret = v;
        *ret_n = n;
        return 0;
}

static int penalty_run(void) {
        _cleanup_(pass_done) Pass p = {
                .now = realtime_usec(),
                .boottime = boottime_usec(),
                .state_dfd = -EBADF,
        };
        _cleanup_free_ uid_t *uids = NULL, *saved = NULL;
        size_t n = 0, n_saved = 0;
        CsError e = {};
        int r;

        r = require_root("penalty run", "samples every slice and writes the caps");
        if (r >= 0 && !arg_dry_run)
                r = penalty_lock();
        if (r >= 0)
                r = load_config(&p.rules);
        if (r < 0)
                return r;
        r = penalty_state_list(arg_state_root, &saved, &n_saved);
        if (r < 0)
                return log_error(r, "cannot list " PENALTY_STATE_DIR ": %s", strerror(-r));
        if (!ruleset_has_penalties(&p.rules) && n_saved == 0) {
                /* nothing to sample, nobody to let go: the timer stops starting passes */
                if (!arg_dry_run)
                        (void) penalty_marker_set(arg_state_root, false);
                return 0;
        }
        p.state_dfd = penalty_state_dir_open(arg_state_root);
        r = penalty_store_load(arg_state_root, &p.samples);
        if (r < 0)
                return log_error(r, "cannot read " PENALTY_SAMPLE_DIR "/" PENALTY_SAMPLE_FILE ": %s", strerror(-r));
        r = backend_open_or_log(&p.backend, &arg_target);
        if (r < 0)
                return r;
        r = p.backend.ops->read_all(&p.backend, SLICE_READ_USAGE | SLICE_READ_QUOTA, &p.slices, &e);
        if (r < 0)
                return log_error(r, "reading the user slices: %s", cs_error_text(&e, r));
        r = pass_uids(&p, saved, n_saved, &uids, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (decide_user(&p, uids[i]) < 0)
                        p.failed++;
        if (!arg_dry_run) {
                /* the users sampled now; those whose slice ended or whose rule went are dropped */
                r = penalty_store_save(arg_state_root, &p.samples, true);
                if (r < 0)
                        log_warning("cannot keep the usage samples: %s", strerror(-r));
        }
        return p.failed ? -EIO : 0;
}

int verb_penalty(int argc, char **argv) {
        if (argc >= 2 && strcmp(argv[1], "run") == 0 && argc == 2)
                return penalty_run();
        if (argc >= 2 && strcmp(argv[1], "list") == 0 && argc == 2)
                return penalty_list();
        if (argc >= 2 && strcmp(argv[1], "clear") == 0)
                return penalty_clear(argc - 1, argv + 1);
        return log_error(-EINVAL, "'penalty' takes run, list or clear USER|UID");
}
