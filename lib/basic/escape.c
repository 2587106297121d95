/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "macro.h"

const char *escape_for_log(const char *s, size_t max, char *out, size_t n) {
        size_t w = 0, i = 0;

        if (n == 0)
                return out;
        for (; s && s[i] && i < max; i++) {
                unsigned char ch = (unsigned char) s[i];
                char tmp[8];
                int k;

                if (ch == '\\')
                        k = snprintf(tmp, sizeof tmp, "\\\\");
                else if (ch < 0x20 || ch >= 0x7f)
                        k = snprintf(tmp, sizeof tmp, "\\x%02x", ch);
                else
                        k = snprintf(tmp, sizeof tmp, "%c", ch);
                if (w + (size_t) k + 4 >= n)
                        break;
                memcpy(out + w, tmp, (size_t) k);
                w += (size_t) k;
        }
        if (s && s[i] && w + 4 < n) {
                memcpy(out + w, "...", 3);
                w += 3;
        }
        out[w] = '\0';
        return out;
}

char *escape_dup(const char *s) {
        size_t len = strlen(strempty(s));
        char *out;

        /* 4 bytes per input byte at most ("\\xNN"), and room for the "..." escape_for_log keeps */
        if (len > (SIZE_MAX - 5) / 4)
                return NULL;
        out = malloc(len * 4 + 5);
        if (!out)
                return NULL;
        return (char *) escape_for_log(s, SIZE_MAX, out, len * 4 + 5);
}
