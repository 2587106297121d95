/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* floor: the raw syscalls one pam_cpuslice session needs, with nothing else around them.
 *
 *   floor CPU_PARENT ACCT_PARENT|- N
 *
 * Per cycle, below CPU_PARENT (a directory in the v1 cpu hierarchy) and, unless "-", the same below
 * ACCT_PARENT (the cgroup2 accounting mirror): mkdir user-X.slice and its session-X.scope, write
 * cpu.shares, cpu.cfs_period_us and cpu.cfs_quota_us on the slice, move this process into the
 * scope, move it back into the parent, rmdir scope and slice. Directory fds are opened once, as a
 * lower bound for a module that must open them per session.
 *
 * Prints one line per cycle: TOTAL_NS MKDIR_NS WRITE_NS MOVEIN_NS MOVEBACK_NS RMDIR_NS, each the
 * sum over the hierarchies. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static _Noreturn void die(const char *what) {
        perror(what);
        exit(1);
}

static void write_at(int dfd, const char *file, const char *val) {
        int fd = openat(dfd, file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);

        if (fd < 0)
                die(file);
        if (write(fd, val, strlen(val)) < 0)
                die(file);
        close(fd);
}

int main(int argc, char **argv) {
        const char *slice = "user-59999.slice", *scope = "user-59999.slice/session-bench.scope";
        int dfd[2], n_h;
        long n;
        char pid[32];

        if (argc != 4)
                return 64;
        n = strtol(argv[3], NULL, 10);
        dfd[0] = open(argv[1], O_DIRECTORY | O_RDONLY | O_CLOEXEC);
        if (dfd[0] < 0)
                die(argv[1]);
        n_h = 1;
        if (strcmp(argv[2], "-") != 0) {
                dfd[1] = open(argv[2], O_DIRECTORY | O_RDONLY | O_CLOEXEC);
                if (dfd[1] < 0)
                        die(argv[2]);
                n_h = 2;
        }
        snprintf(pid, sizeof pid, "%d\n", (int) getpid());

        for (long i = 0; i < n; i++) {
                uint64_t t0, t1, t2, t3, t4, t5;
                int sfd;

                t0 = now_ns();
                for (int h = 0; h < n_h; h++)
                        if (mkdirat(dfd[h], slice, 0755) < 0 || mkdirat(dfd[h], scope, 0755) < 0)
                                die("mkdir");
                t1 = now_ns();
                sfd = openat(dfd[0], slice, O_DIRECTORY | O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
                if (sfd < 0)
                        die("open slice");
                write_at(sfd, "cpu.shares", "2048\n");
                write_at(sfd, "cpu.cfs_period_us", "100000\n");
                write_at(sfd, "cpu.cfs_quota_us", "150000\n");
                close(sfd);
                t2 = now_ns();
                for (int h = 0; h < n_h; h++) {
                        sfd = openat(dfd[h], scope, O_DIRECTORY | O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
                        if (sfd < 0)
                                die("open scope");
                        write_at(sfd, "cgroup.procs", pid);
                        close(sfd);
                }
                t3 = now_ns();
                for (int h = 0; h < n_h; h++)
                        write_at(dfd[h], "cgroup.procs", pid);
                t4 = now_ns();
                for (int h = n_h - 1; h >= 0; h--)
                        if (unlinkat(dfd[h], scope, AT_REMOVEDIR) < 0 || unlinkat(dfd[h], slice, AT_REMOVEDIR) < 0)
                                die("rmdir");
                t5 = now_ns();
                printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", t5 - t0,
                       t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4);
        }
        return 0;
}
