/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Config diagnostics: lib/ collects them, the edges print them (pam_syslog, slicectl stderr). */

#include <stddef.h>

#include "macro.h"

typedef enum DiagLevel {
        DIAG_WARNING,
        DIAG_ERROR,
} DiagLevel;

typedef struct Diag {
        DiagLevel level;
        char *file;    /* NULL when not about a file */
        unsigned line; /* 0: about the whole file */
        char *msg;
} Diag;

typedef struct DiagList {
        Diag *items;
        size_t n, cap;
} DiagList;

int diag_add(DiagList *l, DiagLevel level, const char *file, unsigned line, const char *fmt, ...) _printf_(5, 6);
size_t diag_count(const DiagList *l, DiagLevel level);
/* "file:line: msg", "file: msg" or "msg" into buf */
const char *diag_format(const Diag *d, char *buf, size_t n);
void diag_list_done(DiagList *l);
