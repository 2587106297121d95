/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* cpuslice.conf(5), one line at a time: a line -> a Rule of rules.h, a buffer -> the rules of a
 * RuleSet. Knows nothing of files (conf.h reads them and hands their text here). */

#include <stddef.h>

#include "diag.h"
#include "rules.h"

#define CONF_LINE_MAX 4096

/* What of a line was not used, and why: one entry per bad setting, or one for a line that has no
 * valid domain (token NULL). */
typedef struct ConfSkip {
        char *reason; /* what is wrong and what is allowed; quotes only what is config */
        char *token;  /* the setting as written, for conf-edit to keep; never for a message */
        int setting;  /* the Setting it assigns (a bad value, a repeat), or -1 */
} ConfSkip;

typedef struct ConfSkips {
        ConfSkip *items;
        size_t n, cap;
} ConfSkips;

void conf_skips_done(ConfSkips *s);

/* Parses one line (no newline), as systemd reads a unit file: a bad setting is skipped alone.
 * 0: a rule in *ret (its text holds only the settings used), the settings skipped in *skips;
 * 1: blank or comment; <0: no rule (bad domain, no valid setting), *skips says why. *skips is
 * emptied first. */
int conf_parse_line(const char *line, Rule *ret, ConfSkips *skips);
/* Parses a whole buffer as file `name`; bad settings and bad lines become diagnostics ("; setting
 * skipped", "; line skipped") and the rest still applies. */
int conf_parse_buffer(RuleSet *rs, const char *name, const char *buf, size_t len, DiagList *diags);
