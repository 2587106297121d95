/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hostile trees and fd hygiene through the real PAM stack (pam_wrapper, nss_wrapper, a scratch tree
 * via allow_plain_tree): a symlink or a regular file planted where user.slice, user-UID.slice or the
 * session scope should be is refused, the login proceeds (denied with strict) and nothing is
 * written through it; and on every path, success or failure, each fd the module opened is closed
 * again or O_CLOEXEC, so none leaks into the session. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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

/* a file outside the tree that a planted link points at, and a config for alice */
static int setup(void **state) {
        Fx *f;

        if (fx_setup(state) < 0)
                return -1;
        f = *state;
        if (write_file(f->outside, "target", "untouched\n", 0644) < 0 ||
            write_file(f->dir, "cpuslice.conf", "* CPUWeight=100\nalice CPUWeight=300 CPUQuota=50%\n", 0644) < 0)
                return -1;
        return 0;
}

/* pam_env puts XDG_SESSION_ID=h1 in the PAM environment, as logind's pam_systemd would */
static void service(Fx *f, const char *args) {
        char text[4096];

        assert_int_equal(write_file(f->dir, "env.conf", "XDG_SESSION_ID DEFAULT=h1\n", 0644), 0);
        snprintf(text, sizeof text,
                 "auth required pam_permit.so\naccount required pam_permit.so\n"
                 "session required pam_env.so readenv=0 user_readenv=0 conffile=%s/env.conf\n"
                 "session required %s conf=%s confdir=%s/none rundir=%s/none cgroup_root=%s allow_plain_tree "
                 "cgroup_layout=unified %s\nsession required pam_permit.so\n",
                 f->dir, module_path(), f->conf, f->dir, f->dir, f->cgroot, args);
        assert_int_equal(write_file(f->services, "cs", text, 0644), 0);
}

static int count_lines_with(const char *path, const char *needle) {
        const char *log = slurp(path);
        int n = 0;

        for (const char *p = log; p && (p = strstr(p, needle)); p += strlen(needle))
                n++;
        return n;
}

/* Runs MODE in a fresh exec of this binary (pam_wrapper reads the service dir once per process),
 * stderr (pam_syslog via pam_wrapper) appended to f->log; returns the exit status. */
static int run_child(Fx *f, const char *mode, const char *user, int want) {
        char w[16];

        snprintf(w, sizeof w, "%d", want);
        return run_self(f, (const char *const[]) { mode, user, w, NULL });
}

static int open_close_main(const char *user, int want) {
        struct pam_testcase t[] = { pam_test(PAMTEST_OPEN_SESSION, want),
                                    pam_test(PAMTEST_CLOSE_SESSION, PAM_SUCCESS) };
        enum pamtest_err perr = _pamtest("cs", user, NULL, t, want == PAM_SUCCESS ? 2 : 1, NULL);

        if (perr != PAMTEST_ERR_OK) {
                fprintf(stderr, "PAMTEST-FAILED %s: %s (open returned %d)\n", user, pamtest_strerror(perr),
                        t[0].op_rv);
                return 1;
        }
        return 0;
}

/* The fds open in this process, as a bitmap over 0..1023. */
static void fd_set_now(bool set[1024]) {
        DIR *d = opendir("/proc/self/fd");
        int self = d ? dirfd(d) : -1;

        memset(set, 0, 1024 * sizeof(bool));
        for (struct dirent *de; d && (de = readdir(d));) {
                int fd = atoi(de->d_name);
                if (de->d_name[0] != '.' && fd != self && fd >= 0 && fd < 1024)
                        set[fd] = true;
        }
        if (d)
                closedir(d);
}

static bool fd_cloexec(int fd) {
        char path[64], *line, *p;

        snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
        line = slurp(path);
        p = line ? strstr(line, "flags:") : NULL;
        return p && (strtoul(p + 6, NULL, 8) & O_CLOEXEC);
}

/* fds that appeared between before and after: each must be O_CLOEXEC (none is expected at all) */
static int compare_fds(const char *what, const bool before[1024], const bool after[1024]) {
        int bad = 0;

        for (int fd = 0; fd < 1024; fd++) {
                if (before[fd] && !after[fd])
                        fprintf(stderr, "FDS %s: fd %d was closed by the module\n", what, fd), bad++;
                if (!before[fd] && after[fd]) {
                        char link[64], target[256] = "";
                        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
                        (void) !readlink(link, target, sizeof target - 1);
                        fprintf(stderr, "FDS %s: fd %d (%s) left open%s\n", what, fd, target,
                                fd_cloexec(fd) ? " with O_CLOEXEC" : " WITHOUT O_CLOEXEC: leaks into the session");
                        bad++;
                }
        }
        return bad;
}

static int fds_main(const char *user) {
        struct pam_testcase warm[] = { pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS),
                                       pam_test(PAMTEST_CLOSE_SESSION, PAM_SUCCESS) };
        struct pam_testcase open_only[] = { pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS) };
        struct pam_testcase both[] = { pam_test(PAMTEST_OPEN_SESSION, PAM_SUCCESS),
                                       pam_test(PAMTEST_CLOSE_SESSION, PAM_SUCCESS) };
        bool b[1024], a[1024];
        int bad;

        /* libpam and the wrappers open their own files on first use */
        if (_pamtest("cs", user, NULL, warm, 2, NULL) != PAMTEST_ERR_OK)
                return 1;
        fd_set_now(b);
        if (_pamtest("cs", user, NULL, open_only, 1, NULL) != PAMTEST_ERR_OK)
                return 2;
        fd_set_now(a);
        bad = compare_fds("after open_session", b, a);
        if (_pamtest("cs", user, NULL, both, 2, NULL) != PAMTEST_ERR_OK)
                return 2;
        fd_set_now(a);
        bad += compare_fds("after open+close", b, a);
        fprintf(stderr, "FDS-CHECKED %s\n", user);
        return bad ? 3 : 0;
}

static void mkdirs(Fx *f, const char *rel) {
        char path[1200];

        snprintf(path, sizeof path, "%s/%s", f->cgroot, rel);
        for (char *p = path + strlen(f->cgroot) + 1; (p = strchr(p, '/')); p++) {
                *p = '\0';
                (void) mkdir(path, 0755);
                *p = '/';
        }
        (void) mkdir(path, 0755);
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Appends one line per entry below dirfd ("REL TYPE SIZE", as find's %p %y %s), depth first. */
static void manifest_dir(int dirfd, const char *rel, char ***lines, size_t *n) {
        DIR *d = fdopendir(dirfd);

        assert_non_null(d);
        for (struct dirent *de; (de = readdir(d));) {
                char sub[1400], *line;
                struct stat st;
                char type;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                assert_int_equal(fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW), 0);
                type = S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : S_ISREG(st.st_mode) ? 'f' : '?';
                snprintf(sub, sizeof sub, "%s/%s", rel, de->d_name);
                assert_true(asprintf(&line, "%s %c %lld\n", sub, type, (long long) st.st_size) > 0);
                *lines = realloc(*lines, (*n + 1) * sizeof **lines);
                assert_non_null(*lines);
                (*lines)[(*n)++] = line;
                if (type == 'd')
                        manifest_dir(openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), sub,
                                     lines, n);
        }
        closedir(d);
}

/* A manifest of the outside directory: names, types and sizes, then the target's contents. Read
 * in this process: a child (popen of find and cat, as this once was) would start pam_wrapper from
 * LD_PRELOAD, and pam_wrapper's start-up in a child races with other pam_wrapper processes over
 * /tmp/pam.X directories; a child that loses exits 1 before main and the manifest comes out short. */
static char *manifest(Fx *f) {
        char **lines = NULL, *m, path[700];
        size_t n = 0, len = 0;
        const char *target;

        manifest_dir(open(f->outside, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ".", &lines, &n);
        qsort(lines, n, sizeof *lines, cmp_str);
        snprintf(path, sizeof path, "%s/target", f->outside);
        target = slurp(path);
        assert_non_null(target);
        for (size_t i = 0; i < n; i++)
                len += strlen(lines[i]);
        m = malloc(len + strlen(target) + 1);
        assert_non_null(m);
        m[0] = '\0';
        for (size_t i = 0; i < n; i++) {
                strcat(m, lines[i]);
                free(lines[i]);
        }
        strcat(m, target);
        free(lines);
        return m;
}

typedef struct Plant {
        const char *parent, *name; /* below the cgroup root */
        bool symlink;
} Plant;

static const Plant plants[] = {
        { NULL, "user.slice", true },
        { NULL, "user.slice", false },
        { "user.slice", "user-1001.slice", true },
        { "user.slice", "user-1001.slice", false },
        { "user.slice/user-1001.slice", "session-h1.scope", true },
        { "user.slice/user-1001.slice", "session-h1.scope", false },
        /* a control file of the slice made a symlink to a file outside */
        { "user.slice/user-1001.slice", "cpu.max", true },
        { "user.slice/user-1001.slice", "cpu.weight", true },
        { "user.slice", "cgroup.subtree_control", true },
};

static void test_planted(void **state) {
        Fx *f = *state;

        for (size_t i = 0; i < sizeof plants / sizeof plants[0]; i++) {
                const Plant *p = &plants[i];
                char where[700], path[1400], args[256], *before, *after;
                bool control = strchr(p->name, '.') && strncmp(p->name, "c", 1) == 0;
                int n0, n1;

                rm_rf(f->cgroot);
                assert_int_equal(mkdir(f->cgroot, 0755), 0);
                if (p->parent)
                        mkdirs(f, p->parent);
                snprintf(where, sizeof where, "%s%s%s", p->parent ? p->parent : "", p->parent ? "/" : "", p->name);
                snprintf(path, sizeof path, "%s/%s", f->cgroot, where);
                if (p->symlink) {
                        char target[700];
                        snprintf(target, sizeof target, control ? "%s/target" : "%s", f->outside);
                        assert_int_equal(symlink(target, path), 0);
                } else
                        assert_int_equal(write_file(f->cgroot, where, "", 0644), 0);
                before = manifest(f);

                snprintf(args, sizeof args, "debug");
                service(f, args);
                n0 = count_lines_with(f->log, "login proceeds without a CPU slice");
                if (run_child(f, "--open", "alice", PAM_SUCCESS) != 0)
                        fail_msg("case %zu (%s %s): login not allowed; log:\n%s", i, where,
                                 p->symlink ? "symlink" : "file", slurp(f->log));
                n1 = count_lines_with(f->log, "login proceeds without a CPU slice");
                if (n1 - n0 != 1)
                        fail_msg("case %zu (%s): %d failure lines; log:\n%s", i, where, n1 - n0, slurp(f->log));
                if (!strstr(slurp(f->log),
                            control ? "refused" : "not a directory (a symlink or file planted there?); refused") &&
                    !strstr(slurp(f->log), "Too many levels of symbolic links") &&
                    !strstr(slurp(f->log), "Not a directory"))
                        fail_msg("case %zu (%s): no clear reason; log:\n%s", i, where, slurp(f->log));
                service(f, "strict");
                assert_int_equal(run_child(f, "--open", "alice", PAM_SESSION_ERR), 0);
                after = manifest(f);
                if (strcmp(before, after) != 0)
                        fail_msg("case %zu (%s): written through the planted %s:\n%s\nvs\n%s", i, where,
                                 p->symlink ? "symlink" : "file", before, after);
                assert_true(exists(f, where)); /* left where it was */
                free(before);
                free(after);
                assert_int_equal(truncate(f->log, 0), 0);
        }
}

/* Every fd the module opens is closed again, on the success path and on each failure path. */
static void test_fds_on_every_path(void **state) {
        Fx *f = *state;
        char args[1400], link[1200];
        struct {
                const char *what, *args, *user;
                void (*prepare)(Fx *f);
        } cases[] = {
                { "success", "", "alice", NULL },
                { "unknown user", "", "nosuchuser", NULL },
                { "missing cgroup root", "cgroup_root=/nonexistent/cg", "alice", NULL },
                { "config refused (FIFO)", "conf=FIFO", "alice", NULL },
                { "symlink at user.slice", "", "alice", NULL },
                { "user left alone", "", "root", NULL },
        };

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                rm_rf(f->cgroot);
                assert_int_equal(mkdir(f->cgroot, 0755), 0);
                if (strcmp(cases[i].args, "conf=FIFO") == 0) {
                        snprintf(link, sizeof link, "%s/fifo", f->dir);
                        (void) mkfifo(link, 0644);
                        snprintf(args, sizeof args, "conf=%s", link);
                } else
                        snprintf(args, sizeof args, "%s", cases[i].args);
                if (strstr(cases[i].what, "symlink")) {
                        snprintf(link, sizeof link, "%s/user.slice", f->cgroot);
                        assert_int_equal(symlink(f->outside, link), 0);
                }
                service(f, args);
                if (run_child(f, "--fds", cases[i].user, 0) != 0)
                        fail_msg("fd check, %s: %s", cases[i].what, slurp(f->log));
                assert_int_equal(count_lines_with(f->log, "FDS-CHECKED"), 1);
                assert_int_equal(truncate(f->log, 0), 0);
        }
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fx_teardown)

int main(int argc, char **argv) {
        fx_set_self(argv[0]);
        if (argc == 4 && strcmp(argv[1], "--open") == 0)
                return open_close_main(argv[2], atoi(argv[3]));
        if (argc == 4 && strcmp(argv[1], "--fds") == 0)
                return fds_main(argv[2]);
        const struct CMUnitTest tests[] = {
                T(test_planted),
                T(test_fds_on_every_path),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
