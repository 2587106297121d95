/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup-layout.h"
#include "macro.h"
#include "parse-util.h"
#include "string-table.h"

static const char *const cgroup_layout_kind_table[_CGROUP_LAYOUT_MAX] = {
        [CGROUP_LAYOUT_UNIFIED] = "unified",
        [CGROUP_LAYOUT_LEGACY] = "legacy",
        [CGROUP_LAYOUT_HYBRID] = "hybrid",
};

DEFINE_STRING_TABLE_LOOKUP(cgroup_layout_kind, CgroupLayoutKind)

const char *cgroup_layout_to_string(CgroupLayoutKind k) {
        const char *s = cgroup_layout_kind_to_string(k);

        return s ? s : "?"; /* for messages: never a NULL to print */
}

void cgroup_layout_done(CgroupLayout *l) {
        free(l->cpu.path);
        free(l->acct.path);
        *l = (CgroupLayout) {};
}

int cgroup_layout_copy(CgroupLayout *dst, const CgroupLayout *src) {
        CgroupLayout l = *src;

        l.cpu.path = strdup(strempty(src->cpu.path));
        l.acct.path = src->acct.path ? strdup(src->acct.path) : NULL;
        if (!l.cpu.path || (src->acct.path && !l.acct.path)) {
                cgroup_layout_done(&l);
                return -ENOMEM;
        }
        *dst = l;
        return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape_octal(char *s) {
        char *w = s;

        for (; *s; s++) {
                if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
                    s[3] <= '7') {
                        *w++ = (char) ((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
                        s += 3;
                } else
                        *w++ = *s;
        }
        *w = '\0';
}

void cgroup_mount_scan_done(CgroupMountScan *s) {
        free(s->cpu_v1);
        free(s->acct_v1);
}

/* mount point, file system type and super options of one mountinfo line (modified in place) */
static int parse_mount_line(char *line, char **ret_where, char **ret_fstype, char **ret_super) {
        char *fields[6] = {}, *sep, *save = NULL;
        int i = 0;

        sep = strstr(line, " - ");
        if (!sep)
                return -EINVAL;
        *sep = '\0';
        for (char *t = strtok_r(line, " ", &save); t && i < 6; t = strtok_r(NULL, " ", &save))
                fields[i++] = t;
        if (i < 5)
                return -EINVAL;
        *ret_fstype = strtok_r(sep + 3, " \n", &save);
        (void) strtok_r(NULL, " \n", &save); /* source */
        *ret_super = strtok_r(NULL, " \n", &save);
        if (!*ret_fstype || !*ret_super)
                return -EINVAL;
        unescape_octal(fields[4]);
        *ret_where = fields[4];
        return 0;
}

int cgroup_layout_scan_line(const char *root, char *line, CgroupMountScan *s) {
        char *where, *fstype, *super, *rel;
        size_t rootlen = strlen(root);
        int r;

        r = parse_mount_line(line, &where, &fstype, &super);
        if (r < 0)
                return r;
        if (strncmp(where, root, rootlen) != 0)
                return 0;
        rel = where + rootlen;
        if (*rel == '/')
                rel++;
        else if (*rel)
                return 0; /* /sys/fs/cgroupfoo */
        if (strchr(rel, '/'))
                return 0;
        if (strcmp(fstype, "cgroup2") == 0) {
                if (!*rel)
                        s->root_v2 = true;
                else if (strcmp(rel, "unified") == 0)
                        s->unified_v2 = true;
                return 0;
        }
        if (strcmp(fstype, "cgroup") != 0 || !*rel)
                return 0;
        if (list_has_word(super, ",", "cpu") && !s->cpu_v1) {
                s->cpu_v1 = strdup(rel);
                s->cpu_has_acct = list_has_word(super, ",", "cpuacct");
                return s->cpu_v1 ? 0 : -ENOMEM;
        }
        if (list_has_word(super, ",", "cpuacct") && !s->acct_v1) {
                s->acct_v1 = strdup(rel);
                return s->acct_v1 ? 0 : -ENOMEM;
        }
        return 0;
}

static int root_has_cpu_controller(const char *root) {
        _cleanup_free_ char *path = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char buf[512];

        if (asprintf(&path, "%s/cgroup.controllers", root) < 0)
                return -ENOMEM;
        f = fopen(path, "re");
        if (!f)
                return -errno;
        if (!fgets(buf, sizeof buf, f))
                return 0;
        return list_has_word(buf, " \n", "cpu");
}

static int layout_from_scan(const char *root, CgroupMountScan *s, CgroupLayout *ret, CsError *e) {
        CgroupLayout l = { .check_fs = true };
        int r;

        if (s->root_v2) {
                r = root_has_cpu_controller(root);
                if (r < 0)
                        return cs_error(e, r, "%s/cgroup.controllers: %m", root);
                if (r == 0)
                        return cs_error(e, -ENODEV, "the cpu controller is not available on the cgroup2 mount at %s",
                                        root);
                l.kind = CGROUP_LAYOUT_UNIFIED;
                l.cpu = (CgroupHierarchy) { strdup(""), true };
                if (!l.cpu.path)
                        return -ENOMEM;
                *ret = l;
                return 0;
        }
        if (!s->cpu_v1)
                return cs_error(e, -ENODEV, "no cgroup hierarchy with the cpu controller is mounted below %s", root);
        l.kind = s->unified_v2 ? CGROUP_LAYOUT_HYBRID : CGROUP_LAYOUT_LEGACY;
        l.cpu = (CgroupHierarchy) { TAKE_PTR(s->cpu_v1), false };
        /* systemd mirrors its tree into unified/ in hybrid mode; there usage_usec exists for every
         * cgroup without enabling any controller */
        if (!s->cpu_has_acct && s->unified_v2) {
                l.acct = (CgroupHierarchy) { strdup("unified"), true };
                if (!l.acct.path) {
                        cgroup_layout_done(&l);
                        return -ENOMEM;
                }
        } else if (!s->cpu_has_acct && s->acct_v1)
                l.acct = (CgroupHierarchy) { TAKE_PTR(s->acct_v1), false };
        *ret = l;
        return 0;
}

int cgroup_layout_detect(const char *root, const char *mountinfo, CgroupLayout *ret, CsError *e) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        _cleanup_free_ char *croot = NULL;
        CgroupMountScan s = {};
        size_t cap = 0;
        int r;

        /* compare without a trailing slash */
        croot = strdup(root);
        if (!croot)
                return -ENOMEM;
        for (size_t n = strlen(croot); n > 1 && croot[n - 1] == '/'; n--)
                croot[n - 1] = '\0';
        f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");
        if (!f)
                return cs_error(e, -errno, "cannot read mount table: %m");
        while (getline(&line, &cap, f) > 0) {
                r = cgroup_layout_scan_line(croot, line, &s);
                if (r == -ENOMEM) {
                        cgroup_mount_scan_done(&s);
                        return r;
                }
        }
        r = layout_from_scan(croot, &s, ret, e);
        cgroup_mount_scan_done(&s);
        return r;
}

static bool is_mount_of(const char *where, const char *root, const CgroupHierarchy *h) {
        size_t n = strlen(root);

        if (!h->path || strncmp(where, root, n) != 0)
                return false;
        where += n;
        if (!*h->path)
                return *where == '\0';
        return *where == '/' && strcmp(where + 1, h->path) == 0;
}

int cgroup_layout_favordynmods(const char *root, const CgroupLayout *l, const char *mountinfo) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        int seen = 0, with = 0;

        f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");
        if (!f)
                return -errno;
        while (getline(&line, &cap, f) > 0) {
                char *where, *fstype, *super;

                if (parse_mount_line(line, &where, &fstype, &super) < 0 || strncmp(fstype, "cgroup", 6) != 0)
                        continue;
                if (!is_mount_of(where, root, &l->cpu) && !is_mount_of(where, root, &l->acct))
                        continue;
                seen++;
                with += list_has_word(super, ",", "favordynmods");
        }
        return seen > 0 && with == seen;
}

static bool dir_exists(const char *root, const char *name) {
        _cleanup_free_ char *p = NULL;
        struct stat st;

        if (asprintf(&p, "%s/%s", root, name) < 0)
                return false;
        return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int cgroup_layout_named(const char *root, CgroupLayoutKind kind, CgroupLayout *ret, CsError *e) {
        CgroupLayout l = { .kind = kind };

        switch (kind) {
        case CGROUP_LAYOUT_UNIFIED:
                l.cpu = (CgroupHierarchy) { strdup(""), true };
                break;
        case CGROUP_LAYOUT_LEGACY:
                l.cpu = (CgroupHierarchy) { strdup("cpu"), false };
                if (dir_exists(root, "cpuacct") && !(l.acct.path = strdup("cpuacct"))) {
                        free(l.cpu.path);
                        return -ENOMEM;
                }
                break;
        case CGROUP_LAYOUT_HYBRID:
                l.cpu = (CgroupHierarchy) { strdup("cpu"), false };
                l.acct = (CgroupHierarchy) { strdup("unified"), true };
                if (!l.acct.path) {
                        free(l.cpu.path);
                        return -ENOMEM;
                }
                break;
        default:
                return cs_error(e, -EINVAL, "unknown cgroup layout");
        }
        if (!l.cpu.path) {
                cgroup_layout_done(&l);
                return -ENOMEM;
        }
        *ret = l;
        return 0;
}
