/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* slicectl: what the verbs share — the parsed options (arg_*), error reporting on stderr, and
 * the helpers every verb uses to load the config and look users up. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "macro.h"
#include "rules.h"
#include "user.h"

extern bool arg_json;
extern bool arg_raw;
extern bool arg_noheadings;
extern const char *arg_output;
extern const char *arg_sort;
extern uint64_t arg_interval_usec;
extern uint64_t arg_delay_usec;
extern unsigned arg_iterations;        /* 0: until q */
extern bool arg_batch;
extern bool arg_runtime;
extern ConfPaths arg_conf;
extern const char *arg_cgroup_root;
extern const char *arg_parent;
extern int arg_layout;                  /* CgroupLayoutKind, -1: detect */
enum { SLICECTL_BACKEND_AUTO, SLICECTL_BACKEND_CGROUPFS, SLICECTL_BACKEND_SYSTEMD };
extern int arg_backend;
extern const char *arg_textfile;        /* metrics --textfile DIR */

/* "slicectl: ..." on stderr; returns r (or -EINVAL when r is 0) so verbs can `return log_error(...)`. */
int log_error(int r, const char *fmt, ...) _printf_(2, 3);
void log_warning(const char *fmt, ...) _printf_(1, 2);

/* The effective config paths (defaults filled in). */
ConfPaths conf_paths(void);
/* conf_load with the module's checks; diagnostics become warnings on stderr. */
int load_config(RuleSet *rs);
/* A user named on the command line: name or uid. A uid NSS does not know is fine when
 * allow_unknown_uid (a slice can outlive its account). */
int resolve_user_arg(const char *arg, bool allow_unknown_uid, UserIdent *ret);
/* For verbs that take one USER|UID: the user, the config, and its resolution for that user. */
int resolve_one_user(const char *verb, int argc, char **argv, UserIdent *u, RuleSet *rs, Resolved *res);
/* A uid from a slice: NSS's answer, or an ident named by the number with no groups. */
int ident_for_uid(uid_t uid, UserIdent *ret);
/* Writing verbs: root, or a plain error saying so. */
int require_root(const char *verb, const char *what);
/* What `check [FILE...]` finds (argv[0] is the verb): the config's diagnostics, and a warning for each
 * user or group NSS does not know. Returns 0 or -errno (logged). */
int check_collect(int argc, char **argv, DiagList *d);
/* One syslog line per change: who (uid, SUDO_USER) did what. */
void log_change(const char *fmt, ...) _printf_(1, 2);

int verb_list(int argc, char **argv);
int verb_top(int argc, char **argv);
int verb_status(int argc, char **argv);
int verb_explain(int argc, char **argv);
int verb_check(int argc, char **argv);
int verb_set(int argc, char **argv);
int verb_unset(int argc, char **argv);
int verb_apply(int argc, char **argv);
int verb_gc(int argc, char **argv);
int verb_metrics(int argc, char **argv);
