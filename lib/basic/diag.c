/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"

int diag_add(DiagList *l, DiagLevel level, const char *file, unsigned line, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL, *f = NULL;
        va_list ap;
        int r;

        if (!l)
                return 0;
        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        if (file && !(f = strdup(file)))
                return -ENOMEM;
        if (!GREEDY_REALLOC(l->items, l->cap, l->n + 1))
                return -ENOMEM;
        l->items[l->n++] = (Diag) { level, TAKE_PTR(f), line, TAKE_PTR(msg) };
        return 0;
}

size_t diag_count(const DiagList *l, DiagLevel level) {
        size_t c = 0;

        for (size_t i = 0; l && i < l->n; i++)
                c += l->items[i].level == level;
        return c;
}

const char *diag_format(const Diag *d, char *buf, size_t n) {
        if (d->file && d->line > 0)
                snprintf(buf, n, "%s:%u: %s", d->file, d->line, d->msg);
        else if (d->file)
                snprintf(buf, n, "%s: %s", d->file, d->msg);
        else
                snprintf(buf, n, "%s", d->msg);
        return buf;
}

void diag_list_done(DiagList *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].file);
                free(l->items[i].msg);
        }
        free(l->items);
        *l = (DiagList) {};
}
