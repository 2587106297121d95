/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
                execv(self_exe, (char *const *) argv);
                _exit(102);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
