/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cgstat_parse_pressure and cgstat_parse_pressure_total: cpu.pressure's "some" line. */
#include <errno.h>

#include "cgroup-stat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_strndup(data, size);
        double v = -1;
        uint64_t total;
        int r, rt;

        r = cgstat_parse_pressure(s, &v);
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENODATA);
        if (r == 0)
                FUZZ_CHECK(v >= 0 && v <= 100);
        rt = cgstat_parse_pressure_total(s, &total);
        FUZZ_CHECK(rt == 0 || rt == -EINVAL || rt == -ERANGE || rt == -ENODATA);
        /* both read the same line: no "some" line for one is none for the other */
        FUZZ_CHECK((r == -ENODATA) == (rt == -ENODATA));
        free(s);
        return 0;
}
