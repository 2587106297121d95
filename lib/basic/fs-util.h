/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Making files and directories whose mode is ours, not the umask's: the module runs inside su and
 * sudo, which keep their caller's umask, and slicectl inherits whatever its caller set. */

#include <sys/types.h>

/* mkdir, then the mode set on what was made (through an O_NOFOLLOW fd, so a directory swapped
 * for a link in between is not followed). An existing path is left as it is. 0 or -errno. */
int mkdir_mode(const char *path, mode_t mode);

/* name in dfd opened with flags (O_NOFOLLOW, O_CLOEXEC added), made with mode, the umask's part
 * put back, if it was not there; an existing file keeps its mode. The fd or -errno. */
int openat_mode(int dfd, const char *name, int flags, mode_t mode);
