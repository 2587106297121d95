/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The names of a user's cgroups, both ways, the same for both backends and for systemd:
 * user-UID.slice, session-ID.scope, and the cgroup path prefix of a process in the slice. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SLICE_NAME_MAX 96
#define SESSION_ID_MAX 64

/* Where a uid stands for the cgroup that holds the user slices ("user.slice"), for the code that
 * sets a slice's values: the cgroupfs backend's slice root, systemd's user.slice. */
#define SLICE_ROOT_UID ((uid_t) -1)

/* "user-1000.slice"; "user.slice" for SLICE_ROOT_UID */
void slice_name(uid_t uid, char buf[static SLICE_NAME_MAX]);
/* "user-1000.slice" → 1000; -EINVAL for anything else, (uid_t) -1 included: it is no user's. */
int slice_name_to_uid(const char *name, uid_t *ret);
/* A session id that can name a scope: [A-Za-z0-9_-]{1,64}. The PAM environment can be
 * user-influenced (pam_env): never a path character. */
bool session_id_valid(const char *id);
/* A scope below a user slice, as list shows and gc removes it: "*.scope", not hidden. */
bool scope_name_valid(const char *name);
/* "session-ID.scope" when the id is valid, else NULL (the caller falls back to pam-PID). */
const char *scope_name(const char *session_id, char buf[static SLICE_NAME_MAX]);
/* Whether a process's cgroup path (from /proc/PID/cgroup) lies in uid's slice: it starts with
 * /SLICES/user-UID.slice/ exactly, SLICES being the cgroup that holds the user slices
 * ("user.slice", "PARENT/user.slice"; "" for the root: /user-UID.slice/). A user can build
 * .../user@1001.service/app.slice/user-1002.slice/ inside their own delegated tree. */
bool slice_path_in_slice(const char *path, const char *slices, uid_t uid);
/* What follows that prefix in path ("session-3.scope/x"), or NULL when path is not below it. */
const char *slice_path_child(const char *path, const char *slices, uid_t uid);
