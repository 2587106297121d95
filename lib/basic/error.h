/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* lib/ never logs: a failing call returns -errno and, when the caller passes a CsError,
 * a one-line description the PAM module or slicectl can print as it sees fit. */

#include "macro.h"

typedef struct CsError {
        int code; /* negative errno, 0 if unset */
        char msg[512];
} CsError;

/* Records the message (printf-style, %m refers to -r) and returns r, so callers can write
 * `return cs_error(e, -errno, "mkdir %s: %m", name);`. e may be NULL. */
int cs_error(CsError *e, int r, const char *fmt, ...) _printf_(3, 4);

/* The text to show for a failure r: the recorded message, or strerror(-r) when none was made. */
const char *cs_error_text(const CsError *e, int r);

/* Prepends context ("user-1000.slice: ") to an existing message. Returns e->code. */
int cs_error_prefix(CsError *e, const char *fmt, ...) _printf_(2, 3);
