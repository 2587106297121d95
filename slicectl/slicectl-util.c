/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What slicectl's verbs share: the parsed options, loading the config as a login would, and
 * naming users on the command line. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "login-policy.h"
#include "parse-util.h"
#include "penalty-cap.h"
#include "slice-target.h"
#include "slicectl-util.h"

bool arg_json;
bool arg_raw;
bool arg_noheadings;
const char *arg_output;
const char *arg_sort;
uint64_t arg_interval_usec = 200 * USEC_PER_MSEC;
uint64_t arg_delay_usec = USEC_PER_SEC;
unsigned arg_iterations;
bool arg_batch;
bool arg_runtime;
bool arg_dry_run;
const char *arg_state_root;
ConfPaths arg_conf;
/* slicectl reads trees it is pointed at with --cgroup-root: a plain directory tree is the admin's own */
SliceTarget arg_target = { .backend = SLICE_BACKEND_AUTO, .layout = -1, .allow_plain_tree = true };

ConfPaths conf_paths(void) {
        ConfPaths p = arg_conf;

        conf_paths_fill_defaults(&p);
        return p;
}

static int load_config_full(RuleSet *rs, bool warnings) {
        _cleanup_(diag_list_done) DiagList d = {};
        char buf[1024];
        int r;

        r = login_config_load(rs, &arg_conf, &d);
        if (r == -ENOMEM)
                return log_error(r, "out of memory");
        for (size_t i = 0; i < d.n; i++)
                if (r < 0 && d.items[i].level == DIAG_ERROR && d.items[i].line == 0)
                        log_error(r, "%s", diag_format(&d.items[i], buf, sizeof buf));
                else if (warnings)
                        log_warning("%s", diag_format(&d.items[i], buf, sizeof buf));
        if (r < 0)
                return log_error(r, "while a config file is refused, pam_cpuslice gives no login a slice; "
                                    "fix it first (see 'slicectl check'), nothing was done");
        slice_target_count_cpus(&arg_target, rs);
        return 0;
}

void penalty_marker_note(const RuleSet *rs) {
        if (geteuid() == 0 && !arg_dry_run && ruleset_has_penalties(rs))
                (void) penalty_marker_set(arg_state_root, true);
}

int load_config(RuleSet *rs) {
        int r = load_config_full(rs, true);

        if (r >= 0)
                penalty_marker_note(rs);
        return r;
}

int check_config_accepted(void) {
        _cleanup_(ruleset_done) RuleSet rs = {};

        return load_config_full(&rs, false);
}

int resolve_user_arg(const char *arg, bool allow_unknown_uid, UserIdent *ret) {
        uint32_t uid;
        int r;

        if (all_digits(arg)) {
                if (safe_atou32(arg, &uid) < 0 || uid == UINT32_MAX)
                        return log_error(-ERANGE, "uid out of range: %s", arg);
                r = allow_unknown_uid ? ident_for_uid((uid_t) uid, ret) : user_lookup_uid((uid_t) uid, ret);
        } else
                r = user_lookup(arg, ret);
        if (r == -ENOENT)
                return log_error(r, "unknown user '%s'", arg);
        if (r < 0)
                return log_error(r, "cannot look up user '%s': %s", arg, strerror(-r));
        return 0;
}

int resolve_one_user(const char *verb, int argc, char **argv, UserIdent *u, RuleSet *rs, Resolved *res) {
        int r;

        if (argc != 2)
                return log_error(-EINVAL, "'%s' takes one USER or UID", verb);
        r = resolve_user_arg(argv[1], true, u);
        if (r < 0)
                return r;
        r = load_config(rs);
        if (r < 0)
                return r;
        r = rules_resolve(rs, u, res);
        if (r < 0)
                return log_error(r, "resolving the config for %s: %s", u->name, strerror(-r));
        return 0;
}

int require_root(const char *verb, const char *what) {
        if (geteuid() == 0)
                return 0;
        return log_error(-EPERM, "'%s' needs root: it %s", verb, what);
}

int backend_open_as_root(SliceBackend *ret, const char *verb, const char *what) {
        int r = require_root(verb, what);

        return r < 0 ? r : backend_open_or_log(ret, &arg_target);
}

int ident_for_uid(uid_t uid, UserIdent *ret) {
        return ident_for_uid_in(NULL, uid, ret);
}

int ident_for_uid_in(const UserTable *t, uid_t uid, UserIdent *ret) {
        static const char *const none[] = { NULL };
        UserIdent u = { .uid = uid, .gid = (gid_t) -1 };
        int r;

        r = user_table_lookup_uid(t, uid, ret);
        if (r != -ENOENT)
                return r;
        if (asprintf(&u.name, "%u", (unsigned) uid) < 0)
                return -ENOMEM;
        r = user_set_groups(&u, none);
        if (r < 0) {
                user_done(&u);
                return r;
        }
        *ret = u;
        return 0;
}

void penalty_cap_or_warn(const UserIdent *u, Resolved *res) {
        char why[128];
        int r = penalty_cap_load_apply(res, arg_state_root, u->uid, why, sizeof why);

        if (r < 0)
                log_warning("%s: the penalty state %s; the configured values apply", u->name,
                            r == -EPERM || r == -EBADMSG ? why : strerror(-r));
}

const char *domain_unknown_kind(const Domain *d) {
        if (d->type == DOMAIN_USER && !getpwnam(d->name))
                return "user";
        if (d->type == DOMAIN_GROUP && !getgrnam(d->name))
                return "group";
        return NULL;
}
