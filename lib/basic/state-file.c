/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"
#include "read-file.h"
#include "state-file.h"
#include "trusted-path.h"

/* Each missing component from the top, so that /var/lib/cpuslice/penalty comes with its parent. */
static int mkdir_parents_mode(const char *path, mode_t mode) {
        char p[PATH_MAX];
        size_t n = strlen(path);
        int r;

        if (n >= sizeof p || path[0] != '/')
                return -EINVAL;
        memcpy(p, path, n + 1);
        for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
                if (s)
                        *s = '\0';
                r = mkdir_mode(p, mode);
                if (r < 0)
                        return r;
                if (!s)
                        return 0;
                *s = '/';
        }
}

static int open_dir(const char *path) {
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

        return fd < 0 ? negative_errno() : fd;
}

/* The directory exists on every pass but the first: open it before trying to make it. */
int state_dir_open(const char *path, bool create) {
        int fd = open_dir(path), r;

        if (fd != -ENOENT || !create)
                return fd;
        r = mkdir_parents_mode(path, 0755);
        if (r < 0)
                return r;
        return open_dir(path);
}

int state_file_read(int dfd, const char *name, size_t max, char **ret, char *why, size_t why_len) {
        _cleanup_close_ int fd = -EBADF;
        char why_buf[128];
        int r;

        *ret = NULL;
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0 && errno == ELOOP) {
                snprintf(why ? why : why_buf, why ? why_len : sizeof why_buf, "a symbolic link");
                return -EPERM;
        }
        if (fd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        /* root's (the module's and slicectl's), or the reader's own; a user reading root's file
         * (slicectl status as that user) trusts root anyway */
        r = trusted_fd_check(fd, S_IFREG, why ? why : why_buf, why ? why_len : sizeof why_buf);
        if (r < 0)
                return r;
        return read_full_fd(fd, max, NULL, ret, NULL);
}

int state_file_write(int dfd, const char *name, AtomicFileFlags flags, AtomicFill fill, void *userdata) {
        return atomic_file_replace_full(dfd, name, 0644, flags, NULL, fill, userdata);
}

int state_file_remove(int dfd, const char *name) {
        return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? negative_errno() : 0;
}

int state_file_save(const char *path, const char *name, AtomicFileFlags flags, AtomicFill fill, void *userdata) {
        _cleanup_close_ int dfd = state_dir_open(path, fill != NULL);

        if (dfd < 0)
                return !fill && dfd == -ENOENT ? 0 : dfd;
        return fill ? state_file_write(dfd, name, flags, fill, userdata) : state_file_remove(dfd, name);
}

int state_dir_list_uids(const char *path, int (*name_to_uid)(const char *name, uid_t *ret), uid_t **ret,
                        size_t *ret_n) {
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ uid_t *uids = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        int fd;

        *ret = NULL;
        *ret_n = 0;
        fd = state_dir_open(path, false);
        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return fd;
        d = fdopendir(fd);
        if (!d) {
                int r = negative_errno();
                close(fd);
                return r;
        }
        while ((de = readdir(d))) {
                uid_t uid;

                /* not only regular files: one that is not is refused, and said, by its reader
                         * instead of being passed over (a penalty no pass sees is never lifted) */
                if (name_to_uid(de->d_name, &uid) < 0)
                        continue;
                if (!GREEDY_REALLOC(uids, cap, n + 1))
                        return -ENOMEM;
                uids[n++] = uid;
        }
        *ret = TAKE_PTR(uids);
        *ret_n = n;
        return 0;
}
