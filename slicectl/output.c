/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>

#include "escape.h"
#include "output.h"
#include "parse-util.h"

/* The formatted text, escaped; NULL only when out of memory. */
_printf_(1, 0) static char *format_escaped(const char *fmt, va_list ap) {
        _cleanup_free_ char *raw = NULL;

        if (vasprintf(&raw, fmt, ap) < 0)
                return NULL;
        return escape_dup(raw);
}

_printf_(3, 0) static void put_line(FILE *f, const char *prefix, const char *fmt, va_list ap) {
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

/* The kernel's audit login uid: set once at login (pam_loginuid) and inherited, so neither a sudo
 * caller nor anything in the environment can forge it. -ENODATA when unset (a daemon, a boot
 * script, a kernel without audit). */
static int read_loginuid(uid_t *ret) {
        _cleanup_close_ int fd = open("/proc/self/loginuid", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        char buf[16];
        uint32_t u;
        ssize_t k;

        if (fd < 0)
                return -errno;
        k = read(fd, buf, sizeof buf - 1);
        if (k <= 0)
                return k < 0 ? -errno : -ENODATA;
        buf[k] = '\0';
        if (safe_atou32(strstrip(buf), &u) < 0)
                return -EINVAL;
        if (u == UINT32_MAX)
                return -ENODATA;
        *ret = (uid_t) u;
        return 0;
}

/* Who: the real uid (sudo's target, root) and the login uid of the person behind it; never the
 * environment (SUDO_USER is whatever the caller put there). */
void log_change(const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        uid_t login = (uid_t) -1;
        va_list ap;

        va_start(ap, fmt);
        msg = format_escaped(fmt, ap);
        va_end(ap);
        openlog("slicectl", LOG_PID, LOG_AUTHPRIV);
        if (read_loginuid(&login) >= 0)
                syslog(LOG_NOTICE, "uid %u (login uid %u): %s", (unsigned) getuid(), (unsigned) login, strempty(msg));
        else
                syslog(LOG_NOTICE, "uid %u: %s", (unsigned) getuid(), strempty(msg));
        closelog();
}
