/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The built module through a real PAM stack: pam_wrapper redirects the service directory, nss_wrapper
 * supplies the users, and a scratch directory laid out like cgroupfs stands in for the kernel
 * (module argument allow_plain_tree). pam_syslog lines are captured from pam_wrapper's debug output. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <libpamtest.h>

#include "pam-fixture.h"
#include "test-util.h"

static void conf(Fx *f, const char *text) {
        assert_int_equal(write_file(f->dir, "cpuslice.conf", text, 0644), 0);
}

/* A service "cs": pam_env (for XDG_SESSION_ID, as a user-influenced source), our module, pam_permit. */
static void service(Fx *f, const char *args, const char *xdg) {
        char text[4096], env[256], envline[1024] = "";

        if (xdg) {
                snprintf(env, sizeof env, "XDG_SESSION_ID DEFAULT=\"%s\"\n", xdg);
                assert_int_equal(write_file(f->dir, "env.conf", env, 0644), 0);
                snprintf(envline, sizeof envline,
                         "session required pam_env.so readenv=0 user_readenv=0 conffile=%s/env.conf\n", f->dir);
        }
        snprintf(
                text, sizeof text,
                "auth required pam_permit.so\naccount required pam_permit.so\n%s"
                "session required %s conf=%s confdir=%s/none rundir=%s/none cgroup_root=%s allow_plain_tree debug %s\n"
                "session required pam_permit.so\n",
                envline, module_path(), f->conf, f->dir, f->dir, f->cgroot, args);
        assert_int_equal(write_file(f->services, "cs", text, 0644), 0);
}

/* The PAM transaction runs in a fresh exec of this binary: pam_wrapper copies the service directory
 * once per process, and each test needs its own stack. The child writes its pid to DIR/pid. */
static int child_main(int argc, char **argv) {
        const char *user = argv[2], *dir = argv[5];
        int want_open = atoi(argv[3]), want_close = atoi(argv[4]);
        struct pam_testcase open_only[] = { pam_test(PAMTEST_OPEN_SESSION, want_open) };
        struct pam_testcase both[] = {
                pam_test(PAMTEST_OPEN_SESSION, want_open),
                pam_test(PAMTEST_CLOSE_SESSION, want_close),
        };
        enum pamtest_err perr;
        char pid[32];

        snprintf(pid, sizeof pid, "%d\n", (int) getpid());
        if (write_file(dir, "pid", pid, 0644) < 0)
                return 100;
        /* a caller's umask, for the PAM calls only (the fixture's own files stay readable) */
        if (getenv("PAM_TEST_UMASK"))
                umask((mode_t) strtoul(getenv("PAM_TEST_UMASK"), NULL, 8));
        if (want_close == -1)
                perr = _pamtest("cs", user, NULL, open_only, 1, NULL);
        else
                perr = _pamtest("cs", user, NULL, both, 2, NULL);
        if (perr != PAMTEST_ERR_OK) {
                const struct pam_testcase *c =
                        want_close == -1 ? _pamtest_failed_case(open_only, 1) : _pamtest_failed_case(both, 2);
                fprintf(stderr, "PAMTEST-FAILED %s: %s (op %d returned %d)\n", user, pamtest_strerror(perr),
                        c ? (int) c->pam_operation : -1, c ? c->op_rv : -1);
                return 1;
        }
        return 0;
}

/* Runs open (and close unless want_close is -1) for user; pam_syslog output is appended to f->log. */
static void run(Fx *f, const char *user, int want_open, int want_close) {
        char o[16], c[16];
        int status;

        snprintf(o, sizeof o, "%d", want_open);
        snprintf(c, sizeof c, "%d", want_close);
        status = run_self(f, (const char *const[]) { "--pam", user, o, c, f->dir, NULL });
        if (status != 0) {
                const char *log = slurp(f->log);
                fail_msg("PAM run for %s failed (status %d); log:\n%s", user, status, log ? log : "");
        }
}

static void expect_file(Fx *f, const char *rel, const char *want) {
        char path[1200];
        const char *got;

        snprintf(path, sizeof path, "%s/%s", f->cgroot, rel);
        got = slurp(path);
        if (!got)
                fail_msg("%s: missing", rel);
        if (strcmp(got, want) != 0)
                fail_msg("%s: got '%s' want '%s'", rel, got, want);
}

static void expect_log(Fx *f, const char *needle) {
        const char *log = slurp(f->log);
        if (!log || !strstr(log, needle))
                fail_msg("log lacks '%s'; log was:\n%s", needle, log ? log : "(none)");
}

static void expect_no_log(Fx *f, const char *needle) {
        const char *log = slurp(f->log);
        if (log && strstr(log, needle))
                fail_msg("log has '%s'; log was:\n%s", needle, log);
}

/* the pid of the last PAM run, as written to cgroup.procs */
static char pidbuf[32];
static const char *runpid(Fx *f) {
        char path[700];
        const char *p;

        snprintf(path, sizeof path, "%s/pid", f->dir);
        p = slurp(path);
        assert_non_null(p);
        snprintf(pidbuf, sizeof pidbuf, "%d\n", atoi(p));
        return pidbuf;
}

#define SLICE "user.slice/user-1001.slice"

static void test_unified_values(void **state) {
        Fx *f = *state;

        conf(f, "* CPUWeight=100\n@staff CPUWeight=300\nalice CPUQuota=50%\n");
        service(f, "cgroup_layout=unified", "c42");
        run(f, "alice", PAM_SUCCESS, -1);
        expect_file(f, "cgroup.subtree_control", "+cpu\n");
        expect_file(f, "user.slice/cgroup.subtree_control", "+cpu\n");
        expect_file(f, SLICE "/cgroup.subtree_control", "+cpu\n");
        expect_file(f, SLICE "/cpu.weight", "300\n");
        expect_file(f, SLICE "/cpu.idle", "0\n");
        expect_file(f, SLICE "/cpu.max", "50000 100000\n");
        expect_file(f, SLICE "/session-c42.scope/cgroup.procs", runpid(f));
        expect_log(f, "alice: CPUWeight= from ");
        expect_log(f, "cpuslice.conf:2");
        expect_log(f, "joined session-c42.scope in user-1001.slice");
}

/* su and sudo keep their caller's umask: the slice, the scope and (in a test tree) the control
 * files get their modes from the module, also under a umask of 0777 */
static void test_caller_umask(void **state) {
        static const struct {
                const char *rel;
                mode_t mode;
        } want[] = {
                { "user.slice", 0755 },
                { SLICE, 0755 },
                { SLICE "/session-c42.scope", 0755 },
                { "cgroup.subtree_control", 0644 },
                { SLICE "/cpu.weight", 0644 },
                { SLICE "/session-c42.scope/cgroup.procs", 0644 },
                /* the marker a penalty rule leaves for the timer (below state_root) */
                { "../state/run/cpuslice", 0755 },
                { "../state/run/cpuslice/penalty-enabled", 0644 },
        };
        Fx *f = *state;
        char args[1200];

        conf(f, "* CPUWeight=100 PenaltyAbove=200%\n");
        snprintf(args, sizeof args, "cgroup_layout=unified state_root=%s/state", f->dir);
        service(f, args, "c42");
        assert_int_equal(setenv("PAM_TEST_UMASK", "0777", 1), 0);
        run(f, "alice", PAM_SUCCESS, -1);
        assert_int_equal(unsetenv("PAM_TEST_UMASK"), 0);
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
                char path[1200];
                struct stat st;

                snprintf(path, sizeof path, "%s/%s", f->cgroot, want[i].rel);
                assert_int_equal(lstat(path, &st), 0);
                if ((st.st_mode & 07777) != want[i].mode)
                        fail_msg("%s: mode %o, wanted %o", want[i].rel, (unsigned) (st.st_mode & 07777),
                                 (unsigned) want[i].mode);
        }
        expect_log(f, "joined session-c42.scope in user-1001.slice");
}

static void test_unified_idle_and_adjusted_period(void **state) {
        Fx *f = *state;

        conf(f, "bob CPUWeight=idle CPUQuota=0.5%\n");
        service(f, "cgroup_layout=unified", NULL);
        run(f, "bob", PAM_SUCCESS, -1);
        expect_file(f, "user.slice/user-1002.slice/cpu.idle", "1\n");
        assert_false(exists(f, "user.slice/user-1002.slice/cpu.weight"));
        expect_file(f, "user.slice/user-1002.slice/cpu.max", "1000 200000\n");
        expect_log(f, "CPUQuotaPeriodSec= adjusted to 200000us");
}

static void test_legacy_values(void **state) {
        Fx *f = *state;

        char p[700];

        snprintf(p, sizeof p, "%s/cpu", f->cgroot);
        assert_int_equal(mkdir(p, 0755), 0);
        conf(f, "alice CPUWeight=300 CPUQuota=250%\n");
        service(f, "cgroup_layout=legacy", "7");
        run(f, "alice", PAM_SUCCESS, -1);
        expect_file(f, "cpu/" SLICE "/cpu.shares", "3072\n");
        expect_file(f, "cpu/" SLICE "/cpu.cfs_period_us", "100000\n");
        expect_file(f, "cpu/" SLICE "/cpu.cfs_quota_us", "250000\n");
        expect_file(f, "cpu/" SLICE "/session-7.scope/cgroup.procs", runpid(f));
        assert_false(exists(f, "cpu/cgroup.subtree_control")); /* v1 has no such thing */
}

/* the hybrid hierarchies in the scratch root, and a config */
static void hybrid_tree(Fx *f, const char *config) {
        char p[700];

        snprintf(p, sizeof p, "%s/cpu", f->cgroot);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/unified", f->cgroot);
        mkdir(p, 0755);
        conf(f, config);
}

static void test_hybrid_mirror(void **state) {
        Fx *f = *state;

        hybrid_tree(f, "* CPUWeight=50\n");
        service(f, "cgroup_layout=hybrid parent=scratch/sub", "9");
        run(f, "carol", PAM_SUCCESS, -1);
        expect_file(f, "cpu/scratch/sub/user.slice/user-1003.slice/cpu.shares", "512\n");
        expect_file(f, "cpu/scratch/sub/user.slice/user-1003.slice/cpu.cfs_quota_us", "-1\n");
        expect_file(f, "cpu/scratch/sub/user.slice/user-1003.slice/session-9.scope/cgroup.procs", runpid(f));
        /* usage is read from the v2 mirror; no controller is enabled there */
        expect_file(f, "unified/scratch/sub/user.slice/user-1003.slice/session-9.scope/cgroup.procs", runpid(f));
        assert_false(exists(f, "unified/scratch/sub/user.slice/cgroup.subtree_control"));
}

/* slice_root=/: the user slices at the top of each hierarchy, where users compete directly */
static void test_slice_root(void **state) {
        Fx *f = *state;

        hybrid_tree(f, "* CPUWeight=50\n");
        service(f, "cgroup_layout=hybrid slice_root=/", "9");
        run(f, "carol", PAM_SUCCESS, -1);
        expect_file(f, "cpu/user-1003.slice/cpu.shares", "512\n");
        expect_file(f, "cpu/user-1003.slice/session-9.scope/cgroup.procs", runpid(f));
        expect_file(f, "unified/user-1003.slice/session-9.scope/cgroup.procs", runpid(f));
        assert_false(exists(f, "cpu/user.slice"));
        /* a named cgroup, slashes either side */
        service(f, "cgroup_layout=hybrid slice_root=/users/", "10");
        run(f, "carol", PAM_SUCCESS, -1);
        expect_file(f, "cpu/users/user-1003.slice/session-10.scope/cgroup.procs", runpid(f));
        /* with parent= too it is a config error: no slice, one line, and strict denies */
        service(f, "cgroup_layout=hybrid slice_root=/ parent=p", "11");
        run(f, "carol", PAM_SUCCESS, -1);
        expect_log(f, "parent and slice root both given; give one");
        expect_log(f, "login proceeds without a CPU slice");
        assert_false(exists(f, "cpu/user-1003.slice/session-11.scope"));
        assert_false(exists(f, "cpu/p"));
        service(f, "cgroup_layout=hybrid slice_root=/ parent=p strict", "11");
        run(f, "carol", PAM_SESSION_ERR, -1);
        expect_log(f, "session denied (strict)");
        /* a path that climbs out is refused like a bad parent= */
        service(f, "cgroup_layout=hybrid slice_root=../x", "12");
        run(f, "carol", PAM_SUCCESS, -1);
        expect_log(f, "bad cgroup path '../x' for the user slices");
}

static void test_hostile_session_id(void **state) {
        Fx *f = *state;
        char scope[128];

        conf(f, "* CPUWeight=100\n");
        service(f, "cgroup_layout=unified", "../../etc\\x1b[31m");
        run(f, "alice", PAM_SUCCESS, -1);
        snprintf(scope, sizeof scope, SLICE "/session-pam-%d.scope/cgroup.procs", atoi(runpid(f)));
        expect_file(f, scope, runpid(f));
        expect_log(f, "ignoring unusable XDG_SESSION_ID '../../etc");
        assert_false(exists(f, "etc"));
        /* a 65-byte id is refused too */
        service(f, "cgroup_layout=unified", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        run(f, "alice", PAM_SUCCESS, -1);
        snprintf(scope, sizeof scope, SLICE "/session-pam-%d.scope/cgroup.procs", atoi(runpid(f)));
        expect_file(f, scope, runpid(f));
}

static void test_close_moves_back(void **state) {
        Fx *f = *state;

        conf(f, "* CPUWeight=100\n");
        service(f, "cgroup_layout=unified", "s1");
        run(f, "alice", PAM_SUCCESS, PAM_SUCCESS);
        /* the pid went back to where /proc/self/cgroup said it was (here: the root or its nearest
         * ancestor in the scratch tree); a scratch dir cannot show the rmdir */
        expect_file(f, "cgroup.procs", runpid(f));
        assert_true(exists(f, SLICE "/session-s1.scope"));
}

/* A close that fails names the user and the scope, in that order, and the login ends anyway: here
 * the cgroup the process came from cannot take it back (its cgroup.procs is a directory). */
static void test_close_failure_logged(void **state) {
        Fx *f = *state;
        char procs[1100];

        conf(f, "* CPUWeight=100\n");
        service(f, "cgroup_layout=unified", "s1");
        snprintf(procs, sizeof procs, "%s/cgroup.procs", f->cgroot);
        assert_int_equal(mkdir(procs, 0755), 0);
        run(f, "alice", PAM_SUCCESS, PAM_SUCCESS);
        expect_log(f, "alice: closing session-s1.scope: ");
}

static void test_fail_open_and_strict(void **state) {
        Fx *f = *state;
        char bad[700];

        conf(f, "* CPUWeight=100\n");
        snprintf(bad, sizeof bad, "cgroup_layout=unified cgroup_root=%s/missing", f->dir);
        /* the later cgroup_root= wins: a missing cgroupfs */
        service(f, bad, NULL);
        run(f, "alice", PAM_SUCCESS, -1);
        expect_log(f, "cannot open cgroup root");
        expect_log(f, "login proceeds without a CPU slice");
        strcat(bad, " strict");
        service(f, bad, NULL);
        run(f, "alice", PAM_SESSION_ERR, -1);
        expect_log(f, "session denied (strict)");
}

static void test_broken_config(void **state) {
        Fx *f = *state;

        conf(f, "* CPUWeight=100\nalice CPUWeight=banana\n@staff CPUQuota=20%\n");
        service(f, "cgroup_layout=unified strict", "b1");
        run(f, "alice", PAM_SUCCESS, -1); /* a bad line never denies, even with strict */
        expect_log(f, "cpuslice.conf:2: bad CPUWeight= value 'banana' (allowed: 1..10000 or idle); line skipped");
        expect_file(f, SLICE "/cpu.weight", "100\n");
        expect_file(f, SLICE "/cpu.max", "20000 100000\n");
}

/* a bad setting is skipped alone: the rest of its line still applies at login */
static void test_bad_setting_skipped(void **state) {
        Fx *f = *state;
        char from[1024];

        conf(f, "* CPUWeight=100\n@staff CPUWieght=300 CPUQuota=30%\n");
        service(f, "cgroup_layout=unified strict", "b2");
        run(f, "alice", PAM_SUCCESS, -1);
        expect_log(
                f,
                "cpuslice.conf:2: unknown setting 'CPUWieght=' (allowed: CPUSlice=, CPUWeight=, CPUQuota=, "
                "CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=, PenaltyAbove=, PenaltyWindow=, PenaltyQuota=, PenaltyTime=, PenaltyForget=, PenaltyExempt=); setting skipped");
        expect_file(f, SLICE "/cpu.weight", "100\n");
        expect_file(f, SLICE "/cpu.max", "30000 100000\n");
        snprintf(from, sizeof from, "alice: CPUQuota= from %s:2", f->conf);
        expect_log(f, from); /* debug names the line it came from, as explain does */
}

static void test_unsafe_config(void **state) {
        Fx *f = *state;

        conf(f, "* CPUWeight=100\n");
        assert_int_equal(chmod(f->conf, 0666), 0);
        service(f, "cgroup_layout=unified", NULL);
        run(f, "alice", PAM_SUCCESS, -1);
        expect_log(f, "file is writable by others (mode 0666); refused");
        expect_log(f, "a config file was refused");
        assert_false(exists(f, "user.slice"));
        service(f, "cgroup_layout=unified strict", NULL);
        run(f, "alice", PAM_SESSION_ERR, -1);
}

static void test_left_alone(void **state) {
        Fx *f = *state;

        conf(f, ":999 CPUSlice=no\n1000:1099 CPUWeight=100\n@students CPUSlice=no\n");
        service(f, "cgroup_layout=unified", NULL);
        run(f, "daemon", PAM_SUCCESS, -1);
        run(f, "root", PAM_SUCCESS, -1);
        run(f, "dave", PAM_SUCCESS, -1); /* uid 1500: no line matches */
        /* per setting: the range gives CPUWeight= only, so CPUSlice= comes from @students */
        run(f, "bob", PAM_SUCCESS, -1);
        run(f, "alice", PAM_SUCCESS, -1);
        assert_false(exists(f, "user.slice/user-1002.slice"));
        assert_true(exists(f, "user.slice/user-1001.slice"));
        expect_log(f, "bob: CPUSlice=no; left alone");
        assert_false(exists(f, "user.slice/user-1.slice"));
        assert_false(exists(f, "user.slice/user-0.slice"));
        assert_false(exists(f, "user.slice/user-1500.slice"));
        expect_log(f, "dave: no config line matches; left alone");
        expect_log(f, "daemon: CPUSlice=no; left alone");
}

static void test_root_named(void **state) {
        Fx *f = *state;

        conf(f, "* CPUWeight=100\nroot CPUWeight=1000\n");
        service(f, "cgroup_layout=unified", NULL);
        run(f, "root", PAM_SUCCESS, -1);
        expect_file(f, "user.slice/user-0.slice/cpu.weight", "1000\n");
}

static void test_unknown_user_and_args(void **state) {
        Fx *f = *state;

        conf(f, "* CPUWeight=100\n");
        service(f, "cgroup_layout=unified frobnicate=1 cgroup_layout=sideways timeout=0 timeout=61s timeout=5m",
                NULL);
        run(f, "nosuchuser", PAM_SUCCESS, -1);
        expect_log(f, "unknown argument 'frobnicate=1'; ignored");
        expect_log(f, "bad argument 'cgroup_layout=sideways' (allowed: auto, unified, legacy, hybrid); ignored");
        expect_log(f, "bad argument 'timeout=0' (allowed: a time of 1ms..60s");
        expect_log(f, "bad argument 'timeout=61s'");
        expect_log(f, "bad argument 'timeout=5m'");
        expect_log(f, "user not known to NSS");
        service(f, "cgroup_layout=unified strict", NULL);
        run(f, "nosuchuser", PAM_SESSION_ERR, -1);
}

static void test_backend_systemd_clear_error(void **state) {
        Fx *f = *state;

        conf(f, "* CPUWeight=100\n");
        service(f, "cgroup_layout=unified backend=systemd", NULL);
        run(f, "alice", PAM_SUCCESS, -1);
        expect_log(f, "backend=systemd, but this host was not booted with systemd");
        service(f, "cgroup_layout=unified backend=systemd strict", NULL);
        run(f, "alice", PAM_SESSION_ERR, -1);
        expect_no_log(f, "joined");
}

static int count_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        int n = 0;
        for (struct dirent *de; d && (de = readdir(d));)
                n += de->d_name[0] != '.';
        if (d)
                closedir(d);
        return n - 1; /* the one opendir holds */
}

/* In the child: every fd the module opened is closed again after open_session, and none
 * it leaves would survive exec. */
static int fd_child_main(const char *user) {
        struct pam_testcase warm[] = { pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS),
                                       pam_test(PAMTEST_CLOSE_SESSION, PAM_SUCCESS) };
        struct pam_testcase open_only[] = { pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS) };
        int before, after;

        /* libpam and the wrappers open their own files on first use */
        if (_pamtest("cs", user, NULL, warm, 2, NULL) != PAMTEST_ERR_OK)
                return 1;
        before = count_fds();
        if (_pamtest("cs", user, NULL, open_only, 1, NULL) != PAMTEST_ERR_OK)
                return 2;
        after = count_fds();
        fprintf(stderr, "FDS before=%d after=%d\n", before, after);
        return before == after ? 0 : 3;
}

static void test_no_fd_leak(void **state) {
        Fx *f = *state;
        int status;

        conf(f, "* CPUWeight=100\n");
        service(f, "cgroup_layout=unified", "fd1");
        status = run_self(f, (const char *const[]) { "--fds", "alice", NULL });
        expect_log(f, "FDS before=");
        if (status != 0)
                fail_msg("fd leak check failed: %s", slurp(f->log));
}

static void test_dlopen_exports(void **state) {
        void *h = dlopen(module_path(), RTLD_NOW | RTLD_LOCAL);

        if (!h)
                fail_msg("dlopen: %s", dlerror());
        assert_non_null(dlsym(h, "pam_sm_open_session"));
        assert_non_null(dlsym(h, "pam_sm_close_session"));
        /* only the PAM entry points leave the .so */
        assert_null(dlsym(h, "cgfs_open"));
        assert_null(dlsym(h, "conf_load"));
        /* libsystemd comes only with the plugin, on systemd hosts */
        assert_null(dlopen("libsystemd.so.0", RTLD_NOW | RTLD_NOLOAD));
        dlclose(h);
}

static void test_systemd_plugin(void **state) {
        char path[4096], *slash;
        const unsigned *abi;
        void *h;

        snprintf(path, sizeof path, "%s", module_path());
        slash = strrchr(path, '/');
        assert_non_null(slash);
        snprintf(slash + 1, sizeof path - (size_t) (slash + 1 - path), "pam_cpuslice-systemd.so");
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h)
                fail_msg("dlopen %s: %s", path, dlerror());
        abi = dlsym(h, "cpuslice_systemd_plugin");
        assert_non_null(abi);
        assert_int_equal(*abi, 6); /* SYSTEMD_PLUGIN_ABI */
        assert_null(dlsym(h, "bus_apply_slice"));
        dlclose(h);
}

/* The service "cs" with the module copied to mod, on the systemd backend and a bus that is not there */
static void plugin_service(Fx *f, const char *mod, const char *args) {
        char text[8192];

        snprintf(text, sizeof text,
                 "session required %s%s conf=%s confdir=%s/none rundir=%s/none backend=systemd bus_socket=%s/nobus "
                 "timeout=300ms %s\nsession required pam_permit.so\n",
                 mod, strrchr(module_path(), '/'), f->conf, f->dir, f->dir, f->dir, args);
        assert_int_equal(write_file(f->services, "cs", text, 0644), 0);
}

/* A login goes on without a slice, and the log names what was refused and why. */
static void expect_plugin_refused(Fx *f, const char *path, const char *why) {
        char text[2048];

        run(f, "alice", PAM_SUCCESS, -1);
        snprintf(text, sizeof text, "%s is %s; the systemd backend is not loaded from it", path, why);
        expect_log(f, text);
}

static void copy_file(const char *from, const char *to, mode_t mode) {
        char buf[65536];
        int in = open(from, O_RDONLY | O_CLOEXEC), out;
        ssize_t n;

        assert_true(in >= 0);
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(out >= 0);
        while ((n = read(in, buf, sizeof buf)) > 0)
                assert_int_equal(write(out, buf, (size_t) n), n);
        assert_int_equal(n, 0);
        assert_int_equal(fchmod(out, mode), 0);
        close(in);
        close(out);
}

/* the plugin runs as root in every su: it and its directory must be root's (or, for a
 * test run as a user, that user's) and writable by no one else, and a symlink is not followed. */
static void test_plugin_checked(void **state) {
        Fx *f = *state;
        char mod[700], plugin[800], real[800], cmd[1024], text[8192];
        const char *slash = strrchr(module_path(), '/');

        snprintf(mod, sizeof mod, "%s/mod", f->dir);
        assert_int_equal(mkdir(mod, 0755), 0);
        assert_int_equal(chmod(mod, 0755), 0);
        snprintf(cmd, sizeof cmd, "%.*s/pam_cpuslice-systemd.so", (int) (slash - module_path()), module_path());
        snprintf(plugin, sizeof plugin, "%s/pam_cpuslice-systemd.so", mod);
        snprintf(real, sizeof real, "%s/real-systemd.so", mod);
        snprintf(text, sizeof text, "%s/%s", mod, slash + 1);
        /* in this process: a child under pam_wrapper would race the PAM runs for /tmp/pam.X */
        copy_file(module_path(), text, 0755);
        copy_file(cmd, plugin, 0755);
        copy_file(cmd, real, 0755);
        conf(f, "* CPUWeight=100\n");
        plugin_service(f, mod, "debug");

        /* as built: loaded, and it is the bus that is missing */
        run(f, "alice", PAM_SUCCESS, -1);
        expect_no_log(f, "the systemd backend is not loaded");
        expect_no_log(f, "cannot load the systemd backend");
        expect_log(f, "login proceeds without a CPU slice");

        assert_int_equal(chmod(plugin, 0775), 0);
        expect_plugin_refused(f, plugin, "writable by its group or others (mode 0775)");
        assert_int_equal(chmod(plugin, 0755), 0);
        assert_int_equal(chmod(mod, 0777), 0);
        expect_plugin_refused(f, mod, "writable by its group or others (mode 0777)");
        assert_int_equal(chmod(mod, 0755), 0);
        if (geteuid() == 0) {
                assert_int_equal(chown(plugin, 1001, 1001), 0);
                expect_plugin_refused(f, plugin, "owned by uid 1001, not root");
                assert_int_equal(chown(plugin, 0, 0), 0);
                assert_int_equal(chown(mod, 1001, 1001), 0);
                expect_plugin_refused(f, mod, "owned by uid 1001, not root");
                assert_int_equal(chown(mod, 0, 0), 0);
        }
        assert_int_equal(unlink(plugin), 0);
        assert_int_equal(symlink("real-systemd.so", plugin), 0);
        expect_plugin_refused(f, plugin, "a symlink");
        /* strict: a refused plugin denies the session, as any other failure does */
        plugin_service(f, mod, "strict");
        run(f, "alice", PAM_SESSION_ERR, -1);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(int argc, char **argv) {
        fx_set_self(argv[0]);
        if (argc == 6 && strcmp(argv[1], "--pam") == 0)
                return child_main(argc, argv);
        if (argc == 3 && strcmp(argv[1], "--fds") == 0)
                return fd_child_main(argv[2]);
        const struct CMUnitTest tests[] = {
                T(test_unified_values),
                T(test_caller_umask),
                T(test_unified_idle_and_adjusted_period),
                T(test_legacy_values),
                T(test_hybrid_mirror),
                T(test_slice_root),
                T(test_hostile_session_id),
                T(test_close_moves_back),
                T(test_close_failure_logged),
                T(test_fail_open_and_strict),
                T(test_broken_config),
                T(test_bad_setting_skipped),
                T(test_unsafe_config),
                T(test_left_alone),
                T(test_root_named),
                T(test_unknown_user_and_args),
                T(test_backend_systemd_clear_error),
                T(test_no_fd_leak),
                T(test_dlopen_exports),
                T(test_systemd_plugin),
                T(test_plugin_checked),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
