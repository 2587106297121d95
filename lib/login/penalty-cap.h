/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The cap an active penalty puts on a user's slice, given the same way by a login, by slicectl
 * apply and by the penalty pass, so that none of them lifts it: the stricter of the configured
 * CPUQuota= and the level's PenaltyQuota=. On systemd it is sent even over an admin's own
 * `systemctl set-property` value, which comes back when the penalty ends (backend-systemd.h). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "penalty-state.h"
#include "rules.h"

/* Puts st's cap on res if st is a penalty still running at now (wall clock, µs) under a policy
 * that is on; true if res was capped (res->penalty_capped). */
bool penalty_cap_apply(Resolved *res, const PenaltyState *st, uint64_t now);

/* penalty_cap_apply() with uid's saved state (root: penalty_state_load()'s). 0 with nothing to do;
 * 1 capped; < 0 when the state cannot be trusted or read (why: what is wrong with it), res as the
 * config gave it. */
int penalty_cap_load_apply(Resolved *res, const char *root, uid_t uid, char *why, size_t why_len);

/* Whether any line of the config switches penalties on (PenaltyAbove= not off). */
bool ruleset_has_penalties(const RuleSet *rs);

/* The marker PENALTY_ENABLED_MARKER (below root), on which the timer's unit and the cron.d entry
 * are conditioned, so that a host without penalty rules runs no pass at all: made where the
 * config was found to switch them on (a login of a user it gives them, a root slicectl that read
 * it), removed by a pass that finds no rule and no penalty left. */
#define PENALTY_ENABLED_MARKER "/run/cpuslice/penalty-enabled"
int penalty_marker_set(const char *root, bool enabled);
