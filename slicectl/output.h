/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Everything slicectl writes for people: errors on stderr, text lines on stdout, the syslog line
 * of a change. Each whole line is escaped with escape_dup() (lib/basic/escape.c), so a user name,
 * a path, a config line, a process's comm or a D-Bus text can never put a control byte on a
 * terminal or split a line. Tables and JSON escape their cells with the same helper. */

#include <stdio.h>

#include "macro.h"

/* "slicectl: ..." on stderr; returns r (or -EINVAL when r is 0) so verbs can `return log_error(...)`. */
int log_error(int r, const char *fmt, ...) _printf_(2, 3);
void log_warning(const char *fmt, ...) _printf_(1, 2);
/* One line (no '\n' in fmt) on f, escaped, then a newline. */
void print_line(FILE *f, const char *fmt, ...) _printf_(2, 3);
/* One syslog line per change: who (real uid, and the audit login uid) did what. */
void log_change(const char *fmt, ...) _printf_(1, 2);
