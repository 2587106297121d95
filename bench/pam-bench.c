/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pam-bench: times PAM sessions through the real libpam path, the same way for every module.
 *
 *   pam-bench --confdir DIR --service NAME --user USER --loop N
 *       N cycles of pam_start_confdir / pam_open_session / pam_close_session / pam_end; prints one
 *       line per cycle: "OPENCLOSE_NS CYCLE_NS" (open+close alone, and the whole cycle with
 *       pam_start and pam_end, which load and unload the modules).
 *
 *   pam-bench --confdir DIR --service NAME --hold N --user-prefix P
 *       forks N children; child i opens a session for the user P followed by i in three digits
 *       (csb-u007) and keeps it open.
 *       Prints "ready N" once all are open, then waits for EOF (or a line) on stdin, closes them
 *       all and exits. Used to have N other users' sessions present during a measurement.
 *
 * Service files live in DIR (pam_start_confdir), so the host's /etc/pam.d is never read. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <security/pam_appl.h>

static int null_conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
        return PAM_CONV_ERR;
}

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int one_cycle(const char *confdir, const char *service, const char *user, uint64_t *ret_oc,
                     uint64_t *ret_total) {
        struct pam_conv conv = { null_conv, NULL };
        pam_handle_t *h = NULL;
        uint64_t t0, t1, t2, t3;
        int r;

        t0 = now_ns();
        r = pam_start_confdir(service, user, &conv, confdir, &h);
        if (r != PAM_SUCCESS) {
                fprintf(stderr, "pam-bench: pam_start: %s\n", pam_strerror(h, r));
                return -1;
        }
        t1 = now_ns();
        r = pam_open_session(h, 0);
        if (r != PAM_SUCCESS) {
                fprintf(stderr, "pam-bench: %s: pam_open_session: %s\n", user, pam_strerror(h, r));
                pam_end(h, r);
                return -1;
        }
        r = pam_close_session(h, 0);
        t2 = now_ns();
        if (r != PAM_SUCCESS) {
                fprintf(stderr, "pam-bench: %s: pam_close_session: %s\n", user, pam_strerror(h, r));
                pam_end(h, r);
                return -1;
        }
        pam_end(h, PAM_SUCCESS);
        t3 = now_ns();
        *ret_oc = t2 - t1;
        *ret_total = t3 - t0;
        return 0;
}

static int hold_one(const char *confdir, const char *service, const char *user, int ready_fd, int release_fd) {
        struct pam_conv conv = { null_conv, NULL };
        pam_handle_t *h = NULL;
        char c;
        int r;

        r = pam_start_confdir(service, user, &conv, confdir, &h);
        if (r == PAM_SUCCESS)
                r = pam_open_session(h, 0);
        if (r != PAM_SUCCESS) {
                fprintf(stderr, "pam-bench: hold %s: %s\n", user, pam_strerror(h, r));
                if (h)
                        pam_end(h, r);
                return 1;
        }
        if (write(ready_fd, "r", 1) != 1)
                return 1;
        close(ready_fd);
        while (read(release_fd, &c, 1) < 0 && errno == EINTR)
                ;
        r = pam_close_session(h, 0);
        pam_end(h, r);
        return r == PAM_SUCCESS ? 0 : 1;
}

static int hold(const char *confdir, const char *service, const char *prefix, long n) {
        int ready[2], release[2], failed = 0;
        long got = 0;
        char c, line[16], user[256];

        if (pipe(ready) < 0 || pipe(release) < 0)
                return 1;
        for (long i = 0; i < n; i++) {
                pid_t pid;

                snprintf(user, sizeof user, "%s%03ld", prefix, i);
                pid = fork();
                if (pid < 0)
                        return 1;
                if (pid == 0) {
                        close(ready[0]);
                        close(release[1]);
                        _exit(hold_one(confdir, service, user, ready[1], release[0]));
                }
        }
        close(ready[1]);
        close(release[0]);
        while (got < n) {
                ssize_t k = read(ready[0], &c, 1);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                got++;
        }
        printf("ready %ld\n", got);
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin))
                line[0] = '\0';
        close(release[1]); /* every child's read returns 0: close and exit */
        for (;;) {
                int status;
                pid_t p = wait(&status);
                if (p < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        failed++;
        }
        if (got < n || failed) {
                fprintf(stderr, "pam-bench: hold: %ld of %ld opened, %d failed\n", got, n, failed);
                return 1;
        }
        return 0;
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "confdir", required_argument, NULL, 'c' }, { "service", required_argument, NULL, 's' },
                { "user", required_argument, NULL, 'u' },    { "loop", required_argument, NULL, 'l' },
                { "hold", required_argument, NULL, 'H' },    { "user-prefix", required_argument, NULL, 'f' },
                {},
        };
        const char *confdir = NULL, *service = NULL, *user = NULL, *prefix = NULL;
        long loop = 0, n_hold = 0;
        int c;

        while ((c = getopt_long(argc, argv, "+c:s:u:l:H:f:", opts, NULL)) >= 0) {
                switch (c) {
                case 'c': confdir = optarg; break;
                case 's': service = optarg; break;
                case 'u': user = optarg; break;
                case 'l': loop = strtol(optarg, NULL, 10); break;
                case 'H': n_hold = strtol(optarg, NULL, 10); break;
                case 'f': prefix = optarg; break;
                default: return 64;
                }
        }
        if (!confdir || !service) {
                fprintf(stderr, "pam-bench: --confdir and --service are required\n");
                return 64;
        }
        if (n_hold > 0) {
                if (!prefix) {
                        fprintf(stderr, "pam-bench: --hold needs --user-prefix\n");
                        return 64;
                }
                return hold(confdir, service, prefix, n_hold);
        }
        if (!user || loop <= 0) {
                fprintf(stderr, "pam-bench: --user and --loop N are required\n");
                return 64;
        }
        for (long i = 0; i < loop; i++) {
                uint64_t oc, total;
                if (one_cycle(confdir, service, user, &oc, &total) < 0)
                        return 1;
                printf("%" PRIu64 " %" PRIu64 "\n", oc, total);
        }
        return 0;
}
