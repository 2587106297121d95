/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reading a whole file: the config files, the drop-in, cgroupfs control files and /proc. */

#include <stddef.h>
#include <sys/types.h>

typedef ssize_t (*ReadFn)(int fd, void *buf, size_t n);

/* Reads fd to its end into a NUL-terminated buffer that grows as needed (small files stay small);
 * EINTR is retried. -EFBIG when there is more than limit bytes. rd NULL: read(2) (the Cgfs
 * handle of cgroup/cgfs.h passes its fault-injectable CgfsOps.read). ret_len may be NULL. */
int read_full_fd(int fd, size_t limit, ReadFn rd, char **ret, size_t *ret_len);
