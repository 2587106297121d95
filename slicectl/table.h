/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The columns of list and top, in one table, and their output through libsmartcols. */

#include <stdio.h>

#include "rows.h"

/* Parses --output and --sort against the column table; one-line error on stderr if bad. */
int columns_setup(void);
void columns_help(FILE *f);
void rows_sort(Rows *rows);
int rows_print(const Rows *rows);
/* check --json: one object per diagnostic (file, line, severity, message), texts escaped. */
int diags_print_json(const DiagList *d);
