/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* metrics: the live slices as Prometheus metrics, on stdout or as node_exporter's textfile
 * (DIR/cpuslice.prom, replaced atomically). The values are list's: the same rows_collect() over
 * the same readers (slice-read.c, cgroup-stat.c), on every layout and either backend. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "atomic-file.h"
#include "backend.h"
#include "cpu-value.h"
#include "prom-text.h"
#include "rows.h"
#include "slicectl-util.h"
#include "trusted-path.h"
#include "verbs.h"

#define TEXTFILE_NAME "cpuslice.prom"

const char *arg_textfile;

/* For what is not one uint64_t field of the row: false when the slice has no such figure. */
typedef bool (*SliceMetric)(const SliceRow *r, PromValue *ret);

static bool m_quota(const SliceRow *r, PromValue *ret) {
        const SliceInfo *s = &r->info;

        if (!s->have_quota || s->quota_usec == CPU_QUOTA_INFINITY || s->period_usec == CGSTAT_NONE ||
            s->period_usec == 0)
                return false;
        *ret = PROM_DOUBLE((double) s->quota_usec / (double) s->period_usec);
        return true;
}

static bool m_quota_share(const SliceRow *r, PromValue *ret) {
        const Rule *w = r->have_config ? r->res.source[SETTING_QUOTA_SHARE] : NULL;

        if (!w)
                return false;
        *ret = PROM_DOUBLE((double) w->quota_share / (double) USEC_PER_SEC);
        return true;
}

static bool m_sessions(const SliceRow *r, PromValue *ret) {
        *ret = PROM_U64(r->info.n_scopes);
        return true;
}

static bool m_penalty_level(const SliceRow *r, PromValue *ret) {
        /* a state that was refused is not "level 0": the user may well be capped */
        if (r->penalty_refused)
                return false;
        *ret = PROM_U64(r->penalty.level);
        return true;
}

static bool m_penalty_until(const SliceRow *r, PromValue *ret) {
        if (!r->penalty.active)
                return false;
        *ret = PROM_USEC(r->penalty.until);
        return true;
}

#define FIELD(kind, f) kind, offsetof(SliceRow, f), NULL
#define FUNC(fn) 0, 0, fn

/* In the order they are written; each family's samples follow its HELP and TYPE lines. A field
 * that is CGSTAT_NONE (the kernel does not offer it here) gives no sample. */
static const struct {
        const char *name;
        PromType type;
        PromValueKind kind; /* of the uint64_t field at offset */
        size_t offset;
        SliceMetric value; /* or this */
        const char *help;
} slice_families[] = {
        { "cpuslice_cpu_usage_seconds_total", PROM_COUNTER, FIELD(PROM_VALUE_USEC, info.stat.usage_usec),
          "CPU time used by the user's slice (cpu.stat usage_usec; cpuacct.usage on cgroup v1)." },
        { "cpuslice_cpu_user_seconds_total", PROM_COUNTER, FIELD(PROM_VALUE_USEC, info.stat.user_usec),
          "CPU time the user's slice spent in user mode (cpu.stat user_usec)." },
        { "cpuslice_cpu_system_seconds_total", PROM_COUNTER, FIELD(PROM_VALUE_USEC, info.stat.system_usec),
          "CPU time the user's slice spent in the kernel (cpu.stat system_usec)." },
        { "cpuslice_cpu_throttled_seconds_total", PROM_COUNTER, FIELD(PROM_VALUE_USEC, info.stat.throttled_usec),
          "Time the user's slice was held back by its CPUQuota= (cpu.stat throttled_usec / throttled_time)." },
        { "cpuslice_cpu_periods_total", PROM_COUNTER, FIELD(PROM_VALUE_U64, info.stat.nr_periods),
          "Quota enforcement periods in which the user's slice ran (cpu.stat nr_periods)." },
        { "cpuslice_cpu_throttled_periods_total", PROM_COUNTER, FIELD(PROM_VALUE_U64, info.stat.nr_throttled),
          "Periods in which the user's slice used up its quota (cpu.stat nr_throttled)." },
        { "cpuslice_cpu_pressure_some_seconds_total", PROM_COUNTER, FIELD(PROM_VALUE_USEC, info.pressure_total_usec),
          "Time at least one task of the user's slice waited for a CPU (cpu.pressure some total; "
          "only where PSI exists)." },
        { "cpuslice_cpu_weight", PROM_GAUGE, FIELD(PROM_VALUE_U64, weight), /* CPU_WEIGHT_IDLE is 0 */
          "CPUWeight= in force for the user's slice (cpu.weight, or cpu.shares mapped back on v1); "
          "0 for CPUWeight=idle." },
        { "cpuslice_cpu_quota_cpus", PROM_GAUGE, FUNC(m_quota),
          "CPUQuota= in force for the user's slice, in CPUs (quota / period); absent when unlimited." },
        { "cpuslice_cpu_burst_seconds", PROM_GAUGE, FIELD(PROM_VALUE_USEC, info.burst_usec),
          "CPUBurst= in force for the user's slice (cpu.max.burst / cpu.cfs_burst_us); absent where the "
          "kernel has no burst (before Linux 5.14)." },
        { "cpuslice_cpu_quota_share", PROM_GAUGE, FUNC(m_quota_share),
          "CPUQuotaShare= the config gives the user, as a fraction of the CPUs users can run on; absent when "
          "the quota is given as CPUQuota= or not at all." },
        { "cpuslice_sessions", PROM_GAUGE, FUNC(m_sessions), "Session scopes in the user's slice." },
        { "cpuslice_penalty_level", PROM_GAUGE, FUNC(m_penalty_level),
          "The user's sustained-use penalty level (0: none; slicectl penalty list); absent when the "
          "saved state was refused (cpuslice_penalty_states_refused)." },
        { "cpuslice_penalty_until_seconds", PROM_GAUGE, FUNC(m_penalty_until),
          "When the user's running penalty ends (Unix time); absent when not capped." },
};

static bool slice_value(size_t family, const SliceRow *r, PromValue *ret) {
        uint64_t v;

        if (slice_families[family].value)
                return slice_families[family].value(r, ret);
        memcpy(&v, (const char *) r + slice_families[family].offset, sizeof v);
        *ret = (PromValue) { .kind = slice_families[family].kind, .u = v };
        return v != CGSTAT_NONE;
}

typedef struct Metrics {
        Rows rows;
        char **labels; /* per row: user="…",uid="…" */
        size_t config_errors;
        size_t penalty_refused;
        uint64_t now_usec; /* CLOCK_REALTIME */
} Metrics;

static void metrics_done(Metrics *m) {
        for (size_t i = 0; m->labels && i < m->rows.n; i++)
                free(m->labels[i]);
        free(m->labels);
        rows_done(&m->rows);
}

static int write_host(FILE *f, const char *name, const char *help, PromValue v) {
        int r = prom_write_family(f, name, PROM_GAUGE, help);

        return r < 0 ? r : prom_write_sample(f, name, NULL, v);
}

static int metrics_write(FILE *f, void *userdata) {
        const Metrics *m = userdata;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(slice_families); i++) {
                r = prom_write_family(f, slice_families[i].name, slice_families[i].type, slice_families[i].help);
                for (size_t j = 0; r >= 0 && j < m->rows.n; j++) {
                        PromValue v;

                        if (slice_value(i, &m->rows.rows[j], &v))
                                r = prom_write_sample(f, slice_families[i].name, m->labels[j], v);
                }
                if (r < 0)
                        return r;
        }
        r = write_host(f, "cpuslice_config_errors", "Errors 'slicectl check' reports in the config.",
                       PROM_U64(m->config_errors));
        if (r >= 0)
                r = write_host(f, "cpuslice_slices", "User slices running.", PROM_U64(m->rows.n));
        if (r >= 0)
                r = write_host(f, "cpuslice_slices_skipped",
                               "Entries named like a user slice that could not be read (not a directory, not on "
                               "cgroupfs, no permission); slicectl names each on stderr.",
                               PROM_U64(m->rows.n_skipped));
        if (r >= 0)
                r = write_host(f, "cpuslice_penalty_states_refused",
                               "Users whose saved penalty state was refused (not root's, corrupt): no level is "
                               "known for them; slicectl penalty list says why.",
                               PROM_U64(m->penalty_refused));
        if (r >= 0)
                r = write_host(f, "cpuslice_metrics_timestamp_seconds",
                               "When slicectl read these values (Unix time).", PROM_USEC(m->now_usec));
        return r;
}

static int make_labels(Metrics *m) {
        m->labels = calloc(m->rows.n ? m->rows.n : 1, sizeof *m->labels);
        if (!m->labels)
                return -ENOMEM;
        for (size_t i = 0; i < m->rows.n; i++) {
                const SliceRow *row = &m->rows.rows[i];
                _cleanup_free_ char *user = prom_escape_label_value(row->user);

                if (!user || asprintf(&m->labels[i], "user=\"%s\",uid=\"%u\"", user, (unsigned) row->info.uid) < 0) {
                        m->labels[i] = NULL;
                        return -ENOMEM;
                }
        }
        return 0;
}

static void load_penalties(Metrics *m) {
        _cleanup_close_ int dfd = penalty_state_dir_open(arg_state_root);

        for (size_t i = 0; i < m->rows.n; i++) {
                SliceRow *row = &m->rows.rows[i];
                char why[128];
                int r = penalty_state_load_at(dfd, row->info.uid, &row->penalty, why, sizeof why);

                if (r < 0) {
                        row->penalty_refused = true;
                        m->penalty_refused++;
                        log_warning("uid %u: the penalty state " PENALTY_STATE_DIR "/%u is refused (%s); its "
                                    "level is left out",
                                    (unsigned) row->info.uid, (unsigned) row->info.uid,
                                    r == -EPERM || r == -EBADMSG ? why : strerror(-r));
                }
        }
}

static int metrics_collect(Metrics *m) {
        _cleanup_(diag_list_done) DiagList d = {};
        char check_verb[] = "check", *check_argv[] = { check_verb, NULL };
        _cleanup_(backend_closep) SliceBackend b = {};
        struct timespec ts;
        int r;

        r = check_collect(1, check_argv, &d);
        if (r < 0)
                return r;
        m->config_errors = diag_count(&d, DIAG_ERROR);

        r = backend_open_or_log(&b, &arg_target);
        if (r < 0)
                return r;
        clock_gettime(CLOCK_REALTIME, &ts);
        m->now_usec = (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
        r = rows_collect_or_log(&b, NULL, 0, &m->rows);
        if (r < 0)
                return r;
        rows_log_skipped(&m->rows);
        load_penalties(m);
        r = make_labels(m);
        return r < 0 ? log_error(r, "out of memory") : 0;
}

static int write_textfile(Metrics *m) {
        _cleanup_close_ int dfd = -EBADF;
        _cleanup_free_ char *dir = NULL;
        int r;

        char why[128];

        /* run as root from a timer or cron: a directory someone else controls could be swapped
         * under us or have its file replaced between runs, so it must be root's (or, run as a
         * user, that user's own) and writable by no one else; never through a symlink */
        /* "DIR/" would resolve a symlink DIR before O_NOFOLLOW looks at it */
        dir = strdup(arg_textfile);
        if (!dir)
                return log_error(-ENOMEM, "out of memory");
        for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
                dir[n - 1] = '\0';
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0) {
                r = negative_errno();
                if (r == -ELOOP || r == -ENOTDIR)
                        return log_error(r, "the textfile directory %s is a symlink or not a directory; refused",
                                         arg_textfile);
                return log_error(r, "cannot open the textfile directory %s: %s", arg_textfile, strerror(-r));
        }
        r = trusted_fd_check(dfd, S_IFDIR, why, sizeof why);
        if (r < 0)
                return log_error(r, "the textfile directory %s is %s; refused", arg_textfile, why);
        r = atomic_file_replace(dfd, TEXTFILE_NAME, 0644, metrics_write, m);
        if (r < 0)
                return log_error(r, "cannot write %s/%s: %s", arg_textfile, TEXTFILE_NAME, strerror(-r));
        return 0;
}

int verb_metrics(int argc, char **argv) {
        _cleanup_(metrics_done) Metrics m = {};
        int r;

        if (argc > 1)
                return log_error(-EINVAL, "'metrics' takes no arguments (--textfile DIR writes DIR/%s)",
                                 TEXTFILE_NAME);
        r = metrics_collect(&m);
        if (r < 0)
                return r;
        if (arg_textfile)
                return write_textfile(&m);
        r = metrics_write(stdout, &m);
        return r < 0 ? log_error(r, "cannot write output: %s", strerror(-r)) : 0;
}
