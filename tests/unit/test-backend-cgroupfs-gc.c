/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroupfs backend collecting: cgfs_gc() over every layout (what is a user slice, what is a
 * scope, what is never ours), the empty scopes reaped at login and logout after their grace, and
 * the max_scopes= cap. */
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
                                "user-1001.slice/session-1.scope", /* empty: removed */
                                "user-1001.slice/session-2.scope", /* a process: kept, so is the slice */
                                "user-1002.slice/session-3.scope", /* removed, and then the slice */
                                "user-1002.slice/x.scope",         /* any *.scope */
                                "user-1003.slice",                 /* no scopes: removed */
                                "user-1004.slice/notascope",       /* not a scope: kept, and the slice */
                                "user-1005.slice/.scope",          /* not a scope name */
                                "user-1005.slice/.x.scope",        /* hidden: list does not show it */
                                "user-abc.slice",                  /* not a uid */
                                "user-.slice",
                                "user-1006.slice.bak",
                                "user-99999999999.slice", /* not a 32-bit uid */
                                "user-4294967295.slice",  /* (uid_t) -1: no user's, nor listed */
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
                        want = expected(TREE("user-1001.slice/", "user-1001.slice/session-2.scope/",
                                             "user-1001.slice/session-2.scope/cgroup.procs = 4242\\n",
                                             "user-1001.slice/file.scope = ", "user-1004.slice/",
                                             "user-1004.slice/notascope/",
                                             "user-1004.slice/notascope/cgroup.procs = ", "user-1005.slice/",
                                             "user-1005.slice/.scope/",
                                             "user-1005.slice/.scope/cgroup.procs = ", "user-1005.slice/.x.scope/",
                                             "user-1005.slice/.x.scope/cgroup.procs = ", "user-abc.slice/",
                                             "user-abc.slice/cgroup.procs = ", "user-.slice/",
                                             "user-.slice/cgroup.procs = ", "user-1006.slice.bak/",
                                             "user-1006.slice.bak/cgroup.procs = ", "user-99999999999.slice/",
                                             "user-99999999999.slice/cgroup.procs = ", "user-4294967295.slice/",
                                             "user-4294967295.slice/cgroup.procs = ", "user-1007.slicex/",
                                             "user-1007.slicex/cgroup.procs = ", "other/",
                                             "other/cgroup.procs = ", "system.slice/",
                                             "system.slice/cgroup.procs = ", "user-1008.slice = ", pidname),
                                        f->pid);
                        if (strcmp(got, want) != 0)
                                fail_msg("%s %s:\n--- got\n%s--- want\n%s", tl_names[tl], hiers[h], got, want);
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
        /* one slice's refusal, whichever readdir gives first, leaves the other to be collected */
        fake_reset();
        fake.cgroupfs = true;
        mkdir_p(f, SCOPE);
        mkdir_p(f, "user.slice/user-1002.slice/session-8.scope");
        fake_add((Fault) { OP_UNLINKAT, NULL, EACCES, .count = 1 });
        assert_int_equal(cgfs_gc(&f->c, &f->e), -EACCES);
        assert_int_equal(exists(f, SLICE) + exists(f, "user.slice/user-1002.slice"), 1);
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
        old_scope(f, SLICE "/session-1.scope", "", "");                     /* the job exited: goes */
        old_scope(f, SLICE "/session-2.scope", "4242\n", "4242\n");         /* a job runs: stays */
        old_scope(f, SLICE "/session-3.scope", "4343\n", "");               /* only the mirror is empty */
        old_scope(f, SLICE "/session-4.scope/sub", "", "");                 /* a child cgroup: stays */
        old_scope(f, "user.slice/user-1002.slice/session-9.scope", "", ""); /* another user's */
        mkdir_p(f, "cpu/" SLICE "/session-5.scope");                        /* just made by a login: stays */
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

/* At the cap a login joins one of the user's scopes: it stays under the slice's limits and
 * makes no cgroup. */
static void test_max_scopes(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};

        open_emulated(f);
        old_scope(f, SLICE "/session-2.scope", "4242\n", "4242\n");
        old_scope(f, SLICE "/session-1.scope", "4241\n", "4241\n");
        old_scope(f, SLICE "/session-3.scope", "", ""); /* reaped first: not counted */
        mkdir_p(f, "cpu/" SLICE "/session-4.scope");    /* new and empty: counted */
        old_scope(f, "user.slice/user-1002.slice/session-8.scope", "4343\n", "4343\n");
        old_scope(f, "user.slice/user-1002.slice/session-9.scope", "4344\n", "4344\n");
        f->c.max_scopes = 3;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        /* the first in C order, whichever readdir gives first */
        assert_string_equal(s.scope, "session-1.scope");
        assert_int_equal(s.at_cap, 3);
        assert_false(exists(f, "cpu/" SLICE "/session-3.scope"));
        assert_false(exists(f, "cpu/" SCOPE));
        assert_false(exists(f, "unified/" SCOPE));
        assert_int_equal(count_calls(OP_MKDIRAT, "session-7.scope", true), 0);
        assert_file(f, "cpu/" SLICE "/session-1.scope/cgroup.procs", f->pidline);
        assert_file(f, "unified/" SLICE "/session-1.scope/cgroup.procs", f->pidline);
        orig_at_roots(f, &s);
        /* its close leaves the scope to the job still in it */
        put(f, "cpu/" SLICE "/session-1.scope/cgroup.procs", "4241\n");
        assert_int_equal(cgfs_close_session(&f->c, &s, f->pid, &f->e), 0);
        assert_true(exists(f, "cpu/" SLICE "/session-1.scope"));
        cgfs_session_done(&s);
        /* the cap is per user: another user with as many scopes is under it */
        assert_int_equal(cgfs_open_session(&f->c, 1002, "10", f->pid, &k, &s, &f->e), 0);
        assert_string_equal(s.scope, "session-10.scope");
        assert_int_equal(s.at_cap, 0);
        cgfs_session_done(&s);
        /* one more allowed: the new login's scope is the fourth */
        f->c.max_scopes = 4;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        assert_string_equal(s.scope, "session-7.scope");
        assert_int_equal(s.at_cap, 0);
        cgfs_session_done(&s);
        /* at the cap, the scope of the login's own session id is the one it joins again */
        f->c.max_scopes = 3;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), 0);
        assert_string_equal(s.scope, "session-7.scope");
        assert_int_equal(s.at_cap, 3);
        cgfs_session_done(&s);
        /* 0: no cap */
        f->c.max_scopes = 0;
        assert_int_equal(cgfs_open_session(&f->c, UID, "11", f->pid, &k, &s, &f->e), 0);
        assert_string_equal(s.scope, "session-11.scope");
        cgfs_session_done(&s);
}

/* At the cap with no scope root may join (each one someone else's), nothing is made. */
static void test_max_scopes_none_joinable(void **state) {
        Fx *f = *state;
        CpuKernelValues k = W300_Q50;
        CgfsSession s = {};
        char p[1024];

        if (geteuid() != 0)
                skip(); /* only root's logins tell root-owned scopes from others */
        open_emulated(f);
        old_scope(f, SLICE "/session-1.scope", "4241\n", "4241\n");
        snprintf(p, sizeof p, "%s/cpu/" SLICE "/session-1.scope", f->root);
        assert_int_equal(chown(p, 1001, 1001), 0);
        f->c.max_scopes = 1;
        assert_int_equal(cgfs_open_session(&f->c, UID, "7", f->pid, &k, &s, &f->e), -EUSERS);
        assert_string_equal(f->e.msg, "user-1001.slice has 1 other session scopes still in use, the most that "
                                      "max_scopes=1 allows, and none of them can be joined; no scope made for "
                                      "this login");
        assert_false(exists(f, "cpu/" SCOPE));
        assert_int_equal(count_calls(OP_WRITE, "cgroup.procs", false), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_gc),
                T(test_gc_empty_and_errors),
                T(test_reap_on_open),
                T(test_reap_keeps_own),
                T(test_reap_on_close),
                T(test_reap_errors_quiet),
                T(test_max_scopes),
                T(test_max_scopes_none_joinable),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
