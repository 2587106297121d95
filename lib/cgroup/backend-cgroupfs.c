/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "backend-cgroupfs.h"
#include "cgroup-stat.h"
#include "macro.h"
#include "proc-cgroup.h"

/* a close removing the slice between our mkdir and our write is retried this often */
#define CGFS_OPEN_ATTEMPTS 8
#define CGFS_SCOPE_SUFFIX_MAX 1000

/* A setting is written only where it differs from what the slice has: a write of cpu.max or
 * cpu.cfs_* takes the kernel's bandwidth locks on every CPU, and most logins find their slice as
 * the last one left it (or, just made, with the kernel's defaults). */
static int write_setting(Cgfs *c, int fd, const char *name, const char *value, CsError *e) {
        _cleanup_free_ char *cur = NULL;

        if (cgfs_read_file(c, fd, name, &cur, NULL) >= 0 && strcmp(cur, value) == 0)
                return 0;
        return cgfs_write_file(c, fd, name, value, e);
}

/* v1 has cpu.idle since 5.15, and idle is then what it says: the group yields to any other at
 * once (as SCHED_IDLE), where cpu.shares of 2 only makes it small, and a light user waking behind
 * a hog waits a whole tick. The kernel refuses cpu.shares while a group is idle: idle goes off
 * before the shares are written, and on instead of them. Without cpu.idle, shares of 2 it is. */
static int write_weight_v1(Cgfs *c, int fd, const CpuKernelValues *k, CsError *e) {
        _cleanup_free_ char *cur = NULL;
        const char *want = k->idle ? "1\n" : "0\n";
        char buf[32];
        int r;

        r = cgfs_read_file(c, fd, "cpu.idle", &cur, NULL);
        if (r != -ENOENT) {
                if (r < 0 || strcmp(cur, want) != 0) {
                        r = cgfs_write_file(c, fd, "cpu.idle", want, e);
                        if (r < 0)
                                return r;
                }
                if (k->idle)
                        return 0;
        }
        snprintf(buf, sizeof buf, "%" PRIu64 "\n", k->shares);
        return write_setting(c, fd, "cpu.shares", buf, e);
}

/* Linux 5.14+ keeps the burst at most the quota per period: a burst above the new quota is
 * lowered before the quota is written, a burst above the old one raised after it. Where the
 * kernel has no burst, one asked for is left out, and burst_missing set for the caller to say so. */
static const char *burst_file(const Cgfs *c) {
        return c->layout.cpu.v2 ? "cpu.max.burst" : "cpu.cfs_burst_us";
}

/* The burst in place; false where the kernel has none (burst_missing then set if one is wanted). */
static bool read_burst(Cgfs *c, int fd, const CpuKernelValues *k, uint64_t *ret) {
        _cleanup_free_ char *text = NULL;

        if (cgfs_read_file(c, fd, burst_file(c), &text, NULL) < 0 || cgstat_parse_u64(text, ret) < 0) {
                c->burst_missing = c->burst_missing || k->burst_usec > 0;
                return false;
        }
        return true;
}

/* cur: the burst in place before the quota was written */
static int write_burst(Cgfs *c, int fd, const CpuKernelValues *k, uint64_t cur, bool before_quota, CsError *e) {
        char buf[32];

        if (before_quota ? cur <= k->burst_usec : cur >= k->burst_usec)
                return 0;
        snprintf(buf, sizeof buf, "%" PRIu64 "\n", k->burst_usec);
        return cgfs_write_file(c, fd, burst_file(c), buf, e);
}

static int write_quota(Cgfs *c, int fd, const CpuKernelValues *k, CsError *e) {
        char buf[64];
        int r;

        if (c->layout.cpu.v2) {
                r = cpu_max_format(k, buf, sizeof buf);
                return r < 0 ? r : write_setting(c, fd, "cpu.max", buf, e);
        }
        snprintf(buf, sizeof buf, "%" PRIu64 "\n", k->period_usec);
        r = write_setting(c, fd, "cpu.cfs_period_us", buf, e);
        if (r < 0)
                return r;
        if (k->quota_usec == CPU_QUOTA_INFINITY)
                return write_setting(c, fd, "cpu.cfs_quota_us", "-1\n", e);
        snprintf(buf, sizeof buf, "%" PRIu64 "\n", k->quota_usec);
        return write_setting(c, fd, "cpu.cfs_quota_us", buf, e);
}

static int write_settings(Cgfs *c, int fd, const CpuKernelValues *k, CsError *e) {
        uint64_t burst;
        char buf[64];
        int r;

        if (c->layout.cpu.v2) {
                r = write_setting(c, fd, "cpu.idle", k->idle ? "1\n" : "0\n", e);
                /* cpu.idle arrived in 5.15: without it only a real idle request is an error */
                if (r < 0 && (k->idle || r != -ENOENT))
                        return r;
                if (!k->idle) {
                        snprintf(buf, sizeof buf, "%" PRIu64 "\n", k->weight);
                        r = write_setting(c, fd, "cpu.weight", buf, e);
                        if (r < 0)
                                return r;
                }
        } else {
                r = write_weight_v1(c, fd, k, e);
                if (r < 0)
                        return r;
        }
        if (!read_burst(c, fd, k, &burst))
                return write_quota(c, fd, k, e);
        r = write_burst(c, fd, k, burst, true, e);
        if (r >= 0)
                r = write_quota(c, fd, k, e);
        if (r >= 0)
                r = write_burst(c, fd, k, burst, false, e);
        return r;
}

static int slice_apply(Cgfs *c, uid_t uid, const CpuKernelValues *k, CgfsWalkFlags flags, int *ret_fd, CsError *e) {
        _cleanup_close_ int fd = -EBADF;
        char slice[SLICE_NAME_MAX];
        int r;

        fd = cgfs_open_slice_path(c, &c->layout.cpu, uid, flags, e);
        if (fd < 0)
                return fd;
        /* v2: the slice's own subtree too, so its sessions share the user's CPU fairly */
        if ((flags & CGFS_WALK_ENABLE_CPU) && c->layout.cpu.v2) {
                r = cgfs_write_file(c, fd, "cgroup.subtree_control", "+cpu\n", e);
                if (r < 0)
                        return r;
        }
        r = write_settings(c, fd, k, e);
        if (r < 0) {
                slice_name(uid, slice);
                cs_error_prefix(e, "%s: ", slice);
                return r;
        }
        if (ret_fd)
                *ret_fd = TAKE_FD(fd);
        return 0;
}

int cgfs_apply_slice(Cgfs *c, uid_t uid, const CpuKernelValues *k, CsError *e) {
        return slice_apply(c, uid, k, CGFS_WALK_CREATE | CGFS_WALK_ENABLE_CPU, NULL, e);
}

int cgfs_update_slice(Cgfs *c, uid_t uid, const CpuKernelValues *k, CsError *e) {
        return slice_apply(c, uid, k, 0, NULL, e);
}

int cgfs_write_burst(Cgfs *c, uid_t uid, const CpuKernelValues *k, bool before_quota, CsError *e) {
        _cleanup_close_ int fd = cgfs_open_slice_path(c, &c->layout.cpu, uid, 0, e);

        uint64_t cur;

        if (fd < 0)
                return fd;
        if (!read_burst(c, fd, k, &cur))
                return 0;
        return write_burst(c, fd, k, cur, before_quota, e);
}

static const char *hierarchy_controller(const Cgfs *c, const CgroupHierarchy *h) {
        return h == &c->layout.cpu ? "cpu" : "cpuacct";
}

/* One line of /proc/PID/cgroup ("ID:CONTROLLERS", split) belongs to hierarchy h */
static bool cgroup_line_is(const CgroupHierarchy *h, const char *id, const char *controllers, const char *want) {
        size_t n = strlen(want);

        if (h->v2)
                return strcmp(id, "0") == 0 && *controllers == '\0';
        for (const char *p = controllers; *p;) {
                size_t len = strcspn(p, ",");
                if (len == n && strncmp(p, want, n) == 0)
                        return true;
                p += len + (p[len] == ',');
        }
        return false;
}

typedef struct OrigPaths {
        Cgfs *c;
        char *cpu, *acct;
} OrigPaths;

static int take_orig_path(const char *id, const char *controllers, const char *path, void *userdata) {
        OrigPaths *o = userdata;
        const CgroupHierarchy *acct = o->c->layout.acct.path ? &o->c->layout.acct : NULL;
        char **target = NULL;

        if (!o->cpu &&
            cgroup_line_is(&o->c->layout.cpu, id, controllers, hierarchy_controller(o->c, &o->c->layout.cpu)))
                target = &o->cpu;
        else if (acct && !o->acct && cgroup_line_is(acct, id, controllers, hierarchy_controller(o->c, acct)))
                target = &o->acct;
        if (target && !(*target = strdup(path)))
                return -ENOMEM;
        return 0;
}

/* The cgroups pid is in on the cpu hierarchy and the accounting mirror, in one read. */
static int proc_cgroup_paths(Cgfs *c, pid_t pid, char **ret_cpu, char **ret_acct) {
        OrigPaths o = { .c = c };
        int r = proc_cgroup_for_each(pid, take_orig_path, &o);

        *ret_cpu = o.cpu;
        *ret_acct = o.acct;
        return r;
}

static bool pid_is_realtime(pid_t pid) {
        int p = sched_getscheduler(pid);
        return p == SCHED_FIFO || p == SCHED_RR;
}

static int move_pid(Cgfs *c, int dirfd, const CgroupHierarchy *h, pid_t pid, CsError *e) {
        char buf[32];
        int r;

        snprintf(buf, sizeof buf, "%" PRIi32 "\n", (int32_t) pid);
        r = cgfs_write_file(c, dirfd, "cgroup.procs", buf, e);
        if (r == -EINVAL && !h->v2 && pid_is_realtime(pid))
                return cs_error(e, r,
                                "process %" PRIi32 " has a real-time scheduling policy, and the kernel's RT group "
                                "scheduling gives a new cpu cgroup no cpu.rt_runtime_us budget; not moved",
                                (int32_t) pid);
        return r;
}

static int move_back(Cgfs *c, const CgroupHierarchy *h, const char *orig, pid_t pid, CsError *e) {
        _cleanup_close_ int hfd = -EBADF, fd = -EBADF;

        if (!orig)
                return 0;
        hfd = cgfs_open_hierarchy(c, h, e);
        if (hfd < 0)
                return hfd;
        /* the cgroup it came from may be gone: then its nearest ancestor */
        fd = cgfs_walk(c, TAKE_FD(hfd), orig, CGFS_WALK_NEAREST, e);
        if (fd < 0)
                return fd;
        return move_pid(c, fd, h, pid, e);
}

static bool is_populated_error(int r) {
        return r == -EBUSY || r == -ENOTEMPTY || r == -EEXIST;
}

static uint64_t timespec_usec(const struct timespec *ts) {
        return (uint64_t) ts->tv_sec * 1000000 + (uint64_t) ts->tv_nsec / 1000;
}

/* made at least grace_usec ago (cgroupfs sets a directory's mtime when it is made, and nothing
 * done inside it changes that); a clock set back by more than the grace makes everything old */
static bool dir_old_enough(const struct stat *st, uint64_t grace_usec) {
        struct timespec now;
        uint64_t n, m;

        if (grace_usec == 0 || clock_gettime(CLOCK_REALTIME, &now) < 0)
                return true;
        n = timespec_usec(&now);
        m = timespec_usec(&st->st_mtim);
        return (n >= m ? n - m : m - n) >= grace_usec;
}

/* rmdir that treats "still has processes or children" as a normal outcome; 1 if removed. The
 * kernel refuses (EBUSY) to remove a cgroup with processes or children: that is the check for
 * "empty", atomic with the removal. One made less than grace_usec ago is left (0): a login of
 * the same user may be between its mkdir and its move into it. */
static int remove_dir_older(Cgfs *c, int dirfd, const char *name, uint64_t grace_usec, CsError *e) {
        bool root = geteuid() == 0;
        struct stat st;

        if (root || grace_usec > 0) {
                if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return errno == ENOENT ? 0 : cs_error(e, negative_errno(), "cannot stat %s: %m", name);
                /* a delegated cgroup is its owner's to remove, not ours */
                if (root && st.st_uid != 0)
                        return 0;
                if (!dir_old_enough(&st, grace_usec))
                        return 0;
        }
        if (c->ops->unlinkat(dirfd, name, AT_REMOVEDIR) >= 0)
                return 1;
        if (errno == ENOENT || is_populated_error(-errno))
                return 0;
        return cs_error(e, negative_errno(), "cannot remove %s: %m", name);
}

static int remove_dir(Cgfs *c, int dirfd, const char *name, CsError *e) {
        return remove_dir_older(c, dirfd, name, 0, e);
}

typedef int (*SubdirFn)(Cgfs *c, int dirfd, const char *name, void *userdata, CsError *e);

/* Calls fn(dirfd, name) for each subdirectory of dirfd whose name passes filter; the sum of what
 * fn returned, or its first error. */
static int for_each_subdir(Cgfs *c, int dirfd, bool (*filter)(const char *), SubdirFn fn, void *userdata,
                           CsError *e) {
        _cleanup_closedir_ DIR *d = NULL;
        int fd = c->ops->openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0), total = 0;
        struct dirent *de;

        if (fd < 0)
                return negative_errno();
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return negative_errno();
        }
        while ((de = readdir(d))) {
                int r;
                if (de->d_type != DT_DIR || !filter(de->d_name))
                        continue;
                r = fn(c, dirfd, de->d_name, userdata, e);
                if (r < 0)
                        return r;
                total += r;
        }
        return total;
}

typedef struct Reap {
        const char *keep; /* the scope of the session being opened or closed: not ours to reap */
        unsigned removed;
        unsigned left; /* scopes still there, keep not counted */
        int error;     /* the first removal refused for another reason than "populated" */
} Reap;

static int reap_one(Cgfs *c, int slice_fd, const char *name, void *userdata, CsError *e) {
        Reap *p = userdata;
        int r;

        if (p->keep && strcmp(name, p->keep) == 0)
                return 0;
        r = remove_dir_older(c, slice_fd, name, c->reap_grace_usec, p->error < 0 ? NULL : e);
        if (r > 0)
                p->removed++;
        else
                p->left++;
        if (r < 0 && p->error == 0)
                p->error = r;
        return 0;
}

/* The empty session scopes below one user slice, older than the grace, all but p->keep. Only
 * reading the slice can fail; a removal refused is in p->error. */
static int reap_scopes(Cgfs *c, int slice_fd, Reap *p, CsError *e) {
        int r = for_each_subdir(c, slice_fd, scope_name_valid, reap_one, p, e);
        return r < 0 ? cs_error(e, r, "cannot list the scopes of a user slice: %m") : 0;
}

static int remove_scope_and_slice(Cgfs *c, const CgroupHierarchy *h, uid_t uid, const char *scope, CsError *e) {
        _cleanup_close_ int root = -EBADF, slice_fd = -EBADF;
        char slice[SLICE_NAME_MAX];
        int r;

        slice_name(uid, slice);
        root = cgfs_open_slice_path(c, h, (uid_t) -1, 0, e);
        if (root == -ENOENT)
                return 0;
        if (root < 0)
                return root;
        slice_fd = cgfs_open_dir(c, root, slice, e);
        if (slice_fd == -ENOENT)
                return 0;
        if (slice_fd < 0)
                return slice_fd;
        r = remove_dir(c, slice_fd, scope, e);
        if (r < 0)
                return r;
        /* the user's scopes that background jobs kept past their logout and that are empty now:
         * housekeeping, whose refusals are slicectl gc's to report */
        (void) reap_scopes(c, slice_fd, &(Reap) { .keep = scope }, NULL);
        r = remove_dir(c, root, slice, e);
        return r < 0 ? r : 0;
}

static int close_hierarchy(Cgfs *c, const CgroupHierarchy *h, const char *orig, const CgfsSession *s, pid_t pid,
                           CsError *e) {
        int r, k;

        r = move_back(c, h, orig, pid, e);
        k = remove_scope_and_slice(c, h, s->uid, s->scope, r < 0 ? NULL : e);
        return r < 0 ? r : k;
}

int cgfs_close_session(Cgfs *c, const CgfsSession *s, pid_t pid, CsError *e) {
        int r = 0, k;

        if (c->layout.acct.path)
                r = close_hierarchy(c, &c->layout.acct, s->orig_acct, s, pid, e);
        k = close_hierarchy(c, &c->layout.cpu, s->orig_cpu, s, pid, r < 0 ? NULL : e);
        return r < 0 ? r : k;
}

void cgfs_session_done(CgfsSession *s) {
        free(s->orig_cpu);
        free(s->orig_acct);
        *s = (CgfsSession) {};
}

/* session-ID.scope, or session-pam-PID[-N].scope when the PAM environment gives no usable id.
 * *created: name holds the scope an earlier attempt made; it is reused, not left behind for a new -N */
static int make_scope(Cgfs *c, int slice_fd, const char *session_id, pid_t pid, char name[static SLICE_NAME_MAX],
                      bool *created, CsError *e) {
        char id[SESSION_ID_MAX + 1];
        int r;

        if (*created || (session_id && scope_name(session_id, name))) {
                r = cgfs_make_dir(c, slice_fd, name, e);
                *created = *created || r >= 0;
                return r < 0 ? r : 0;
        }
        for (unsigned n = 0; n < CGFS_SCOPE_SUFFIX_MAX; n++) {
                if (n == 0)
                        snprintf(id, sizeof id, "pam-%" PRIi32, (int32_t) pid);
                else
                        snprintf(id, sizeof id, "pam-%" PRIi32 "-%u", (int32_t) pid, n);
                scope_name(id, name);
                r = cgfs_make_dir(c, slice_fd, name, e);
                if (r < 0)
                        return r;
                if (r > 0) {
                        *created = true;
                        return 0;
                }
        }
        return cs_error(e, -EEXIST, "no free scope name for pid %" PRIi32, (int32_t) pid);
}

/* The user's empty scopes in one hierarchy (all but keep): housekeeping, whose refusals are
 * slicectl gc's to report. */
static void reap_in(Cgfs *c, const CgroupHierarchy *h, uid_t uid, const char *keep) {
        _cleanup_close_ int fd = cgfs_open_slice_path(c, h, uid, 0, NULL);

        if (fd >= 0)
                (void) reap_scopes(c, fd, &(Reap) { .keep = keep }, NULL);
}

/* Before a login adds a scope: the user's empty ones go (in the accounting mirror too). 1 when
 * what is left is the cap (*ret_left of them), 0 under it. keep: the scope this login will make
 * or join ("" unknown). */
static int reap_for_open(Cgfs *c, uid_t uid, int slice_fd, const char *keep, unsigned *ret_left, CsError *e) {
        Reap p = { .keep = *keep ? keep : NULL };
        int r;

        if (c->layout.acct.path)
                reap_in(c, &c->layout.acct, uid, p.keep);
        r = reap_scopes(c, slice_fd, &p, e);
        if (r < 0)
                return r;
        *ret_left = p.left;
        return c->max_scopes > 0 && p.left >= c->max_scopes;
}

static bool scope_is_roots(int slice_fd, const char *name) {
        struct stat st;

        return fstatat(slice_fd, name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISDIR(st.st_mode) &&
               (geteuid() != 0 || st.st_uid == 0);
}

/* the first name in C order, so that the logins past the cap share one scope rather than spread
 * over the user's others */
static int pick_first(Cgfs *c, int slice_fd, const char *name, void *userdata, CsError *e) {
        char *best = userdata;

        if (scope_is_roots(slice_fd, name) && (!best[0] || strcmp(name, best) < 0))
                snprintf(best, SLICE_NAME_MAX, "%s", name);
        return 0;
}

/* At the cap a login joins one of the user's live scopes instead of making one: it stays under
 * the user's slice (failing open there would leave it in sshd's or su's cgroup, outside every
 * limit: a way out that 256 nohup jobs would open), and adds no cgroup. */
static int pick_scope_at_cap(Cgfs *c, uid_t uid, int slice_fd, const char *keep, unsigned left,
                             char name[static SLICE_NAME_MAX], CsError *e) {
        char slice[SLICE_NAME_MAX];

        name[0] = '\0';
        /* the scope of this session's id, if it has one already, is no new cgroup */
        if (*keep && scope_is_roots(slice_fd, keep))
                snprintf(name, SLICE_NAME_MAX, "%s", keep);
        else
                (void) for_each_subdir(c, slice_fd, scope_name_valid, pick_first, name, NULL);
        if (name[0])
                return 0;
        slice_name(uid, slice);
        return cs_error(e, -EUSERS,
                        "%s has %u other session scopes still in use, the most that max_scopes=%u "
                        "allows, and none of them can be joined; no scope made for this login",
                        slice, left, c->max_scopes);
}

/* takes ownership of dirfd */
static int join_scope(Cgfs *c, const CgroupHierarchy *h, int dirfd, pid_t pid, CsError *e) {
        _cleanup_close_ int fd = dirfd;

        return move_pid(c, fd, h, pid, e);
}

static int open_session_once(Cgfs *c, uid_t uid, const char *session_id, pid_t pid, const CpuKernelValues *k,
                             CgfsSession *s, bool *scope_created, CsError *e) {
        _cleanup_close_ int slice_fd = -EBADF, scope_fd = -EBADF, acct_fd = -EBADF;
        char keep[SLICE_NAME_MAX];
        unsigned left;
        int r;

        r = slice_apply(c, uid, k, CGFS_WALK_CREATE | CGFS_WALK_ENABLE_CPU, &slice_fd, e);
        if (r < 0)
                return r;
        /* the name this login makes or joins, where known before it makes it */
        if (*scope_created)
                snprintf(keep, sizeof keep, "%s", s->scope);
        else if (!session_id || !scope_name(session_id, keep))
                keep[0] = '\0';
        r = reap_for_open(c, uid, slice_fd, keep, &left, e);
        if (r < 0)
                return r;
        s->at_cap = r > 0 ? left : 0;
        r = r > 0 ? pick_scope_at_cap(c, uid, slice_fd, keep, left, s->scope, e)
                  : make_scope(c, slice_fd, session_id, pid, s->scope, scope_created, e);
        if (r < 0)
                return r;
        scope_fd = cgfs_open_dir(c, slice_fd, s->scope, e);
        if (scope_fd < 0)
                return scope_fd;
        if (c->layout.acct.path) {
                acct_fd = cgfs_open_slice_path(c, &c->layout.acct, uid, CGFS_WALK_CREATE, e);
                if (acct_fd < 0)
                        return acct_fd;
                acct_fd = cgfs_walk(c, TAKE_FD(acct_fd), s->scope, CGFS_WALK_CREATE, e);
                if (acct_fd < 0)
                        return acct_fd;
        }
        r = join_scope(c, &c->layout.cpu, TAKE_FD(scope_fd), pid, e);
        if (r < 0)
                return r;
        if (acct_fd >= 0)
                return join_scope(c, &c->layout.acct, TAKE_FD(acct_fd), pid, e);
        return 0;
}

/* A login whose process is in the user's slice already still reaps the user's other empty scopes:
 * none may outlive the user's next login, whichever kind it is. */
static void reap_placed(Cgfs *c, uid_t uid, const char *cpu_path) {
        const char *child = slice_path_child(cpu_path, c->slices, uid);
        char keep[SLICE_NAME_MAX];

        snprintf(keep, sizeof keep, "%.*s", (int) strcspn(child, "/"), child);
        reap_in(c, &c->layout.cpu, uid, keep);
        if (c->layout.acct.path)
                reap_in(c, &c->layout.acct, uid, keep);
}

int cgfs_open_session(Cgfs *c, uid_t uid, const char *session_id, pid_t pid, const CpuKernelValues *k,
                      CgfsSession *ret, CsError *e) {
        CgfsSession s = { .uid = uid };
        bool scope_created = false;
        int r;

        /* remembered before the move, so close can put the process back */
        r = proc_cgroup_paths(c, pid, &s.orig_cpu, &s.orig_acct);
        if (r < 0) {
                cgfs_session_done(&s);
                return cs_error(e, r, "cannot read /proc/%" PRIi32 "/cgroup: %m", (int32_t) pid);
        }
        /* su - self inside a session, or a second instance of the module in one stack: the
         * process is placed already, and must stay where the first placement put it */
        if (slice_path_in_slice(s.orig_cpu, c->slices, uid)) {
                reap_placed(c, uid, s.orig_cpu);
                cgfs_session_done(&s);
                *ret = (CgfsSession) { .uid = uid };
                return 0;
        }
        for (unsigned attempt = 0;; attempt++) {
                if (!scope_created)
                        s.scope[0] = '\0';
                r = open_session_once(c, uid, session_id, pid, k, &s, &scope_created, e);
                /* a concurrent close (or gc) removed the slice or scope under us; start over. ENOENT
                 * when opening or creating below it, ENODEV when writing to a file of a cgroup that
                 * was removed after we opened it */
                if ((r != -ENOENT && r != -ENODEV) || attempt + 1 >= CGFS_OPEN_ATTEMPTS)
                        break;
        }
        if (r < 0) {
                if (s.scope[0])
                        (void) cgfs_close_session(c, &s, pid, NULL);
                cgfs_session_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

/* the same names slice_read_all() lists: gc and list never disagree on what a user slice is */
static bool is_user_slice_name(const char *n) {
        uid_t uid;
        return slice_name_to_uid(n, &uid) >= 0;
}

typedef struct Gc {
        int removed;
        int error; /* the first; the message in e is its */
} Gc;

static int gc_slice_reap(Cgfs *c, int root, const char *slice, CsError *e) {
        CsError open_error = {};
        _cleanup_close_ int fd = cgfs_open_dir(c, root, slice, &open_error);
        Reap p = {};
        int r;

        /* gone; or not root's (delegated), not a directory, not cgroupfs: never ours to remove or
         * write into, and no reason to leave the other slices be (slicectl gc names what it skipped) */
        if (fd == -ENOENT || fd == -EPERM || fd == -ENOTDIR || fd == -EXDEV)
                return 0;
        if (fd < 0)
                return cs_error(e, fd, "%s", open_error.msg);
        r = reap_scopes(c, fd, &p, e);
        if (r < 0)
                return r;
        if (p.error < 0)
                return p.error;
        r = remove_dir(c, root, slice, e);
        return r < 0 ? r : (int) p.removed + r;
}

/* one slice's refusal leaves the others to be collected still; the first is what gc returns */
static int gc_slice(Cgfs *c, int root, const char *slice, void *userdata, CsError *e) {
        Gc *g = userdata;
        int r = gc_slice_reap(c, root, slice, g->error < 0 ? NULL : e);

        if (r >= 0)
                g->removed += r;
        else if (g->error == 0)
                g->error = r;
        return 0;
}

static void gc_hierarchy(Cgfs *c, const CgroupHierarchy *h, Gc *g, CsError *e) {
        _cleanup_close_ int root = cgfs_open_slice_path(c, h, (uid_t) -1, 0, g->error < 0 ? NULL : e);
        int r = root;

        if (root == -ENOENT)
                return;
        if (root >= 0)
                r = for_each_subdir(c, root, is_user_slice_name, gc_slice, g, e);
        if (r < 0 && g->error == 0)
                g->error = r;
}

int cgfs_gc(Cgfs *c, CsError *e) {
        Gc g = {};

        if (c->layout.acct.path)
                gc_hierarchy(c, &c->layout.acct, &g, e);
        /* removals counted on the cpu hierarchy: the mirror holds the same tree */
        g.removed = 0;
        gc_hierarchy(c, &c->layout.cpu, &g, e);
        return g.error < 0 ? g.error : g.removed;
}
