/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpu-value.h"
#include "macro.h"
#include "read-file.h"
#include "slice-name.h"
#include "slice-read.h"

/* A control file the kernel may not offer here: absent (NULL) rather than an error. */
static char *read_optional(Cgfs *c, int dirfd, const char *name) {
        char *text = NULL;

        if (dirfd < 0 || cgfs_read_file(c, dirfd, name, &text, NULL) < 0)
                return NULL;
        return text;
}

static void read_u64(Cgfs *c, int dirfd, const char *name, uint64_t *ret) {
        _cleanup_free_ char *text = read_optional(c, dirfd, name);

        if (!text || cgstat_parse_u64(text, ret) < 0)
                *ret = CGSTAT_NONE;
}

static void read_cpu_settings(Cgfs *c, int fd, SliceInfo *s) {
        _cleanup_free_ char *max = NULL, *quota = NULL;
        uint64_t idle;

        read_u64(c, fd, "cpu.idle", &idle);
        s->idle = idle == 1;
        if (c->layout.cpu.v2) {
                read_u64(c, fd, "cpu.weight", &s->weight);
                max = read_optional(c, fd, "cpu.max");
                s->have_quota = max && cpu_max_parse(max, &s->quota_usec, &s->period_usec) >= 0;
                if (!s->have_quota)
                        s->quota_usec = s->period_usec = CGSTAT_NONE;
                return;
        }
        read_u64(c, fd, "cpu.shares", &s->shares);
        read_u64(c, fd, "cpu.cfs_period_us", &s->period_usec);
        quota = read_optional(c, fd, "cpu.cfs_quota_us");
        s->have_quota = quota && cgstat_parse_cfs_quota(quota, &s->quota_usec) >= 0;
}

/* usage from a v2 cpu.stat or a v1 cpuacct.usage, whichever this hierarchy has */
static uint64_t read_usage(Cgfs *c, int fd, bool v2) {
        _cleanup_free_ char *text = NULL;
        uint64_t usec;
        CpuStat st;

        if (v2) {
                text = read_optional(c, fd, "cpu.stat");
                return text && cgstat_parse_cpu_stat(text, &st) >= 0 ? st.usage_usec : CGSTAT_NONE;
        }
        text = read_optional(c, fd, "cpuacct.usage");
        return text && cgstat_parse_cpuacct_usage(text, &usec) >= 0 ? usec : CGSTAT_NONE;
}

/* cpu.pressure's "some" line: avg10 (< 0 without PSI) and total (CGSTAT_NONE without PSI) */
static void read_pressure(Cgfs *c, int fd, SliceInfo *s) {
        _cleanup_free_ char *text = read_optional(c, fd, "cpu.pressure");

        if (!text || cgstat_parse_pressure(text, &s->pressure) < 0)
                s->pressure = -1.0;
        if (!text || cgstat_parse_pressure_total(text, &s->pressure_total_usec) < 0)
                s->pressure_total_usec = CGSTAT_NONE;
}

static void read_stats(Cgfs *c, int cpu_fd, int acct_fd, SliceInfo *s) {
        _cleanup_free_ char *text = read_optional(c, cpu_fd, "cpu.stat");
        const CgroupLayout *l = &c->layout;
        CpuStat acct;

        if (!text || cgstat_parse_cpu_stat(text, &s->stat) < 0)
                s->stat = CPU_STAT_NONE;
        if (l->acct.path) {
                _cleanup_free_ char *at = NULL;

                s->stat.usage_usec = s->stat.user_usec = s->stat.system_usec = CGSTAT_NONE;
                if (l->acct.v2 && (at = read_optional(c, acct_fd, "cpu.stat")) &&
                    cgstat_parse_cpu_stat(at, &acct) >= 0) {
                        s->stat.usage_usec = acct.usage_usec;
                        s->stat.user_usec = acct.user_usec;
                        s->stat.system_usec = acct.system_usec;
                } else if (!l->acct.v2)
                        s->stat.usage_usec = read_usage(c, acct_fd, false);
        } else if (!l->cpu.v2)
                s->stat.usage_usec = read_usage(c, cpu_fd, false); /* co-mounted cpu,cpuacct */

        if (l->cpu.v2)
                read_pressure(c, cpu_fd, s);
        else if (l->acct.path && l->acct.v2)
                read_pressure(c, acct_fd, s);
        else
                read_pressure(c, -EBADF, s);
}

static void read_comm(pid_t pid, char **ret) {
        _cleanup_close_ int fd = -EBADF;
        char path[64];

        *ret = NULL;
        snprintf(path, sizeof path, "/proc/%d/comm", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        /* the kernel keeps 16 bytes of a name: more is not a comm file */
        if (fd < 0 || read_full_fd(fd, 64, NULL, ret, NULL) < 0)
                return;
        (*ret)[strcspn(*ret, "\n")] = '\0';
}

static int read_scope(Cgfs *c, int slice_fd, const char *name, SliceReadFlags flags, ScopeInfo *ret) {
        _cleanup_free_ char *procs = NULL;
        _cleanup_close_ int fd = -EBADF;
        ScopeInfo sc = {};
        int r;

        sc.name = strdup(name);
        if (!sc.name)
                return -ENOMEM;
        if (flags & SLICE_READ_PROCS) {
                fd = cgfs_open_dir_to_read(c, slice_fd, name, NULL);
                procs = fd >= 0 ? read_optional(c, fd, "cgroup.procs") : NULL;
                r = procs ? cgstat_parse_procs(procs, &sc.pids, &sc.n_pids) : 0;
                if (r == -ENOMEM) {
                        free(sc.name);
                        return r;
                }
                if (sc.n_pids > 0) {
                        sc.comms = calloc(sc.n_pids, sizeof *sc.comms);
                        if (!sc.comms) {
                                free(sc.pids);
                                free(sc.name);
                                return -ENOMEM;
                        }
                        for (size_t i = 0; i < sc.n_pids; i++)
                                read_comm(sc.pids[i], &sc.comms[i]);
                }
        }
        *ret = sc;
        return 0;
}

static int cmp_scope(const void *a, const void *b) {
        return strverscmp(((const ScopeInfo *) a)->name, ((const ScopeInfo *) b)->name);
}

/* A directory stream over dirfd's directory, reopened (and checked to be cgroupfs) so readdir has
 * its own fd; only looked at, so a delegated directory is fine. */
static int open_dir_stream(Cgfs *c, int dirfd, DIR **ret, CsError *e) {
        int fd = cgfs_open_dir_to_read(c, dirfd, ".", e);

        if (fd < 0)
                return fd;
        *ret = fdopendir(fd);
        if (!*ret) {
                close(fd);
                return cs_error(e, -errno, "fdopendir: %m");
        }
        return 0;
}

static int read_scopes(Cgfs *c, int slice_fd, SliceReadFlags flags, SliceInfo *s, CsError *e) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        size_t cap = 0;
        int r;

        r = open_dir_stream(c, slice_fd, &d, e);
        if (r < 0)
                return r;
        while ((de = readdir(d))) {
                if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) || !scope_name_valid(de->d_name))
                        continue;
                if (!(flags & SLICE_READ_SCOPES)) {
                        s->n_scopes++;
                        continue;
                }
                if (!GREEDY_REALLOC(s->scopes, cap, s->n_scopes + 1))
                        return -ENOMEM;
                r = read_scope(c, slice_fd, de->d_name, flags, &s->scopes[s->n_scopes]);
                if (r < 0)
                        return r;
                s->n_scopes++;
        }
        if (s->n_scopes > 1 && s->scopes)
                qsort(s->scopes, s->n_scopes, sizeof *s->scopes, cmp_scope);
        return 0;
}

/* One slice: cpu_fd is its directory in the cpu hierarchy, acct_root the cgroup of the slices in the
 * accounting hierarchy. */
static int read_slice(Cgfs *c, int cpu_fd, int acct_root, uid_t uid, SliceReadFlags flags, SliceInfo *ret,
                      CsError *e) {
        _cleanup_close_ int acct_fd = -EBADF;
        char name[SLICE_NAME_MAX];
        SliceInfo s = { .uid = uid, .weight = CGSTAT_NONE, .shares = CGSTAT_NONE };
        struct stat st;
        int r;

        if (flags & SLICE_READ_PROCS)
                flags |= SLICE_READ_SCOPES;
        if (fstat(cpu_fd, &st) < 0)
                return cs_error(e, -errno, "fstat: %m");
        s.owner = st.st_uid;
        slice_name(uid, name);
        if (acct_root >= 0)
                acct_fd = cgfs_open_dir_to_read(c, acct_root, name, NULL);
        read_cpu_settings(c, cpu_fd, &s);
        read_stats(c, cpu_fd, acct_fd, &s);
        r = read_scopes(c, cpu_fd, flags, &s, e);
        if (r < 0) {
                slice_info_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

static int open_roots(Cgfs *c, int *ret_cpu, int *ret_acct, CsError *e) {
        int fd;

        fd = cgfs_open_user_slice_root(c, &c->layout.cpu, e);
        if (fd < 0)
                return fd;
        *ret_cpu = fd;
        *ret_acct = c->layout.acct.path ? cgfs_open_user_slice_root(c, &c->layout.acct, NULL) : -EBADF;
        return 0;
}

static int cmp_slice(const void *a, const void *b) {
        uid_t x = ((const SliceInfo *) a)->uid, y = ((const SliceInfo *) b)->uid;

        return x < y ? -1 : x > y;
}

const char *slice_skip_reason(int r) {
        switch (r) {
        case -ENOTDIR:
        case -ELOOP:
                return "not a directory (a file or symlink with a slice's name)";
        case -EXDEV:
                return "not on cgroupfs";
        case -EACCES:
        case -EPERM:
                return "permission denied";
        case -ENOMEM:
                return "out of memory";
        default:
                return "cannot be read";
        }
}

static int skip_add(SliceList *l, size_t *cap, const char *name, int r) {
        char *n;

        if (!l)
                return 0;
        if (!GREEDY_REALLOC(l->skipped, *cap, l->n_skipped + 1))
                return -ENOMEM;
        n = strdup(name);
        if (!n)
                return -ENOMEM;
        l->skipped[l->n_skipped++] = (SkippedSlice) { n, r, slice_skip_reason(r) };
        return 0;
}

/* A slice whose cgroup was removed while we read it: its last session closed. */
static bool slice_vanished(int r) {
        return r == -ENOENT || r == -ENODEV;
}

/* Calls f for each user-UID.slice directory below root. An entry with a slice's name that cannot
 * be opened or read goes to skipped (when given) and the walk goes on; only running out of memory
 * or failing to read root itself ends it. */
typedef int (*SliceVisitor)(Cgfs *c, int slice_fd, uid_t uid, void *userdata, CsError *e);

static int for_each_slice(Cgfs *c, int root, SliceVisitor f, void *userdata, SliceList *skipped, CsError *e) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        size_t cap = 0;
        int r;

        r = open_dir_stream(c, root, &d, e);
        if (r < 0)
                return r;
        while ((de = readdir(d))) {
                _cleanup_close_ int sfd = -EBADF;
                uid_t uid;

                if (slice_name_to_uid(de->d_name, &uid) < 0)
                        continue;
                if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
                        r = -ENOTDIR;
                else {
                        r = sfd = cgfs_open_dir_to_read(c, root, de->d_name, NULL);
                        if (sfd >= 0)
                                r = f(c, sfd, uid, userdata, NULL);
                }
                if (r == -ENOMEM)
                        return cs_error(e, r, "out of memory");
                if (r >= 0 || slice_vanished(r))
                        continue;
                r = skip_add(skipped, &cap, de->d_name, r);
                if (r < 0)
                        return r;
        }
        return 0;
}

typedef struct AllState {
        SliceList *list;
        size_t cap;
        int acct_root;
        SliceReadFlags flags;
} AllState;

static int visit_all(Cgfs *c, int slice_fd, uid_t uid, void *userdata, CsError *e) {
        AllState *st = userdata;
        SliceList *l = st->list;

        if (!GREEDY_REALLOC(l->slices, st->cap, l->n + 1))
                return -ENOMEM;
        int r = read_slice(c, slice_fd, st->acct_root, uid, st->flags, &l->slices[l->n], e);
        if (r < 0)
                return r;
        l->n++;
        return 0;
}

int slice_read_all(Cgfs *c, SliceReadFlags flags, SliceList *ret, CsError *e) {
        _cleanup_close_ int cpu_root = -EBADF, acct_root = -EBADF;
        SliceList l = {};
        AllState st = { .list = &l, .flags = flags };
        int r;

        r = open_roots(c, &cpu_root, &acct_root, e);
        if (r == -ENOENT) {
                *ret = l;
                return 0;
        }
        if (r < 0)
                return r;
        st.acct_root = acct_root;
        r = for_each_slice(c, cpu_root, visit_all, &st, &l, e);
        if (r < 0) {
                slice_list_done(&l);
                return r;
        }
        if (l.n > 1)
                qsort(l.slices, l.n, sizeof *l.slices, cmp_slice);
        *ret = l;
        return 0;
}

int slice_read_one(Cgfs *c, uid_t uid, SliceReadFlags flags, SliceInfo *ret, CsError *e) {
        _cleanup_close_ int cpu_root = -EBADF, acct_root = -EBADF, fd = -EBADF;
        char name[SLICE_NAME_MAX];
        int r;

        r = open_roots(c, &cpu_root, &acct_root, e);
        if (r < 0)
                return r;
        slice_name(uid, name);
        fd = cgfs_open_dir_to_read(c, cpu_root, name, NULL);
        if (fd >= 0)
                r = read_slice(c, fd, acct_root, uid, flags, ret, NULL);
        else
                r = fd;
        if (slice_vanished(r))
                return -ENOENT;
        if (r < 0)
                return cs_error(e, r, "%s", slice_skip_reason(r));
        return 0;
}

typedef struct UsageState {
        UsageSample *samples;
        size_t n, cap;
        bool v2;
} UsageState;

static int visit_usage(Cgfs *c, int slice_fd, uid_t uid, void *userdata, CsError *e) {
        UsageState *st = userdata;

        if (!GREEDY_REALLOC(st->samples, st->cap, st->n + 1))
                return -ENOMEM;
        st->samples[st->n++] = (UsageSample) { uid, read_usage(c, slice_fd, st->v2) };
        return 0;
}

int slice_read_usage(Cgfs *c, UsageSample **ret, size_t *ret_n, CsError *e) {
        const CgroupHierarchy *h = c->layout.acct.path ? &c->layout.acct : &c->layout.cpu;
        _cleanup_close_ int root = -EBADF;
        UsageState st = { .v2 = h->v2 };
        int r;

        *ret = NULL;
        *ret_n = 0;
        root = cgfs_open_user_slice_root(c, h, e);
        if (root == -ENOENT)
                return 0;
        if (root < 0)
                return root;
        r = for_each_slice(c, root, visit_usage, &st, NULL, e);
        if (r < 0) {
                free(st.samples);
                return r;
        }
        *ret = st.samples;
        *ret_n = st.n;
        return 0;
}

void slice_info_done(SliceInfo *s) {
        for (size_t i = 0; s->scopes && i < s->n_scopes; i++) {
                ScopeInfo *sc = &s->scopes[i];
                for (size_t j = 0; sc->comms && j < sc->n_pids; j++)
                        free(sc->comms[j]);
                free(sc->comms);
                free(sc->pids);
                free(sc->name);
        }
        free(s->scopes);
        *s = (SliceInfo) {};
}

void slice_list_done(SliceList *l) {
        for (size_t i = 0; i < l->n; i++)
                slice_info_done(&l->slices[i]);
        free(l->slices);
        for (size_t i = 0; i < l->n_skipped; i++)
                free(l->skipped[i].name);
        free(l->skipped);
        *l = (SliceList) {};
}
