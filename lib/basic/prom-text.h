/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Prometheus text exposition format (version 0.0.4, what node_exporter's textfile collector
 * reads): "# HELP" / "# TYPE" lines and samples `name{label="value",...} number`. Pure formatting
 * onto a FILE the caller owns; what the families are is the caller's business. */

#include <stdint.h>
#include <stdio.h>

typedef enum PromType {
        PROM_COUNTER,
        PROM_GAUGE,
} PromType;

typedef enum PromValueKind {
        PROM_VALUE_U64,    /* an integer, printed exactly */
        PROM_VALUE_USEC,   /* microseconds, printed as seconds with six exact decimals */
        PROM_VALUE_DOUBLE, /* printed with %.15g: every digit meaningful, no 0.1000…01 */
} PromValueKind;

typedef struct PromValue {
        PromValueKind kind;
        union {
                uint64_t u;
                double d;
        };
} PromValue;

#define PROM_U64(x) ((PromValue) { .kind = PROM_VALUE_U64, .u = (x) })
#define PROM_USEC(x) ((PromValue) { .kind = PROM_VALUE_USEC, .u = (x) })
#define PROM_DOUBLE(x) ((PromValue) { .kind = PROM_VALUE_DOUBLE, .d = (x) })

/* A label value as the format wants it between its double quotes: backslash, double quote and
 * newline escaped (\\, \", \n). Names come from NSS and cgroupfs, so nothing else is trusted either:
 * every other control character (C0, DEL, C1) and every byte that is not part of well-formed UTF-8
 * becomes U+FFFD, so the result is valid UTF-8 with no raw control bytes. NULL on ENOMEM. */
char *prom_escape_label_value(const char *s);

/* "# HELP name help" and "# TYPE name counter|gauge"; help must be one line (\ and newline are
 * escaped as the format wants, as for label values). Returns 0 or -EIO. */
int prom_write_family(FILE *f, const char *name, PromType type, const char *help);
/* One sample; labels is what goes between the braces (already escaped), NULL or "" for none. */
int prom_write_sample(FILE *f, const char *name, const char *labels, PromValue v);
