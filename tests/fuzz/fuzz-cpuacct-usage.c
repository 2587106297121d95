/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The single-number cgroup files: cpuacct.usage (ns), and on the same bytes cpu.weight/cpu.shares
 * (cgstat_parse_u64), v1 cpu.cfs_quota_us and cgroup.procs. */
#include <errno.h>
#include <limits.h>

#include "cgroup-stat.h"
#include "cpu-value.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_strndup(data, size);
        uint64_t usec, v, q;
        pid_t *pids = NULL;
        size_t n = 0;

        if (cgstat_parse_cpuacct_usage(s, &usec) == 0) {
                FUZZ_CHECK(cgstat_parse_u64(s, &v) == 0 && usec == v / 1000);
        }
        if (cgstat_parse_cfs_quota(s, &q) == 0 && q != CPU_QUOTA_INFINITY) {
                FUZZ_CHECK(cgstat_parse_u64(s, &v) == 0 && v == q);
        }
        if (cgstat_parse_procs(s, &pids, &n) == 0) {
                for (size_t i = 0; i < n; i++)
                        FUZZ_CHECK(pids[i] > 0);
                FUZZ_CHECK(n <= size);
                free(pids);
        }
        free(s);
        return 0;
}
