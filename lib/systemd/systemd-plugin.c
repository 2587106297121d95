/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "escape.h"
#include "macro.h"
#include "systemd-plugin.h"
#include "trusted-path.h"

static int plugin_fd(const char *path, int *ret_fd, CsError *e) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        char dir[PATH_MAX], why[128], esc[PATH_MAX * 4];
        const char *slash = strrchr(path, '/'), *what = dir;
        int r;

        snprintf(dir, sizeof dir, "%.*s", slash ? (int) (slash - path) : 1, slash ? path : ".");
        dfd = open(slash == path ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r = dfd < 0 ? -errno : trusted_fd_check(dfd, S_IFDIR, why, sizeof why);
        if (r >= 0) {
                what = path;
                fd = openat(dfd, slash ? slash + 1 : path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
                r = fd < 0 ? -errno : trusted_fd_check(fd, S_IFREG, why, sizeof why);
                if (r == -ELOOP)
                        snprintf(why, sizeof why, "a symlink");
        }
        if (r == -EPERM || r == -ELOOP)
                return cs_error(e, r, "%s is %s; the systemd backend is not loaded from it",
                                escape_for_log(what, sizeof dir, esc, sizeof esc), why);
        if (r < 0)
                return cs_error(e, r, "cannot open %s: %m", escape_for_log(what, sizeof dir, esc, sizeof esc));
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int systemd_plugin_open(const char *path, void **ret_handle, const SystemdPlugin **ret, CsError *e) {
        _cleanup_close_ int fd = -EBADF;
        const SystemdPlugin *p;
        char byfd[64];
        void *h;
        int r;

        r = plugin_fd(path, &fd, e);
        if (r < 0)
                return r;
        snprintf(byfd, sizeof byfd, "/proc/self/fd/%d", fd);
        h = dlopen(byfd, RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return cs_error(e, -ELIBBAD, "cannot load the systemd backend: %s", dlerror());
        p = dlsym(h, SYSTEMD_PLUGIN_SYMBOL);
        if (!p || p->abi != SYSTEMD_PLUGIN_ABI) {
                dlclose(h);
                return cs_error(e, -ELIBBAD, "%s is not the systemd backend of this module version", path);
        }
        *ret_handle = h;
        *ret = p;
        return 0;
}
