/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fixture the test-backend-cgroupfs-*.c files share: see cgfs-fixture.h. */
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
#include <ftw.h>
#include <cmocka.h>

#include "cgfs-fixture.h"

const char *const tl_names[_TL_MAX] = { "unified", "legacy", "legacy without cpuacct", "hybrid" };
const char *const tl_cpu[_TL_MAX] = { "", "cpu/", "cpu/", "cpu/" };
const char *const tl_acct[_TL_MAX] = { NULL, "cpuacct/", NULL, "unified/" };

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

int fx_setup(void **state) {
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

int fx_teardown(void **state) {
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
char *fx_path(Fx *f, const char *rel, char *p, size_t n) {
        int k = snprintf(p, n, "%s/%s", f->root, rel);

        assert_true(k > 0 && (size_t) k < n);
        return p;
}

void mkdir_p(Fx *f, const char *rel) {
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

void put(Fx *f, const char *rel, const char *text) {
        char p[1024];

        fx_path(f, rel, p, sizeof p);
        FILE *fp = fopen(p, "we");
        assert_non_null(fp);
        fputs(text, fp);
        assert_int_equal(fclose(fp), 0);
}

char *get(Fx *f, const char *rel) {
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

bool exists(Fx *f, const char *rel) {
        char p[1024];
        struct stat st;

        fx_path(f, rel, p, sizeof p);
        return lstat(p, &st) == 0;
}

/* a hierarchy root for emulate_move(), without a trailing slash */
void set_hier(Fx *f, const char *sub) {
        char *h = fake.hier[fake.n_hier++];
        size_t n;

        snprintf(h, PATH_MAX, "%s/%s", f->root, sub);
        for (n = strlen(h); n > 1 && h[n - 1] == '/'; n--)
                h[n - 1] = '\0';
}

/* Opens the backend on a scratch tree with the hierarchy directories a named layout expects. */
/* slices non-NULL: the user slices in that cgroup (cgfs_open_slices), parent ignored */
void open_tl_at(Fx *f, TestLayout tl, const char *parent, const char *slices, const CgfsOps *ops) {
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

void open_tl(Fx *f, TestLayout tl, const char *parent, const CgfsOps *ops) {
        open_tl_at(f, tl, parent, NULL, ops);
}

CpuKernelValues kv(uint64_t weight, uint64_t quota_per_sec) {
        CpuLimits l = { weight, quota_per_sec, CPU_PERIOD_DEFAULT_USEC };
        CpuKernelValues k;

        cpu_limits_to_kernel(&l, &k);
        return k;
}

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

char *manifest(const char *dir) {
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
char *expected(const char *const *lines, pid_t pid) {
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
                if (v2 ? strcmp(line, "0") == 0 && !*a
                       : (strcmp(a, controller) == 0 || (strncmp(a, "cpu,cpuacct", 11) == 0 && !*(a + 11))))
                        ret = strdup(b);
        }
        fclose(fp);
        return ret;
}

void assert_orig(const char *got, bool v2, const char *controller) {
        char *want = own_cgroup(v2, controller);

        if (want) {
                assert_non_null(got);
                assert_string_equal(got, want);
        } else
                assert_null(got);
        free(want);
}

/* close moves the process back to where it came from: here, each hierarchy's root */
void orig_at_roots(Fx *f, CgfsSession *s) {
        free(s->orig_cpu);
        free(s->orig_acct);
        s->orig_cpu = strdup("/");
        s->orig_acct = f->c.layout.acct.path ? strdup("/") : NULL;
        assert_non_null(s->orig_cpu);
}
