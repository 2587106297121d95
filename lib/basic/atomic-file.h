/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Replacing a file so that a reader sees the old content or the new, never half of it: write a
 * temporary file in the same directory, fsync it, give it its mode, rename it over the target and
 * fsync the directory (so the rename itself survives a crash). */

#include <stdio.h>
#include <sys/types.h>

/* Writes the content: returns 0 or -errno. */
typedef int (*AtomicFill)(FILE *f, void *userdata);

/* Replaces name (a plain file name, no '/') in the directory dirfd with what fill writes, with the
 * given mode. The temporary file is ".NAME.XXXXXX" beside it (a dot file: node_exporter's
 * textfile collector and most readers skip it), opened O_EXCL|O_NOFOLLOW|O_CLOEXEC, and removed
 * again on any failure. Returns 0 or -errno; the error of fill is passed through. */
int atomic_file_replace(int dirfd, const char *name, mode_t mode, AtomicFill fill, void *userdata);
