/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cpu_max_parse: v2 cpu.max ("max 100000" / "50000 100000"). What it accepts formats back to the
 * same text the kernel would show. */
#include "cpu-value.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_strndup(data, size), buf[64];
        uint64_t q, p, q2, p2;

        if (cpu_max_parse(s, &q, &p) == 0) {
                CpuKernelValues k = { .quota_usec = q, .period_usec = p };
                FUZZ_CHECK(p > 0);
                FUZZ_CHECK(cpu_max_format(&k, buf, sizeof buf) == 0);
                FUZZ_CHECK(cpu_max_parse(buf, &q2, &p2) == 0 && q2 == q && p2 == p);
                (void) cpu_quota_percent(q, p);
        }
        free(s);
        return 0;
}
