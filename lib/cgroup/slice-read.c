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

/* One pass's state: what to read, the accounting mirror's cgroup of the slices, and one buffer for
 * every control file read (no allocation per file). */
typedef struct Reader {
        Cgfs *c;
        SliceReadFlags flags; /* with the what-to-read bits made explicit */
        int acct_root;        /* -EBADF: no accounting hierarchy (or not readable) */
        CgfsDirStat acct_root_st;
        ReadBuf buf;
} Reader;

static SliceReadFlags flags_normalize(SliceReadFlags f) {
        if (f & SLICE_READ_PROCS)
                f |= SLICE_READ_SCOPES;
        if (!(f & SLICE_READ_ALL) && !(f & (SLICE_READ_QUOTA | SLICE_READ_USAGE)))
                f |= SLICE_READ_ALL;
        if (f & SLICE_READ_SCOPES)
                f |= SLICE_READ_SCOPE_COUNT;
        if (f & SLICE_READ_SETTINGS)
                f |= SLICE_READ_QUOTA;
        if (f & SLICE_READ_STATS)
                f |= SLICE_READ_USAGE;
        return f;
}

static void reader_done(Reader *rd) {
        read_buf_done(&rd->buf);
}

/* A slice's directory in one hierarchy, opened only when a file cannot be read past it: a pass
 * over many slices reads each control file with one openat2() from the slices' cgroup
 * (cgfs_read_child_file_buf()) instead of an open, a statx and a close of the directory too. */
typedef struct SliceDir {
        int parent; /* -EBADF: nothing to read in this hierarchy */
        const CgfsDirStat *parent_st;
        const char *name;
        int fd;         /* -EBADF until opened */
        CgfsDirStat st; /* with fd */
        int error;      /* < 0: it could not be opened (cgfs_open_child_to_read()) */
} SliceDir;

#define SLICE_DIR_NONE ((SliceDir) { .parent = -EBADF, .fd = -EBADF })

static SliceDir slice_dir(int parent, const CgfsDirStat *parent_st, const char *name) {
        return (SliceDir) { .parent = parent, .parent_st = parent_st, .name = name, .fd = -EBADF };
}

static void slice_dir_done(SliceDir *d) {
        closep(&d->fd);
}

static int slice_dir_open(Reader *rd, SliceDir *d) {
        int fd;

        if (d->fd >= 0 || d->error < 0)
                return d->error;
        if (d->parent < 0)
                return d->error = -EBADF;
        fd = cgfs_open_child_to_read(rd->c, d->parent, d->parent_st, d->name, &d->st, NULL);
        if (fd < 0)
                return d->error = fd;
        d->fd = fd;
        return 0;
}

/* A control file the kernel may not offer here: absent (NULL) rather than an error. The text is
 * rd's buffer: valid until the next read. */
static const char *read_optional(Reader *rd, SliceDir *d, const char *name) {
        int r;

        if (d->fd < 0 && d->error == 0 && d->parent >= 0) {
                r = cgfs_read_child_file_buf(rd->c, d->parent, d->name, name, &rd->buf);
                if (r >= 0)
                        return rd->buf.buf;
                /* -ENOENT: the file is not offered, or the slice is gone, which only its
                 * directory tells apart (a vanished slice is not listed) */
                if (r != -EOPNOTSUPP && r != -ENOENT)
                        return NULL;
        }
        if (slice_dir_open(rd, d) < 0 || cgfs_read_file_buf(rd->c, d->fd, name, &rd->buf, NULL) < 0)
                return NULL;
        return rd->buf.buf;
}

static void read_u64(Reader *rd, SliceDir *d, const char *name, uint64_t *ret) {
        const char *text = read_optional(rd, d, name);

        if (!text || cgstat_parse_u64(text, ret) < 0)
                *ret = CGSTAT_NONE;
}

static void read_quota(Reader *rd, SliceDir *d, SliceInfo *s) {
        const char *text;

        if (rd->c->layout.cpu.v2) {
                text = read_optional(rd, d, "cpu.max");
                s->have_quota = text && cpu_max_parse(text, &s->quota_usec, &s->period_usec) >= 0;
                if (!s->have_quota)
                        s->quota_usec = s->period_usec = CGSTAT_NONE;
                return;
        }
        if (rd->flags & SLICE_READ_SETTINGS)
                read_u64(rd, d, "cpu.cfs_period_us", &s->period_usec);
        else
                s->period_usec = CGSTAT_NONE;
        text = read_optional(rd, d, "cpu.cfs_quota_us");
        s->have_quota = text && cgstat_parse_cfs_quota(text, &s->quota_usec) >= 0;
}

static void read_cpu_settings(Reader *rd, SliceDir *d, SliceInfo *s) {
        uint64_t idle;

        if (rd->flags & SLICE_READ_SETTINGS) {
                read_u64(rd, d, "cpu.idle", &idle);
                s->idle = idle == 1;
                read_u64(rd, d, rd->c->layout.cpu.v2 ? "cpu.weight" : "cpu.shares",
                         rd->c->layout.cpu.v2 ? &s->weight : &s->shares);
                read_u64(rd, d, rd->c->layout.cpu.v2 ? "cpu.max.burst" : "cpu.cfs_burst_us", &s->burst_usec);
        }
        if (rd->flags & SLICE_READ_QUOTA)
                read_quota(rd, d, s);
}

/* usage from a v2 cpu.stat or a v1 cpuacct.usage, whichever this hierarchy has */
static uint64_t read_usage(Reader *rd, SliceDir *d, bool v2) {
        const char *text;
        uint64_t usec;
        CpuStat st;

        if (v2) {
                text = read_optional(rd, d, "cpu.stat");
                return text && cgstat_parse_cpu_stat(text, &st) >= 0 ? st.usage_usec : CGSTAT_NONE;
        }
        text = read_optional(rd, d, "cpuacct.usage");
        return text && cgstat_parse_cpuacct_usage(text, &usec) >= 0 ? usec : CGSTAT_NONE;
}

/* cpu.pressure's "some" line: avg10 (< 0 without PSI) and total (CGSTAT_NONE without PSI) */
static void read_pressure(Reader *rd, SliceDir *d, SliceInfo *s) {
        const char *text = read_optional(rd, d, "cpu.pressure");

        if (!text || cgstat_parse_pressure(text, &s->pressure) < 0)
                s->pressure = -1.0;
        if (!text || cgstat_parse_pressure_total(text, &s->pressure_total_usec) < 0)
                s->pressure_total_usec = CGSTAT_NONE;
}

/* Usage from the accounting hierarchy when there is one, else from the cpu hierarchy's cpu.stat
 * (v2) or cpuacct.usage (v1, co-mounted); throttling from the cpu hierarchy's cpu.stat. */
static void read_stats(Reader *rd, SliceDir *cpu_dir, SliceDir *acct_dir, SliceInfo *s) {
        const CgroupLayout *l = &rd->c->layout;
        const char *text;
        CpuStat acct;

        s->stat = CPU_STAT_NONE;
        if ((rd->flags & SLICE_READ_STATS) || (l->cpu.v2 && !l->acct.path)) {
                text = read_optional(rd, cpu_dir, "cpu.stat");
                if (!text || cgstat_parse_cpu_stat(text, &s->stat) < 0)
                        s->stat = CPU_STAT_NONE;
        }
        if (l->acct.path) {
                s->stat.usage_usec = s->stat.user_usec = s->stat.system_usec = CGSTAT_NONE;
                if (l->acct.v2 && (text = read_optional(rd, acct_dir, "cpu.stat")) &&
                    cgstat_parse_cpu_stat(text, &acct) >= 0) {
                        s->stat.usage_usec = acct.usage_usec;
                        s->stat.user_usec = acct.user_usec;
                        s->stat.system_usec = acct.system_usec;
                } else if (!l->acct.v2)
                        s->stat.usage_usec = read_usage(rd, acct_dir, false);
        } else if (!l->cpu.v2)
                s->stat.usage_usec = read_usage(rd, cpu_dir, false); /* co-mounted cpu,cpuacct */
}

static void read_stats_and_pressure(Reader *rd, SliceDir *cpu_dir, SliceDir *acct_dir, SliceInfo *s) {
        const CgroupLayout *l = &rd->c->layout;

        if (rd->flags & SLICE_READ_USAGE)
                read_stats(rd, cpu_dir, acct_dir, s);
        if (!(rd->flags & SLICE_READ_PRESSURE))
                return;
        if (l->cpu.v2)
                read_pressure(rd, cpu_dir, s);
        else if (l->acct.path && l->acct.v2)
                read_pressure(rd, acct_dir, s);
        else
                read_pressure(rd, &SLICE_DIR_NONE, s);
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
                if (fd < 0 || cgfs_read_file(c, fd, "cgroup.procs", &procs, NULL) < 0)
                        procs = NULL;
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

/* Calls f for each entry of fd's directory, read on fd itself (no second open of it, nor check:
 * it is the directory the caller opened and checked); f returns < 0 to stop. Moves fd's position. */
typedef int (*DirVisitor)(const char *name, unsigned char type, void *userdata);

static int for_each_entry(Cgfs *c, int fd, DirVisitor f, void *userdata) {
        union {
                struct dirent64 align;
                char buf[8192];
        } d;

        for (;;) {
                ssize_t k = cgfs_getdents(c, fd, d.buf, sizeof d.buf);

                if (k <= 0)
                        return (int) k;
                for (ssize_t off = 0; off < k;) {
                        const struct dirent64 *de = (const struct dirent64 *) (d.buf + off);
                        int r;

                        off += de->d_reclen;
                        r = f(de->d_name, de->d_type, userdata);
                        if (r < 0)
                                return r;
                }
        }
}

typedef struct ScopesState {
        Cgfs *c;
        int slice_fd;
        SliceReadFlags flags;
        SliceInfo *s;
        size_t cap;
} ScopesState;

static int visit_scope(const char *name, unsigned char type, void *userdata) {
        ScopesState *st = userdata;
        SliceInfo *s = st->s;
        int r;

        if ((type != DT_DIR && type != DT_UNKNOWN) || !scope_name_valid(name))
                return 0;
        if (!(st->flags & SLICE_READ_SCOPES)) {
                s->n_scopes++;
                return 0;
        }
        if (!GREEDY_REALLOC(s->scopes, st->cap, s->n_scopes + 1))
                return -ENOMEM;
        r = read_scope(st->c, st->slice_fd, name, st->flags, &s->scopes[s->n_scopes]);
        if (r < 0)
                return r;
        s->n_scopes++;
        return 0;
}

static int read_scopes(Cgfs *c, int slice_fd, SliceReadFlags flags, SliceInfo *s) {
        ScopesState st = { .c = c, .slice_fd = slice_fd, .flags = flags, .s = s };
        int r;

        r = for_each_entry(c, slice_fd, visit_scope, &st);
        if (r < 0)
                return r;
        if (s->n_scopes > 1 && s->scopes)
                qsort(s->scopes, s->n_scopes, sizeof *s->scopes, cmp_scope);
        return 0;
}

/* Whether the accounting mirror is needed for what rd reads. */
static bool need_acct(const Reader *rd) {
        const CgroupLayout *l = &rd->c->layout;

        return rd->acct_root >= 0 &&
               ((rd->flags & SLICE_READ_USAGE) || ((rd->flags & SLICE_READ_PRESSURE) && !l->cpu.v2 && l->acct.v2));
}

/* One slice: cpu is its directory in the cpu hierarchy. Its owner is read where the directory is
 * opened anyway: for its scopes. */
static int read_slice(Reader *rd, SliceDir *cpu, uid_t uid, SliceInfo *ret) {
        _cleanup_(slice_dir_done) SliceDir acct = SLICE_DIR_NONE;
        SliceInfo s = { .uid = uid,
                        .owner = (uid_t) -1,
                        .weight = CGSTAT_NONE,
                        .shares = CGSTAT_NONE,
                        .burst_usec = CGSTAT_NONE };
        int r;

        if (!(rd->flags & SLICE_READ_QUOTA))
                s.quota_usec = s.period_usec = CGSTAT_NONE;
        if (!(rd->flags & SLICE_READ_USAGE))
                s.stat = CPU_STAT_NONE;
        if (!(rd->flags & SLICE_READ_PRESSURE)) {
                s.pressure = -1.0;
                s.pressure_total_usec = CGSTAT_NONE;
        }
        if ((rd->flags & SLICE_READ_SCOPE_COUNT) && (r = slice_dir_open(rd, cpu)) < 0)
                return r;
        if (need_acct(rd))
                acct = slice_dir(rd->acct_root, &rd->acct_root_st, cpu->name);
        read_cpu_settings(rd, cpu, &s);
        read_stats_and_pressure(rd, cpu, &acct, &s);
        if (cpu->error < 0)
                return cpu->error; /* as if it had been opened first: skipped, or gone */
        if (rd->flags & SLICE_READ_SCOPE_COUNT) {
                s.owner = cpu->st.uid;
                r = read_scopes(rd->c, cpu->fd, rd->flags, &s);
                if (r < 0) {
                        slice_info_done(&s);
                        return r;
                }
        }
        *ret = s;
        return 0;
}

/* The cpu hierarchy's cgroup of the slices (and its cgfs_dir_stat()), and in rd the accounting
 * mirror's when the layout has one. */
static int open_roots(Reader *rd, int *ret_cpu, CgfsDirStat *ret_cpu_st, CsError *e) {
        _cleanup_close_ int fd = -EBADF;
        Cgfs *c = rd->c;
        int r;

        fd = cgfs_open_user_slice_root(c, &c->layout.cpu, e);
        if (fd < 0)
                return fd;
        r = cgfs_dir_stat(fd, ret_cpu_st);
        if (r < 0)
                return cs_error(e, r, "statx: %m");
        rd->acct_root = -EBADF;
        if (c->layout.acct.path) {
                rd->acct_root = cgfs_open_user_slice_root(c, &c->layout.acct, NULL);
                if (rd->acct_root >= 0 && cgfs_dir_stat(rd->acct_root, &rd->acct_root_st) < 0)
                        closep(&rd->acct_root), rd->acct_root = -EBADF;
        }
        *ret_cpu = TAKE_FD(fd);
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

/* Calls f for each user-UID.slice directory below root (root_st: its cgfs_dir_stat()). An entry with a
 * slice's name that cannot be opened or read goes to skipped (when given) and the walk goes on;
 * only running out of memory or failing to read root itself ends it. */
typedef int (*SliceVisitor)(Reader *rd, SliceDir *slice, uid_t uid, void *userdata);

typedef struct WalkState {
        Reader *rd;
        int root;
        const CgfsDirStat *root_st;
        SliceVisitor f;
        void *userdata;
        SliceList *skipped;
        size_t cap;
} WalkState;

static int visit_entry(const char *name, unsigned char type, void *userdata) {
        WalkState *w = userdata;
        _cleanup_(slice_dir_done) SliceDir d = slice_dir(w->root, w->root_st, name);
        uid_t uid;
        int r;

        if (slice_name_to_uid(name, &uid) < 0)
                return 0;
        if (type != DT_DIR && type != DT_UNKNOWN)
                r = -ENOTDIR;
        else
                r = w->f(w->rd, &d, uid, w->userdata);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 || slice_vanished(r))
                return 0;
        return skip_add(w->skipped, &w->cap, name, r);
}

static int for_each_slice(Reader *rd, int root, const CgfsDirStat *root_st, SliceVisitor f, void *userdata,
                          SliceList *skipped, CsError *e) {
        WalkState w = { rd, root, root_st, f, userdata, skipped, 0 };
        int r;

        r = for_each_entry(rd->c, root, visit_entry, &w);
        if (r == -ENOMEM)
                return cs_error(e, r, "out of memory");
        if (slice_vanished(r))
                return 0; /* the slices' cgroup went away: what was read is all there is */
        if (r < 0)
                return cs_error(e, r, "reading the directory of the user slices: %m");
        return 0;
}

typedef struct AllState {
        SliceList *list;
        size_t cap;
} AllState;

static int visit_all(Reader *rd, SliceDir *slice, uid_t uid, void *userdata) {
        AllState *a = userdata;
        SliceList *l = a->list;
        int r;

        if (!GREEDY_REALLOC(l->slices, a->cap, l->n + 1))
                return -ENOMEM;
        r = read_slice(rd, slice, uid, &l->slices[l->n]);
        if (r < 0)
                return r;
        l->n++;
        return 0;
}

int slice_read_all(Cgfs *c, SliceReadFlags flags, SliceList *ret, CsError *e) {
        _cleanup_(reader_done) Reader rd = { .c = c, .flags = flags_normalize(flags), .acct_root = -EBADF };
        _cleanup_close_ int cpu_root = -EBADF;
        CgfsDirStat root_st;
        SliceList l = {};
        AllState a = { .list = &l };
        int r;

        r = open_roots(&rd, &cpu_root, &root_st, e);
        if (r == -ENOENT) {
                *ret = l;
                return 0;
        }
        if (r < 0)
                return r;
        r = for_each_slice(&rd, cpu_root, &root_st, visit_all, &a, &l, e);
        closep(&rd.acct_root);
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
        _cleanup_(reader_done) Reader rd = { .c = c, .flags = flags_normalize(flags), .acct_root = -EBADF };
        _cleanup_close_ int cpu_root = -EBADF;
        _cleanup_(slice_dir_done) SliceDir d = SLICE_DIR_NONE;
        char name[SLICE_NAME_MAX];
        CgfsDirStat root_st;
        int r;

        r = open_roots(&rd, &cpu_root, &root_st, e);
        if (r < 0)
                return r;
        slice_name(uid, name);
        d = slice_dir(cpu_root, &root_st, name);
        r = slice_dir_open(&rd, &d);
        if (r >= 0)
                r = read_slice(&rd, &d, uid, ret);
        closep(&rd.acct_root);
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

static int visit_usage(Reader *rd, SliceDir *slice, uid_t uid, void *userdata) {
        UsageState *u = userdata;
        uint64_t usec = read_usage(rd, slice, u->v2);

        if (slice->error < 0)
                return slice->error;
        if (!GREEDY_REALLOC(u->samples, u->cap, u->n + 1))
                return -ENOMEM;
        u->samples[u->n++] = (UsageSample) { uid, usec };
        return 0;
}

int slice_read_usage(Cgfs *c, UsageSample **ret, size_t *ret_n, CsError *e) {
        const CgroupHierarchy *h = c->layout.acct.path ? &c->layout.acct : &c->layout.cpu;
        _cleanup_(reader_done) Reader rd = { .c = c, .acct_root = -EBADF };
        _cleanup_close_ int root = -EBADF;
        UsageState u = { .v2 = h->v2 };
        CgfsDirStat root_st;
        int r;

        *ret = NULL;
        *ret_n = 0;
        root = cgfs_open_user_slice_root(c, h, e);
        if (root == -ENOENT)
                return 0;
        if (root < 0)
                return root;
        r = cgfs_dir_stat(root, &root_st);
        if (r < 0)
                return cs_error(e, r, "statx: %m");
        r = for_each_slice(&rd, root, &root_st, visit_usage, &u, NULL, e);
        if (r < 0) {
                free(u.samples);
                return r;
        }
        *ret = u.samples;
        *ret_n = u.n;
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
