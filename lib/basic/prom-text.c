/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "prom-text.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD in UTF-8 */

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates, nothing
 * above U+10FFFF), storing its code point; 0 if s does not start one. */
static size_t utf8_sequence(const unsigned char *s, uint32_t *ret) {
        uint32_t cp, min;
        size_t n;

        if (s[0] < 0x80) {
                *ret = s[0];
                return 1;
        }
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2, cp = s[0] & 0x1f, min = 0x80;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                n = 3, cp = s[0] & 0x0f, min = 0x800;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                n = 4, cp = s[0] & 0x07, min = 0x10000;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        *ret = cp;
        return n;
}

static bool is_control(uint32_t cp) {
        return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

char *prom_escape_label_value(const char *s) {
        const unsigned char *p = (const unsigned char *) s;
        /* worst case: every byte becomes the 3-byte U+FFFD */
        size_t len = strlen(s);
        char *buf, *o;

        if (len > (SIZE_MAX - 1) / 3)
                return NULL;
        buf = malloc(len * 3 + 1);
        if (!buf)
                return NULL;
        o = buf;
        while (*p) {
                uint32_t cp;
                size_t n = utf8_sequence(p, &cp);

                if (n == 0) {
                        memcpy(o, REPLACEMENT, 3), o += 3;
                        p++;
                        continue;
                }
                if (cp == '\\' || cp == '"')
                        *o++ = '\\', *o++ = (char) cp;
                else if (cp == '\n')
                        *o++ = '\\', *o++ = 'n';
                else if (is_control(cp))
                        memcpy(o, REPLACEMENT, 3), o += 3;
                else
                        memcpy(o, p, n), o += n;
                p += n;
        }
        *o = '\0';
        return buf;
}

static int check_io(FILE *f, int k) {
        return k < 0 || ferror(f) ? -EIO : 0;
}

int prom_write_family(FILE *f, const char *name, PromType type, const char *help) {
        int k = fprintf(f, "# HELP %s ", name);

        /* HELP text escapes only backslash and newline */
        for (const char *p = help; k >= 0 && *p; p++)
                k = *p == '\\' ? fputs("\\\\", f) : *p == '\n' ? fputs("\\n", f) : fputc(*p, f);
        if (k >= 0)
                k = fprintf(f, "\n# TYPE %s %s\n", name, type == PROM_COUNTER ? "counter" : "gauge");
        return check_io(f, k);
}

int prom_write_sample(FILE *f, const char *name, const char *labels, PromValue v) {
        int k;

        if (labels && *labels)
                k = fprintf(f, "%s{%s} ", name, labels);
        else
                k = fprintf(f, "%s ", name);
        if (k < 0)
                return -EIO;
        switch (v.kind) {
        case PROM_VALUE_U64:
                k = fprintf(f, "%" PRIu64 "\n", v.u);
                break;
        case PROM_VALUE_USEC:
                k = fprintf(f, "%" PRIu64 ".%06" PRIu64 "\n", v.u / 1000000, v.u % 1000000);
                break;
        case PROM_VALUE_DOUBLE:
                if (isnan(v.d))
                        k = fputs("NaN\n", f);
                else if (isinf(v.d))
                        k = fputs(v.d > 0 ? "+Inf\n" : "-Inf\n", f);
                else
                        k = fprintf(f, "%.15g\n", v.d);
                break;
        default:
                return -EINVAL;
        }
        return check_io(f, k);
}
