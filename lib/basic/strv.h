/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* NULL-terminated arrays of strings ("strv"), as systemd's and sd-bus's: the terminator lets an
 * array from sd_bus_get_property_strv() and one built here be freed by the same call. */

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/* Frees every string and the array; returns NULL, for `v = strv_free(v)`. */
char **strv_free(char **v);
static inline void strv_freep(char ***v) {
        strv_free(*v);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

size_t strv_length(char *const *v);
bool strv_contains(char *const *v, const char *s);
/* Appends value, taking it over, to *v which holds *n strings (kept NULL-terminated); on -ENOMEM
 * value is freed, so a caller can hand over a string it just made without a check of its own. */
int strv_consume(char ***v, size_t *n, char *value);
/* Sorts in C-locale (strcmp) order. */
void strv_sort(char **v, size_t n);
