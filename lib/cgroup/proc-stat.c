/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "proc-stat.h"

/* Fields after the name, counted from 1 at the state (field 3 of proc(5)). */
#define F_UTIME 12
#define F_STIME 13
#define F_CUTIME 14
#define F_CSTIME 15
#define F_STARTTIME 20

int proc_stat_parse(const char *line, long ticks_per_sec, ProcStat *ret) {
        const char *open = strchr(line, '('), *close = strrchr(line, ')'), *p;
        uint64_t v[F_STARTTIME + 1] = {};
        size_t len;

        if (!open || !close || close < open || ticks_per_sec <= 0)
                return -EBADMSG;
        len = (size_t) (close - open - 1);
        p = close + 1;
        for (unsigned f = 1; f <= F_STARTTIME; f++) {
                long long x;
                char *end;

                if (*p++ != ' ' || !*p)
                        return -EBADMSG;
                if (f == 1) { /* the state: one letter */
                        p++;
                        continue;
                }
                /* signed in the kernel's format (cutime, cstime); never negative in practice */
                errno = 0;
                x = strtoll(p, &end, 10);
                v[f] = x < 0 ? 0 : (uint64_t) x;
                if (errno || end == p)
                        return -EBADMSG;
                p = end;
        }
        *ret = (ProcStat) {};
        memcpy(ret->comm, open + 1, MIN(len, (size_t) PENALTY_COMM_MAX));
        ret->cpu_usec = (v[F_UTIME] + v[F_STIME] + v[F_CUTIME] + v[F_CSTIME]) *
                        (UINT64_C(1000000) / (uint64_t) ticks_per_sec);
        ret->start_tick = v[F_STARTTIME];
        return 0;
}

int proc_stat_read(pid_t pid, ProcStat *ret) {
        _cleanup_close_ int fd = -EBADF;
        char path[64], buf[1024];
        ssize_t n;

        snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, sizeof buf - 1);
        if (n < 0)
                return errno == ESRCH ? -ESRCH : -errno;
        buf[n] = '\0';
        return proc_stat_parse(buf, sysconf(_SC_CLK_TCK), ret);
}
