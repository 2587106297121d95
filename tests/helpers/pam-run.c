/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pam-run: opens a PAM session the way login or sshd do (same process for open and close),
 * runs a command inside it, then closes it. Used by the real-kernel tests, tools/demo and the
 * benchmarks, with their own PAM service directory (pam_start_confdir) so the host's own
 * /etc/pam.d stacks are never touched.
 *
 *   pam-run --confdir DIR --service NAME --user USER [--env K=V]... [--loop N] [--hold] [-- CMD...]
 *
 * --loop N: open+close N times with no command, printing one latency per line (µs) to stdout.
 * --sessions N: open+close N times in one PAM handle (pam_start once), the command in each.
 * --hold: after opening, print "ready" and wait for a line on stdin before closing.
 * --signal-every MS: a no-op SIGALRM handler without SA_RESTART fires every MS ms, as the signals
 *   a su or sudo caller may send: the module's waits must survive EINTR. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <security/pam_appl.h>

static int null_conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
        return PAM_CONV_ERR;
}

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static int run_child(char **cmd) {
        pid_t pid = fork();
        int status;

        if (pid < 0)
                return -1;
        if (pid == 0) {
                execvp(cmd[0], cmd);
                perror(cmd[0]);
                _exit(127);
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

typedef struct Opts {
        const char *confdir, *service, *user;
        char **env;
        size_t n_env;
        long loop;
        int hold;
        long signal_ms;
        long sessions;
} Opts;

static void on_alarm(int sig) {
}

static void signal_every(long ms) {
        struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
        struct itimerval it = { .it_interval = { ms / 1000, (ms % 1000) * 1000 } };

        it.it_value = it.it_interval;
        sigaction(SIGALRM, &sa, NULL);
        setitimer(ITIMER_REAL, &it, NULL);
}

static int parse(int argc, char **argv, Opts *o) {
        static const struct option opts[] = {
                { "confdir", required_argument, NULL, 'c' },
                { "service", required_argument, NULL, 's' },
                { "user", required_argument, NULL, 'u' },
                { "env", required_argument, NULL, 'e' },
                { "loop", required_argument, NULL, 'l' },
                { "hold", no_argument, NULL, 'H' },
                { "signal-every", required_argument, NULL, 'S' },
                { "sessions", required_argument, NULL, 'n' },
                {},
        };
        int c;

        while ((c = getopt_long(argc, argv, "+c:s:u:e:l:HS:n:", opts, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        o->confdir = optarg;
                        break;
                case 's':
                        o->service = optarg;
                        break;
                case 'u':
                        o->user = optarg;
                        break;
                case 'e':
                        o->env = realloc(o->env, (o->n_env + 1) * sizeof(char *));
                        o->env[o->n_env++] = optarg;
                        break;
                case 'l':
                        o->loop = strtol(optarg, NULL, 10);
                        break;
                case 'H':
                        o->hold = 1;
                        break;
                case 'S':
                        o->signal_ms = strtol(optarg, NULL, 10);
                        break;
                case 'n':
                        o->sessions = strtol(optarg, NULL, 10);
                        break;
                default:
                        return -1;
                }
        }
        if (!o->confdir || !o->service || !o->user) {
                fprintf(stderr, "pam-run: --confdir, --service and --user are required\n");
                return -1;
        }
        return optind;
}

static int session(pam_handle_t *h, const Opts *o, char **cmd) {
        int r, status = 0;
        uint64_t t0 = now_usec();
        char line[16];

        r = pam_open_session(h, 0);
        if (r != PAM_SUCCESS) {
                fprintf(stderr, "pam-run: pam_open_session: %s\n", pam_strerror(h, r));
                return 2;
        }
        if (o->hold) {
                printf("ready %d\n", (int) getpid());
                fflush(stdout);
                if (!fgets(line, sizeof line, stdin))
                        line[0] = '\0';
        }
        if (cmd && cmd[0])
                status = run_child(cmd);
        r = pam_close_session(h, 0);
        if (o->loop > 0)
                printf("%" PRIu64 "\n", now_usec() - t0);
        if (r != PAM_SUCCESS) {
                fprintf(stderr, "pam-run: pam_close_session: %s\n", pam_strerror(h, r));
                return 3;
        }
        return status;
}

int main(int argc, char **argv) {
        struct pam_conv conv = { null_conv, NULL };
        Opts o = {};
        int first, rc = 0;

        first = parse(argc, argv, &o);
        if (first < 0)
                return 64;
        if (o.signal_ms > 0)
                signal_every(o.signal_ms);
        for (long i = 0; i < (o.loop > 0 ? o.loop : 1) && rc == 0; i++) {
                pam_handle_t *h = NULL;
                int r = pam_start_confdir(o.service, o.user, &conv, o.confdir, &h);
                if (r != PAM_SUCCESS) {
                        fprintf(stderr, "pam-run: pam_start: %s\n", pam_strerror(h, r));
                        return 2;
                }
                for (size_t k = 0; k < o.n_env; k++)
                        pam_putenv(h, o.env[k]);
                for (long k = 0; k < (o.sessions > 0 ? o.sessions : 1) && rc == 0; k++)
                        rc = session(h, &o, argv + first);
                pam_end(h, rc == 0 ? PAM_SUCCESS : PAM_SESSION_ERR);
        }
        free(o.env);
        return rc;
}
