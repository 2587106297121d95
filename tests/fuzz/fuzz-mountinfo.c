/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cgroup_layout_scan_line over /proc/self/mountinfo lines: the input is split at newlines and fed
 * line by line, accumulating what a real detection pass accumulates. */
#include <errno.h>

#include "cgroup-layout.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size), *save = NULL;
        CgroupMountScan s = {};

        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                int r = cgroup_layout_scan_line("/sys/fs/cgroup", line, &s);
                FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
        }
        /* what it records is one path component below the root: never a way out of it */
        if (s.cpu_v1)
                FUZZ_CHECK(*s.cpu_v1 && !strchr(s.cpu_v1, '/'));
        if (s.acct_v1)
                FUZZ_CHECK(*s.acct_v1 && !strchr(s.acct_v1, '/'));
        cgroup_mount_scan_done(&s);
        free(text);
        return 0;
}
