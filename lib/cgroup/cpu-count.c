/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu-count.h"
#include "macro.h"
#include "parse-util.h"
#include "read-file.h"

#define CPU_ID_MAX 65535u  /* far above NR_CPUS: a bigger id is not a CPU list */
#define CPU_LIST_MAX 4096u /* the kernel prints a cpumask list into one page */

static int parse_id(const char *s, const char **end, unsigned *ret) {
        char *e;
        unsigned long v;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &e, 10);
        if (errno || v > CPU_ID_MAX)
                return -EINVAL;
        *end = e;
        *ret = (unsigned) v;
        return 0;
}

int cpu_list_count(const char *s, unsigned *ret) {
        unsigned n = 0;

        for (const char *p = s; *p && *p != '\n';) {
                unsigned a, b;

                if (parse_id(p, &p, &a) < 0)
                        return -EINVAL;
                b = a;
                if (*p == '-' && parse_id(p + 1, &p, &b) < 0)
                        return -EINVAL;
                if (b < a)
                        return -EINVAL;
                n += b - a + 1;
                if (*p == ',')
                        p++;
                else if (*p && *p != '\n')
                        return -EINVAL;
        }
        if (n == 0)
                return -EINVAL;
        *ret = n;
        return 0;
}

int cpus_online(unsigned *ret) {
        _cleanup_close_ int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        _cleanup_free_ char *text = NULL;
        int r;

        if (fd < 0)
                return negative_errno();
        r = read_full_fd(fd, CPU_LIST_MAX, NULL, &text, NULL);
        if (r < 0)
                return r;
        return cpu_list_count(text, ret);
}

/* The v2 hierarchy of the layout, where cpusets are (a v1 cpuset is not looked at). */
static const CgroupHierarchy *v2_hierarchy(const CgroupLayout *l) {
        if (l->cpu.path && l->cpu.v2)
                return &l->cpu;
        if (l->acct.path && l->acct.v2)
                return &l->acct;
        return NULL;
}

int cpus_for_slices(Cgfs *c, unsigned *ret, CsError *e) {
        const CgroupHierarchy *h = v2_hierarchy(&c->layout);
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (h) {
                fd = cgfs_open_user_slice_root(c, h, e);
                if (fd < 0 && fd != -ENOENT)
                        return fd;
                /* no cpuset here: the cgroup runs on its parent's CPUs, in the end the root's */
                r = fd >= 0 ? cgfs_read_file(c, fd, "cpuset.cpus.effective", &text, e) : -ENOENT;
                if (r < 0 && r != -ENOENT)
                        return r;
                if (r >= 0 && cpu_list_count(text, ret) >= 0)
                        return 0;
        }
        return cpus_online(ret);
}
