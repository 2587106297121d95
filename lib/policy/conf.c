/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf.h"
#include "conf-parse.h"
#include "macro.h"
#include "read-file.h"

/* A module running as root in every login must not take policy from a file a user could write. */
int conf_check_stat(const char *path, const struct stat *st, ConfPermMode mode, DiagList *diags) {
        DiagLevel level = mode == CONF_PERMS_ENFORCE ? DIAG_ERROR : DIAG_WARNING;
        const char *what = S_ISDIR(st->st_mode) ? "directory" : "file";
        int r = 0;

        if (st->st_uid != 0) {
                diag_add(diags, level, path, 0, "%s is owned by uid %u, not root%s", what, (unsigned) st->st_uid,
                         level == DIAG_ERROR ? "; refused" : " (the module would refuse it)");
                r = -EPERM;
        }
        if (st->st_mode & (S_IWGRP | S_IWOTH)) {
                diag_add(diags, level, path, 0, "%s is writable by %s (mode %04o)%s", what,
                         st->st_mode & S_IWOTH ? "others" : "its group", (unsigned) (st->st_mode & 07777),
                         level == DIAG_ERROR ? "; refused" : " (the module would refuse it)");
                r = -EPERM;
        }
        return mode == CONF_PERMS_ENFORCE ? r : 0;
}

static int load_fd(RuleSet *rs, int fd, const char *path, ConfPermMode mode, DiagList *diags) {
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t len = 0;
        int r;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode)) {
                diag_add(diags, DIAG_ERROR, path, 0, "not a regular file; refused");
                return -EBADFD;
        }
        r = conf_check_stat(path, &st, mode, diags);
        if (r < 0)
                return r;
        if ((uint64_t) st.st_size > CONF_FILE_MAX) {
                diag_add(diags, DIAG_ERROR, path, 0, "larger than %u MiB; refused", CONF_FILE_MAX >> 20);
                return -EFBIG;
        }
        /* the size is checked again while reading: the file may grow under us */
        r = read_full_fd(fd, CONF_FILE_MAX, NULL, &buf, &len);
        if (r == -EFBIG)
                diag_add(diags, DIAG_ERROR, path, 0, "larger than %u MiB; refused", CONF_FILE_MAX >> 20);
        else if (r < 0)
                diag_add(diags, DIAG_ERROR, path, 0, "cannot read: %s; refused", strerror(-r));
        if (r < 0)
                return r;
        return conf_parse_buffer(rs, path, buf, len, diags);
}

/* O_NONBLOCK: a FIFO planted as a config file must not hang a login */
#define CONF_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

static int load_at(RuleSet *rs, int dirfd, const char *name, const char *path, ConfPermMode mode, DiagList *diags) {
        _cleanup_close_ int fd = -EBADF;

        fd = openat(dirfd, name, CONF_OPEN_FLAGS);
        if (fd < 0) {
                int r = -errno;
                if (r != -ENOENT)
                        diag_add(diags, DIAG_ERROR, path, 0, "cannot open: %s; refused", strerror(-r));
                return r;
        }
        return load_fd(rs, fd, path, mode, diags);
}

int conf_load_file(RuleSet *rs, const char *path, ConfPermMode mode, DiagList *diags) {
        return load_at(rs, AT_FDCWD, path, path, mode, diags);
}

static bool name_wanted(const char *name) {
        size_t n = strlen(name);

        return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

static int open_dir_checked(const char *dir, ConfPermMode mode, DiagList *diags) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        int r;

        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                if (r != -ENOENT)
                        diag_add(diags, DIAG_ERROR, dir, 0, "cannot open directory: %s; refused", strerror(-r));
                return r;
        }
        if (fstat(fd, &st) < 0)
                return -errno;
        r = conf_check_stat(dir, &st, mode, diags);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}

static int collect_names(DIR *d, const char *dir, char ***ret, size_t *ret_n) {
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0;
        struct dirent *de;

        while ((de = readdir(d))) {
                char *path;

                if (!name_wanted(de->d_name))
                        continue;
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
                        return -ENOMEM;
                if (strv_consume(&names, &n, path) < 0)
                        return -ENOMEM;
        }
        strv_sort(names, n);
        *ret = TAKE_PTR(names);
        *ret_n = n;
        return 0;
}

int conf_list_dir(const char *dir, ConfPermMode mode, char ***ret_paths, size_t *ret_n, DiagList *diags) {
        _cleanup_closedir_ DIR *d = NULL;
        int fd;

        *ret_paths = NULL;
        *ret_n = 0;
        fd = open_dir_checked(dir, mode, diags);
        if (fd < 0)
                return fd;
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        return collect_names(d, dir, ret_paths, ret_n);
}

static int load_dir(RuleSet *rs, const char *dir, ConfPermMode mode, DiagList *diags) {
        char **paths = NULL;
        size_t n = 0;
        int r, first = 0;

        r = conf_list_dir(dir, mode, &paths, &n, diags);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = conf_load_file(rs, paths[i], mode, diags);
                if (r == -ENOMEM) {
                        first = r;
                        break;
                }
                /* a file that vanished between readdir and open is not an error */
                if (r < 0 && r != -ENOENT && first == 0)
                        first = r;
        }
        strv_free(paths);
        return first;
}

void conf_paths_fill_defaults(ConfPaths *p) {
        if (!p->main_file)
                p->main_file = CONF_MAIN_FILE;
        if (!p->drop_in_dir)
                p->drop_in_dir = CONF_DROP_IN_DIR;
        if (!p->run_dir)
                p->run_dir = CONF_RUN_DIR;
}

int conf_load(RuleSet *rs, const ConfPaths *paths, ConfPermMode mode, DiagList *diags) {
        ConfPaths p = paths ? *paths : (ConfPaths) {};
        int r, first = 0;

        conf_paths_fill_defaults(&p);
        if (*p.main_file) {
                r = conf_load_file(rs, p.main_file, mode, diags);
                if (r < 0 && r != -ENOENT)
                        first = r;
        }
        if (*p.drop_in_dir) {
                r = load_dir(rs, p.drop_in_dir, mode, diags);
                if (r < 0 && first == 0)
                        first = r;
        }
        if (*p.run_dir) {
                r = load_dir(rs, p.run_dir, mode, diags);
                if (r < 0 && first == 0)
                        first = r;
        }
        return first;
}
