/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The names of a user's cgroups, the same for both backends and for systemd: user-UID.slice. */

#include <sys/types.h>

#define SLICE_NAME_MAX 96

/* "user-1000.slice" */
void slice_name(uid_t uid, char buf[static SLICE_NAME_MAX]);
