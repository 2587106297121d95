/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A small streaming JSON writer for the verbs whose output is not a table (status, explain).
 * Every string goes through escape_dup() first, as in list --json and in the text output, so a
 * name from NSS or cgroupfs comes out the same everywhere, printable ASCII only. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 8

typedef struct JsonOut {
        FILE *f;
        int depth;
        bool need_comma[JSON_DEPTH_MAX];
} JsonOut;

/* kind '{' or '['; key NULL inside an array or at the top */
void json_open(JsonOut *j, const char *key, char kind);
void json_close(JsonOut *j, char kind);
void json_string(JsonOut *j, const char *key, const char *value); /* NULL: null */
void json_u64(JsonOut *j, const char *key, uint64_t value);
void json_double(JsonOut *j, const char *key, double value);
void json_bool(JsonOut *j, const char *key, bool value);
void json_null(JsonOut *j, const char *key);
