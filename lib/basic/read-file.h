/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reading a whole file: the config files, the drop-in, cgroupfs control files and /proc. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef ssize_t (*ReadFn)(int fd, void *buf, size_t n);

/* Reads fd to its end into a NUL-terminated buffer that grows as needed (small files stay small);
 * EINTR is retried. -EFBIG when there is more than limit bytes. rd NULL: read(2) (the Cgfs
 * handle of cgroup/cgfs.h passes its fault-injectable CgfsOps.read). ret_len may be NULL. */
int read_full_fd(int fd, size_t limit, ReadFn rd, char **ret, size_t *ret_len);

/* A buffer read_full_fd_buf() reuses from one file to the next: no allocation per file once it
 * is as large as the largest of them. */
typedef struct ReadBuf {
        char *buf; /* NUL-terminated text of the last read that succeeded */
        size_t cap;
} ReadBuf;

/* read_full_fd() into b (grown as needed, kept for the next call); the text is valid until the
 * next call. On failure b->buf is still b's (freed by read_buf_done()) but its text is not.
 * short_read_ends: a read that did not fill the room it had is the end, without the read that
 * returns 0; only for files made whole by each read that has room for them (a regular file, a
 * single-value kernfs/seq_file control file; not a pipe, nor a file the kernel gives a page at a
 * time such as cgroup.procs). */
int read_full_fd_buf(int fd, size_t limit, ReadFn rd, bool short_read_ends, ReadBuf *b, size_t *ret_len);
void read_buf_done(ReadBuf *b);
