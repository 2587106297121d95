/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "macro.h"
#include "read-file.h"

#define READ_CHUNK 8192

int read_full_fd(int fd, size_t limit, ReadFn rd, char **ret, size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 0;

        for (;;) {
                ssize_t k;

                /* room for one byte past the limit (to see it is exceeded) and the NUL */
                if (len + 1 >= cap) {
                        size_t want = cap ? cap * 2 : READ_CHUNK;
                        char *b;

                        if (want > limit + 2)
                                want = limit + 2;
                        if (want <= len + 1)
                                return -EFBIG;
                        b = realloc(buf, want);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                        cap = want;
                }
                k = rd ? rd(fd, buf + len, cap - len - 1) : read(fd, buf + len, cap - len - 1);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        break;
                len += (size_t) k;
        }
        if (len > limit)
                return -EFBIG;
        buf[len] = '\0';
        if (ret_len)
                *ret_len = len;
        *ret = TAKE_PTR(buf);
        return 0;
}
