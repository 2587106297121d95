/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "applied-record.h"
#include "atomic-file.h"
#include "fs-util.h"
#include "macro.h"
#include "read-file.h"
#include "slice-name.h"

#define RECORD_MAX 4096

static int64_t stat_mtime_nsec(const struct stat *st) {
        return (int64_t) st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* ROOT/run/cpuslice/systemd */
static void record_dir(const char *root, char buf[static PATH_MAX]) {
        snprintf(buf, PATH_MAX, "%s" APPLIED_RECORD_DIR, root ? root : "");
}

static int open_dir(const char *root, bool create) {
        char d[PATH_MAX];
        int fd, r;

        record_dir(root, d);
        if (create) {
                /* /run/cpuslice, then its systemd/ below */
                _cleanup_free_ char *parent = strdup(d);
                char *slash = parent ? strrchr(parent, '/') : NULL;

                if (!parent)
                        return -ENOMEM;
                if (slash && slash != parent) {
                        *slash = '\0';
                        r = mkdir_mode(parent, 0755);
                        if (r < 0)
                                return r;
                }
                r = mkdir_mode(d, 0755);
                if (r < 0)
                        return r;
        }
        fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        return fd;
}

static int parse_line(const char *line, AppliedRecord *rec) {
        char name[32];
        uint64_t value, dev, ino;
        int64_t mtime;
        int p;

        if (sscanf(line, "%31s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNd64, name, &value, &dev, &ino, &mtime) != 5)
                return -EBADMSG;
        p = bus_prop_key_from_string(name);
        if (p < 0)
                return -EBADMSG;
        rec->prop[p] = (AppliedProp) { true, value, (dev_t) dev, (ino_t) ino, mtime };
        return 0;
}

int applied_record_load(const char *root, uid_t uid, AppliedRecord *ret) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        AppliedRecord rec = {};
        char name[SLICE_NAME_MAX];
        struct stat st;
        int r;

        *ret = rec;
        dfd = open_dir(root, false);
        if (dfd == -ENOENT)
                return 0;
        if (dfd < 0)
                return dfd;
        slice_name(uid, name);
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        /* root's (the module's and slicectl's), or the reader's own; a user reading root's record
         * (slicectl status as a user) trusts root anyway */
        if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 0022))
                return -EPERM;
        r = read_full_fd(fd, RECORD_MAX, NULL, &buf, NULL);
        if (r < 0)
                return r;
        for (char *line = buf, *end; *line; line = end) {
                end = strchrnul(line, '\n');
                if (*end)
                        *end++ = '\0';
                if (*line && parse_line(line, &rec) < 0)
                        return -EBADMSG;
        }
        *ret = rec;
        return 0;
}

static int fill_record(FILE *f, void *userdata) {
        const AppliedRecord *rec = userdata;

        for (BusProp p = 0; p < _BUS_PROP_MAX; p++)
                if (rec->prop[p].set)
                        fprintf(f, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 "\n", bus_prop_key_to_string(p),
                                rec->prop[p].value, (uint64_t) rec->prop[p].dev, (uint64_t) rec->prop[p].ino,
                                rec->prop[p].mtime_nsec);
        return ferror(f) ? -EIO : 0;
}

int applied_record_save(const char *root, uid_t uid, const AppliedRecord *rec) {
        _cleanup_close_ int dfd = -EBADF;
        char name[SLICE_NAME_MAX];
        bool empty = true;

        for (BusProp p = 0; p < _BUS_PROP_MAX; p++)
                empty = empty && !rec->prop[p].set;
        slice_name(uid, name);
        dfd = open_dir(root, !empty);
        if (empty && dfd == -ENOENT)
                return 0;
        if (dfd < 0)
                return dfd;
        if (empty)
                return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
        return atomic_file_replace(dfd, name, 0644, fill_record, (void *) rec);
}

void applied_record_note(AppliedRecord *rec, BusProp p, uint64_t value, const char *dropin) {
        struct stat st;

        rec->prop[p] = (AppliedProp) { .set = true, .value = value, .mtime_nsec = -1 };
        if (lstat(dropin, &st) >= 0 && S_ISREG(st.st_mode)) {
                rec->prop[p].dev = st.st_dev;
                rec->prop[p].ino = st.st_ino;
                rec->prop[p].mtime_nsec = stat_mtime_nsec(&st);
        }
}

bool applied_record_owns(const AppliedRecord *rec, BusProp p, const char *dropin) {
        const AppliedProp *a = &rec->prop[p];
        struct stat st;

        if (!a->set || a->mtime_nsec < 0 || lstat(dropin, &st) < 0 || !S_ISREG(st.st_mode))
                return false;
        return st.st_dev == a->dev && st.st_ino == a->ino && stat_mtime_nsec(&st) == a->mtime_nsec;
}

int applied_record_list(const char *root, uid_t **ret, size_t *ret_n) {
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ uid_t *uids = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        int fd;

        fd = open_dir(root, false);
        if (fd == -ENOENT) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        if (fd < 0)
                return fd;
        d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                close(fd);
                return r;
        }
        while ((de = readdir(d))) {
                uid_t uid;

                if (de->d_type != DT_REG || slice_name_to_uid(de->d_name, &uid) < 0)
                        continue;
                if (!GREEDY_REALLOC(uids, cap, n + 1))
                        return -ENOMEM;
                uids[n++] = uid;
        }
        *ret = TAKE_PTR(uids);
        *ret_n = n;
        return 0;
}

bool applied_record_exists(const char *root, uid_t uid) {
        char d[PATH_MAX], path[PATH_MAX + SLICE_NAME_MAX];
        char name[SLICE_NAME_MAX];

        record_dir(root, d);
        slice_name(uid, name);
        snprintf(path, sizeof path, "%s/%s", d, name);
        return access(path, F_OK) >= 0;
}
