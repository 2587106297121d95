/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "applied-record.h"
#include "macro.h"
#include "slice-name.h"
#include "state-file.h"

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

        record_dir(root, d);
        return state_dir_open(d, create);
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
        _cleanup_close_ int dfd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        AppliedRecord rec = {};
        char name[SLICE_NAME_MAX];
        int r;

        *ret = rec;
        dfd = open_dir(root, false);
        if (dfd == -ENOENT)
                return 0;
        if (dfd < 0)
                return dfd;
        slice_name(uid, name);
        r = state_file_read(dfd, name, RECORD_MAX, &buf, NULL, 0);
        if (r < 0 || !buf)
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
        char d[PATH_MAX], name[SLICE_NAME_MAX];
        bool empty = true;

        for (BusProp p = 0; p < _BUS_PROP_MAX; p++)
                empty = empty && !rec->prop[p].set;
        record_dir(root, d);
        slice_name(uid, name);
        return state_file_save(d, name, ATOMIC_FILE_VOLATILE, empty ? NULL : fill_record, (void *) rec);
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

/* user-UID.slice, and user.slice (SLICE_ROOT_UID), whose record a user.slice line makes */
static int record_name_to_uid(const char *name, uid_t *ret) {
        if (strcmp(name, "user.slice") == 0) {
                *ret = SLICE_ROOT_UID;
                return 0;
        }
        return slice_name_to_uid(name, ret);
}

int applied_record_list(const char *root, uid_t **ret, size_t *ret_n) {
        char d[PATH_MAX];

        record_dir(root, d);
        return state_dir_list_uids(d, record_name_to_uid, ret, ret_n);
}

bool applied_record_exists(const char *root, uid_t uid) {
        char d[PATH_MAX], path[PATH_MAX + SLICE_NAME_MAX];
        char name[SLICE_NAME_MAX];

        record_dir(root, d);
        slice_name(uid, name);
        snprintf(path, sizeof path, "%s/%s", d, name);
        return access(path, F_OK) >= 0;
}
