/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Readable units for tables: "1.5 s", "2 min 3 s", "250 %". */

#include <stdint.h>

#define FORMAT_MAX 48

const char *format_usec(uint64_t usec, char buf[static FORMAT_MAX]);
const char *format_percent(double pct, char buf[static FORMAT_MAX]);
/* A wall-clock time in µs as local "2026-12-04 23:10:00"; "-" for 0. */
const char *format_walltime(uint64_t usec, char buf[static FORMAT_MAX]);
