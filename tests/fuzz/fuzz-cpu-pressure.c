/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cgstat_parse_pressure: cpu.pressure's "some" line. */
#include <errno.h>

#include "cgroup-stat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_strndup(data, size);
        double v = -1;
        int r;

        r = cgstat_parse_pressure(s, &v);
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENODATA);
        if (r == 0)
                FUZZ_CHECK(v >= 0 && v <= 100);
        free(s);
        return 0;
}
