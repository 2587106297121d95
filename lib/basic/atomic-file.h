/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Replacing a file so that a reader sees the old content or the new, never half of it: write a
 * temporary file in the same directory, fsync it, give it its mode, rename it over the target and
 * fsync the directory (so the rename itself survives a crash). The one way this tree replaces a
 * file: the metrics textfile, the applied record and slicectl's config drop-in. */

#include <stdio.h>
#include <sys/types.h>

/* Writes the content: returns 0 or -errno. */
typedef int (*AtomicFill)(FILE *f, void *userdata);

/* The calls that put the content on disk, which a test replaces to fail one of them midway. */
typedef struct AtomicFileOps {
        ssize_t (*write)(int fd, const void *buf, size_t n);
        int (*fsync)(int fd);
        int (*renameat)(int olddirfd, const char *oldname, int newdirfd, const char *newname);
} AtomicFileOps;

typedef enum AtomicFileFlags {
        /* root's, group root, when we are root: a file root must trust (a config the module
         * reads) is not left to a setgid caller's group */
        ATOMIC_FILE_OWNER_ROOT = 1 << 0,
        /* a file under /run, which a reboot empties anyway: no fsync of the file or of the
         * directory (the rename is as atomic for readers; a pass over 100 users spent most of
         * its time in them) */
        ATOMIC_FILE_VOLATILE = 1 << 1,
} AtomicFileFlags;

/* Replaces name (a plain file name, no '/') in the directory dirfd with what fill writes, with the
 * given mode whatever the umask. fill writes to memory first, so a fill that fails creates
 * nothing; the temporary file is ".NAME.XXXXXX" beside it (a dot file: node_exporter's textfile
 * collector, the config loader and most readers skip it), opened O_EXCL|O_NOFOLLOW|O_CLOEXEC, and
 * removed again on any failure. ops NULL: the real system calls. Returns 0 or -errno; the error of
 * fill is passed through. */
int atomic_file_replace_full(int dirfd, const char *name, mode_t mode, AtomicFileFlags flags,
                             const AtomicFileOps *ops, AtomicFill fill, void *userdata);

static inline int atomic_file_replace(int dirfd, const char *name, mode_t mode, AtomicFill fill, void *userdata) {
        return atomic_file_replace_full(dirfd, name, mode, 0, NULL, fill, userdata);
}
