/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Text from outside (user and group names, paths, config lines, comm, D-Bus texts) made safe to
 * print: the output is printable ASCII only, so it cannot move a terminal's cursor, forge a log
 * line, or break JSON or UTF-8. */

#include <stddef.h>

/* C-style escape of untrusted text for a log line: non-printables as \xNN, '\\' doubled, at
 * most max input bytes shown (then "..."). Always NUL-terminates out. */
const char *escape_for_log(const char *s, size_t max, char *out, size_t n);
/* The same escape of all of s, in a new string (NULL: out of memory). What slicectl prints from
 * outside goes through this, in tables, JSON and syslog alike. */
char *escape_dup(const char *s);
