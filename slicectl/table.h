/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The columns of list and top, in one table, and their output through libsmartcols. */

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "rows.h"

#define TABLE_COLUMNS_MAX 26 /* each column twice */

/* How list and top print, in the way util-linux's tools pass a struct control: the options in,
 * the columns chosen by table_control_setup(). */
typedef struct TableControl {
        bool json;
        bool raw;
        bool noheadings;
        bool legend;        /* after the table: "N user slices listed." (not for -n, -r, --json) */
        const char *output; /* --output LIST, or +LIST to add to the default; NULL: the default */
        const char *sort;   /* --sort COLUMN; NULL: CPU% */

        int columns[TABLE_COLUMNS_MAX];
        size_t n_columns;
        int sort_column;
} TableControl;

/* Parses ctl's output and sort against the column table; one-line error on stderr if bad. */
int table_control_setup(TableControl *ctl);
void columns_help(FILE *f);
void rows_sort(const TableControl *ctl, Rows *rows);
int rows_print(const TableControl *ctl, const Rows *rows);
/* check --json: one object per diagnostic (file, line, severity, message), texts escaped, then the
 * number of errors and of warnings (what check's exit status says). */
int diags_print_json(const DiagList *d);
