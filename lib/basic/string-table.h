/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Name <-> value tables, as systemd's string-table.h: the names are written once, in a
 * `static const char *const NAME_table[]` indexed by the value, and both lookups are generated
 * from it, so a name added to one direction cannot be forgotten in the other. */

#include <stddef.h>
#include <sys/types.h>

#include "macro.h"

/* The index of key in table (entries may be NULL: holes in an enum), or -EINVAL. */
ssize_t string_table_lookup(const char *const *table, size_t len, const char *key);

/* NAME_to_string(): NULL for a value outside the table. */
#define _DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type, scope)                                                     \
        scope const char *name##_to_string(type i) {                                                                 \
                if ((size_t) i >= ELEMENTSOF(name##_table))                                                          \
                        return NULL;                                                                                 \
                return name##_table[i];                                                                              \
        }

/* NAME_to_string() for names that are printed as they are (messages, slicectl's output): fallback
 * instead of NULL for a value outside the table. */
#define DEFINE_STRING_TABLE_LOOKUP_TO_STRING_FALLBACK(name, type, fallback)                                          \
        const char *name##_to_string(type i) {                                                                       \
                if ((size_t) i >= ELEMENTSOF(name##_table) || !name##_table[i])                                      \
                        return fallback;                                                                             \
                return name##_table[i];                                                                              \
        }

/* NAME_from_string(): the value, or -EINVAL for a name not in the table (or NULL). */
#define _DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, scope)                                                         \
        scope int name##_from_string(const char *s) {                                                                \
                return (int) string_table_lookup(name##_table, ELEMENTSOF(name##_table), s);                         \
        }

#define DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type) _DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type, )
#define DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name) _DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, )

#define DEFINE_STRING_TABLE_LOOKUP(name, type)                                                                       \
        DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type)                                                             \
        DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name)

/* The same, static: for a table that one file alone uses. */
#define DEFINE_PRIVATE_STRING_TABLE_LOOKUP(name, type)                                                               \
        _DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type, static)                                                    \
        _DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, static)
