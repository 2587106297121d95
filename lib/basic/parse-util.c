/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "parse-util.h"

bool all_digits(const char *s) {
        if (!s || !*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

int safe_atou64(const char *s, uint64_t *ret) {
        unsigned long long v;
        char *end;

        if (!all_digits(s))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end)
                return -EINVAL;
        *ret = v;
        return 0;
}

int safe_atou32(const char *s, uint32_t *ret) {
        uint64_t v;
        int r = safe_atou64(s, &v);

        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

int safe_atoi64(const char *s, int64_t *ret) {
        uint64_t v;
        int r;

        if (s && s[0] == '-') {
                r = safe_atou64(s + 1, &v);
                if (r < 0)
                        return r;
                if (v > (uint64_t) INT64_MAX + 1)
                        return -ERANGE;
                *ret = v == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) v;
                return 0;
        }
        r = safe_atou64(s, &v);
        if (r < 0)
                return r;
        if (v > INT64_MAX)
                return -ERANGE;
        *ret = (int64_t) v;
        return 0;
}

int parse_fixed_point(const char *s, unsigned decimals, uint64_t *ret) {
        uint64_t v = 0;
        unsigned frac = 0;
        bool dot = false, any = false;

        if (!s || !*s)
                return -EINVAL;
        for (; *s; s++) {
                if (*s == '.') {
                        if (dot || !any)
                                return -EINVAL;
                        dot = true;
                        continue;
                }
                if (*s < '0' || *s > '9')
                        return -EINVAL;
                if (dot && ++frac > decimals)
                        return -EINVAL;
                if (v > (UINT64_MAX - 9) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*s - '0');
                any = true;
        }
        if (!any || (dot && frac == 0))
                return -EINVAL;
        for (; frac < decimals; frac++) {
                if (v > UINT64_MAX / 10)
                        return -ERANGE;
                v *= 10;
        }
        *ret = v;
        return 0;
}

char *strstrip(char *s) {
        size_t n;

        s += strspn(s, " \t\r\n");
        n = strlen(s);
        while (n > 0 && strchr(" \t\r\n", s[n - 1]))
                s[--n] = '\0';
        return s;
}

bool name_is_safe(const char *s, size_t max) {
        size_t n = 0;

        if (!s || !*s)
                return false;
        for (; *s; s++, n++) {
                if (n >= max)
                        return false;
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
                      *s == '-'))
                        return false;
        }
        return true;
}

int parse_boolean(const char *v) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

        if (!v)
                return -EINVAL;
        /* as systemd's parse_boolean(): case does not matter, "YES" in a config is no typo */
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(v, yes[i]) == 0)
                        return 1;
                if (strcasecmp(v, no[i]) == 0)
                        return 0;
        }
        return -EINVAL;
}

bool list_has_word(const char *list, const char *separators, const char *word) {
        size_t n = strlen(word);

        for (const char *w = list; w && *w;) {
                size_t k = strcspn(w, separators);

                if (k == n && strncmp(w, word, n) == 0)
                        return true;
                w += k;
                w += strspn(w, separators);
        }
        return false;
}
