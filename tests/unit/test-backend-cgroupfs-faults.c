/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroupfs backend opening a session while the kernel refuses: each call of CgfsOps failed
 * in turn (errno, message, what is left behind), the retries when a concurrent close removes the
 * slice, and a real-time process on v1. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgfs-fixture.h"

/* ---- fault injection on open ---- */

typedef struct FaultCase {
        const char *name;
        TestLayout tl;
        const char *id;
        Fault fault;
        int r;            /* expected result */
        const char *msg;  /* expected in the message */
        bool cgroupfs;    /* emulate cgroupfs rmdir, so a partial scope can be removed */
        const char *gone; /* must not exist afterwards (a partially created scope) */
        const char *kept; /* must exist afterwards */
} FaultCase;

static const FaultCase fault_cases[] = {
        { "cpu.max EINVAL",
          TL_UNIFIED,
          "7",
          { OP_WRITE, "cpu.max", EINVAL },
          -EINVAL,
          "user-1001.slice: writing '50000 100000' to cpu.max: Invalid argument",
          .gone = SCOPE },
        { "cpu.max EACCES",
          TL_UNIFIED,
          "7",
          { OP_WRITE, "cpu.max", EACCES },
          -EACCES,
          "user-1001.slice: writing '50000 100000' to cpu.max: Permission denied",
          .gone = SCOPE },
        { "cpu.max EBUSY",
          TL_UNIFIED,
          "7",
          { OP_WRITE, "cpu.max", EBUSY },
          -EBUSY,
          "user-1001.slice: writing '50000 100000' to cpu.max: Device or resource busy",
          .gone = SCOPE },
        { "cpu.weight ERANGE",
          TL_UNIFIED,
          "7",
          { OP_WRITE, "cpu.weight", ERANGE },
          -ERANGE,
          "user-1001.slice: writing '300' to cpu.weight: Numerical result out of range",
          .gone = SCOPE },
        { "cpu.idle missing (old kernel) is fine without idle",
          TL_UNIFIED,
          "7",
          { OP_OPENAT, "cpu.idle", ENOENT },
          0,
          .kept = SCOPE "/cgroup.procs" },
        { "cpu.idle EACCES",
          TL_UNIFIED,
          "7",
          { OP_WRITE, "cpu.idle", EACCES },
          -EACCES,
          "user-1001.slice: writing '0' to cpu.idle: Permission denied",
          .gone = SCOPE },
        { "subtree_control EACCES",
          TL_UNIFIED,
          "7",
          { OP_WRITE, "cgroup.subtree_control", EACCES },
          -EACCES,
          "enabling the cpu controller below user.slice/user-1001.slice: "
          "writing '+cpu' to cgroup.subtree_control: Permission denied",
          .gone = "user.slice" },
        { "cpu.shares EINVAL",
          TL_LEGACY,
          "7",
          { OP_WRITE, "cpu.shares", EINVAL },
          -EINVAL,
          "user-1001.slice: writing '3072' to cpu.shares: Invalid argument",
          .gone = "cpu/" SCOPE },
        { "cpu.shares EACCES",
          TL_HYBRID,
          "7",
          { OP_WRITE, "cpu.shares", EACCES },
          -EACCES,
          "user-1001.slice: writing '3072' to cpu.shares: Permission denied",
          .gone = "cpu/" SCOPE },
        { "cpu.shares EBUSY",
          TL_HYBRID,
          "7",
          { OP_WRITE, "cpu.shares", EBUSY },
          -EBUSY,
          "user-1001.slice: writing '3072' to cpu.shares: Device or resource busy",
          .gone = "cpu/" SCOPE },
        { "cpu.cfs_quota_us EINVAL",
          TL_HYBRID,
          "7",
          { OP_WRITE, "cpu.cfs_quota_us", EINVAL },
          -EINVAL,
          "user-1001.slice: writing '50000' to cpu.cfs_quota_us: Invalid argument",
          .gone = "cpu/" SCOPE },
        { "cpu.cfs_period_us short write",
          TL_HYBRID,
          "7",
          { OP_WRITE, "cpu.cfs_period_us", SHORT_WRITE },
          -EIO,
          "user-1001.slice: short write to cpu.cfs_period_us",
          .gone = "cpu/" SCOPE },
        { "mkdir user.slice ENOSPC",
          TL_UNIFIED,
          "7",
          { OP_MKDIRAT, "user.slice", ENOSPC },
          -ENOSPC,
          "cannot create user.slice: No space left on device",
          .gone = "user.slice" },
        { "mkdir slice ENOMEM",
          TL_HYBRID,
          "7",
          { OP_MKDIRAT, "user-1001.slice", ENOMEM },
          -ENOMEM,
          "cannot create user-1001.slice: Cannot allocate memory",
          .gone = "cpu/" SLICE },
        { "mkdir scope ENOSPC",
          TL_HYBRID,
          "7",
          { OP_MKDIRAT, "session-7.scope", ENOSPC },
          -ENOSPC,
          "cannot create session-7.scope: No space left on device",
          .gone = "cpu/" SCOPE },
        { "mkdir pam scope ENOMEM",
          TL_LEGACY,
          NULL,
          { OP_MKDIRAT, NULL, ENOMEM, .skip = 2 },
          -ENOMEM,
          "cannot create session-pam-",
          .gone = "cpu/" SLICE "/session-pam-*" },
        { "mkdir mirror scope ENOSPC",
          TL_HYBRID,
          "7",
          { OP_MKDIRAT, "session-7.scope", ENOSPC, .under = "/unified/" },
          -ENOSPC,
          "cannot create session-7.scope: No space left on device",
          .gone = "cpu/" SCOPE },
        { "mkdir mirror slice ENOMEM",
          TL_LEGACY,
          "7",
          { OP_MKDIRAT, "user-1001.slice", ENOMEM, .under = "/cpuacct/" },
          -ENOMEM,
          "cannot create user-1001.slice: Cannot allocate memory",
          .gone = "cpu/" SCOPE },
        { "cgroup.procs EACCES",
          TL_UNIFIED,
          "7",
          { OP_WRITE, "cgroup.procs", EACCES },
          -EACCES,
          "writing '@PID@' to cgroup.procs: Permission denied",
          .cgroupfs = true,
          .gone = SLICE },
        { "cgroup.procs EINVAL on v1 (not real-time)",
          TL_HYBRID,
          "7",
          { OP_WRITE, "cgroup.procs", EINVAL },
          -EINVAL,
          "writing '@PID@' to cgroup.procs: Invalid argument",
          .cgroupfs = true,
          .gone = "cpu/" SLICE },
        { "mirror cgroup.procs EBUSY",
          TL_HYBRID,
          "7",
          { OP_WRITE, "cgroup.procs", EBUSY, .count = 1, .under = "/unified/" },
          -EBUSY,
          "writing '@PID@' to cgroup.procs: Device or resource busy",
          .cgroupfs = true,
          .gone = "unified/" SLICE },
        { "cgroup.procs refused, scope left populated",
          TL_LEGACY,
          "7",
          { OP_WRITE, "cgroup.procs", EPERM, .under = "/cpuacct/" },
          -EPERM,
          "writing '@PID@' to cgroup.procs: Operation not permitted",
          .gone = NULL,
          .kept = "cpu/" SCOPE },
        { "slice ENOENT once: retried",
          TL_UNIFIED,
          "7",
          { OP_OPENAT, "user-1001.slice", ENOENT, .count = 1 },
          0,
          .kept = SCOPE "/cgroup.procs" },
        { "slice ENOENT 7 times: retried",
          TL_HYBRID,
          "7",
          { OP_OPENAT, "user-1001.slice", ENOENT, .count = 7 },
          0,
          .kept = "unified/" SCOPE "/cgroup.procs" },
        { "slice ENOENT forever",
          TL_UNIFIED,
          "7",
          { OP_OPENAT, "user-1001.slice", ENOENT },
          -ENOENT,
          "cannot open user-1001.slice: No such file or directory",
          .gone = SCOPE },
        { "scope mkdir ENOENT once (slice removed under us)",
          TL_HYBRID,
          NULL,
          { OP_MKDIRAT, NULL, ENOENT, .skip = 2, .count = 1 },
          0,
          .kept = "cpu/" SLICE "/session-pam-@PID@.scope" },
        { "cgroup.procs ENOENT once (scope removed under us)",
          TL_UNIFIED,
          "7",
          { OP_OPENAT, "cgroup.procs", ENOENT, .count = 1 },
          0,
          .kept = SCOPE "/cgroup.procs" },
        /* cgroupfs: a write to a file of a cgroup removed after it was opened fails with ENODEV */
        { "cpu.cfs_period_us ENODEV once (slice removed under us)",
          TL_HYBRID,
          "7",
          { OP_WRITE, "cpu.cfs_period_us", ENODEV, .count = 1 },
          0,
          .kept = "unified/" SCOPE "/cgroup.procs" },
        { "cpu.max ENODEV once (slice removed under us)",
          TL_UNIFIED,
          NULL,
          { OP_WRITE, "cpu.max", ENODEV, .count = 1 },
          0,
          .kept = SLICE "/session-pam-@PID@.scope/cgroup.procs",
          .gone = SLICE "/session-pam-@PID@-1.scope" },
        { "cgroup.procs ENODEV once (scope removed by gc)",
          TL_LEGACY,
          "7",
          { OP_WRITE, "cgroup.procs", ENODEV, .count = 1 },
          0,
          .kept = "cpuacct/" SCOPE "/cgroup.procs" },
        { "cpu.shares ENODEV forever",
          TL_LEGACY,
          "7",
          { OP_WRITE, "cpu.shares", ENODEV },
          -ENODEV,
          "user-1001.slice: writing '3072' to cpu.shares: No such device",
          .gone = "cpu/" SCOPE },
        /* a retry reuses the scope an earlier attempt made rather than leaving it behind */
        { "mirror slice ENOENT once",
          TL_HYBRID,
          NULL,
          { OP_OPENAT, "user-1001.slice", ENOENT, .count = 1, .under = "/unified/" },
          0,
          .kept = "unified/" SLICE "/session-pam-@PID@.scope/cgroup.procs",
          .gone = "cpu/" SLICE "/session-pam-@PID@-1.scope" },
        { "mirror slice ENOENT forever",
          TL_HYBRID,
          NULL,
          { OP_OPENAT, "user-1001.slice", ENOENT, .under = "/unified/" },
          -ENOENT,
          "cannot open user-1001.slice",
          .gone = "cpu/" SLICE "/session-pam-*" },
        { "opening the cgroup root EMFILE",
          TL_UNIFIED,
          "7",
          { OP_OPENAT, ".", EMFILE },
          -EMFILE,
          "cannot open the cgroup root: Too many open files" },
        { "the hierarchy EACCES",
          TL_HYBRID,
          "7",
          { OP_OPENAT, "cpu", EACCES },
          -EACCES,
          "cpu: Permission denied",
          .gone = "cpu/user.slice" },
};

static void subst_pid(const char *in, pid_t pid, char *out, size_t n) {
        const char *m = strstr(in, "@PID@");

        if (m)
                snprintf(out, n, "%.*s%d%s", (int) (m - in), in, (int) pid, m + 5);
        else
                snprintf(out, n, "%s", in);
}

/* "dir/prefix*": whether any entry of dir starts with prefix */
static bool exists_glob(Fx *f, const char *rel) {
        char dir[1024], *star = strchr(rel, '*');
        const char *prefix;
        DIR *d;
        struct dirent *de;
        bool found = false;

        if (!star)
                return exists(f, rel);
        snprintf(dir, sizeof dir, "%s/%.*s", f->root, (int) (star - rel), rel);
        *strrchr(dir, '/') = '\0';
        prefix = strrchr(rel, '/') + 1;
        d = opendir(dir);
        if (!d)
                return false;
        while ((de = readdir(d)))
                found = found || strncmp(de->d_name, prefix, (size_t) (star - prefix)) == 0;
        closedir(d);
        return found;
}

static void test_open_faults(void **state) {
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(fault_cases); i++) {
                const FaultCase *t = &fault_cases[i];
                CpuKernelValues k = W300_Q50;
                CgfsSession s = {};
                char want[512], rel[512];
                int r;

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                open_tl(f, t->tl, "", &fake_ops);
                fake_add(t->fault);
                fake.cgroupfs = t->cgroupfs;
                f->e = (CsError) {};
                r = cgfs_open_session(&f->c, UID, t->id, f->pid, &k, &s, &f->e);
                if (r != t->r)
                        fail_msg("case '%s': got %d (%s), expected %d", t->name, r, f->e.msg, t->r);
                if (r < 0) {
                        subst_pid(t->msg, f->pid, want, sizeof want);
                        if (f->e.code != r || !strstr(f->e.msg, want))
                                fail_msg("case '%s': message '%s' lacks '%s'", t->name, f->e.msg, want);
                        /* no record handed out */
                        assert_null(s.orig_cpu);
                        assert_null(s.orig_acct);
                        assert_int_equal(s.uid, 0);
                } else {
                        assert_int_equal(s.uid, UID);
                        cgfs_session_done(&s);
                }
                if (t->gone) {
                        subst_pid(t->gone, f->pid, rel, sizeof rel);
                        if (exists_glob(f, rel))
                                fail_msg("case '%s': %s left behind", t->name, rel);
                }
                if (t->kept) {
                        subst_pid(t->kept, f->pid, rel, sizeof rel);
                        if (!exists(f, rel))
                                fail_msg("case '%s': %s missing", t->name, rel);
                }
        }
}

/* the retry limit: each attempt opens the slice, creates it when missing, and opens it again */
static void test_open_retry_limit(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_UNIFIED, "", &fake_ops);
        fake_add((Fault) { OP_OPENAT, "user-1001.slice", ENOENT });
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -ENOENT);
        assert_int_equal(count_calls(OP_OPENAT, "user-1001.slice", false), 2 * 8); /* CGFS_OPEN_ATTEMPTS */
        assert_int_equal(count_calls(OP_MKDIRAT, "session-7.scope", false), 0);
        /* ENODEV (a removed cgroup's file) the same */
        fake_reset();
        fake_add((Fault) { OP_WRITE, "cpu.max", ENODEV });
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -ENODEV);
        assert_int_equal(count_calls(OP_WRITE, "cpu.max", false), 8);
        /* other errors are not retried */
        fake_reset();
        fake_add((Fault) { OP_OPENAT, "user-1001.slice", EACCES });
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EACCES);
        assert_int_equal(count_calls(OP_OPENAT, "user-1001.slice", false), 1);
        assert_string_equal(f->e.msg, "cannot open user-1001.slice: Permission denied");
}

/* v2 without the cpu controller (bound to v1): "+cpu" fails with ENOENT, which is not a cgroup
 * removed under us, so not tried again */
static void test_open_no_cpu_controller(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_UNIFIED, "", &fake_ops);
        put(f, "cgroup.controllers", "memory pids\n");
        fake_add((Fault) { OP_WRITE, "cgroup.subtree_control", ENOENT });
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EOPNOTSUPP);
        assert_int_equal(count_calls(OP_WRITE, "cgroup.subtree_control", false), 1);
        assert_non_null(strstr(f->e.msg, "the cpu controller is not available below"));
        /* with cpu listed, the same answer is a cgroup removed under us: tried again */
        fake_reset();
        put(f, "cgroup.controllers", "cpu memory pids\n");
        fake_add((Fault) { OP_WRITE, "cgroup.subtree_control", ENOENT });
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -ENOENT);
        assert_int_equal(count_calls(OP_WRITE, "cgroup.subtree_control", false), 8); /* CGFS_OPEN_ATTEMPTS */
}

/* A real-time process cannot join a new v1 cpu group (no cpu.rt_runtime_us): a clear message. */
static void test_open_realtime(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        struct sched_param sp = { .sched_priority = 1 };
        CgfsSession s = {};
        pid_t child;
        int r;

        child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                /* never outlive a failing test, nor hold its output open */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() == 1)
                        _exit(0);
                (void) freopen("/dev/null", "w", stdout);
                (void) freopen("/dev/null", "w", stderr);
                for (;;)
                        pause();
        }
        if (sched_setscheduler(child, SCHED_FIFO, &sp) < 0) {
                int err = errno;
                kill(child, SIGKILL);
                waitpid(child, NULL, 0);
                if (getenv("CPUSLICE_REQUIRE_ALL"))
                        fail_msg("cannot make a process real-time (%s), and CPUSLICE_REQUIRE_ALL is set",
                                 strerror(err));
                print_message("skipping: cannot make a process real-time: %s\n", strerror(err));
                skip();
        }
        open_tl(f, TL_HYBRID, "", &fake_ops);
        fake_add((Fault) { OP_WRITE, "cgroup.procs", EINVAL });
        r = cgfs_open_session(&f->c, UID, "7", child, &k, &s, &f->e);
        assert_int_equal(r, -EINVAL);
        assert_non_null(strstr(f->e.msg, "has a real-time scheduling policy"));
        assert_non_null(strstr(f->e.msg, "cpu.rt_runtime_us"));
        /* on v2 the same error is passed on as it is */
        cgfs_close(&f->c);
        open_tl(f, TL_UNIFIED, "", &fake_ops);
        r = cgfs_open_session(&f->c, UID, "7", child, &k, &s, &f->e);
        assert_int_equal(r, -EINVAL);
        assert_null(strstr(f->e.msg, "real-time"));
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_open_faults),
                T(test_open_retry_limit),
                T(test_open_no_cpu_controller),
                T(test_open_realtime),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
