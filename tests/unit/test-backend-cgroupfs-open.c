/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroupfs backend opening sessions: every file each layout's login writes (unified, legacy
 * with and without cpuacct, hybrid, below a parent, slice_root=), apply and update of a slice,
 * scope names from session ids, cgfs_open()'s arguments, and modes the umask does not decide. */
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
#include "session-id-cases.h"

/* ---- opening sessions: every file written ---- */

typedef struct OpenCase {
        const char *name;
        TestLayout tl;
        const char *parent;
        uint64_t weight, quota;
        const char *const *tree;
        const char *slices; /* non-NULL: slice_root= instead of parent */
} OpenCase;

static const OpenCase open_cases[] = {
        { "unified, weight 300, quota 50%", TL_UNIFIED, "", 300, 500000,
          TREE("cgroup.subtree_control = +cpu\\n", "user.slice/", "user.slice/cgroup.subtree_control = +cpu\\n",
               "user.slice/user-1001.slice/", "user.slice/user-1001.slice/cgroup.subtree_control = +cpu\\n",
               "user.slice/user-1001.slice/cpu.idle = 0\\n", "user.slice/user-1001.slice/cpu.weight = 300\\n",
               "user.slice/user-1001.slice/cpu.max = 50000 100000\\n", "user.slice/user-1001.slice/session-7.scope/",
               "user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "unified below a parent, idle, quota 0.5%", TL_UNIFIED, "scratch/sub", CPU_WEIGHT_IDLE, 5000,
          TREE("cgroup.subtree_control = +cpu\\n", "scratch/", "scratch/cgroup.subtree_control = +cpu\\n",
               "scratch/sub/", "scratch/sub/cgroup.subtree_control = +cpu\\n", "scratch/sub/user.slice/",
               "scratch/sub/user.slice/cgroup.subtree_control = +cpu\\n", "scratch/sub/user.slice/user-1001.slice/",
               "scratch/sub/user.slice/user-1001.slice/cgroup.subtree_control = +cpu\\n",
               "scratch/sub/user.slice/user-1001.slice/cpu.idle = 1\\n",
               "scratch/sub/user.slice/user-1001.slice/cpu.max = 1000 200000\\n",
               "scratch/sub/user.slice/user-1001.slice/session-7.scope/",
               "scratch/sub/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "legacy with cpuacct, weight 300, quota 50%", TL_LEGACY, "", 300, 500000,
          TREE("cpu/", "cpu/user.slice/", "cpu/user.slice/user-1001.slice/",
               "cpu/user.slice/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_period_us = 100000\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_quota_us = 50000\\n",
               "cpu/user.slice/user-1001.slice/session-7.scope/",
               "cpu/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n", "cpuacct/",
               "cpuacct/user.slice/", "cpuacct/user.slice/user-1001.slice/",
               "cpuacct/user.slice/user-1001.slice/session-7.scope/",
               "cpuacct/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "legacy with cpuacct, idle, quota 0.5%, below a parent", TL_LEGACY, "p", CPU_WEIGHT_IDLE, 5000,
          TREE("cpu/", "cpu/p/", "cpu/p/user.slice/", "cpu/p/user.slice/user-1001.slice/",
               "cpu/p/user.slice/user-1001.slice/cpu.shares = 2\\n",
               "cpu/p/user.slice/user-1001.slice/cpu.cfs_period_us = 200000\\n",
               "cpu/p/user.slice/user-1001.slice/cpu.cfs_quota_us = 1000\\n",
               "cpu/p/user.slice/user-1001.slice/session-7.scope/",
               "cpu/p/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n", "cpuacct/", "cpuacct/p/",
               "cpuacct/p/user.slice/", "cpuacct/p/user.slice/user-1001.slice/",
               "cpuacct/p/user.slice/user-1001.slice/session-7.scope/",
               "cpuacct/p/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "legacy without cpuacct: no mirror, no quota", TL_LEGACY_NOACCT, "", 300, CPU_QUOTA_INFINITY,
          TREE("cpu/", "cpu/user.slice/", "cpu/user.slice/user-1001.slice/",
               "cpu/user.slice/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_period_us = 100000\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_quota_us = -1\\n",
               "cpu/user.slice/user-1001.slice/session-7.scope/",
               "cpu/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "hybrid below a parent, weight 300, quota 50%", TL_HYBRID, "p", 300, 500000,
          TREE("cpu/", "cpu/p/", "cpu/p/user.slice/", "cpu/p/user.slice/user-1001.slice/",
               "cpu/p/user.slice/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/p/user.slice/user-1001.slice/cpu.cfs_period_us = 100000\\n",
               "cpu/p/user.slice/user-1001.slice/cpu.cfs_quota_us = 50000\\n",
               "cpu/p/user.slice/user-1001.slice/session-7.scope/",
               "cpu/p/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n",
               /* the mirror: no controller enabled, no settings, only the process */
               "unified/", "unified/p/", "unified/p/user.slice/", "unified/p/user.slice/user-1001.slice/",
               "unified/p/user.slice/user-1001.slice/session-7.scope/",
               "unified/p/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        { "hybrid, idle, quota 0.5%", TL_HYBRID, "", CPU_WEIGHT_IDLE, 5000,
          TREE("cpu/", "cpu/user.slice/", "cpu/user.slice/user-1001.slice/",
               "cpu/user.slice/user-1001.slice/cpu.shares = 2\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_period_us = 200000\\n",
               "cpu/user.slice/user-1001.slice/cpu.cfs_quota_us = 1000\\n",
               "cpu/user.slice/user-1001.slice/session-7.scope/",
               "cpu/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n", "unified/",
               "unified/user.slice/", "unified/user.slice/user-1001.slice/",
               "unified/user.slice/user-1001.slice/session-7.scope/",
               "unified/user.slice/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n") },
        /* slice_root=/: the users' slices at the top of each hierarchy, no user.slice between */
        { "unified, slices at the root, weight 300, quota 50%", TL_UNIFIED, NULL, 300, 500000,
          TREE("cgroup.subtree_control = +cpu\\n", "user-1001.slice/",
               "user-1001.slice/cgroup.subtree_control = +cpu\\n", "user-1001.slice/cpu.idle = 0\\n",
               "user-1001.slice/cpu.weight = 300\\n", "user-1001.slice/cpu.max = 50000 100000\\n",
               "user-1001.slice/session-7.scope/", "user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n"),
          "" },
        { "hybrid, slices at the root, weight 300, quota 50%", TL_HYBRID, NULL, 300, 500000,
          TREE("cpu/", "cpu/user-1001.slice/", "cpu/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/user-1001.slice/cpu.cfs_period_us = 100000\\n", "cpu/user-1001.slice/cpu.cfs_quota_us = 50000\\n",
               "cpu/user-1001.slice/session-7.scope/", "cpu/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n",
               "unified/", "unified/user-1001.slice/", "unified/user-1001.slice/session-7.scope/",
               "unified/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n"),
          "" },
        { "legacy with cpuacct, slices in a cgroup of the admin's naming", TL_LEGACY, NULL, 300, CPU_QUOTA_INFINITY,
          TREE("cpu/", "cpu/users/", "cpu/users/user-1001.slice/", "cpu/users/user-1001.slice/cpu.shares = 3072\\n",
               "cpu/users/user-1001.slice/cpu.cfs_period_us = 100000\\n",
               "cpu/users/user-1001.slice/cpu.cfs_quota_us = -1\\n", "cpu/users/user-1001.slice/session-7.scope/",
               "cpu/users/user-1001.slice/session-7.scope/cgroup.procs = @PID@\\n", "cpuacct/", "cpuacct/users/",
               "cpuacct/users/user-1001.slice/", "cpuacct/users/user-1001.slice/session-7.scope/",
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
                    "cpu/" SLICE "/cpu.shares = 3072\\n", "cpu/" SLICE "/cpu.cfs_period_us = 100000\\n",
                    "cpu/" SLICE "/cpu.cfs_quota_us = 50000\\n", "unified/");
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
        assert_tree(f->root, f->pid, "user.slice/", SLICE "/", SLICE "/cpu.idle = 0\\n", SLICE "/cpu.weight = 300\\n",
                    SLICE "/cpu.max = 50000 100000\\n");
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
                        fail_msg("case %zu: id '%s' gave %s, expected %s", i, strempty(id_cases[i].id), s.scope,
                                 want);
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
                { NULL, true },    { "", true },      { "a", true },       { "a/b", true },   { "a/b/", true },
                { "..a", true },   { "a..", true },   { ".x", true },      { "...", true },   { "..", false },
                { "../x", false }, { "a/..", false }, { "a/../b", false }, { "/abs", false }, { "/", false },
                { ".", false },    { "./a", false },  { "a/./b", false },  { "a//b", false },
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

/* the caller's umask (su and sudo keep it) decides no mode: directories 0755, files (a test
 * tree's) 0644 */
static void test_modes_ignore_umask(void **state) {
        static const char *const dirs[] = { "cpu/user.slice",     "cpu/" SLICE,     "cpu/" SCOPE,
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
                        snprintf(p, sizeof p, "%s/%.*s/%s", f->root, (int) (strrchr(dirs[i], '/') - dirs[i]), dirs[i],
                                 d);
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

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_open_session),       T(test_apply_and_update_slice), T(test_update_slice_unified),
                T(test_session_ids),        T(test_session_pam_suffix),     T(test_open_args),
                T(test_modes_ignore_umask),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
