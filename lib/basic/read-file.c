/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "macro.h"
#include "read-file.h"

#define READ_CHUNK 8192

int read_full_fd_buf(int fd, size_t limit, ReadFn rd, bool short_read_ends, ReadBuf *b, size_t *ret_len) {
        size_t len = 0;

        for (;;) {
                ssize_t k;

                /* room for one byte past the limit (to see it is exceeded) and the NUL */
                if (len + 1 >= b->cap) {
                        size_t want = b->cap ? b->cap * 2 : READ_CHUNK;
                        char *n;

                        if (want > limit + 2)
                                want = limit + 2;
                        if (want <= len + 1)
                                return -EFBIG;
                        n = realloc(b->buf, want);
                        if (!n)
                                return -ENOMEM;
                        b->buf = n;
                        b->cap = want;
                }
                k = rd ? rd(fd, b->buf + len, b->cap - len - 1) : read(fd, b->buf + len, b->cap - len - 1);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        break;
                len += (size_t) k;
                if (len > limit)
                        return -EFBIG;
                if (short_read_ends && len + 1 < b->cap)
                        break;
        }
        b->buf[len] = '\0';
        if (ret_len)
                *ret_len = len;
        return 0;
}

void read_buf_done(ReadBuf *b) {
        free(b->buf);
        *b = (ReadBuf) {};
}

int read_full_fd(int fd, size_t limit, ReadFn rd, char **ret, size_t *ret_len) {
        _cleanup_(read_buf_done) ReadBuf b = {};
        int r;

        r = read_full_fd_buf(fd, limit, rd, false, &b, ret_len);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(b.buf);
        return 0;
}
