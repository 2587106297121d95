/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Cleanup helpers in the style of systemd's macro.h: resources are released on every path
 * without goto ladders; TAKE_* hands ownership out of a scope. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _public_ __attribute__((visibility("default")))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))

/* Room for need elements in *p, which holds *cap: the capacity at least doubles, as systemd's
 * GREEDY_REALLOC. false, and *p as it was, when out of memory. */
static inline bool greedy_realloc(void **p, size_t *cap, size_t need, size_t size) {
        size_t n = MAX(need, MAX(*cap * 2, (size_t) 8));
        void *q;

        if (need <= *cap)
                return true;
        if (n > SIZE_MAX / size)
                return false;
        q = realloc(*p, n * size);
        if (!q)
                return false;
        *p = q;
        *cap = n;
        return true;
}
#define GREEDY_REALLOC(array, cap, need) greedy_realloc((void **) &(array), &(cap), (need), sizeof((array)[0]))

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

#define TAKE_PTR(p)                                                                                                  \
        ({                                                                                                           \
                __typeof__(p) _tp = (p);                                                                             \
                (p) = NULL;                                                                                          \
                _tp;                                                                                                 \
        })

#define TAKE_FD(fd)                                                                                                  \
        ({                                                                                                           \
                int _tf = (fd);                                                                                      \
                (fd) = -EBADF;                                                                                       \
                _tf;                                                                                                 \
        })

/* errno as a negative return value, never 0 even if a libc call forgot to set it */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

static inline const char *strempty(const char *s) {
        return s ? s : "";
}
