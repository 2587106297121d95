/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>

#include "output.h"
#include "parse-util.h"

/* The formatted text, escaped; NULL only when out of memory. */
static char *format_escaped(const char *fmt, va_list ap) {
        _cleanup_free_ char *raw = NULL;

        if (vasprintf(&raw, fmt, ap) < 0)
                return NULL;
        return escape_dup(raw);
}

static void put_line(FILE *f, const char *prefix, const char *fmt, va_list ap) {
        _cleanup_free_ char *text = format_escaped(fmt, ap);

        fprintf(f, "%s%s\n", prefix, text ? text : "(out of memory)");
}

int log_error(int r, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        put_line(stderr, "slicectl: ", fmt, ap);
        va_end(ap);
        return r < 0 ? r : -EINVAL;
}

void log_warning(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        put_line(stderr, "slicectl: warning: ", fmt, ap);
        va_end(ap);
}

void print_line(FILE *f, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        put_line(f, "", fmt, ap);
        va_end(ap);
}

void log_change(const char *fmt, ...) {
        const char *sudo = getenv("SUDO_USER");
        _cleanup_free_ char *msg = NULL, *sudo_esc = NULL;
        va_list ap;

        va_start(ap, fmt);
        msg = format_escaped(fmt, ap);
        va_end(ap);
        if (sudo)
                sudo_esc = escape_dup(sudo);
        openlog("slicectl", LOG_PID, LOG_AUTHPRIV);
        if (sudo_esc)
                syslog(LOG_NOTICE, "uid %u (sudo from %s): %s", (unsigned) getuid(), sudo_esc, strempty(msg));
        else
                syslog(LOG_NOTICE, "uid %u: %s", (unsigned) getuid(), strempty(msg));
        closelog();
}
