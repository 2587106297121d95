/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the libFuzzer targets. Each target defines LLVMFuzzerTestOneInput; under -Dfuzz=true it
 * is linked with libFuzzer, otherwise with fuzz-main.c, which replays the seed corpus once (a
 * regression test in the normal and sanitizer builds). A broken invariant aborts: libFuzzer and
 * the sanitizers report an abort like a crash. */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string: stops at the first NUL, as a file read with fgets or a kernel file would. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);

        if (!s)
                abort();
        memcpy(s, data, size);
        s[size] = '\0';
        return s;
}

#define FUZZ_CHECK(cond)                                                                                             \
        do {                                                                                                         \
                if (!(cond)) {                                                                                       \
                        fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);                 \
                        abort();                                                                                     \
                }                                                                                                    \
        } while (0)
