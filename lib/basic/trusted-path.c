/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trusted-path.h"

int trusted_fd_check(int fd, mode_t type, char *why, size_t n) {
        struct stat st;

        if (fstat(fd, &st) < 0) {
                int r = -errno;
                snprintf(why, n, "cannot fstat: %m");
                return r;
        }
        if ((st.st_mode & S_IFMT) != type) {
                snprintf(why, n, "not a %s", type == S_IFDIR ? "directory" : "regular file");
                return -EPERM;
        }
        if (st.st_uid != 0 && st.st_uid != geteuid()) {
                snprintf(why, n, "owned by uid %u, not root", (unsigned) st.st_uid);
                return -EPERM;
        }
        if (st.st_mode & (S_IWGRP | S_IWOTH)) {
                snprintf(why, n, "writable by its group or others (mode %04o)", (unsigned) (st.st_mode & 07777));
                return -EPERM;
        }
        return 0;
}
