/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Telling people about a penalty decision: the user on each terminal they are logged in on, as
 * write(1) finds them (logind's sessions, and utmp where it is kept), only terminals the user owns
 * and never blocking; and the admin's hook program PENALTY_HOOK, if root may trust it, so that
 * mail or chat is one script away:
 *
 *   penalty-hook start|extend|lift USER UID LEVEL CAP UNTIL      (UNTIL: seconds since the epoch)
 *
 * with the user's busiest processes on stdin ("PID COMM CPU-SECONDS" lines, comm escaped), a
 * clean environment, and 10 s to finish. */

#include <stddef.h>
#include <sys/types.h>

#include "penalty.h"
#include "user.h"

#define PENALTY_HOOK "/etc/cpuslice/penalty-hook"

typedef struct PenaltyNote {
        const UserIdent *user;
        PenaltyAction action; /* PENALTY_START, _EXTEND or _LIFT */
        const PenaltyState *st;
        uint64_t cap, above, window; /* the policy's, for the words */
        const pid_t *pids;           /* the slice's processes, for the hook */
        size_t n_pids;
} PenaltyNote;

/* A line on each of the user's terminals. */
void penalty_notify_user(const UserIdent *u, const char *text);
/* penalty_notify_user() with the decision in words, then the hook. */
void penalty_notify(const PenaltyNote *n);
