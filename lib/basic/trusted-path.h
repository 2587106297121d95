/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether a file or directory opened by a privileged program may be trusted: what its owner
 * could change under us is what it lets anyone who owns it decide. Used for the systemd plugin
 * before dlopen() and for slicectl metrics' --textfile directory. */

#include <stddef.h>
#include <sys/types.h>

/* 0 when fd is of type (S_IFREG or S_IFDIR), owned by root or by the effective uid (the same when
 * running as root; a test run as a user owns its build tree), and not writable by its group or
 * others; else -EPERM (-errno if fstat fails) with one line in why: "owned by uid 1000, not root",
 * "writable by its group or others (mode 0775)", "not a regular file". */
int trusted_fd_check(int fd, mode_t type, char *why, size_t n);
