/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cgstat_parse_cpu_stat: cpu.stat of either cgroup version, as slicectl reads it. */
#include <errno.h>

#include "cgroup-stat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_strndup(data, size);
        CpuStat st;
        int r;

        r = cgstat_parse_cpu_stat(s, &st);
        FUZZ_CHECK(r == 0 || r == -EINVAL);
        free(s);
        return 0;
}
