/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small files a privileged program keeps about each user in a directory of its own (what the
 * module gave systemd, under /run; penalties, under /var/lib): the directories made with their
 * mode whatever the umask, a file read only when it is root's (or the reader's own) and nobody
 * else may write it, and replaced atomically, so a crash leaves the old content or the new. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "atomic-file.h"

/* Opens the directory path (absolute, no symlink as its last component); with create, makes it
 * and any missing parent, mode 0755. -ENOENT when missing and !create. Returns the fd. */
int state_dir_open(const char *path, bool create);

/* The content of name in dfd (at most max bytes, NUL-terminated) in *ret, or *ret = NULL and 0
 * when there is no such file. -EPERM with why (if not NULL: "owned by uid 1000, not root", "a
 * symbolic link", ...) when it is not a regular file that root or the reader owns and only its
 * owner may write;
 * -EFBIG over max. */
int state_file_read(int dfd, const char *name, size_t max, char **ret, char *why, size_t why_len);

/* Replaces name with what fill writes (mode 0644), atomically; flags: ATOMIC_FILE_VOLATILE for
 * a file under /run. */
int state_file_write(int dfd, const char *name, AtomicFileFlags flags, AtomicFill fill, void *userdata);

/* Removes name; 0 when it was not there. */
int state_file_remove(int dfd, const char *name);

/* name in the directory path: replaced with what fill writes (the directory made if missing), or,
 * with fill NULL, removed (0 when it or the directory is not there). */
int state_file_save(const char *path, const char *name, AtomicFileFlags flags, AtomicFill fill, void *userdata);

/* The keys of the entries in the directory path that name_to_uid accepts (returns >= 0 for), in
 * directory order, malloc()ed into *ret; none when the directory is missing. Entries of any type:
 * state_file_read() refuses one that is not a regular file, and says why, rather than a list
 * passing it over in silence. */
int state_dir_list_uids(const char *path, int (*name_to_uid)(const char *name, uid_t *ret), uid_t **ret,
                        size_t *ret_n);
