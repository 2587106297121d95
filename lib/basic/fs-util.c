/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"

int mkdir_mode(const char *path, mode_t mode) {
        _cleanup_close_ int fd = -EBADF;

        if (mkdir(path, mode) < 0)
                return errno == EEXIST ? 0 : negative_errno();
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 || fchmod(fd, mode) < 0)
                return negative_errno();
        return 0;
}

int openat_mode(int dfd, const char *name, int flags, mode_t mode) {
        int fd = openat(dfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

        if (fd >= 0) {
                if (fchmod(fd, mode) < 0) {
                        int r = negative_errno();
                        close(fd);
                        return r;
                }
                return fd;
        }
        if (errno != EEXIST)
                return negative_errno();
        fd = openat(dfd, name, (flags & ~(O_CREAT | O_EXCL)) | O_NOFOLLOW | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}
