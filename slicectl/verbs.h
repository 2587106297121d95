/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The verbs, dispatched by slicectl.c: argc/argv start at the verb's name; 0 or a positive exit
 * status on success, -errno (already reported on stderr) on failure. */

/* The exit statuses verbs give besides 0 and 1 (failure), all in one place so that none is used
 * twice; slicectl(1), EXIT STATUS. */
enum {
        CHECK_ERRORS = 1,    /* check: the config has errors */
        CHECK_WARNINGS = 2,  /* check: warnings only (an unknown user or group, say) */
        STATUS_NO_SLICE = 3, /* status: no running slice, as systemctl status of an inactive unit */
};

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
int verb_reset(int argc, char **argv);
int verb_penalty(int argc, char **argv);
/* verb_penalty's list and clear (verbs-penalty-list.c), and the lock every pass and clear takes */
int penalty_list(void);
int penalty_clear(int argc, char **argv);
int penalty_lock(void);
