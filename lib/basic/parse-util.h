/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* Strict decimal: digits only, no sign, no whitespace, no overflow. */
int safe_atou64(const char *s, uint64_t *ret);
int safe_atou32(const char *s, uint32_t *ret);
int safe_atoi64(const char *s, int64_t *ret);
bool all_digits(const char *s);
/* Fixed point with at most `decimals` fractional digits, e.g. "12.5" with 2 → 1250. */
int parse_fixed_point(const char *s, unsigned decimals, uint64_t *ret);
/* Removes leading and trailing blanks in place; returns the start. */
char *strstrip(char *s);
/* True for [A-Za-z0-9_-]{1,max}. */
bool name_is_safe(const char *s, size_t max);
/* 1 for 1, yes, y, true, t, on; 0 for 0, no, n, false, f, off (any case, as systemd's); else
 * -EINVAL. */
int parse_boolean(const char *v);
/* Whether word is one of the items of list, split at any of separators ("cpu" in cgroup.controllers'
 * "cpu memory pids\n" with " \n", a mount option in "rw,cpu,cpuacct" with ","). */
bool list_has_word(const char *list, const char *separators, const char *word);
