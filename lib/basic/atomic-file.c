/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic-file.h"
#include "macro.h"

#define TMP_SUFFIX_LEN 6

static void random_suffix(char out[static TMP_SUFFIX_LEN + 1]) {
        static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        unsigned char rnd[TMP_SUFFIX_LEN];

        if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t) sizeof rnd) {
                /* no entropy yet (early boot): O_EXCL still makes a clash harmless */
                struct timespec ts;
                uint64_t x;

                clock_gettime(CLOCK_MONOTONIC, &ts);
                x = (uint64_t) ts.tv_nsec * 2654435761u ^ (uint64_t) getpid() << 20 ^ (uint64_t) ts.tv_sec;
                for (size_t i = 0; i < sizeof rnd; i++, x >>= 8)
                        rnd[i] = (unsigned char) x;
        }
        for (size_t i = 0; i < TMP_SUFFIX_LEN; i++)
                out[i] = chars[rnd[i] % (sizeof chars - 1)];
        out[TMP_SUFFIX_LEN] = '\0';
}

static int open_temp(int dirfd, const char *name, char *tmp, size_t n) {
        for (int attempt = 0; attempt < 16; attempt++) {
                char suffix[TMP_SUFFIX_LEN + 1];
                int fd;

                random_suffix(suffix);
                if ((size_t) snprintf(tmp, n, ".%s.%s", name, suffix) >= n)
                        return -ENAMETOOLONG;
                fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
                if (fd >= 0 || errno != EEXIST)
                        return fd >= 0 ? fd : negative_errno();
        }
        return -EEXIST;
}

static const AtomicFileOps default_ops = {
        .write = write,
        .fsync = fsync,
        .renameat = renameat,
};

static int write_all(const AtomicFileOps *ops, int fd, const char *buf, size_t n) {
        while (n > 0) {
                ssize_t k = ops->write(fd, buf, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        return -EIO;
                buf += k;
                n -= (size_t) k;
        }
        return 0;
}

/* The whole content in memory: a fill that fails leaves nothing on disk to clean up. */
static int fill_buffer(AtomicFill fill, void *userdata, char **ret, size_t *ret_n) {
        _cleanup_free_ char *buf = NULL;
        size_t n = 0;
        FILE *f;
        int r, k;

        f = open_memstream(&buf, &n);
        if (!f)
                return -ENOMEM;
        r = fill(f, userdata);
        k = fclose(f);
        if (r < 0)
                return r;
        if (k != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        *ret_n = n;
        return 0;
}

static int write_and_sync(int fd, mode_t mode, AtomicFileFlags flags, const AtomicFileOps *ops, const char *buf,
                          size_t n) {
        int r;

        if (fchmod(fd, mode) < 0)
                return negative_errno();
        if ((flags & ATOMIC_FILE_OWNER_ROOT) && geteuid() == 0 && fchown(fd, 0, 0) < 0)
                return negative_errno();
        r = write_all(ops, fd, buf, n);
        if (r < 0 || (flags & ATOMIC_FILE_VOLATILE))
                return r;
        return ops->fsync(fd) < 0 ? negative_errno() : 0;
}

int atomic_file_replace_full(int dirfd, const char *name, mode_t mode, AtomicFileFlags flags,
                             const AtomicFileOps *ops, AtomicFill fill, void *userdata) {
        _cleanup_free_ char *buf = NULL;
        char tmp[NAME_MAX + 1];
        size_t n;
        int fd, r;

        if (!*name || strchr(name, '/') || strlen(name) > NAME_MAX - TMP_SUFFIX_LEN - 2)
                return -EINVAL;
        if (!ops)
                ops = &default_ops;
        r = fill_buffer(fill, userdata, &buf, &n);
        if (r < 0)
                return r;
        fd = open_temp(dirfd, name, tmp, sizeof tmp);
        if (fd < 0)
                return fd;
        r = write_and_sync(fd, mode, flags, ops, buf, n);
        if (close(fd) < 0 && r >= 0)
                r = negative_errno();
        if (r >= 0 && ops->renameat(dirfd, tmp, dirfd, name) < 0)
                r = negative_errno();
        if (r < 0) {
                (void) unlinkat(dirfd, tmp, 0);
                return r;
        }
        /* the rename is durable once the directory is */
        return !(flags & ATOMIC_FILE_VOLATILE) && fsync(dirfd) < 0 ? negative_errno() : 0;
}
