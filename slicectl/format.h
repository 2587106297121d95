/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Readable units for tables: "1.5 s", "2 min 3 s", "250 %". */

#include <stdint.h>

#define FORMAT_MAX 48

const char *format_usec(uint64_t usec, char buf[static FORMAT_MAX]);
const char *format_percent(double pct, char buf[static FORMAT_MAX]);
