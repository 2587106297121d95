/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What was decided about each user's penalty, kept across passes and reboots: one small file per
 * uid under /var/lib/cpuslice/penalty (state-file.h: root's, replaced atomically), "key value"
 * lines. A user with nothing to remember (level 0, not capped) has no file. */

#include <stddef.h>
#include <sys/types.h>

#include "penalty.h"

#define PENALTY_STATE_DIR "/var/lib/cpuslice/penalty"

/* root: a prefix of PENALTY_STATE_DIR for the tests (NULL or "" on a real host). A missing file is
 * the empty state. -EPERM (why says what: owner, mode, type) for a file root cannot trust,
 * -EBADMSG for one that does not parse (a key missing, repeated or unknown, a bad number, active
 * without a level, an end before its start): the caller must not take either for "no penalty". */
int penalty_state_load(const char *root, uid_t uid, PenaltyState *ret, char *why, size_t why_len);
/* The same from the directory, opened once for many users: penalty_state_dir_open() returns its
 * fd or -errno, and load_at takes -ENOENT (no directory) for the empty state. */
int penalty_state_dir_open(const char *root);
int penalty_state_load_at(int dfd, uid_t uid, PenaltyState *ret, char *why, size_t why_len);
/* Replaces the file (directories 0755, file 0644 whatever the umask); the empty state removes it. */
int penalty_state_save(const char *root, uid_t uid, const PenaltyState *s);
/* The uids that have a file, in directory order; none when the directory is missing. */
int penalty_state_list(const char *root, uid_t **ret, size_t *ret_n);
/* Removes uid's file whatever it holds: slicectl penalty clear, for a file that will not load. */
int penalty_state_remove(const char *root, uid_t uid);
