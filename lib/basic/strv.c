/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"

char **strv_free(char **v) {
        for (char **p = v; p && *p; p++)
                free(*p);
        free(v);
        return NULL;
}

size_t strv_length(char *const *v) {
        size_t n = 0;

        while (v && v[n])
                n++;
        return n;
}

bool strv_contains(char *const *v, const char *s) {
        for (size_t i = 0; v && v[i]; i++)
                if (strcmp(v[i], s) == 0)
                        return true;
        return false;
}

int strv_consume(char ***v, size_t *n, char *value) {
        char **nv;

        if (!value)
                return -ENOMEM;
        nv = *n < SIZE_MAX / sizeof *nv - 2 ? realloc(*v, (*n + 2) * sizeof *nv) : NULL;
        if (!nv) {
                free(value);
                return -ENOMEM;
        }
        nv[(*n)++] = value;
        nv[*n] = NULL;
        *v = nv;
        return 0;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

void strv_sort(char **v, size_t n) {
        if (n > 1)
                qsort(v, n, sizeof *v, cmp_str);
}
