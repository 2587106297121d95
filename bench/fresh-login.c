/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fresh-login: one login the way real ones arrive — a fresh process that loads PAM and the
 * module, opens the session, holds it, and closes it — timed, for bench/run's "fresh logins".
 * The caller spaces the runs (seconds apart), so that each one meets the kernel cold.
 *
 *   fresh-login pam CONFDIR SERVICE USER HOLD_MS
 *       pam_start (module load) / pam_open_session / pam_close_session + pam_end
 *   fresh-login floor CPU_PARENT ACCT_PARENT|- HOLD_MS
 *       the kernel work of one session, nothing else: mkdir slice and scope, the three v1
 *       settings, move in (cpu and mirror); hold; move back, rmdir
 *   fresh-login floor2 PARENT HOLD_MS
 *       the same on cgroup2 (mounted at /sys/fs/cgroup; PARENT has +cpu): mkdir slice, +cpu in
 *       its subtree, mkdir scope, cpu.weight and cpu.max, move in; hold; move back to where the
 *       process was, rmdir — what the cgroupfs backend does on a v2 host
 *   fresh-login setprops CONFDIR SERVICE USER HOLD_MS WEIGHT QUOTA_PER_SEC_USEC
 *       pam_open_session of SERVICE (pam_systemd alone), then what the systemd backend asks of
 *       PID 1 with nothing of the module around it: libsystemd loaded, a private system bus
 *       connection, one SetUnitProperties(user-UID.slice, runtime, CPUWeight, CPUQuotaPerSecUSec,
 *       CPUQuotaPeriodUSec=infinity); hold; close. libsystemd is dlopen()ed in the timed part
 *       (pam_systemd.so does not link it, the module's plugin loads it the same way)
 *   fresh-login split CONFDIR FIRST SECOND USER HOLD_MS
 *       two PAM handles in one process: FIRST opened (pam_systemd alone), then SECOND (the module
 *       alone) loaded and opened, each timed: the module's own part of a login inside the same
 *       process, as its line after pam_systemd's in one stack would do it; hold; close both
 *   fresh-login phases MODULE CONF USER PARENT HOLD_MS
 *       pam_cpuslice's own steps through its library, each timed: dlopen of the module, config +
 *       NSS, layout detection, slice mkdir + settings, scope + moves; hold; close
 *
 * Prints one line of "name=µs" fields. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <security/pam_appl.h>
#include <systemd/sd-bus.h>

#include "backend-cgroupfs.h"
#include "conf.h"
#include "login-policy.h"
#include "proc-cgroup.h"
#include "rules.h"
#include "time-util.h"
#include "user.h"

static int null_conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data) {
        return PAM_CONV_ERR;
}

/* pam_start (the stack's modules are loaded) and pam_open_session, each timed; 0, or the exit
 * status that names the step that failed */
static int start_and_open(const char *service, const char *user, const char *confdir, pam_handle_t **h,
                          uint64_t *load, uint64_t *open) {
        static struct pam_conv conv = { null_conv, NULL };
        uint64_t t0 = now_usec(), t1;

        if (pam_start_confdir(service, user, &conv, confdir, h) != PAM_SUCCESS)
                return 2;
        t1 = now_usec();
        *load = t1 - t0;
        if (pam_open_session(*h, 0) != PAM_SUCCESS)
                return 3;
        *open = now_usec() - t1;
        return 0;
}

static int run_pam(char **argv) {
        pam_handle_t *h = NULL;
        uint64_t load, open, t3, t4;
        int r = start_and_open(argv[1], argv[2], argv[0], &h, &load, &open);

        if (r != 0)
                return r;
        sleep_usec((uint64_t) atol(argv[3]) * 1000);
        t3 = now_usec();
        if (pam_close_session(h, 0) != PAM_SUCCESS)
                return 4;
        pam_end(h, PAM_SUCCESS);
        t4 = now_usec();
        printf("load=%" PRIu64 " open=%" PRIu64 " close=%" PRIu64 "\n", load, open, t4 - t3);
        return 0;
}

static int run_split(char **argv) {
        pam_handle_t *h1 = NULL, *h2 = NULL;
        uint64_t load, open, load2, open2, t5, t6;
        int r = start_and_open(argv[1], argv[3], argv[0], &h1, &load, &open);

        if (r == 0)
                r = start_and_open(argv[2], argv[3], argv[0], &h2, &load2, &open2);
        if (r != 0)
                return r;
        sleep_usec((uint64_t) atol(argv[4]) * 1000);
        t5 = now_usec();
        /* the module alone in a stack answers PAM_IGNORE at close on systemd (nothing of its own to
         * undo), which libpam reports as a failure of that stack: only pam_systemd's close counts */
        (void) pam_close_session(h2, 0);
        if (pam_close_session(h1, 0) != PAM_SUCCESS)
                return 4;
        pam_end(h2, PAM_SUCCESS);
        pam_end(h1, PAM_SUCCESS);
        t6 = now_usec();
        printf("load=%" PRIu64 " pam_open=%" PRIu64 " load2=%" PRIu64 " open2=%" PRIu64 " open=%" PRIu64
               " close=%" PRIu64 "\n", load, open, load2, open2, open + load2 + open2, t6 - t5);
        return 0;
}

static void write_at(int dfd, const char *file, const char *val) {
        int fd = openat(dfd, file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);

        if (fd < 0 || write(fd, val, strlen(val)) < 0)
                perror(file);
        if (fd >= 0)
                close(fd);
}

static int run_floor(char **argv) {
        const char *slice = "user-59998.slice", *scope = "user-59998.slice/session-fresh.scope";
        int dfd[2] = { -1, -1 }, n = strcmp(argv[1], "-") == 0 ? 1 : 2;
        uint64_t t0, t1, t2, t3, t4;
        char pid[32];

        snprintf(pid, sizeof pid, "%d\n", (int) getpid());
        t0 = now_usec();
        for (int i = 0; i < n; i++) {
                dfd[i] = open(argv[i], O_DIRECTORY | O_RDONLY | O_CLOEXEC);
                if (dfd[i] < 0 || mkdirat(dfd[i], slice, 0755) < 0 || mkdirat(dfd[i], scope, 0755) < 0) {
                        perror(argv[i]);
                        return 1;
                }
        }
        write_at(dfd[0], "user-59998.slice/cpu.shares", "2048\n");
        write_at(dfd[0], "user-59998.slice/cpu.cfs_period_us", "100000\n");
        write_at(dfd[0], "user-59998.slice/cpu.cfs_quota_us", "150000\n");
        t1 = now_usec();
        for (int i = 0; i < n; i++)
                write_at(dfd[i], "user-59998.slice/session-fresh.scope/cgroup.procs", pid);
        t2 = now_usec();
        sleep_usec((uint64_t) atol(argv[2]) * 1000);
        t3 = now_usec();
        for (int i = 0; i < n; i++) {
                write_at(dfd[i], "cgroup.procs", pid);
                unlinkat(dfd[i], scope, AT_REMOVEDIR);
                unlinkat(dfd[i], slice, AT_REMOVEDIR);
                close(dfd[i]);
        }
        t4 = now_usec();
        printf("setup=%" PRIu64 " moves=%" PRIu64 " open=%" PRIu64 " close=%" PRIu64 "\n", t1 - t0, t2 - t1, t2 - t0,
               t4 - t3);
        return 0;
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

static int run_floor2(char **argv) {
        const char *slice = "user-59998.slice", *scope = "user-59998.slice/session-fresh.scope";
        uint64_t t0, t1, t2, t3, t4;
        char pid[32], home[PATH_MAX];
        int dfd, hfd;

        if (own_cgroup(home, sizeof home) < 0 || (hfd = open(home, O_DIRECTORY | O_RDONLY | O_CLOEXEC)) < 0) {
                perror("own cgroup");
                return 1;
        }
        snprintf(pid, sizeof pid, "%d\n", (int) getpid());
        t0 = now_usec();
        dfd = open(argv[0], O_DIRECTORY | O_RDONLY | O_CLOEXEC);
        if (dfd < 0 || mkdirat(dfd, slice, 0755) < 0) {
                perror(argv[0]);
                return 1;
        }
        write_at(dfd, "user-59998.slice/cgroup.subtree_control", "+cpu\n");
        if (mkdirat(dfd, scope, 0755) < 0) {
                perror(scope);
                return 1;
        }
        write_at(dfd, "user-59998.slice/cpu.weight", "200\n");
        write_at(dfd, "user-59998.slice/cpu.max", "150000 100000\n");
        t1 = now_usec();
        write_at(dfd, "user-59998.slice/session-fresh.scope/cgroup.procs", pid);
        t2 = now_usec();
        sleep_usec((uint64_t) atol(argv[1]) * 1000);
        t3 = now_usec();
        write_at(hfd, "cgroup.procs", pid);
        unlinkat(dfd, scope, AT_REMOVEDIR);
        unlinkat(dfd, slice, AT_REMOVEDIR);
        t4 = now_usec();
        close(dfd);
        close(hfd);
        printf("setup=%" PRIu64 " moves=%" PRIu64 " open=%" PRIu64 " close=%" PRIu64 "\n", t1 - t0, t2 - t1, t2 - t0,
               t4 - t3);
        return 0;
}

/* libsystemd's sd-bus, loaded at run time as the module's plugin loads it */
typedef struct SdBus {
        void *lib;
        typeof(sd_bus_open_system) *open_system;
        typeof(sd_bus_call_method) *call_method;
        typeof(sd_bus_flush_close_unref) *flush_close_unref;
        typeof(sd_bus_error_free) *error_free;
} SdBus;

static int sdbus_load(SdBus *b) {
        b->lib = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!b->lib)
                return -ENOENT;
        b->open_system = dlsym(b->lib, "sd_bus_open_system");
        b->call_method = dlsym(b->lib, "sd_bus_call_method");
        b->flush_close_unref = dlsym(b->lib, "sd_bus_flush_close_unref");
        b->error_free = dlsym(b->lib, "sd_bus_error_free");
        return b->open_system && b->call_method && b->flush_close_unref && b->error_free ? 0 : -ENOENT;
}

/* The call the systemd backend makes (lib/systemd/backend-systemd.c: build_set_properties), bare. */
static int set_unit_properties(const SdBus *b, uid_t uid, uint64_t weight, uint64_t quota) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus *bus = NULL;
        char unit[64];
        int r;

        snprintf(unit, sizeof unit, "user-%u.slice", (unsigned) uid);
        r = b->open_system(&bus);
        if (r < 0)
                return r;
        r = b->call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                           "org.freedesktop.systemd1.Manager", "SetUnitProperties", &error, NULL, "sba(sv)", unit, 1,
                           3, "CPUWeight", "t", weight, "CPUQuotaPerSecUSec", "t", quota, "CPUQuotaPeriodUSec", "t",
                           UINT64_MAX);
        if (r < 0)
                fprintf(stderr, "SetUnitProperties(%s): %s\n", unit, error.message ? error.message : strerror(-r));
        b->error_free(&error);
        b->flush_close_unref(bus);
        return r;
}

static int run_setprops(char **argv) {
        struct passwd *pw = getpwnam(argv[2]);
        pam_handle_t *h = NULL;
        SdBus b = {};
        uint64_t load, pam_open, t2, t3, t4, t5, t6;
        int r;

        if (!pw)
                return 2;
        r = start_and_open(argv[1], argv[2], argv[0], &h, &load, &pam_open);
        if (r != 0)
                return r;
        t2 = now_usec();
        if (sdbus_load(&b) < 0)
                return 5;
        t3 = now_usec();
        if (set_unit_properties(&b, pw->pw_uid, strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10)) < 0)
                return 6;
        t4 = now_usec();
        sleep_usec((uint64_t) atol(argv[3]) * 1000);
        t5 = now_usec();
        if (pam_close_session(h, 0) != PAM_SUCCESS)
                return 4;
        pam_end(h, PAM_SUCCESS);
        t6 = now_usec();
        printf("load=%" PRIu64 " pam_open=%" PRIu64 " libload=%" PRIu64 " call=%" PRIu64 " open=%" PRIu64
               " close=%" PRIu64 "\n", load, pam_open, t3 - t2, t4 - t3, pam_open + t4 - t2, t6 - t5);
        dlclose(b.lib);
        return 0;
}

int main(int argc, char **argv) {
        if (argc == 6 && strcmp(argv[1], "pam") == 0)
                return run_pam(argv + 2);
        if (argc == 5 && strcmp(argv[1], "floor") == 0)
                return run_floor(argv + 2);
        if (argc == 7 && strcmp(argv[1], "phases") == 0)
                return run_phases(argv + 2);
        if (argc == 4 && strcmp(argv[1], "floor2") == 0)
                return run_floor2(argv + 2);
        if (argc == 7 && strcmp(argv[1], "split") == 0)
                return run_split(argv + 2);
        if (argc == 8 && strcmp(argv[1], "setprops") == 0)
                return run_setprops(argv + 2);
        fprintf(stderr, "usage: see the head of bench/fresh-login.c\n");
        return 64;
}
