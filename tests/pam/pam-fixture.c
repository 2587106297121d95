/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "pam-fixture.h"
#include "test-util.h"

static char self_exe[PATH_MAX] = "/proc/self/exe";

void fx_set_self(const char *argv0) {
        if (!realpath(argv0, self_exe))
                snprintf(self_exe, sizeof self_exe, "/proc/self/exe");
}

const char *module_path(void) {
        const char *p = getenv("PAM_CPUSLICE_MODULE");
        assert_non_null(p);
        return p;
}

int fx_setup(void **state) {
        Fx *f = calloc(1, sizeof *f);

        umask(022);
        if (!f || !(f->dir = scratch_dir()))
                return -1;
        snprintf(f->services, sizeof f->services, "%s/pam.d", f->dir);
        snprintf(f->cgroot, sizeof f->cgroot, "%s/cgroup", f->dir);
        snprintf(f->conf, sizeof f->conf, "%s/cpuslice.conf", f->dir);
        snprintf(f->log, sizeof f->log, "%s/log", f->dir);
        snprintf(f->outside, sizeof f->outside, "%s/outside", f->dir);
        if (mkdir(f->services, 0755) < 0 || mkdir(f->cgroot, 0755) < 0 || mkdir(f->outside, 0755) < 0)
                return -1;
        setenv("PAM_WRAPPER_SERVICE_DIR", f->services, 1);
        *state = f;
        return 0;
}

int fx_teardown(void **state) {
        Fx *f = *state;

        rm_rf(f->dir);
        free(f->dir);
        free(f);
        return 0;
}

char *slurp(const char *path) {
        static char buf[65536];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return NULL;
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[n < 0 ? 0 : n] = '\0';
        return buf;
}

bool exists(const Fx *f, const char *rel) {
        char path[1200];
        struct stat st;

        snprintf(path, sizeof path, "%s/%s", f->cgroot, rel);
        return lstat(path, &st) == 0;
}

/* pam_wrapper's directories: /tmp/pam.X, X one letter or digit */
static bool pam_wrapper_dir(const char *name) {
        return strncmp(name, "pam.", 4) == 0 && name[4] && !name[5];
}

/* In the child, before exec (pam_wrapper starts in a constructor): a /tmp of its own, so that its
 * /tmp/pam.X is out of reach of every other pam_wrapper process on the machine. pam_wrapper 1.1.4
 * hardcodes /tmp/pam.X (62 names per machine), picks one by lstat() and then mkdir() (EEXIST
 * ignored: two processes share one directory and the first to exit removes it), and removes any
 * /tmp/pam.X whose pidfile names a dead process, by path, after the check. A concurrent run of
 * any pam_wrapper test (another checkout's, a shell under pam_wrapper: dash ends with _exit() and
 * leaves its directory behind) could so remove this child's copied service files under it, and
 * the login failed for no fault of the module.
 * A mount namespace with a tmpfs on /tmp, and every entry of the real /tmp but pam_wrapper's bound
 * back at its name: the child sees the scratch directory, a build tree under /tmp and the rest as
 * before, writes through to them, and its own /tmp/pam.X goes with it. Without CAP_SYS_ADMIN
 * (unshare gives EPERM: not root) the child shares the machine's /tmp as before. */
static int private_tmp(void) {
        struct {
                int fd;
                mode_t mode;
                char name[256];
        } *e = calloc(256, sizeof *e);
        size_t n = 0, cap = 256; /* a long-lived host's /tmp can hold thousands of entries */
        DIR *d;
        int rc = -1;

        if (!e)
                return -1;
        if (unshare(CLONE_NEWNS) < 0) {
                free(e);
                return errno == EPERM ? 0 : -1;
        }
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 || !(d = opendir("/tmp")))
                goto out;
        for (struct dirent *de; (de = readdir(d));) {
                struct stat st;
                if (n == cap) {
                        void *grown = reallocarray(e, cap * 2, sizeof *e);
                        if (!grown) {
                                closedir(d);
                                goto out;
                        }
                        e = grown;
                        cap *= 2;
                }
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || pam_wrapper_dir(de->d_name) ||
                    strlen(de->d_name) >= sizeof e[n].name)
                        continue;
                e[n].fd = openat(dirfd(d), de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (e[n].fd < 0 || fstat(e[n].fd, &st) < 0) /* gone meanwhile */
                        continue;
                e[n].mode = st.st_mode;
                snprintf(e[n].name, sizeof e[n].name, "%s", de->d_name);
                n++;
        }
        closedir(d);
        if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
                goto out;
        for (size_t i = 0; i < n; i++) {
                char path[300], proc[64], target[PATH_MAX];
                ssize_t len;

                snprintf(path, sizeof path, "/tmp/%s", e[i].name);
                if (S_ISLNK(e[i].mode)) {
                        len = readlinkat(e[i].fd, "", target, sizeof target - 1);
                        if (len < 0)
                                continue;
                        target[len] = '\0';
                        if (symlink(target, path) < 0)
                                goto out;
                        continue;
                }
                if (S_ISDIR(e[i].mode) ? mkdir(path, 0700) < 0 : mknod(path, S_IFREG | 0600, 0) < 0)
                        goto out;
                snprintf(proc, sizeof proc, "/proc/self/fd/%d", e[i].fd);
                if (mount(proc, path, NULL, MS_BIND | MS_REC, NULL) < 0) {
                        if (errno != ENOENT) /* ENOENT: removed from the real /tmp meanwhile */
                                goto out;
                        (void) (S_ISDIR(e[i].mode) ? rmdir(path) : unlink(path));
                }
        }
        rc = 0;
out:
        for (size_t i = 0; i < n; i++)
                close(e[i].fd);
        free(e);
        return rc;
}

int run_self(const Fx *f, const char *const args[]) {
        const char *argv[16] = { self_exe };
        int status;
        pid_t pid;

        for (size_t i = 0; args[i]; i++) {
                assert_true(i + 2 < sizeof argv / sizeof *argv);
                argv[i + 1] = args[i];
        }
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int fd = open(f->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
                        _exit(101);
                if (private_tmp() < 0) {
                        dprintf(STDERR_FILENO, "run_self: no private /tmp: %m\n");
                        _exit(103);
                }
                execv(self_exe, (char *const *) argv);
                _exit(102);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
