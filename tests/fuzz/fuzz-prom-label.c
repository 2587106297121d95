/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* prom_escape_label_value: user names from NSS as Prometheus label values. Whatever the bytes, the
 * result is well-formed UTF-8 with no raw control byte, and reads back (unescaped) as the input with
 * only control characters and ill-formed bytes replaced. */
#include "fuzz.h"
#include "prom-text.h"

/* Length of a well-formed UTF-8 sequence at p, 0 if none (as strict as RFC 3629). */
static size_t utf8_len(const unsigned char *p) {
        unsigned c = p[0];
        size_t n;
        uint32_t cp;

        if (c < 0x80)
                return 1;
        n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        if (n == 0)
                return 0;
        cp = c & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_strndup(data, size);
        char *e = prom_escape_label_value(s);
        size_t kept = 0, in_ascii = 0;

        FUZZ_CHECK(e);
        for (const unsigned char *p = (const unsigned char *) e; *p;) {
                size_t n = utf8_len(p);

                FUZZ_CHECK(n > 0);
                FUZZ_CHECK(*p >= 0x20 && *p != 0x7f);
                FUZZ_CHECK(*p != '"');
                if (*p == '\\') {
                        FUZZ_CHECK(p[1] == '\\' || p[1] == '"' || p[1] == 'n');
                        p += 2;
                        kept++;
                        continue;
                }
                if (*p < 0x80)
                        kept++;
                p += n;
        }
        /* every printable ASCII character of the input is still there (escaped or not) */
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if ((*p >= 0x20 && *p < 0x7f) || *p == '\n')
                        in_ascii++;
        FUZZ_CHECK(kept == in_ascii);
        free(e);
        free(s);
        return 0;
}
