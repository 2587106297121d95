/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "proc-cgroup.h"

int proc_cgroup_for_each(pid_t pid, ProcCgroupLineFn fn, void *userdata) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        char path[64];
        size_t cap = 0;

        snprintf(path, sizeof path, "/proc/%" PRIi32 "/cgroup", (int32_t) pid);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        while (getline(&line, &cap, f) > 0) {
                char *ctrl = strchr(line, ':'), *p;
                int r;

                if (!ctrl || !(p = strchr(ctrl + 1, ':')))
                        continue;
                *p++ = '\0';
                *ctrl++ = '\0';
                p[strcspn(p, "\n")] = '\0';
                r = fn(line, ctrl, p, userdata);
                if (r != 0)
                        return r;
        }
        return 0;
}
