/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroupfs backend against scratch trees laid out like cgroupfs (check_fs off: files are
 * created on write). Faults are injected through a CgfsOps table wrapping the real calls; for the
 * close and gc paths the table can also emulate cgroupfs (rmdir succeeds only on an unpopulated
 * leaf; writing a pid to cgroup.procs moves it out of the hierarchy's other cgroups). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "backend-cgroupfs.h"
#include "cgfs-fake.h"
#include "session-id-cases.h"
#include "test-util.h"

#define UID 1001
#define SLICE "user.slice/user-1001.slice"
#define SCOPE SLICE "/session-7.scope"

/* ---- fixture ---- */

typedef enum TestLayout { TL_UNIFIED, TL_LEGACY, TL_LEGACY_NOACCT, TL_HYBRID, _TL_MAX } TestLayout;

static const char *const tl_names[_TL_MAX] = { "unified", "legacy", "legacy without cpuacct", "hybrid" };
/* hierarchy directories below the root ("" is the root itself) */
static const char *const tl_cpu[_TL_MAX] = { "", "cpu/", "cpu/", "cpu/" };
static const char *const tl_acct[_TL_MAX] = { NULL, "cpuacct/", NULL, "unified/" };

typedef struct Fx {
        char *dir;
        char root[512];    /* the fake cgroup root */
        char outside[512]; /* where planted symlinks point */
        pid_t pid;
        char pidline[32];
        int fds;           /* open fds at setup: the backend must leave none behind */
        Cgfs c;
        CsError e;
} Fx;

static int count_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        int n = 0;

        if (!d)
                return -1;
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

static int setup(void **state) {
        Fx *f = calloc(1, sizeof *f);
        char *tmp;

        if (!f)
                return -1;
        umask(022);
        tmp = scratch_dir();
        if (!tmp)
                return -1;
        f->dir = realpath(tmp, NULL); /* /proc/self/fd links are compared against it */
        free(tmp);
        if (!f->dir)
                return -1;
        snprintf(f->root, sizeof f->root, "%s/cgroup", f->dir);
        snprintf(f->outside, sizeof f->outside, "%s/outside", f->dir);
        if (mkdir(f->root, 0755) < 0 || mkdir(f->outside, 0755) < 0)
                return -1;
        f->pid = getpid();
        snprintf(f->pidline, sizeof f->pidline, "%d\n", (int) f->pid);
        f->c.root_fd = -EBADF;
        fake_reset();
        f->fds = count_fds();
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fx *f = *state;
        int fds, before = f->fds;

        cgfs_close(&f->c);
        fds = count_fds();
        rm_rf(f->dir);
        free(f->dir);
        free(f);
        if (fds != -1 && fds != before) {
                fprintf(stderr, "file descriptors leaked: %d at setup, %d at teardown\n", before, fds);
                return -1;
        }
        return 0;
}

/* the fixture's path for REL; a test path that does not fit is the test's bug */
static char *fx_path(Fx *f, const char *rel, char *p, size_t n) {
        int k = snprintf(p, n, "%s/%s", f->root, rel);

        assert_true(k > 0 && (size_t) k < n);
        return p;
}

static void mkdir_p(Fx *f, const char *rel) {
        char p[1024];

        fx_path(f, rel, p, sizeof p);
        for (char *s = p + strlen(f->root) + 1; *s; s++)
                if (*s == '/') {
                        *s = '\0';
                        assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
                        *s = '/';
                }
        assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void put(Fx *f, const char *rel, const char *text) {
        char p[1024];

        fx_path(f, rel, p, sizeof p);
        FILE *fp = fopen(p, "we");
        assert_non_null(fp);
        fputs(text, fp);
        assert_int_equal(fclose(fp), 0);
}

static char *get(Fx *f, const char *rel) {
        char p[1024];
        int fd;
        char *text;

        fx_path(f, rel, p, sizeof p);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        text = read_fd_text(fd);
        close(fd);
        return text;
}

static bool exists(Fx *f, const char *rel) {
        char p[1024];
        struct stat st;

        fx_path(f, rel, p, sizeof p);
        return lstat(p, &st) == 0;
}

#define assert_file(f, rel, want)                                              \
        do {                                                                   \
                char *_t = get(f, rel);                                        \
                if (!_t)                                                       \
                        fail_msg("%s: missing", (const char *) (rel));         \
                assert_string_equal(_t, want);                                 \
                free(_t);                                                      \
        } while (0)

/* a hierarchy root for emulate_move(), without a trailing slash */
static void set_hier(Fx *f, const char *sub) {
        char *h = fake.hier[fake.n_hier++];
        size_t n;

        snprintf(h, PATH_MAX, "%s/%s", f->root, sub);
        for (n = strlen(h); n > 1 && h[n - 1] == '/'; n--)
                h[n - 1] = '\0';
}

/* Opens the backend on a scratch tree with the hierarchy directories a named layout expects. */
/* slices non-NULL: the user slices in that cgroup (cgfs_open_slices), parent ignored */
static void open_tl_at(Fx *f, TestLayout tl, const char *parent, const char *slices, const CgfsOps *ops) {
        static const CgroupLayoutKind kinds[_TL_MAX] = { CGROUP_LAYOUT_UNIFIED, CGROUP_LAYOUT_LEGACY,
                                                         CGROUP_LAYOUT_LEGACY, CGROUP_LAYOUT_HYBRID };
        CgroupLayout l = {};

        if (*tl_cpu[tl])
                mkdir_p(f, tl_cpu[tl]);
        if (tl_acct[tl])
                mkdir_p(f, tl_acct[tl]);
        fake.n_hier = 0;
        set_hier(f, tl_cpu[tl]);
        if (tl_acct[tl])
                set_hier(f, tl_acct[tl]);
        assert_int_equal(cgroup_layout_named(f->root, kinds[tl], &l, &f->e), 0);
        if ((slices ? cgfs_open_slices(f->root, slices, &l, ops, &f->c, &f->e)
                    : cgfs_open(f->root, parent, &l, ops, &f->c, &f->e)) < 0)
                fail_msg("cgfs_open: %s", f->e.msg);
        cgroup_layout_done(&l);
        /* the scratch dirs are all new, so no empty scope is reaped unless a test says so */
        assert_int_equal(f->c.reap_grace_usec, CGFS_REAP_GRACE_USEC);
        assert_int_equal(f->c.layout.kind, kinds[tl]);
        assert_true((f->c.layout.acct.path != NULL) == (tl_acct[tl] != NULL));
}

static void open_tl(Fx *f, TestLayout tl, const char *parent, const CgfsOps *ops) {
        open_tl_at(f, tl, parent, NULL, ops);
}

static CpuKernelValues kv(uint64_t weight, uint64_t quota_per_sec) {
        CpuLimits l = { weight, quota_per_sec, CPU_PERIOD_DEFAULT_USEC };
        CpuKernelValues k;

        cpu_limits_to_kernel(&l, &k);
        return k;
}

#define W300_Q50 kv(300, 500000)        /* CPUWeight=300 CPUQuota=50% */
#define IDLE_Q05 kv(CPU_WEIGHT_IDLE, 5000) /* CPUWeight=idle CPUQuota=0.5%: the period grows to 200 ms */
#define DEFAULTS kv(CPU_WEIGHT_DEFAULT, CPU_QUOTA_INFINITY)

/* ---- the whole tree as text: "dir/", "file = content" (newlines as \n), "link -> target" ---- */

static size_t m_base;
static char *m_lines[512];
static size_t m_n;

static int m_add(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        char line[1024], target[512];
        const char *rel = path + m_base;

        if (!*rel)
                return 0;
        rel++;
        assert_true(m_n < ELEMENTSOF(m_lines));
        if (type == FTW_D || type == FTW_DP)
                snprintf(line, sizeof line, "%s/", rel);
        else if (type == FTW_SL) {
                ssize_t k = readlink(path, target, sizeof target - 1);
                target[k > 0 ? k : 0] = '\0';
                snprintf(line, sizeof line, "%s -> %s", rel, target);
        } else {
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                char *text, *w;
                assert_true(fd >= 0);
                text = read_fd_text(fd);
                close(fd);
                w = line + snprintf(line, sizeof line, "%s = ", rel);
                for (const char *s = text; *s && w < line + sizeof line - 3; s++) {
                        if (*s == '\n') {
                                *w++ = '\\';
                                *w++ = 'n';
                        } else
                                *w++ = *s;
                }
                *w = '\0';
                free(text);
        }
        m_lines[m_n++] = strdup(line);
        return 0;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static char *join_sorted(char **lines, size_t n) {
        size_t len = 1;
        char *out;

        qsort(lines, n, sizeof *lines, cmp_str);
        for (size_t i = 0; i < n; i++)
                len += strlen(lines[i]) + 1;
        out = calloc(1, len);
        assert_non_null(out);
        for (size_t i = 0; i < n; i++) {
                strcat(out, lines[i]);
                strcat(out, "\n");
        }
        return out;
}

static char *manifest(const char *dir) {
        char *out;

        m_base = strlen(dir);
        m_n = 0;
        assert_int_equal(nftw(dir, m_add, 16, FTW_PHYS), 0);
        out = join_sorted(m_lines, m_n);
        for (size_t i = 0; i < m_n; i++)
                free(m_lines[i]);
        return out;
}

/* expected lines with "@PID@" replaced by our pid, sorted and joined like manifest() */
static char *expected(const char *const *lines, pid_t pid) {
        char *v[512], *out;
        size_t n = 0;

        for (size_t i = 0; lines && lines[i]; i++) {
                char buf[1024], pidstr[16];
                const char *m = strstr(lines[i], "@PID@");

                if (!*lines[i])
                        continue; /* assert_tree(dir, pid, "") : an empty tree */
                assert_true(n < ELEMENTSOF(v));
                snprintf(pidstr, sizeof pidstr, "%d", (int) pid);
                if (m)
                        snprintf(buf, sizeof buf, "%.*s%s%s", (int) (m - lines[i]), lines[i], pidstr, m + 5);
                else
                        snprintf(buf, sizeof buf, "%s", lines[i]);
                v[n++] = strdup(buf);
        }
        out = join_sorted(v, n);
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        return out;
}

#define assert_tree(dir, pid, ...)                                                     \
        do {                                                                           \
                char *_got = manifest(dir);                                            \
                char *_want = expected((const char *const[]) { __VA_ARGS__, NULL }, pid); \
                assert_string_equal(_got, _want);                                      \
                free(_got);                                                            \
                free(_want);                                                           \
        } while (0)

/* the cgroup this process is in per /proc/self/cgroup: v2 ("0::") or the v1 line naming controller */
static char *own_cgroup(bool v2, const char *controller) {
        FILE *fp = fopen("/proc/self/cgroup", "re");
        char line[1024], *ret = NULL;

        assert_non_null(fp);
        while (!ret && fgets(line, sizeof line, fp)) {
                char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
                if (!b)
                        continue;
                *a++ = '\0';
                *b++ = '\0';
                b[strcspn(b, "\n")] = '\0';
                if (v2 ? strcmp(line, "0") == 0 && !*a : (strcmp(a, controller) == 0 ||
                                                          (strncmp(a, "cpu,cpuacct", 11) == 0 && !*(a + 11))))
                        ret = strdup(b);
        }
        fclose(fp);
        return ret;
}

static void assert_orig(const char *got, bool v2, const char *controller) {
        char *want = own_cgroup(v2, controller);

        if (want) {
                assert_non_null(got);
                assert_string_equal(got, want);
        } else
                assert_null(got);
        free(want);
}

/* ---- opening sessions: every file written ---- */

typedef struct OpenCase {
        const char *name;
        TestLayout tl;
        const char *parent;
        uint64_t weight, quota;
        const char *const *tree;
        const char *slices;     /* non-NULL: slice_root= instead of parent */
} OpenCase;

#define TREE(...) ((const char *const[]) { __VA_ARGS__, NULL })

static const OpenCase open_cases[] = {
        { "unified, weight 300, quota 50%", TL_UNIFIED, "", 300, 500000,
          TREE("cgroup.subtree_control = +cpu\\n",
               "user.slice/",
               "user.slice/cgroup.subtree_control = +cpu\\n",
               "user.slice/user-1001.slice/",
               "user.slice/user-1001.slice/cgroup.subtree_control = +cpu\\n",
               "user.slice/user-1001.slice/cpu.idle = 0\\n",
               "user.slice/user-1001.slice/cpu.weight = 300\\n",
               "user.slice/user-1001.slice/cpu.max = 50000 100000\\n",
               "user.slice/user-1001.slice/session-7.scope/",
               "user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "unified below a parent, idle, quota 0.5%", TL_UNIFIED, "scratch/sub", CPU_WEIGHT_IDLE, 5000,
          TREE("cgroup.subtree_control = +cpu\\n",
               "scratch/",
               "scratch/cgroup.subtree_control = +cpu\\n",
               "scratch/sub/",
               "scratch/sub/cgroup.subtree_control = +cpu\\n",
               "scratch/sub/user.slice/",
               "scratch/sub/user.slice/cgroup.subtree_control = +cpu\\n",
               "scratch/sub/user.slice/user-1001.slice/",
               "scratch/sub/user.slice/user-1001.slice/cgroup.subtree_control = +cpu\\n",
               "scratch/sub/user.slice/user-1001.slice/cpu.idle = 1\\n",
               "scratch/sub/user.slice/user-1001.slice/cpu.max = 1000 200000\\n",
               "scratch/sub/user.slice/user-1001.slice/session-7.scope/",
               "scratch/sub/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "legacy with cpuacct, weight 300, quota 50%", TL_LEGACY, "", 300, 500000,
          TREE("cpu/",
               "cpu/user.slice/",
               "cpu/user.slice/user-1001.slice/",
               "cpu/user.slice/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_period_us = 100000\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_quota_us = 50000\\n",
               "cpu/user.slice/user-1001.slice/session-7.scope/",
               "cpu/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n",
               "cpuacct/",
               "cpuacct/user.slice/",
               "cpuacct/user.slice/user-1001.slice/",
               "cpuacct/user.slice/user-1001.slice/session-7.scope/",
               "cpuacct/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "legacy with cpuacct, idle, quota 0.5%, below a parent", TL_LEGACY, "p", CPU_WEIGHT_IDLE, 5000,
          TREE("cpu/",
               "cpu/p/",
               "cpu/p/user.slice/",
               "cpu/p/user.slice/user-1001.slice/",
               "cpu/p/user.slice/user-1001.slice/cpu.shares = 2\\n",
               "cpu/p/user.slice/user-1001.slice/cpu.cfs_period_us = 200000\\n",
               "cpu/p/user.slice/user-1001.slice/cpu.cfs_quota_us = 1000\\n",
               "cpu/p/user.slice/user-1001.slice/session-7.scope/",
               "cpu/p/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n",
               "cpuacct/",
               "cpuacct/p/",
               "cpuacct/p/user.slice/",
               "cpuacct/p/user.slice/user-1001.slice/",
               "cpuacct/p/user.slice/user-1001.slice/session-7.scope/",
               "cpuacct/p/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "legacy without cpuacct: no mirror, no quota", TL_LEGACY_NOACCT, "", 300, CPU_QUOTA_INFINITY,
          TREE("cpu/",
               "cpu/user.slice/",
               "cpu/user.slice/user-1001.slice/",
               "cpu/user.slice/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_period_us = 100000\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_quota_us = -1\\n",
               "cpu/user.slice/user-1001.slice/session-7.scope/",
               "cpu/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "hybrid below a parent, weight 300, quota 50%", TL_HYBRID, "p", 300, 500000,
          TREE("cpu/",
               "cpu/p/",
               "cpu/p/user.slice/",
               "cpu/p/user.slice/user-1001.slice/",
               "cpu/p/user.slice/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/p/user.slice/user-1001.slice/cpu.cfs_period_us = 100000\\n",
               "cpu/p/user.slice/user-1001.slice/cpu.cfs_quota_us = 50000\\n",
               "cpu/p/user.slice/user-1001.slice/session-7.scope/",
               "cpu/p/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n",
               /* the mirror: no controller enabled, no settings, only the process */
               "unified/",
               "unified/p/",
               "unified/p/user.slice/",
               "unified/p/user.slice/user-1001.slice/",
               "unified/p/user.slice/user-1001.slice/session-7.scope/",
               "unified/p/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "hybrid, idle, quota 0.5%", TL_HYBRID, "", CPU_WEIGHT_IDLE, 5000,
          TREE("cpu/",
               "cpu/user.slice/",
               "cpu/user.slice/user-1001.slice/",
               "cpu/user.slice/user-1001.slice/cpu.shares = 2\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_period_us = 200000\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_quota_us = 1000\\n",
               "cpu/user.slice/user-1001.slice/session-7.scope/",
               "cpu/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n",
               "unified/",
               "unified/user.slice/",
               "unified/user.slice/user-1001.slice/",
               "unified/user.slice/user-1001.slice/session-7.scope/",
               "unified/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        /* slice_root=/: the users' slices at the top of each hierarchy, no user.slice between */
        { "unified, slices at the root, weight 300, quota 50%", TL_UNIFIED, NULL, 300, 500000,
          TREE("cgroup.subtree_control = +cpu\\n",
               "user-1001.slice/",
               "user-1001.slice/cgroup.subtree_control = +cpu\\n",
               "user-1001.slice/cpu.idle = 0\\n",
               "user-1001.slice/cpu.weight = 300\\n",
               "user-1001.slice/cpu.max = 50000 100000\\n",
               "user-1001.slice/session-7.scope/",
               "user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n"),
          "" },
        { "hybrid, slices at the root, weight 300, quota 50%", TL_HYBRID, NULL, 300, 500000,
          TREE("cpu/",
               "cpu/user-1001.slice/",
               "cpu/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/user-1001.slice/cpu.cfs_period_us = 100000\\n",
               "cpu/user-1001.slice/cpu.cfs_quota_us = 50000\\n",
               "cpu/user-1001.slice/session-7.scope/",
               "cpu/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n",
               "unified/",
               "unified/user-1001.slice/",
               "unified/user-1001.slice/session-7.scope/",
               "unified/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n"),
          "" },
        { "legacy with cpuacct, slices in a cgroup of the admin's naming", TL_LEGACY, NULL, 300, CPU_QUOTA_INFINITY,
          TREE("cpu/",
               "cpu/users/",
               "cpu/users/user-1001.slice/",
               "cpu/users/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/users/user-1001.slice/cpu.cfs_period_us = 100000\\n",
               "cpu/users/user-1001.slice/cpu.cfs_quota_us = -1\\n",
               "cpu/users/user-1001.slice/session-7.scope/",
               "cpu/users/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n",
               "cpuacct/",
               "cpuacct/users/",
               "cpuacct/users/user-1001.slice/",
               "cpuacct/users/user-1001.slice/session-7.scope/",
               "cpuacct/users/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n"),
          "users" },
};

static void test_open_session(void **state) {
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(open_cases); i++) {
                const OpenCase *t = &open_cases[i];
                CpuKernelValues k = kv(t->weight, t->quota);
                CgfsSession s = {};
                int r;

                print_message("case: %s\n", t->name);
                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                open_tl_at(f, t->tl, t->parent, t->slices, NULL);
                r = cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e);
                if (r < 0)
                        fail_msg("%s: %d %s", t->name, r, f->e.msg);
                assert_int_equal(s.uid, UID);
                assert_string_equal(s.scope, "session-7.scope");
                assert_orig(s.orig_cpu, f->c.layout.cpu.v2, "cpu");
                if (f->c.layout.acct.path)
                        assert_orig(s.orig_acct, f->c.layout.acct.v2, "cpuacct");
                else
                        assert_null(s.orig_acct);
                {
                        char *got = manifest(f->root), *want = expected(t->tree, f->pid);
                        if (strcmp(got, want) != 0)
                                fail_msg("%s:\n--- got\n%s--- want\n%s", t->name, got, want);
                        free(got);
                        free(want);
                }
                /* reading back through the backend */
                {
                        char rel[256], *text = NULL;
                        _cleanup_close_ int fd = -EBADF;
                        snprintf(rel, sizeof rel, "%s%s%suser-1001.slice", tl_cpu[t->tl], f->c.slices,
                                 *f->c.slices ? "/" : "");
                        fd = openat(f->c.root_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        assert_true(fd >= 0);
                        bool v2 = f->c.layout.cpu.v2;
                        r = cgfs_read_file(&f->c, fd, v2 ? "cpu.max" : "cpu.shares", &text, &f->e);
                        assert_int_equal(r, 0);
                        assert_string_equal(text, v2 ? (k.idle ? "1000 200000\n" : "50000 100000\n")
                                                     : (k.idle ? "2\n" : "3072\n"));
                        free(text);
                        assert_int_equal(cgfs_read_file(&f->c, fd, "nonexistent", &text, &f->e), -ENOENT);
                        assert_string_equal(f->e.msg, "cannot open nonexistent: No such file or directory");
                }
                cgfs_session_done(&s);
                assert_null(s.orig_cpu);
        }
}

static void test_apply_and_update_slice(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50, d = DEFAULTS;

        open_tl(f, TL_HYBRID, "", NULL);
        /* update never creates */
        assert_int_equal(cgfs_update_slice(&f->c, UID, &k, &f->e), -ENOENT);
        assert_int_equal(f->e.code, -ENOENT);
        assert_string_equal(f->e.msg, "cannot open user.slice: No such file or directory");
        assert_tree(f->root, f->pid, "cpu/", "unified/");
        assert_int_equal(cgfs_open_user_slice_root(&f->c, &f->c.layout.cpu, &f->e), -ENOENT);
        mkdir_p(f, "cpu/user.slice");
        assert_int_equal(cgfs_update_slice(&f->c, UID, &k, &f->e), -ENOENT);
        assert_string_equal(f->e.msg, "cannot open user-1001.slice: No such file or directory");
        assert_tree(f->root, f->pid, "cpu/", "cpu/user.slice/", "unified/");

        /* apply creates the slice (no scope, no mirror) */
        assert_int_equal(cgfs_apply_slice(&f->c, UID, &k, &f->e), 0);
        assert_tree(f->root, f->pid, "cpu/", "cpu/user.slice/", "cpu/" SLICE "/",
                    "cpu/" SLICE "/cpu.shares = 3072\\n",
                    "cpu/" SLICE "/cpu.cfs_period_us = 100000\\n",
                    "cpu/" SLICE "/cpu.cfs_quota_us = 50000\\n",
                    "unified/");
        /* update rewrites an existing one */
        assert_int_equal(cgfs_update_slice(&f->c, UID, &d, &f->e), 0);
        assert_file(f, "cpu/" SLICE "/cpu.shares", "1024\n");
        assert_file(f, "cpu/" SLICE "/cpu.cfs_period_us", "100000\n");
        assert_file(f, "cpu/" SLICE "/cpu.cfs_quota_us", "-1\n");
        {
                int fd = cgfs_open_user_slice_root(&f->c, &f->c.layout.cpu, &f->e);
                assert_true(fd >= 0);
                close(fd);
        }
}

static void test_update_slice_unified(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50, idle = IDLE_Q05;

        open_tl(f, TL_UNIFIED, "", NULL);
        assert_int_equal(cgfs_update_slice(&f->c, UID, &k, &f->e), -ENOENT);
        assert_tree(f->root, f->pid, "");
        mkdir_p(f, SLICE);
        /* an update writes the values only: no subtree_control on the way */
        assert_int_equal(cgfs_update_slice(&f->c, UID, &idle, &f->e), 0);
        assert_tree(f->root, f->pid, "user.slice/", SLICE "/", SLICE "/cpu.idle = 1\\n",
                    SLICE "/cpu.max = 1000 200000\\n");
        assert_int_equal(cgfs_update_slice(&f->c, UID, &k, &f->e), 0);
        assert_tree(f->root, f->pid, "user.slice/", SLICE "/", SLICE "/cpu.idle = 0\\n",
                    SLICE "/cpu.weight = 300\\n", SLICE "/cpu.max = 50000 100000\\n");
}

#define V1 "cpu/" SLICE

/* A second login re-applies the (maybe changed) settings; those not given go back to defaults. */
static void test_reapply(void **state) {
        static const struct {
                TestLayout tl;
                const char *files[3];
                const char *first[3], *second[3];
        } cases[] = {
                { TL_UNIFIED, { SLICE "/cpu.weight", SLICE "/cpu.max", SLICE "/cpu.idle" },
                  { "300\n", "50000 100000\n", "0\n" }, { "100\n", "max 100000\n", "0\n" } },
                { TL_LEGACY, { V1 "/cpu.shares", V1 "/cpu.cfs_quota_us", V1 "/cpu.cfs_period_us" },
                  { "3072\n", "50000\n", "100000\n" }, { "1024\n", "-1\n", "100000\n" } },
                { TL_HYBRID, { V1 "/cpu.shares", V1 "/cpu.cfs_quota_us", V1 "/cpu.cfs_period_us" },
                  { "3072\n", "50000\n", "100000\n" }, { "1024\n", "-1\n", "100000\n" } },
        };
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CpuKernelValues a = W300_Q50, b = DEFAULTS;
                CgfsSession s1 = {}, s2 = {};

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                open_tl(f, cases[i].tl, "", NULL);
                assert_int_equal(cgfs_open_session(&f->c, UID, "1", f->pid, &a, &s1, &f->e), 0);
                for (size_t j = 0; j < 3; j++)
                        assert_file(f, cases[i].files[j], cases[i].first[j]);
                assert_int_equal(cgfs_open_session(&f->c, UID, "2", f->pid, &b, &s2, &f->e), 0);
                for (size_t j = 0; j < 3; j++)
                        assert_file(f, cases[i].files[j], cases[i].second[j]);
                assert_string_equal(s2.scope, "session-2.scope");
                cgfs_session_done(&s1);
                cgfs_session_done(&s2);
        }
}

/* A second login with the same values writes no setting: they are read and found equal. */
static void test_reapply_unchanged_writes_nothing(void **state) {
        static const TestLayout tls[] = { TL_UNIFIED, TL_LEGACY, TL_HYBRID };
        static const char *const files[] = { "cpu.idle", "cpu.weight", "cpu.max", "cpu.shares", "cpu.cfs_period_us",
                                             "cpu.cfs_quota_us" };
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(tls); i++) {
                CpuKernelValues a = W300_Q50, b = W300_Q50, q = W300_Q50;
                CgfsSession s1 = {}, s2 = {}, s3 = {};
                unsigned writes = 0;

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                open_tl(f, tls[i], "", &fake_ops);
                assert_int_equal(cgfs_open_session(&f->c, UID, "1", f->pid, &a, &s1, &f->e), 0);
                fake_reset();
                assert_int_equal(cgfs_open_session(&f->c, UID, "2", f->pid, &b, &s2, &f->e), 0);
                for (size_t j = 0; j < ELEMENTSOF(files); j++)
                        writes += count_calls(OP_WRITE, files[j], false);
                assert_int_equal(writes, 0);
                /* one value changed: that file alone is written */
                q.quota_usec = 70000;
                fake_reset();
                assert_int_equal(cgfs_open_session(&f->c, UID, "3", f->pid, &q, &s3, &f->e), 0);
                writes = 0;
                for (size_t j = 0; j < ELEMENTSOF(files); j++)
                        writes += count_calls(OP_WRITE, files[j], false);
                assert_int_equal(writes, 1);
                assert_int_equal(count_calls(OP_WRITE, f->c.layout.cpu.v2 ? "cpu.max" : "cpu.cfs_quota_us", true), 1);
                cgfs_session_done(&s1);
                cgfs_session_done(&s2);
                cgfs_session_done(&s3);
        }
}

/* idle and back: cpu.weight is written again once idle is off */
static void test_reapply_idle_unified(void **state) {
        Fx *f = *state;
        CpuKernelValues idle = IDLE_Q05, k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_UNIFIED, "", NULL);
        assert_int_equal(cgfs_apply_slice(&f->c, UID, &idle, &f->e), 0);
        assert_file(f, SLICE "/cpu.idle", "1\n");
        assert_false(exists(f, SLICE "/cpu.weight"));
        assert_file(f, SLICE "/cpu.max", "1000 200000\n");
        assert_int_equal(cgfs_open_session(&f->c, UID, "3", f->pid, &k, &s, &f->e), 0);
        assert_file(f, SLICE "/cpu.idle", "0\n");
        assert_file(f, SLICE "/cpu.weight", "300\n");
        assert_file(f, SLICE "/cpu.max", "50000 100000\n");
        cgfs_session_done(&s);
}

/* v1 with cpu.idle (5.15+): idle is cpu.idle, and the kernel refuses cpu.shares while it is on,
 * so going back to a weight turns idle off first (the emulation refuses the other order) */
static void test_reapply_idle_legacy(void **state) {
        Fx *f = *state;
        CpuKernelValues idle = IDLE_Q05, k = W300_Q50;
        CgfsSession s = {};

        fake_reset();
        open_tl(f, TL_LEGACY, "", &fake_ops);
        fake.cgroupfs = true;
        mkdir_p(f, V1);
        put(f, V1 "/cpu.idle", "0\n");
        put(f, V1 "/cpu.shares", "1024\n");
        assert_int_equal(cgfs_apply_slice(&f->c, UID, &idle, &f->e), 0);
        assert_file(f, V1 "/cpu.idle", "1\n");
        assert_int_equal(count_calls(OP_WRITE, "cpu.shares", false), 0);
        assert_file(f, V1 "/cpu.cfs_quota_us", "1000\n");
        /* idle again: nothing to write for the weight */
        fake.n_calls = 0; /* the calls from here on; the hierarchies stay known */
        assert_int_equal(cgfs_apply_slice(&f->c, UID, &idle, &f->e), 0);
        assert_int_equal(count_calls(OP_WRITE, "cpu.idle", false) + count_calls(OP_WRITE, "cpu.shares", false), 0);
        /* and back */
        if (cgfs_open_session(&f->c, UID, "3", f->pid, &k, &s, &f->e) < 0)
                fail_msg("back from idle: %s", f->e.msg);
        assert_file(f, V1 "/cpu.idle", "0\n");
        assert_file(f, V1 "/cpu.shares", "3072\n");
        cgfs_session_done(&s);
        /* the emulation does refuse: shares written while idle fail */
        put(f, V1 "/cpu.idle", "1\n");
        fake.n_calls = 0; /* the calls from here on; the hierarchies stay known */
        {
                _cleanup_close_ int fd = openat(f->c.root_fd, V1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                assert_true(fd >= 0);
                assert_int_equal(cgfs_write_file(&f->c, fd, "cpu.shares", "2048\n", &f->e), -EINVAL);
        }
}

/* ---- session ids ---- */

static void test_session_ids(void **state) {
        Fx *f = *state;
        CpuKernelValues k = DEFAULTS;
        char pam[SLICE_NAME_MAX], rel[256];

        snprintf(pam, sizeof pam, "session-pam-%d.scope", (int) f->pid);
        for (size_t i = 0; i < ELEMENTSOF(id_cases); i++) {
                const char *want = id_cases[i].scope ? id_cases[i].scope : pam;
                CgfsSession s = {};

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                open_tl(f, TL_UNIFIED, "", NULL);
                if (cgfs_open_session(&f->c, UID, id_cases[i].id, f->pid, &k, &s, &f->e) < 0)
                        fail_msg("case %zu: %s", i, f->e.msg);
                if (strcmp(s.scope, want) != 0)
                        fail_msg("case %zu: id '%s' gave %s, expected %s", i, strempty(id_cases[i].id),
                                 s.scope, want);
                snprintf(rel, sizeof rel, SLICE "/%s/cgroup.procs", want);
                assert_file(f, rel, f->pidline);
                cgfs_session_done(&s);
        }
}

static void test_session_pam_suffix(void **state) {
        Fx *f = *state;
        CpuKernelValues k = DEFAULTS;
        char name[1024], target[600];
        CgfsSession s = {};

        open_tl(f, TL_HYBRID, "", NULL);
        snprintf(name, sizeof name, "cpu/" SLICE "/session-pam-%d.scope", (int) f->pid);
        mkdir_p(f, name);
        /* a planted symlink where -1 would go is passed over, never written through */
        snprintf(name, sizeof name, "%s/cpu/" SLICE "/session-pam-%d-1.scope", f->root, (int) f->pid);
        snprintf(target, sizeof target, "%s", f->outside);
        assert_int_equal(symlink(target, name), 0);
        assert_int_equal(cgfs_open_session(&f->c, UID, NULL, f->pid, &k, &s, &f->e), 0);
        snprintf(name, sizeof name, "session-pam-%d-2.scope", (int) f->pid);
        assert_string_equal(s.scope, name);
        snprintf(name, sizeof name, "cpu/" SLICE "/session-pam-%d-2.scope/cgroup.procs", (int) f->pid);
        assert_file(f, name, f->pidline);
        /* the mirror uses the same name even though nothing is in its way there */
        snprintf(name, sizeof name, "unified/" SLICE "/session-pam-%d-2.scope/cgroup.procs", (int) f->pid);
        assert_file(f, name, f->pidline);
        assert_tree(f->outside, f->pid, "");
        cgfs_session_done(&s);
        /* an unsafe id takes the same path */
        assert_int_equal(cgfs_open_session(&f->c, UID, "../../x", f->pid, &k, &s, &f->e), 0);
        snprintf(name, sizeof name, "session-pam-%d-3.scope", (int) f->pid);
        assert_string_equal(s.scope, name);
        cgfs_session_done(&s);
}

/* ---- cgfs_open ---- */

static void test_open_args(void **state) {
        static const struct {
                const char *parent;
                bool ok;
        } cases[] = {
                { NULL, true },   { "", true },    { "a", true },     { "a/b", true },  { "a/b/", true },
                { "..a", true },  { "a..", true }, { ".x", true },    { "...", true },  { "..", false },
                { "../x", false }, { "a/..", false }, { "a/../b", false }, { "/abs", false }, { "/", false },
                { ".", false },   { "./a", false }, { "a/./b", false }, { "a//b", false },
        };
        Fx *f = *state;
        CgroupLayout l = {};
        char p[600];

        assert_int_equal(cgroup_layout_named(f->root, CGROUP_LAYOUT_UNIFIED, &l, &f->e), 0);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Cgfs c = { .root_fd = -EBADF };
                int r = cgfs_open(f->root, cases[i].parent, &l, NULL, &c, &f->e);

                if (cases[i].ok) {
                        if (r < 0)
                                fail_msg("parent '%s' refused: %s", cases[i].parent, f->e.msg);
                        assert_true(c.root_fd >= 0);
                        char want[64];
                        const char *pa = strempty(cases[i].parent);
                        int n = (int) strlen(pa);
                        if (n > 0 && pa[n - 1] == '/')
                                n--;
                        snprintf(want, sizeof want, "%.*s%suser.slice", n, pa, n ? "/" : "");
                        assert_string_equal(c.slices, want);
                        assert_string_equal(c.layout.cpu.path, "");
                        assert_ptr_equal(c.ops, &cgfs_default_ops);
                } else {
                        if (r != -EINVAL)
                                fail_msg("parent '%s' accepted", cases[i].parent);
                        assert_non_null(strstr(f->e.msg, "bad cgroup parent"));
                        assert_int_equal(c.root_fd, -EBADF); /* untouched */
                }
                cgfs_close(&c);
        }
        snprintf(p, sizeof p, "%s/nonexistent", f->dir);
        {
                Cgfs c = { .root_fd = -EBADF };
                assert_int_equal(cgfs_open(p, "", &l, NULL, &c, &f->e), -ENOENT);
                assert_non_null(strstr(f->e.msg, "cannot open cgroup root "));
        }
        cgroup_layout_done(&l);
}

/* ---- hostile trees ---- */

typedef struct HostileCase {
        TestLayout tl;
        const char *where; /* below the root */
        bool symlink;      /* else a regular file */
        const char *id;
        const char *msg;
} HostileCase;

static const HostileCase hostile_cases[] = {
        { TL_UNIFIED, "user.slice", true, "7", "user.slice is not a directory" },
        { TL_UNIFIED, SLICE, true, "7", "user-1001.slice is not a directory" },
        { TL_UNIFIED, SCOPE, true, "7", "session-7.scope is not a directory" },
        { TL_UNIFIED, "user.slice", false, "7", "user.slice is not a directory" },
        { TL_UNIFIED, SLICE, false, "7", "user-1001.slice is not a directory" },
        { TL_UNIFIED, SCOPE, false, "7", "session-7.scope is not a directory" },
        { TL_HYBRID, "cpu/user.slice", true, "7", "user.slice is not a directory" },
        { TL_HYBRID, "cpu/" SLICE, true, "7", "user-1001.slice is not a directory" },
        { TL_HYBRID, "cpu/" SCOPE, true, "7", "session-7.scope is not a directory" },
        { TL_HYBRID, "cpu/" SLICE, false, "7", "user-1001.slice is not a directory" },
        /* the accounting mirror is walked the same way */
        { TL_HYBRID, "unified/user.slice", true, "7", "user.slice is not a directory" },
        { TL_HYBRID, "unified/" SLICE, true, NULL, "user-1001.slice is not a directory" },
        { TL_HYBRID, "unified/" SCOPE, true, "7", "session-7.scope is not a directory" },
        { TL_LEGACY, "cpuacct/" SLICE, false, "7", "user-1001.slice is not a directory" },
        /* a hierarchy that is a regular file */
        { TL_HYBRID, "unified", false, "7", "unified" },
        /* a control file: O_NOFOLLOW */
        { TL_UNIFIED, SLICE "/cpu.max", true, "7",
          "cannot open cpu.max for writing: Too many levels of symbolic links" },
        { TL_LEGACY, "cpu/" SLICE "/cpu.shares", true, "7",
          "cannot open cpu.shares for writing: Too many levels" },
        { TL_UNIFIED, SCOPE "/cgroup.procs", true, "7",
          "cannot open cgroup.procs for writing: Too many levels" },
        { TL_UNIFIED, "user.slice/cgroup.subtree_control", true, "7", "cannot open cgroup.subtree_control" },
};

static void test_hostile(void **state) {
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(hostile_cases); i++) {
                const HostileCase *t = &hostile_cases[i];
                CpuKernelValues k = W300_Q50;
                CgfsSession s = { .uid = 4242 };
                char path[1024], *before, *after, dir[1024];
                int r;

                rm_rf(f->root);
                rm_rf(f->outside);
                assert_int_equal(mkdir(f->root, 0755), 0);
                assert_int_equal(mkdir(f->outside, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                /* parents of the planted thing exist (left over from earlier logins) */
                snprintf(dir, sizeof dir, "%s", t->where);
                if (strrchr(dir, '/')) {
                        *strrchr(dir, '/') = '\0';
                        mkdir_p(f, dir);
                }
                snprintf(path, sizeof path, "%s/%s", f->root, t->where);
                if (t->symlink)
                        assert_int_equal(symlink(f->outside, path), 0);
                else
                        put(f, t->where, "");
                /* a planted control file symlink points at a file outside */
                if (t->symlink && (strncmp(strrchr(path, '/') + 1, "cpu.", 4) == 0 ||
                                   strncmp(strrchr(path, '/') + 1, "cgroup.", 7) == 0)) {
                        assert_int_equal(unlink(path), 0);
                        snprintf(dir, sizeof dir, "%s/target", f->outside);
                        assert_int_equal(write_file(f->outside, "target", "untouched\n", 0644), 0);
                        assert_int_equal(symlink(dir, path), 0);
                }
                before = manifest(f->outside);
                open_tl(f, t->tl, "", &fake_ops);
                r = cgfs_open_session(&f->c, UID, t->id, f->pid, &k, &s, &f->e);
                if (r >= 0 || !strstr(f->e.msg, t->msg))
                        fail_msg("case %zu (%s %s): r=%d msg '%s'", i, tl_names[t->tl], t->where, r,
                                 f->e.msg);
                assert_int_equal(f->e.code, r);
                assert_int_equal(s.uid, 4242); /* untouched */
                assert_null(s.orig_cpu);
                after = manifest(f->outside);
                assert_string_equal(before, after);
                free(before);
                free(after);
                /* nothing is created through a planted link, and it is left where it was */
                assert_true(exists(f, t->where));
        }
}

static int count_entries(const char *path) {
        DIR *d = opendir(path);
        struct dirent *de;
        int n = 0;

        assert_non_null(d);
        while ((de = readdir(d)))
                n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
        closedir(d);
        return n;
}

/* A cgroup on the path that is not root's was delegated: its owner could turn off +cpu, plant
 * a scope, or freeze root's processes there. Nothing is joined or written below it. */
static void test_delegated_refused(void **state) {
        static const struct {
                TestLayout tl;
                const char *where;
        } cases[] = {
                { TL_UNIFIED, "user.slice" },
                { TL_UNIFIED, SLICE },
                { TL_UNIFIED, SCOPE },
                { TL_HYBRID, "cpu/" SLICE },
                { TL_HYBRID, "unified/" SCOPE },
        };
        Fx *f = *state;

        REQUIRE_ROOT();
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CpuKernelValues k = W300_Q50;
                CgfsSession s = { .uid = 4242 };
                char path[1024];
                int r;

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                mkdir_p(f, cases[i].where);
                snprintf(path, sizeof path, "%s/%s", f->root, cases[i].where);
                assert_int_equal(chown(path, 1001, 1001), 0);
                open_tl(f, cases[i].tl, "", NULL);
                r = cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e);
                if (r != -EPERM || !strstr(f->e.msg, "owned by uid 1001, not root"))
                        fail_msg("%s: r=%d msg '%s'", cases[i].where, r, f->e.msg);
                assert_int_equal(s.uid, 4242);
                /* nothing created or written in it (a scratch tree gets its files from us) */
                assert_int_equal(count_entries(path), 0);
        }
}

/* A cpu scope created before the mirror refused us is removed again. */
static void test_hostile_mirror_cleanup(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};
        char path[1024];

        mkdir_p(f, "unified/user.slice");
        snprintf(path, sizeof path, "%s/unified/" SLICE, f->root);
        assert_int_equal(symlink(f->outside, path), 0);
        open_tl(f, TL_HYBRID, "", NULL);
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -ENOTDIR);
        assert_false(exists(f, "cpu/" SCOPE));
        assert_true(exists(f, "cpu/" SLICE "/cpu.shares"));
        assert_tree(f->outside, f->pid, "");
}

static void test_check_fs(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};
        CgroupLayout l = {};

        mkdir_p(f, "cpu");
        mkdir_p(f, "unified");
        assert_int_equal(cgroup_layout_named(f->root, CGROUP_LAYOUT_HYBRID, &l, &f->e), 0);
        l.check_fs = true;
        assert_int_equal(cgfs_open(f->root, "", &l, &fake_ops, &f->c, &f->e), 0);
        cgroup_layout_done(&l);
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EXDEV);
        assert_non_null(strstr(f->e.msg, "cpu is not on cgroupfs"));
        assert_non_null(strstr(f->e.msg, "refused"));
        assert_int_equal(cgfs_apply_slice(&f->c, UID, &k, &f->e), -EXDEV);
        assert_int_equal(cgfs_update_slice(&f->c, UID, &k, &f->e), -EXDEV);
        assert_int_equal(cgfs_gc(&f->c, &f->e), -EXDEV);
        assert_int_equal(cgfs_open_dir(&f->c, f->c.root_fd, ".", &f->e), -EXDEV);
        assert_tree(f->root, f->pid, "cpu/", "unified/");
        /* fstatfs itself failing */
        fake_add((Fault) { OP_FSTATFS, "cpu", EIO });
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EIO);
        assert_string_equal(f->e.msg, "fstatfs cpu: Input/output error");
        /* unified at the root: the root itself is checked */
        cgfs_close(&f->c);
        assert_int_equal(cgroup_layout_named(f->root, CGROUP_LAYOUT_UNIFIED, &l, &f->e), 0);
        l.check_fs = true;
        assert_int_equal(cgfs_open(f->root, "", &l, NULL, &f->c, &f->e), 0);
        cgroup_layout_done(&l);
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EXDEV);
        assert_non_null(strstr(f->e.msg, "not on cgroupfs"));
        assert_tree(f->root, f->pid, "cpu/", "unified/");
}

/* ---- fault injection on open ---- */

typedef struct FaultCase {
        const char *name;
        TestLayout tl;
        const char *id;
        Fault fault;
        int r;           /* expected result */
        const char *msg; /* expected in the message */
        bool cgroupfs;   /* emulate cgroupfs rmdir, so a partial scope can be removed */
        const char *gone; /* must not exist afterwards (a partially created scope) */
        const char *kept; /* must exist afterwards */
} FaultCase;

static const FaultCase fault_cases[] = {
        { "cpu.max EINVAL", TL_UNIFIED, "7", { OP_WRITE, "cpu.max", EINVAL }, -EINVAL,
          "user-1001.slice: writing '50000 100000' to cpu.max: Invalid argument", .gone = SCOPE },
        { "cpu.max EACCES", TL_UNIFIED, "7", { OP_WRITE, "cpu.max", EACCES }, -EACCES,
          "user-1001.slice: writing '50000 100000' to cpu.max: Permission denied", .gone = SCOPE },
        { "cpu.max EBUSY", TL_UNIFIED, "7", { OP_WRITE, "cpu.max", EBUSY }, -EBUSY,
          "user-1001.slice: writing '50000 100000' to cpu.max: Device or resource busy", .gone = SCOPE },
        { "cpu.weight ERANGE", TL_UNIFIED, "7", { OP_WRITE, "cpu.weight", ERANGE }, -ERANGE,
          "user-1001.slice: writing '300' to cpu.weight: Numerical result out of range", .gone = SCOPE },
        { "cpu.idle missing (old kernel) is fine without idle", TL_UNIFIED, "7",
          { OP_OPENAT, "cpu.idle", ENOENT }, 0, .kept = SCOPE "/cgroup.procs" },
        { "cpu.idle EACCES", TL_UNIFIED, "7", { OP_WRITE, "cpu.idle", EACCES }, -EACCES,
          "user-1001.slice: writing '0' to cpu.idle: Permission denied", .gone = SCOPE },
        { "subtree_control EACCES", TL_UNIFIED, "7", { OP_WRITE, "cgroup.subtree_control", EACCES }, -EACCES,
          "enabling the cpu controller below user.slice/user-1001.slice: "
          "writing '+cpu' to cgroup.subtree_control: Permission denied", .gone = "user.slice" },
        { "cpu.shares EINVAL", TL_LEGACY, "7", { OP_WRITE, "cpu.shares", EINVAL }, -EINVAL,
          "user-1001.slice: writing '3072' to cpu.shares: Invalid argument", .gone = "cpu/" SCOPE },
        { "cpu.shares EACCES", TL_HYBRID, "7", { OP_WRITE, "cpu.shares", EACCES }, -EACCES,
          "user-1001.slice: writing '3072' to cpu.shares: Permission denied", .gone = "cpu/" SCOPE },
        { "cpu.shares EBUSY", TL_HYBRID, "7", { OP_WRITE, "cpu.shares", EBUSY }, -EBUSY,
          "user-1001.slice: writing '3072' to cpu.shares: Device or resource busy", .gone = "cpu/" SCOPE },
        { "cpu.cfs_quota_us EINVAL", TL_HYBRID, "7", { OP_WRITE, "cpu.cfs_quota_us", EINVAL }, -EINVAL,
          "user-1001.slice: writing '50000' to cpu.cfs_quota_us: Invalid argument", .gone = "cpu/" SCOPE },
        { "cpu.cfs_period_us short write", TL_HYBRID, "7",
          { OP_WRITE, "cpu.cfs_period_us", SHORT_WRITE }, -EIO,
          "user-1001.slice: short write to cpu.cfs_period_us", .gone = "cpu/" SCOPE },
        { "mkdir user.slice ENOSPC", TL_UNIFIED, "7", { OP_MKDIRAT, "user.slice", ENOSPC }, -ENOSPC,
          "cannot create user.slice: No space left on device", .gone = "user.slice" },
        { "mkdir slice ENOMEM", TL_HYBRID, "7", { OP_MKDIRAT, "user-1001.slice", ENOMEM }, -ENOMEM,
          "cannot create user-1001.slice: Cannot allocate memory", .gone = "cpu/" SLICE },
        { "mkdir scope ENOSPC", TL_HYBRID, "7", { OP_MKDIRAT, "session-7.scope", ENOSPC }, -ENOSPC,
          "cannot create session-7.scope: No space left on device", .gone = "cpu/" SCOPE },
        { "mkdir pam scope ENOMEM", TL_LEGACY, NULL, { OP_MKDIRAT, NULL, ENOMEM, .skip = 2 }, -ENOMEM,
          "cannot create session-pam-", .gone = "cpu/" SLICE "/session-pam-*" },
        { "mkdir mirror scope ENOSPC", TL_HYBRID, "7",
          { OP_MKDIRAT, "session-7.scope", ENOSPC, .under = "/unified/" }, -ENOSPC,
          "cannot create session-7.scope: No space left on device", .gone = "cpu/" SCOPE },
        { "mkdir mirror slice ENOMEM", TL_LEGACY, "7",
          { OP_MKDIRAT, "user-1001.slice", ENOMEM, .under = "/cpuacct/" },
          -ENOMEM, "cannot create user-1001.slice: Cannot allocate memory", .gone = "cpu/" SCOPE },
        { "cgroup.procs EACCES", TL_UNIFIED, "7", { OP_WRITE, "cgroup.procs", EACCES }, -EACCES,
          "writing '@PID@' to cgroup.procs: Permission denied", .cgroupfs = true, .gone = SLICE },
        { "cgroup.procs EINVAL on v1 (not real-time)", TL_HYBRID, "7",
          { OP_WRITE, "cgroup.procs", EINVAL }, -EINVAL,
          "writing '@PID@' to cgroup.procs: Invalid argument", .cgroupfs = true, .gone = "cpu/" SLICE },
        { "mirror cgroup.procs EBUSY", TL_HYBRID, "7",
          { OP_WRITE, "cgroup.procs", EBUSY, .count = 1, .under = "/unified/" },
          -EBUSY, "writing '@PID@' to cgroup.procs: Device or resource busy", .cgroupfs = true,
          .gone = "unified/" SLICE },
        { "cgroup.procs refused, scope left populated", TL_LEGACY, "7",
          { OP_WRITE, "cgroup.procs", EPERM, .under = "/cpuacct/" }, -EPERM,
          "writing '@PID@' to cgroup.procs: Operation not permitted", .gone = NULL, .kept = "cpu/" SCOPE },
        { "slice ENOENT once: retried", TL_UNIFIED, "7",
          { OP_OPENAT, "user-1001.slice", ENOENT, .count = 1 }, 0,
          .kept = SCOPE "/cgroup.procs" },
        { "slice ENOENT 7 times: retried", TL_HYBRID, "7",
          { OP_OPENAT, "user-1001.slice", ENOENT, .count = 7 }, 0,
          .kept = "unified/" SCOPE "/cgroup.procs" },
        { "slice ENOENT forever", TL_UNIFIED, "7", { OP_OPENAT, "user-1001.slice", ENOENT }, -ENOENT,
          "cannot open user-1001.slice: No such file or directory", .gone = SCOPE },
        { "scope mkdir ENOENT once (slice removed under us)", TL_HYBRID, NULL,
          { OP_MKDIRAT, NULL, ENOENT, .skip = 2, .count = 1 }, 0,
          .kept = "cpu/" SLICE "/session-pam-@PID@.scope" },
        { "cgroup.procs ENOENT once (scope removed under us)", TL_UNIFIED, "7",
          { OP_OPENAT, "cgroup.procs", ENOENT, .count = 1 }, 0, .kept = SCOPE "/cgroup.procs" },
        /* cgroupfs: a write to a file of a cgroup removed after it was opened fails with ENODEV */
        { "cpu.cfs_period_us ENODEV once (slice removed under us)", TL_HYBRID, "7",
          { OP_WRITE, "cpu.cfs_period_us", ENODEV, .count = 1 }, 0,
          .kept = "unified/" SCOPE "/cgroup.procs" },
        { "cpu.max ENODEV once (slice removed under us)", TL_UNIFIED, NULL,
          { OP_WRITE, "cpu.max", ENODEV, .count = 1 }, 0,
          .kept = SLICE "/session-pam-@PID@.scope/cgroup.procs",
          .gone = SLICE "/session-pam-@PID@-1.scope" },
        { "cgroup.procs ENODEV once (scope removed by gc)", TL_LEGACY, "7",
          { OP_WRITE, "cgroup.procs", ENODEV, .count = 1 }, 0, .kept = "cpuacct/" SCOPE "/cgroup.procs" },
        { "cpu.shares ENODEV forever", TL_LEGACY, "7", { OP_WRITE, "cpu.shares", ENODEV }, -ENODEV,
          "user-1001.slice: writing '3072' to cpu.shares: No such device", .gone = "cpu/" SCOPE },
        /* a retry reuses the scope an earlier attempt made rather than leaving it behind */
        { "mirror slice ENOENT once", TL_HYBRID, NULL,
          { OP_OPENAT, "user-1001.slice", ENOENT, .count = 1, .under = "/unified/" },
          0, .kept = "unified/" SLICE "/session-pam-@PID@.scope/cgroup.procs",
          .gone = "cpu/" SLICE "/session-pam-@PID@-1.scope" },
        { "mirror slice ENOENT forever", TL_HYBRID, NULL,
          { OP_OPENAT, "user-1001.slice", ENOENT, .under = "/unified/" },
          -ENOENT, "cannot open user-1001.slice", .gone = "cpu/" SLICE "/session-pam-*" },
        { "opening the cgroup root EMFILE", TL_UNIFIED, "7", { OP_OPENAT, ".", EMFILE }, -EMFILE,
          "cannot open the cgroup root: Too many open files" },
        { "the hierarchy EACCES", TL_HYBRID, "7", { OP_OPENAT, "cpu", EACCES }, -EACCES,
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

/* ---- close ---- */

/* close moves the process back to where it came from: here, each hierarchy's root */
static void orig_at_roots(Fx *f, CgfsSession *s) {
        free(s->orig_cpu);
        free(s->orig_acct);
        s->orig_cpu = strdup("/");
        s->orig_acct = f->c.layout.acct.path ? strdup("/") : NULL;
        assert_non_null(s->orig_cpu);
}


/* On a plain directory rmdir of a scope with files in it fails with ENOTEMPTY: "populated". */
static void test_close_scratch(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_HYBRID, "", NULL);
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
        assert_true(exists(f, "cpu/" SCOPE));
        assert_true(exists(f, "unified/" SCOPE));
        /* moved back to where it came from (the hierarchy roots on this host) */
        if (s.orig_cpu && strcmp(s.orig_cpu, "/") == 0)
                assert_file(f, "cpu/cgroup.procs", f->pidline);
        if (s.orig_acct && strcmp(s.orig_acct, "/") == 0)
                assert_file(f, "unified/cgroup.procs", f->pidline);
        cgfs_session_done(&s);
}

static void test_close_emulated(void **state) {
        Fx *f = *state;

        for (TestLayout tl = 0; tl < _TL_MAX; tl++) {
                CpuKernelValues k = W300_Q50;
                CgfsSession s = {};
                char rel[256];
                size_t first;

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                open_tl(f, tl, "", &fake_ops);
                fake.cgroupfs = true;
                assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
                orig_at_roots(f, &s);
                first = fake.n_calls;
                assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
                /* back at the root of each hierarchy, out of the scope */
                snprintf(rel, sizeof rel, "%scgroup.procs", tl_cpu[tl]);
                assert_file(f, rel, f->pidline);
                if (tl_acct[tl]) {
                        snprintf(rel, sizeof rel, "%scgroup.procs", tl_acct[tl]);
                        assert_file(f, rel, f->pidline);
                }
                /* scope before slice, in each hierarchy; user.slice stays */
                {
                        const char *order[4];
                        size_t n = 0;
                        for (size_t j = first; j < fake.n_calls; j++)
                                if (fake.calls[j].op == OP_UNLINKAT) {
                                        assert_int_equal(fake.calls[j].r, 0);
                                        assert_true(n < 4);
                                        order[n++] = fake.calls[j].name;
                                }
                        assert_int_equal(n, tl_acct[tl] ? 4 : 2);
                        for (size_t j = 0; j < n; j += 2) {
                                assert_string_equal(order[j], "session-7.scope");
                                assert_string_equal(order[j + 1], "user-1001.slice");
                        }
                }
                snprintf(rel, sizeof rel, "%suser.slice", tl_cpu[tl]);
                assert_true(exists(f, rel));
                snprintf(rel, sizeof rel, "%s" SLICE, tl_cpu[tl]);
                assert_false(exists(f, rel));
                if (tl_acct[tl]) {
                        snprintf(rel, sizeof rel, "%s" SLICE, tl_acct[tl]);
                        assert_false(exists(f, rel));
                }
                /* closing again: nothing left to do */
                assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
                cgfs_session_done(&s);
        }
}

static void test_close_two_sessions(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession a = {}, b = {};

        open_tl(f, TL_HYBRID, "", &fake_ops);
        fake.cgroupfs = true;
        assert_int_equal(cgfs_open_session(&f->c, UID, "1", f->pid, &k, &a, &f->e), 0);
        /* a second login by another process of the same user */
        put(f, "cpu/" SLICE "/session-1.scope/cgroup.procs", "");
        put(f, "unified/" SLICE "/session-1.scope/cgroup.procs", "");
        assert_int_equal(cgfs_open_session(&f->c, UID, "2", f->pid, &k, &b, &f->e), 0);
        /* closing the first: its scope goes, the slice stays for the second (EBUSY is no error) */
        assert_int_equal(cgfs_close_session(&f->c, &a, f->pid, &f->e), 0);
        assert_false(exists(f, "cpu/" SLICE "/session-1.scope"));
        assert_false(exists(f, "unified/" SLICE "/session-1.scope"));
        assert_true(exists(f, "cpu/" SLICE "/session-2.scope"));
        assert_int_equal(count_calls(OP_UNLINKAT, "user-1001.slice", false), 2);
        assert_int_equal(count_calls(OP_UNLINKAT, "user-1001.slice", true), 0);
        /* a background job keeps the second scope (and so the slice) */
        put(f, "cpu/" SLICE "/session-2.scope/cgroup.procs", "999999\n");
        assert_int_equal(cgfs_close_session(&f->c, &b, f->pid, &f->e), 0);
        assert_file(f, "cpu/" SLICE "/session-2.scope/cgroup.procs", "999999\n");
        assert_false(exists(f, "unified/" SLICE "/session-2.scope"));
        assert_false(exists(f, "unified/" SLICE));
        assert_true(exists(f, "cpu/" SLICE "/cpu.shares"));
        cgfs_session_done(&a);
        cgfs_session_done(&b);
}

static void test_close_unlink_errors(void **state) {
        static const struct {
                int err;
                int r;
                const char *msg;
        } cases[] = {
                { EBUSY, 0, NULL },
                { ENOTEMPTY, 0, NULL },
                { EEXIST, 0, NULL },
                { ENOENT, 0, NULL },
                { EACCES, -EACCES, "cannot remove session-7.scope: Permission denied" },
                { EROFS, -EROFS, "cannot remove session-7.scope: Read-only file system" },
        };
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CpuKernelValues k = W300_Q50;
                CgfsSession s = {};

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                open_tl(f, TL_UNIFIED, "", &fake_ops);
                fake.cgroupfs = true;
                assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
                free(s.orig_cpu);
                s.orig_cpu = strdup("/");
                fake_add((Fault) { OP_UNLINKAT, "session-7.scope", cases[i].err });
                f->e = (CsError) {};
                assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), cases[i].r);
                if (cases[i].msg)
                        assert_string_equal(f->e.msg, cases[i].msg);
                /* moved back before anything is removed */
                assert_file(f, "cgroup.procs", f->pidline);
                assert_file(f, SCOPE "/cgroup.procs", "");
                assert_true(exists(f, SCOPE));
                cgfs_session_done(&s);
        }
}

/* The cgroup the process came from is gone: its nearest existing ancestor takes it. */
static void test_close_orig_gone(void **state) {
        static const struct {
                const char *orig, *mkdir, *procs;
        } cases[] = {
                { "/old/gone/deeper", "cpu/old", "cpu/old/cgroup.procs" },
                { "/old/gone", "cpu/old", "cpu/old/cgroup.procs" },
                { "/old", "cpu/old", "cpu/old/cgroup.procs" },
                { "/gone", NULL, "cpu/cgroup.procs" },
                { "/", NULL, "cpu/cgroup.procs" },
                { "", NULL, "cpu/cgroup.procs" },
                { "/user.slice/user-1001.slice/session-1.scope", "cpu/" SLICE "/session-1.scope",
                  "cpu/" SLICE "/session-1.scope/cgroup.procs" },
        };
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CpuKernelValues k = W300_Q50;
                CgfsSession s = {};

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                open_tl(f, TL_LEGACY_NOACCT, "", &fake_ops);
                fake.cgroupfs = true;
                if (cases[i].mkdir)
                        mkdir_p(f, cases[i].mkdir);
                assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
                free(s.orig_cpu);
                s.orig_cpu = strdup(cases[i].orig);
                assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
                assert_file(f, cases[i].procs, f->pidline);
                assert_false(exists(f, "cpu/" SCOPE));
                cgfs_session_done(&s);
        }
}

/* Without a remembered cgroup, nothing is moved (and on cgroupfs the scope then stays populated). */
static void test_close_no_orig(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_UNIFIED, "", &fake_ops);
        fake.cgroupfs = true;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        free(s.orig_cpu);
        s.orig_cpu = NULL;
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
        assert_int_equal(count_calls(OP_OPENAT, "cgroup.procs", false), 1); /* only the open's */
        assert_file(f, SCOPE "/cgroup.procs", f->pidline);
        assert_false(exists(f, "cgroup.procs"));
        cgfs_session_done(&s);
}

/* Moving back refused: the error is reported, and removal is still attempted. */
static void test_close_move_back_refused(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_tl(f, TL_HYBRID, "", &fake_ops);
        fake.cgroupfs = true;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        orig_at_roots(f, &s);
        fake_add((Fault) { OP_WRITE, "cgroup.procs", EACCES });
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), -EACCES);
        assert_non_null(strstr(f->e.msg, "to cgroup.procs: Permission denied"));
        /* still populated: left alone */
        assert_true(exists(f, "cpu/" SCOPE));
        assert_true(exists(f, "unified/" SCOPE));
        cgfs_session_done(&s);
}

/* ---- gc ---- */

/* base: where the user slices are, "" (the hierarchy's root) or "DIR/" */
static void gc_at(Fx *f, const char *base) {
        char slices[64];

        snprintf(slices, sizeof slices, "%.*s", (int) strlen(base) - (*base ? 1 : 0), base);
        for (TestLayout tl = 0; tl < _TL_MAX; tl++) {
                const char *hiers[2] = { tl_cpu[tl], tl_acct[tl] };
                char rel[1024], pidname[1024];
                int r;

                rm_rf(f->root);
                assert_int_equal(mkdir(f->root, 0755), 0);
                cgfs_close(&f->c);
                fake_reset();
                open_tl_at(f, tl, NULL, slices, &fake_ops);
                f->c.reap_grace_usec = 0; /* every scope here is old enough */
                fake.cgroupfs = true;
                for (size_t h = 0; h < 2 && hiers[h]; h++) {
                        static const char *const dirs[] = {
                                "user-1001.slice/session-1.scope",     /* empty: removed */
                                "user-1001.slice/session-2.scope",     /* a process: kept, so is the slice */
                                "user-1002.slice/session-3.scope",     /* removed, and then the slice */
                                "user-1002.slice/x.scope",             /* any *.scope */
                                "user-1003.slice",                     /* no scopes: removed */
                                "user-1004.slice/notascope",           /* not a scope: kept, and the slice */
                                "user-1005.slice/.scope",              /* not a scope name */
                                "user-1005.slice/.x.scope",            /* hidden: list does not show it */
                                "user-abc.slice",                      /* not a uid */
                                "user-.slice",
                                "user-1006.slice.bak",
                                "user-99999999999.slice",              /* not a 32-bit uid */
                                "user-4294967295.slice",               /* (uid_t) -1: no user's, nor listed */
                                "user-1007.slicex",
                                "other",
                                "system.slice",
                        };
                        for (size_t j = 0; j < ELEMENTSOF(dirs); j++) {
                                snprintf(rel, sizeof rel, "%s%s%s", hiers[h], base, dirs[j]);
                                mkdir_p(f, rel);
                                put(f, strcat(rel, "/cgroup.procs"), "");
                        }
                        snprintf(rel, sizeof rel, "%s%suser-1001.slice/session-2.scope/cgroup.procs", hiers[h], base);
                        put(f, rel, "4242\n");
                        /* files and links with slice and scope names are not directories */
                        snprintf(rel, sizeof rel, "%s%suser-1008.slice", hiers[h], base);
                        put(f, rel, "");
                        snprintf(rel, sizeof rel, "%s%suser-1001.slice/file.scope", hiers[h], base);
                        put(f, rel, "");
                        snprintf(rel, sizeof rel, "%s/%s%suser-1009.slice", f->root, hiers[h], base);
                        assert_int_equal(symlink(f->outside, rel), 0);
                        snprintf(rel, sizeof rel, "%s/session-9.scope", f->outside);
                        assert_true(mkdir(rel, 0755) == 0 || errno == EEXIST);
                }
                r = cgfs_gc(&f->c, &f->e);
                if (r != 5)
                        fail_msg("%s: gc removed %d (%s), expected 5", tl_names[tl], r, f->e.msg);
                for (size_t h = 0; h < 2 && hiers[h]; h++) {
                        char *got, *want;
                        snprintf(rel, sizeof rel, "%s/%s%s", f->root, hiers[h], slices);
                        if (rel[strlen(rel) - 1] == '/') /* the slices at the hierarchy's root */
                                rel[strlen(rel) - 1] = '\0';
                        got = manifest(rel);
                        snprintf(pidname, sizeof pidname, "user-1009.slice -> %s", f->outside);
                        want = expected(
                                TREE("user-1001.slice/",
                                     "user-1001.slice/session-2.scope/",
                                     "user-1001.slice/session-2.scope/cgroup.procs = 4242\\n",
                                     "user-1001.slice/file.scope = ",
                                     "user-1004.slice/",
                                     "user-1004.slice/notascope/",
                                     "user-1004.slice/notascope/cgroup.procs = ",
                                     "user-1005.slice/",
                                     "user-1005.slice/.scope/", "user-1005.slice/.scope/cgroup.procs = ",
                                     "user-1005.slice/.x.scope/", "user-1005.slice/.x.scope/cgroup.procs = ",
                                     "user-abc.slice/", "user-abc.slice/cgroup.procs = ",
                                     "user-.slice/", "user-.slice/cgroup.procs = ",
                                     "user-1006.slice.bak/", "user-1006.slice.bak/cgroup.procs = ",
                                     "user-99999999999.slice/", "user-99999999999.slice/cgroup.procs = ",
                                     "user-4294967295.slice/", "user-4294967295.slice/cgroup.procs = ",
                                     "user-1007.slicex/", "user-1007.slicex/cgroup.procs = ",
                                     "other/", "other/cgroup.procs = ",
                                     "system.slice/", "system.slice/cgroup.procs = ",
                                     "user-1008.slice = ", pidname),
                                f->pid);
                        if (strcmp(got, want) != 0)
                                fail_msg("%s %s:\n--- got\n%s--- want\n%s", tl_names[tl], hiers[h], got,
                                         want);
                        free(got);
                        free(want);
                }
                assert_tree(f->outside, f->pid, "session-9.scope/");
                /* nothing left to collect */
                assert_int_equal(cgfs_gc(&f->c, &f->e), 0);
        }
}

static void test_gc(void **state) {
        gc_at(*state, "p/user.slice/");
        /* slice_root=/: beside the slices are everyone else's cgroups, and they are not ours */
        gc_at(*state, "");
}

static void test_gc_empty_and_errors(void **state) {
        Fx *f = *state;

        open_tl(f, TL_UNIFIED, "", &fake_ops);
        f->c.reap_grace_usec = 0;
        fake.cgroupfs = true;
        /* no user.slice at all */
        assert_int_equal(cgfs_gc(&f->c, &f->e), 0);
        mkdir_p(f, SCOPE);
        mkdir_p(f, "user.slice/user-1002.slice/session-8.scope");
        /* a removal refused for another reason than "populated" is an error */
        fake_add((Fault) { OP_UNLINKAT, "session-7.scope", EACCES });
        assert_int_equal(cgfs_gc(&f->c, &f->e), -EACCES);
        assert_string_equal(f->e.msg, "cannot remove session-7.scope: Permission denied");
        fake_reset();
        fake.cgroupfs = true;
        fake.n_hier = 1;
        snprintf(fake.hier[0], PATH_MAX, "%s", f->root);
        assert_true(cgfs_gc(&f->c, &f->e) >= 2);
        assert_tree(f->root, f->pid, "user.slice/");
        assert_tree(f->outside, f->pid, "");
}

/* ---- reaping at open and close, and the cap ---- */

/* sets a directory's mtime seconds back: cgroupfs's record of when it was made */
static void age(Fx *f, const char *rel, int seconds) {
        char p[1024];
        struct timespec now, ts[2];

        fx_path(f, rel, p, sizeof p);
        assert_int_equal(clock_gettime(CLOCK_REALTIME, &now), 0);
        ts[0] = ts[1] = (struct timespec) { .tv_sec = now.tv_sec - seconds };
        assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
}

/* a scope in both hierarchies of the hybrid layout, made a minute ago, with pids in it or none */
static void old_scope(Fx *f, const char *rel, const char *cpu_pids, const char *acct_pids) {
        char p[512];

        snprintf(p, sizeof p, "cpu/%s", rel);
        mkdir_p(f, p);
        put(f, strcat(p, "/cgroup.procs"), cpu_pids);
        snprintf(p, sizeof p, "unified/%s", rel);
        mkdir_p(f, p);
        put(f, strcat(p, "/cgroup.procs"), acct_pids);
        snprintf(p, sizeof p, "cpu/%s", rel);
        age(f, p, 60);
        snprintf(p, sizeof p, "unified/%s", rel);
        age(f, p, 60);
}

static void open_emulated(Fx *f) {
        open_tl(f, TL_HYBRID, "", &fake_ops);
        fake.cgroupfs = true;
}

static void test_reap_on_open(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_emulated(f);
        old_scope(f, SLICE "/session-1.scope", "", "");                 /* the job exited: goes */
        old_scope(f, SLICE "/session-2.scope", "4242\n", "4242\n");     /* a job runs: stays */
        old_scope(f, SLICE "/session-3.scope", "4343\n", "");           /* only the mirror is empty */
        old_scope(f, SLICE "/session-4.scope/sub", "", "");             /* a child cgroup: stays */
        old_scope(f, "user.slice/user-1002.slice/session-9.scope", "", ""); /* another user's */
        mkdir_p(f, "cpu/" SLICE "/session-5.scope");                    /* just made by a login: stays */
        mkdir_p(f, "cpu/" SLICE "/notascope");
        age(f, "cpu/" SLICE "/notascope", 60);
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        assert_false(exists(f, "cpu/" SLICE "/session-1.scope"));
        assert_false(exists(f, "unified/" SLICE "/session-1.scope"));
        assert_true(exists(f, "cpu/" SLICE "/session-2.scope"));
        assert_true(exists(f, "unified/" SLICE "/session-2.scope"));
        assert_true(exists(f, "cpu/" SLICE "/session-3.scope"));
        assert_false(exists(f, "unified/" SLICE "/session-3.scope"));
        assert_true(exists(f, "cpu/" SLICE "/session-4.scope/sub"));
        assert_true(exists(f, "cpu/" SLICE "/session-5.scope"));
        assert_true(exists(f, "cpu/" SLICE "/notascope"));
        assert_true(exists(f, "cpu/user.slice/user-1002.slice/session-9.scope"));
        assert_true(exists(f, "unified/user.slice/user-1002.slice/session-9.scope"));
        assert_file(f, "cpu/" SCOPE "/cgroup.procs", f->pidline);
        assert_file(f, "unified/" SCOPE "/cgroup.procs", f->pidline);
        /* what was tried: the old scopes, never the new one nor the one being opened */
        assert_int_equal(count_calls(OP_UNLINKAT, "session-5.scope", false), 0);
        assert_int_equal(count_calls(OP_UNLINKAT, "session-7.scope", false), 0);
        assert_int_equal(count_calls(OP_UNLINKAT, "session-9.scope", false), 0);
        assert_int_equal(count_calls(OP_UNLINKAT, "notascope", false), 0);
        cgfs_session_done(&s);
}

/* the scope of the session being opened is never reaped, even empty and old (a reused
 * XDG_SESSION_ID) */
static void test_reap_keeps_own(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_emulated(f);
        f->c.reap_grace_usec = 0;
        old_scope(f, SCOPE, "", "");
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        assert_int_equal(count_calls(OP_UNLINKAT, "session-7.scope", false), 0);
        assert_int_equal(count_calls(OP_MKDIRAT, "session-7.scope", true), 0);
        assert_file(f, "cpu/" SCOPE "/cgroup.procs", f->pidline);
        cgfs_session_done(&s);
}

static void test_reap_on_close(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_emulated(f);
        old_scope(f, "user.slice/user-1002.slice/session-9.scope", "", "");
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        /* while it ran, two earlier sessions' jobs exited, a third one's still runs */
        old_scope(f, SLICE "/session-1.scope", "", "");
        old_scope(f, SLICE "/session-2.scope", "", "");
        old_scope(f, SLICE "/session-3.scope", "4242\n", "4242\n");
        orig_at_roots(f, &s);
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
        for (int i = 1; i <= 2; i++) {
                char rel[128];
                snprintf(rel, sizeof rel, "cpu/" SLICE "/session-%d.scope", i);
                assert_false(exists(f, rel));
                snprintf(rel, sizeof rel, "unified/" SLICE "/session-%d.scope", i);
                assert_false(exists(f, rel));
        }
        assert_false(exists(f, "cpu/" SCOPE));
        assert_true(exists(f, "cpu/" SLICE "/session-3.scope"));
        assert_true(exists(f, "unified/" SLICE "/session-3.scope"));
        assert_true(exists(f, "cpu/user.slice/user-1002.slice/session-9.scope"));
        /* the third job exits: the next close of anything of that user's takes it, then the slice */
        put(f, "cpu/" SLICE "/session-3.scope/cgroup.procs", "");
        put(f, "unified/" SLICE "/session-3.scope/cgroup.procs", "");
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
        assert_false(exists(f, "cpu/" SLICE));
        assert_false(exists(f, "unified/" SLICE));
        assert_true(exists(f, "unified/user.slice/user-1002.slice/session-9.scope"));
        cgfs_session_done(&s);
}

/* a removal refused for another reason than "populated" does not fail a login or a logout */
static void test_reap_errors_quiet(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_emulated(f);
        old_scope(f, SLICE "/session-1.scope", "", "");
        fake_add((Fault) { OP_UNLINKAT, "session-1.scope", EACCES });
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        assert_true(exists(f, "cpu/" SLICE "/session-1.scope"));
        orig_at_roots(f, &s);
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
        assert_true(exists(f, "cpu/" SLICE "/session-1.scope"));
        assert_false(exists(f, "cpu/" SCOPE));
        cgfs_session_done(&s);
}

static void test_max_scopes(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_emulated(f);
        old_scope(f, SLICE "/session-1.scope", "4241\n", "4241\n");
        old_scope(f, SLICE "/session-2.scope", "4242\n", "4242\n");
        old_scope(f, SLICE "/session-3.scope", "", "");                 /* reaped first: not counted */
        mkdir_p(f, "cpu/" SLICE "/session-4.scope");                    /* new and empty: counted */
        old_scope(f, "user.slice/user-1002.slice/session-8.scope", "4343\n", "4343\n");
        old_scope(f, "user.slice/user-1002.slice/session-9.scope", "4344\n", "4344\n");
        f->c.max_scopes = 3;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EUSERS);
        assert_string_equal(f->e.msg, "user-1001.slice has 3 other session scopes still in use, the most that "
                                      "max_scopes=3 allows; no scope made for this login");
        assert_false(exists(f, "cpu/" SLICE "/session-3.scope"));
        assert_false(exists(f, "cpu/" SCOPE));
        assert_false(exists(f, "unified/" SCOPE));
        assert_int_equal(count_calls(OP_WRITE, "cgroup.procs", false), 0);
        /* the cap is per user: another user with as many scopes is under it */
        assert_int_equal(cgfs_open_session(&f->c, 1002, "10", f->pid, &k, &s, &f->e), 0);
        cgfs_session_done(&s);
        /* one more allowed: the new login's scope is the fourth */
        f->c.max_scopes = 4;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        cgfs_session_done(&s);
        /* a scope the login joins again (the same XDG_SESSION_ID) is not a new one */
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        cgfs_session_done(&s);
        /* 0: no cap */
        f->c.max_scopes = 0;
        assert_int_equal(cgfs_open_session(&f->c, UID, "11", f->pid, &k, &s, &f->e), 0);
        cgfs_session_done(&s);
}

/* the caller's umask (su and sudo keep it) decides no mode: directories 0755, files (a test
 * tree's) 0644 */
static void test_modes_ignore_umask(void **state) {
        static const char *const dirs[] = { "cpu/user.slice", "cpu/" SLICE, "cpu/" SCOPE,
                                            "unified/user.slice", "unified/" SLICE, "unified/" SCOPE };
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};
        mode_t old;
        int r;

        open_tl(f, TL_HYBRID, "", &fake_ops);
        old = umask(0777);
        r = cgfs_open_session(&f->c, UID, NULL, f->pid, &k, &s, &f->e);
        umask(old);
        assert_int_equal(r, 0);
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                char p[1024];
                struct stat st;
                const char *d = strcmp(dirs[i] + strlen(dirs[i]) - 6, ".scope") == 0 ? s.scope : NULL;

                if (d)
                        snprintf(p, sizeof p, "%s/%.*s/%s", f->root, (int) (strrchr(dirs[i], '/') - dirs[i]),
                                 dirs[i], d);
                else
                        fx_path(f, dirs[i], p, sizeof p);
                assert_int_equal(lstat(p, &st), 0);
                if ((st.st_mode & 07777) != 0755)
                        fail_msg("%s: mode %o", p, (unsigned) (st.st_mode & 07777));
        }
        {
                struct stat st;
                char p[1024];
                fx_path(f, "cpu/" SLICE "/cpu.shares", p, sizeof p);
                assert_int_equal(lstat(p, &st), 0);
                assert_int_equal(st.st_mode & 07777, 0644);
        }
        cgfs_session_done(&s);
        /* the mode is set on the directory just made, through the ops table; its failure is an error */
        rm_rf(f->root);
        assert_int_equal(mkdir(f->root, 0755), 0);
        cgfs_close(&f->c);
        fake_reset();
        open_tl(f, TL_HYBRID, "", &fake_ops);
        fake_add((Fault) { OP_FCHMOD, "user-1001.slice", EPERM });
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EPERM);
        assert_string_equal(f->e.msg, "cannot set the mode of user-1001.slice: Operation not permitted");
        cgfs_session_done(&s);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_open_session),
                T(test_apply_and_update_slice),
                T(test_update_slice_unified),
                T(test_reapply),
                T(test_reapply_unchanged_writes_nothing),
                T(test_reapply_idle_unified),
                T(test_reapply_idle_legacy),
                T(test_session_ids),
                T(test_session_pam_suffix),
                T(test_open_args),
                T(test_hostile),
                T(test_hostile_mirror_cleanup),
                T(test_delegated_refused),
                T(test_check_fs),
                T(test_open_faults),
                T(test_open_retry_limit),
                T(test_open_realtime),
                T(test_close_scratch),
                T(test_close_emulated),
                T(test_close_two_sessions),
                T(test_close_unlink_errors),
                T(test_close_orig_gone),
                T(test_close_no_orig),
                T(test_close_move_back_refused),
                T(test_gc),
                T(test_gc_empty_and_errors),
                T(test_reap_on_open),
                T(test_reap_keeps_own),
                T(test_reap_on_close),
                T(test_reap_errors_quiet),
                T(test_max_scopes),
                T(test_modes_ignore_umask),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
