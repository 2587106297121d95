/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdlib.h>

#include "escape.h"
#include "json-out.h"
#include "macro.h"

static void put_string(FILE *f, const char *s) {
        _cleanup_free_ char *esc = escape_dup(s);

        fputc('"', f);
        /* escape_dup leaves printable ASCII only: backslash and quote remain to be escaped */
        for (const char *p = esc ? esc : "?"; *p; p++) {
                if (*p == '"' || *p == '\\')
                        fputc('\\', f);
                fputc(*p, f);
        }
        fputc('"', f);
}

static void member(JsonOut *j, const char *key) {
        if (j->need_comma[j->depth])
                fputc(',', j->f);
        j->need_comma[j->depth] = true;
        if (key) {
                put_string(j->f, key);
                fputc(':', j->f);
        }
}

void json_open(JsonOut *j, const char *key, char kind) {
        member(j, key);
        fputc(kind, j->f);
        if (j->depth + 1 < JSON_DEPTH_MAX)
                j->need_comma[++j->depth] = false;
}

void json_close(JsonOut *j, char kind) {
        fputc(kind == '{' ? '}' : ']', j->f);
        if (j->depth > 0)
                j->depth--;
        if (j->depth == 0)
                fputc('\n', j->f);
}

void json_string(JsonOut *j, const char *key, const char *value) {
        member(j, key);
        if (value)
                put_string(j->f, value);
        else
                fputs("null", j->f);
}

void json_u64(JsonOut *j, const char *key, uint64_t value) {
        member(j, key);
        fprintf(j->f, "%" PRIu64, value);
}

void json_double(JsonOut *j, const char *key, double value) {
        member(j, key);
        fprintf(j->f, "%.2f", value);
}

void json_bool(JsonOut *j, const char *key, bool value) {
        member(j, key);
        fputs(value ? "true" : "false", j->f);
}

void json_null(JsonOut *j, const char *key) {
        member(j, key);
        fputs("null", j->f);
}
