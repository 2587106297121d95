/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* /proc/PID/stat, the few fields the penalty pass needs: a process's name as the kernel keeps it,
 * its CPU time and when it started (which, with the pid, names it across passes: pids are reused). */

#include <stdint.h>
#include <sys/types.h>

#include "penalty.h"

typedef struct ProcStat {
        char comm[PENALTY_COMM_MAX + 1];
        uint64_t cpu_usec;   /* utime + stime + cutime + cstime: its own and its reaped children's */
        uint64_t start_tick; /* starttime, clock ticks after boot */
} ProcStat;

/* One line of /proc/PID/stat; the name may hold any byte but NUL, ')' and blanks included, so it
 * ends at the line's last ')'. -EBADMSG when the line is not one. */
int proc_stat_parse(const char *line, long ticks_per_sec, ProcStat *ret);
/* -ESRCH (or -ENOENT) when the process is gone. */
int proc_stat_read(pid_t pid, ProcStat *ret);
