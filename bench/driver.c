/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* driver MODE ARGS: the timed parts of bench/run and bench/guest-fresh.sh (bench/README.md):
 *
 *   loop CONFDIR SERVICE USER N               N × pam_start … pam_end: "OPENCLOSE_NS CYCLE_NS" each
 *   floor-loop CPU_PARENT ACCT|- N            a v1 session's syscalls, N times, the directories opened
 *                                             once: "TOTAL MKDIR WRITE MOVEIN MOVEBACK RMDIR" ns each
 *   conf-scale CONF USER REPS                 conf_load + user_lookup + rules_resolve REPS times:
 *                                             "MEDIAN_NS MIN_NS PEAK_RSS_KIB RULES MATCHED"
 *   pam CONFDIR SERVICE USER HOLD_MS          one fresh login: pam_start, open, hold, close + pam_end
 *   floor CPU_PARENT ACCT|- HOLD_MS           the same kernel work as pam_cpuslice's session, alone
 *   floor2 PARENT HOLD_MS                     the same on cgroup2 (PARENT has +cpu)
 *   phases MODULE CONF USER PARENT HOLD_MS    pam_cpuslice's steps through its library, each timed
 *   probe WARM_S DUR_S OUT                    interactive's wake-up probe, after cyclictest's non-RT
 *                                             mode: one lateness per line (µs, one decimal) to OUT;
 *                                             the first kept sample's wall-clock start (µs) to stdout
 *   burst THREADS CPU_MS GAP_MS N OUT         quota's bursty job: N times, GAP_MS after the last one
 *                                             ended, THREADS threads each burn CPU_MS of CPU time;
 *                                             one completion time per line (µs) to OUT
 *
 * The fresh-login modes (pam … phases) print one line of "name=µs" fields; the caller spaces them
 * seconds apart so that each meets the kernel cold. Service files are CONFDIR's
 * (pam_start_confdir): the host's /etc/pam.d is never read. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <security/pam_appl.h>

#include "backend-cgroupfs.h"
#include "conf.h"
#include "diag.h"
#include "login-policy.h"
#include "proc-cgroup.h"
#include "rules.h"
#include "time-util.h"
#include "user.h"

static int null_conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
        return PAM_CONV_ERR;
}

static const struct pam_conv conv = { null_conv, NULL };

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* pam_start (the stack's modules are loaded), pam_open_session, the session held HOLD_MS, then
 * pam_close_session + pam_end: each timed; 0, or the exit status that names the step that failed */
static int run_pam(char **argv) {
        pam_handle_t *h = NULL;
        uint64_t t0 = now_usec(), t1, t2, t3;

        if (pam_start_confdir(argv[1], argv[2], &conv, argv[0], &h) != PAM_SUCCESS)
                return 2;
        t1 = now_usec();
        if (pam_open_session(h, 0) != PAM_SUCCESS)
                return 3;
        t2 = now_usec();
        sleep_usec((uint64_t) atol(argv[3]) * 1000);
        t3 = now_usec();
        if (pam_close_session(h, 0) != PAM_SUCCESS)
                return 4;
        pam_end(h, PAM_SUCCESS);
        printf("load=%" PRIu64 " open=%" PRIu64 " close=%" PRIu64 "\n", t1 - t0, t2 - t1, now_usec() - t3);
        return 0;
}

static int write_at(int dfd, const char *file, const char *val) {
        int fd = openat(dfd, file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW), r = 0;

        if (fd < 0 || write(fd, val, strlen(val)) < 0) {
                perror(file);
                r = -1;
        }
        if (fd >= 0)
                close(fd);
        return r;
}

/* The floor: the kernel work of one session, without a module. In the parents dfd[0..n) (v1: the
 * cpu hierarchy, then its cgroup2 mirror), a slice and its scope are made, the slice's settings
 * written in the first, the pid moved into the scope and, after the hold, back to the parents (or home). */
#define SLICE "user-59999.slice"
#define SCOPE SLICE "/session-floor.scope"
typedef struct Floor {
        int n, dfd[2], home; /* home: floor2's own cgroup, the pid's way back; 0: the parents */
        const char *enable;  /* cgroup2: to the slice's cgroup.subtree_control before the scope is made */
        const char *const (*settings)[2];
} Floor;

static const char *const v1_settings[][2] = { { SLICE "/cpu.shares", "2048\n" },
                                              { SLICE "/cpu.cfs_period_us", "100000\n" },
                                              { SLICE "/cpu.cfs_quota_us", "150000\n" },
                                              { NULL } };
static const char *const v2_settings[][2] = { { SLICE "/cpu.weight", "200\n" },
                                              { SLICE "/cpu.max", "150000 100000\n" },
                                              { NULL } };

static int floor_open(Floor *f, char **dirs) {
        for (int i = 0; i < f->n; i++) {
                f->dfd[i] = open(dirs[i], O_DIRECTORY | O_RDONLY | O_CLOEXEC);
                if (f->dfd[i] < 0) {
                        perror(dirs[i]);
                        return -1;
                }
        }
        return 0;
}

/* One session's kernel work; t[0] is the caller's (before floor_open, or the cycle), then t[1] after
 * the mkdirs, t[2] the settings, t[3] the move in, (the hold), t[4], t[5] the move back, t[6] the rmdirs */
static int floor_cycle(const Floor *f, uint64_t hold_usec, uint64_t t[7]) {
        char pid[32];
        int r = 0;

        snprintf(pid, sizeof pid, "%d\n", (int) getpid());
        for (int i = 0; i < f->n; i++)
                r |= mkdirat(f->dfd[i], SLICE, 0755) |
                     (f->enable ? write_at(f->dfd[i], SLICE "/cgroup.subtree_control", f->enable) : 0) |
                     mkdirat(f->dfd[i], SCOPE, 0755);
        t[1] = now_ns();
        for (int k = 0; f->settings[k][0]; k++)
                r |= write_at(f->dfd[0], f->settings[k][0], f->settings[k][1]);
        t[2] = now_ns();
        for (int i = 0; i < f->n; i++)
                r |= write_at(f->dfd[i], SCOPE "/cgroup.procs", pid);
        t[3] = now_ns();
        if (hold_usec > 0)
                sleep_usec(hold_usec);
        t[4] = now_ns();
        for (int i = 0; i < f->n; i++)
                r |= write_at(f->home ? f->home : f->dfd[i], "cgroup.procs", pid);
        t[5] = now_ns();
        for (int i = f->n - 1; i >= 0; i--)
                r |= unlinkat(f->dfd[i], SCOPE, AT_REMOVEDIR) | unlinkat(f->dfd[i], SLICE, AT_REMOVEDIR);
        t[6] = now_ns();
        if (r != 0)
                perror("driver: floor");
        return r;
}

/* one fresh login's worth of it, the "setup moves open close" µs line of the fresh-login modes */
static int floor_once(Floor *f, char **dirs, const char *hold_ms) {
        uint64_t t[7];

        t[0] = now_ns();
        if (floor_open(f, dirs) < 0 || floor_cycle(f, (uint64_t) atol(hold_ms) * 1000, t) != 0)
                return 1;
        printf("setup=%" PRIu64 " moves=%" PRIu64 " open=%" PRIu64 " close=%" PRIu64 "\n", (t[2] - t[0]) / 1000,
               (t[3] - t[2]) / 1000, (t[3] - t[0]) / 1000, (t[6] - t[4]) / 1000);
        return 0;
}

static int run_floor(char **argv) {
        Floor f = { .n = strcmp(argv[1], "-") == 0 ? 1 : 2, .settings = v1_settings };

        return floor_once(&f, argv, argv[2]);
}

static int run_floor_loop(char **argv) {
        Floor f = { .n = strcmp(argv[1], "-") == 0 ? 1 : 2, .settings = v1_settings };

        if (floor_open(&f, argv) < 0)
                return 1;
        for (long i = 0, n = atol(argv[2]); i < n; i++) {
                uint64_t t[7] = { now_ns() };

                if (floor_cycle(&f, 0, t) != 0)
                        return 1;
                printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                       t[3] - t[0] + t[6] - t[4], t[1] - t[0], t[2] - t[1], t[3] - t[2], t[5] - t[4], t[6] - t[5]);
        }
        return 0;
}

typedef struct PathBuf {
        char *buf;
        size_t n;
} PathBuf;

static int unified_line(const char *id, const char *controllers, const char *path, void *userdata) {
        PathBuf *p = userdata;

        if (strcmp(id, "0") != 0 || *controllers)
                return 0;
        snprintf(p->buf, p->n, "/sys/fs/cgroup%s", path);
        return 1;
}

/* The cgroup the process is in now (v2: the "0::" line), as a path below /sys/fs/cgroup. */
static int own_cgroup(char *buf, size_t n) {
        PathBuf p = { buf, n };
        int r = proc_cgroup_for_each(getpid(), unified_line, &p);

        return r == 1 ? 0 : r < 0 ? r : -ENOENT;
}

/* floor2: the same on cgroup2 below PARENT (+cpu there), the pid back to where it was */
static int run_floor2(char **argv) {
        Floor f = { .n = 1, .enable = "+cpu\n", .settings = v2_settings };
        char home[PATH_MAX];

        if (own_cgroup(home, sizeof home) < 0 || (f.home = open(home, O_DIRECTORY | O_RDONLY | O_CLOEXEC)) < 0) {
                perror("own cgroup");
                return 1;
        }
        return floor_once(&f, argv, argv[1]);
}

/* The kernel's part of the moves, timed inside the module's own writes: a write of our pid to
 * cgroup.procs waits for RCU grace periods (one or two, several ms each, whoever writes), which
 * would drown the module's own work in their noise. */
static uint64_t moves_usec;
static char pid_line[32];

static ssize_t timed_write(int fd, const void *buf, size_t n) {
        uint64_t t0 = now_usec();
        ssize_t k = write(fd, buf, n);

        if (n == strlen(pid_line) && memcmp(buf, pid_line, n) == 0)
                moves_usec += now_usec() - t0;
        return k;
}

static int run_phases(char **argv) {
        ConfPaths paths = { .main_file = argv[1], .drop_in_dir = "", .run_dir = "" };
        _cleanup_(cgfs_close) Cgfs c = { .root_fd = -EBADF };
        RuleSet rs = {};
        DiagList diags = {};
        UserIdent u = {};
        Resolved res;
        CpuKernelValues k;
        CgfsSession s = {};
        CsError e = {};
        CgfsOps ops = cgfs_default_ops;
        uint64_t t[8], open_moves;
        void *h;

        ops.write = timed_write;
        snprintf(pid_line, sizeof pid_line, "%d\n", (int) getpid());
        t[0] = now_usec();
        h = dlopen(argv[0], RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return 2;
        t[1] = now_usec();
        if (login_config_load(&rs, &paths, &diags) < 0 || user_lookup(argv[2], &u) < 0 ||
            rules_resolve(&rs, &u, &res) < 0)
                return 3;
        cpu_limits_to_kernel(&res.limits, &k);
        t[2] = now_usec();
        if (cgfs_open("/sys/fs/cgroup", argv[3], NULL, &ops, &c, &e) < 0)
                return 4;
        t[3] = now_usec();
        if (cgfs_apply_slice(&c, u.uid, &k, &e) < 0)
                return 5;
        t[4] = now_usec();
        /* its own apply finds the values written and writes nothing: what remains is the scope
         * and the moves */
        if (cgfs_open_session(&c, u.uid, "fresh", getpid(), &k, &s, &e) < 0)
                return 6;
        t[5] = now_usec();
        open_moves = moves_usec;
        sleep_usec((uint64_t) atol(argv[4]) * 1000);
        t[6] = now_usec();
        if (cgfs_close_session(&c, &s, getpid(), &e) < 0)
                return 7;
        t[7] = now_usec();
        printf("module_load=%" PRIu64 " config_nss=%" PRIu64 " layout=%" PRIu64 " mkdir_settings=%" PRIu64
               " scope_moves=%" PRIu64 " open=%" PRIu64 " kernel_moves=%" PRIu64 " own=%" PRIu64 " close=%" PRIu64
               " close_own=%" PRIu64 "\n",
               t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4], t[5] - t[0], open_moves,
               t[5] - t[0] - open_moves, t[7] - t[6], t[7] - t[6] - (moves_usec - open_moves));
        cgfs_session_done(&s);
        ruleset_done(&rs);
        diag_list_done(&diags);
        user_done(&u);
        dlclose(h);
        return 0;
}

static int run_loop(char **argv) {
        for (long i = 0, n = atol(argv[3]); i < n; i++) {
                pam_handle_t *h = NULL;
                uint64_t t0 = now_ns(), t1, t2;
                int r = pam_start_confdir(argv[1], argv[2], &conv, argv[0], &h);

                t1 = now_ns();
                if (r == PAM_SUCCESS && (r = pam_open_session(h, 0)) == PAM_SUCCESS)
                        r = pam_close_session(h, 0);
                t2 = now_ns();
                if (r != PAM_SUCCESS) {
                        fprintf(stderr, "driver loop: %s: %s\n", argv[2], pam_strerror(h, r));
                        return 1;
                }
                pam_end(h, PAM_SUCCESS);
                printf("%" PRIu64 " %" PRIu64 "\n", t2 - t1, now_ns() - t0);
        }
        return 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

static int run_conf_scale(char **argv) {
        ConfPaths paths = { .main_file = argv[0], .drop_in_dir = "", .run_dir = "" };
        long reps = atol(argv[2]);
        _cleanup_free_ uint64_t *t = calloc(reps > 0 ? (size_t) reps : 1, sizeof *t);
        size_t n_rules = 0;
        bool matched = false;
        struct rusage ru;

        if (reps <= 0 || !t)
                return 64;
        for (long i = 0; i < reps; i++) {
                RuleSet rs = {};
                DiagList diags = {};
                UserIdent u = {};
                Resolved res = {};
                uint64_t t0 = now_ns();
                int r = user_lookup(argv[1], &u);

                if (r >= 0)
                        r = conf_load(&rs, &paths, CONF_PERMS_ENFORCE, &diags);
                if (r >= 0)
                        r = rules_resolve(&rs, &u, &res);
                t[i] = now_ns() - t0;
                if (r < 0) {
                        fprintf(stderr, "driver conf-scale: %s: %s\n", argv[0], strerror(-r));
                        return 1;
                }
                if (diag_count(&diags, DIAG_ERROR) + diag_count(&diags, DIAG_WARNING) > 0)
                        fprintf(stderr, "driver conf-scale: %s: %zu diagnostics\n", argv[0], diags.n);
                n_rules = rs.n;
                matched = res.matched;
                ruleset_done(&rs);
                diag_list_done(&diags);
                user_done(&u);
        }
        qsort(t, (size_t) reps, sizeof *t, cmp_u64);
        getrusage(RUSAGE_SELF, &ru);
        printf("%" PRIu64 " %" PRIu64 " %ld %zu %d\n", t[reps / 2], t[0], ru.ru_maxrss, n_rules, matched);
        return 0;
}

/* SCHED_OTHER, timer slack 1 ns; each iteration sleeps 10 ms (relative clock_nanosleep) and records
 * how late it woke; the samples of the first WARM_S seconds are dropped, the file written at the end */
#define PROBE_INTERVAL_NS 10000000LL
static int run_probe(char **argv) {
        const struct timespec iv = { 0, PROBE_INTERVAL_NS };
        double warm = atof(argv[0]), dur = atof(argv[1]);
        size_t cap = (size_t) (dur * 1e9 / PROBE_INTERVAL_NS) + 16, n = 0;
        _cleanup_free_ int32_t *lat = malloc(cap * sizeof *lat); /* in 0.1 µs */
        uint64_t rec = now_ns() + (uint64_t) (warm * 1e9), end = rec + (uint64_t) (dur * 1e9);
        struct timespec rt;
        FILE *f;

        if (!lat)
                return 1;
        /* when the first kept sample starts, on the shell's clock: a window split in time (cs-pen) */
        clock_gettime(CLOCK_REALTIME, &rt);
        printf("%" PRIu64 "\n",
               (uint64_t) rt.tv_sec * 1000000u + (uint64_t) rt.tv_nsec / 1000 + (uint64_t) (warm * 1e6));
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
        for (uint64_t t0; (t0 = now_ns()) < end;) {
                int64_t late;

                while (clock_nanosleep(CLOCK_MONOTONIC, 0, &iv, NULL) == EINTR)
                        ;
                late = (int64_t) (now_ns() - t0) - PROBE_INTERVAL_NS;
                if (t0 >= rec && n < cap)
                        lat[n++] = (int32_t) ((late > 2000000000LL ? 2000000000LL : late) / 100);
        }
        f = fopen(argv[2], "w");
        if (!f) {
                perror(argv[2]);
                return 1;
        }
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%d.%d\n", lat[i] / 10, lat[i] % 10);
        return fclose(f) == 0 ? 0 : 1;
}

/* a thread's own CPU clock: what it burns is CPU time, however long the quota makes it wait */
static void *burn(void *arg) {
        uint64_t want = *(const uint64_t *) arg, t0 = 0;
        struct timespec ts;

        for (;;) {
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
                uint64_t t = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
                if (!t0)
                        t0 = t;
                else if (t - t0 >= want)
                        return NULL;
        }
}

static int run_burst(char **argv) {
        unsigned n = (unsigned) atoi(argv[0]);
        uint64_t want = (uint64_t) (atof(argv[1]) * 1e6);
        const struct timespec gap = { atoi(argv[2]) / 1000, (atoi(argv[2]) % 1000) * 1000000L };
        pthread_t th[64];
        FILE *f;

        if (n < 1 || n > 64 || !(f = fopen(argv[4], "we")))
                return 1;
        for (int i = atoi(argv[3]); i > 0; i--) {
                while (clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, NULL) == EINTR)
                        ;
                uint64_t t0 = now_ns();
                for (unsigned k = 0; k < n; k++)
                        if (pthread_create(&th[k], NULL, burn, &want) != 0)
                                return 1;
                for (unsigned k = 0; k < n; k++)
                        pthread_join(th[k], NULL);
                fprintf(f, "%" PRIu64 "\n", (now_ns() - t0) / 1000);
        }
        return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
        static const struct {
                const char *name;
                int argc;
                int (*run)(char **argv);
        } modes[] = {
                { "loop", 6, run_loop },     { "floor-loop", 5, run_floor_loop }, { "conf-scale", 5, run_conf_scale },
                { "pam", 6, run_pam },       { "floor", 5, run_floor },           { "phases", 7, run_phases },
                { "floor2", 4, run_floor2 }, { "probe", 5, run_probe },           { "burst", 7, run_burst },
        };

        for (size_t i = 0; argc > 1 && i < sizeof modes / sizeof modes[0]; i++)
                if (strcmp(argv[1], modes[i].name) == 0 && argc == modes[i].argc)
                        return modes[i].run(argv + 2);
        fprintf(stderr, "usage: see the head of bench/driver.c\n");
        return 64;
}
