/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <string.h>

#include "error.h"

int cs_error(CsError *e, int r, const char *fmt, ...) {
        va_list ap;

        if (!e)
                return r;
        e->code = r;
        errno = r < 0 ? -r : r; /* so %m names the error being returned */
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        return r;
}

const char *cs_error_text(const CsError *e, int r) {
        return e && e->code ? e->msg : strerror(-r);
}

int cs_error_prefix(CsError *e, const char *fmt, ...) {
        char prefix[256], old[sizeof e->msg];
        va_list ap;

        if (!e)
                return 0;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof prefix, fmt, ap);
        va_end(ap);
        memcpy(old, e->msg, sizeof old);
        /* truncation is fine: the message is for humans */
        if (snprintf(e->msg, sizeof e->msg, "%.255s%.255s", prefix, old) < 0)
                e->msg[0] = '\0';
        return e->code;
}
