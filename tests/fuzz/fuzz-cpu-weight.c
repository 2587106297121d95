/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cpu_weight_parse: an accepted value is in range and formats back to text that parses to it. */
#include "fuzz-check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_strndup(data, size), buf[CPU_FORMAT_MAX];
        uint64_t v = 0, again = 0;

        if (cpu_weight_parse(s, &v) == 0) {
                check_weight(v);
                FUZZ_CHECK(cpu_weight_parse(cpu_weight_format(v, buf), &again) == 0 && again == v);
        }
        free(s);
        return 0;
}
