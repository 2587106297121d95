/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "string-table.h"

ssize_t string_table_lookup(const char *const *table, size_t len, const char *key) {
        if (!key)
                return -EINVAL;
        for (size_t i = 0; i < len; i++)
                if (table[i] && strcmp(table[i], key) == 0)
                        return (ssize_t) i;
        return -EINVAL;
}
