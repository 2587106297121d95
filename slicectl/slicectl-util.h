/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* slicectl: what the verbs share — the parsed options (arg_*, set by slicectl.c's parse_argv),
 * and the helpers every verb uses to load the config and look users up. Errors go to stderr
 * through output.h. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"
#include "conf.h"
#include "macro.h"
#include "output.h"
#include "rules.h"
#include "slice-target.h"
#include "user.h"

extern bool arg_json;
extern bool arg_raw;
extern bool arg_noheadings;
extern const char *arg_output;
extern const char *arg_sort;
extern uint64_t arg_interval_usec;
extern uint64_t arg_delay_usec;
extern unsigned arg_iterations; /* 0: until q */
extern bool arg_batch;
extern bool arg_runtime;
extern bool arg_dry_run;           /* penalty run --dry-run */
extern const char *arg_state_root; /* penalties' state and samples below this (tests); NULL: / */
extern ConfPaths arg_conf;
extern SliceTarget arg_target;   /* --backend, --cgroup-root, --parent, --slice-root, --cgroup-layout */
extern const char *arg_textfile; /* metrics --textfile DIR */

/* The effective config paths (defaults filled in). */
ConfPaths conf_paths(void);
/* The config as a login reads it (login_config_load); bad lines become warnings on stderr. A
 * refused file is an error: the module then leaves every login alone, so no verb may act on
 * (or show) the rest as if it applied. */
int load_config(RuleSet *rs);
/* As root, a config with a PenaltyAbove= rule lets the timer's passes start (the marker of
 * penalty-cap.h); not with --dry-run. */
void penalty_marker_note(const RuleSet *rs);
/* The same refusal check alone, for verbs that load the config later (set, unset). */
int check_config_accepted(void);
/* A user named on the command line: name or uid. A uid NSS does not know is fine when
 * allow_unknown_uid (a slice can outlive its account). */
int resolve_user_arg(const char *arg, bool allow_unknown_uid, UserIdent *ret);
/* For verbs that take one USER|UID: the user, the config, and its resolution for that user. */
int resolve_one_user(const char *verb, int argc, char **argv, UserIdent *u, RuleSet *rs, Resolved *res);
/* A uid from a slice: NSS's answer, or an ident named by the number with no groups. */
int ident_for_uid(uid_t uid, UserIdent *ret);
/* The same with the users of t (user_table_load()) first; t NULL: NSS alone. */
int ident_for_uid_in(const UserTable *t, uid_t uid, UserIdent *ret);
/* An active penalty's cap over res, as a login gives it (penalty-cap.h); a refused state is a
 * warning and leaves res as the config gave it. */
void penalty_cap_or_warn(const UserIdent *u, Resolved *res);
/* "user" or "group" when the domain names one NSS does not know (check warns, set too); else NULL. */
const char *domain_unknown_kind(const Domain *d);
/* Writing verbs: root, or a plain error saying so. */
int require_root(const char *verb, const char *what);
/* gc and reset: require_root(), then the backend of --backend & co.; each failure logged as one line. */
int backend_open_as_root(SliceBackend *ret, const char *verb, const char *what);
/* What `check [FILE...]` finds (argv[0] is the verb): the config's diagnostics, and a warning for each
 * user or group NSS does not know. Returns 0 or -errno (logged). */
int check_collect(int argc, char **argv, DiagList *d);
