/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The read-only views of live slices: list, top, status. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cpu-value.h"
#include "login-policy.h"
#include "format.h"
#include "rows.h"
#include "slicectl-util.h"
#include "verbs.h"
#include "json-out.h"
#include "penalty-cap.h"
#include "table.h"
#include "time-util.h"

/* list and top: the columns asked for, and the slices to fill them from */
/* list and top: no arguments (usage says why not), the table options, the backend. */
static int table_setup(int argc, const char *usage, TableControl *ctl, SliceBackend *b) {
        int r;

        if (argc > 1)
                return log_error(-EINVAL, "%s", usage);
        *ctl = (TableControl) {
                .json = arg_json,
                .raw = arg_raw,
                .noheadings = arg_noheadings,
                .legend = !arg_json && !arg_raw && !arg_noheadings,
                .output = arg_output,
                .sort = arg_sort,
        };
        r = table_control_setup(ctl);
        return r < 0 ? r : backend_open_or_log(b, &arg_target);
}

int verb_list(int argc, char **argv) {
        _cleanup_(backend_closep) SliceBackend b = {};
        _cleanup_(sampler_done) Sampler s = { .interval_usec = arg_interval_usec };
        _cleanup_(rows_done) Rows rows = {};
        TableControl ctl;
        int r;

        r = table_setup(argc, "'list' takes no arguments (see 'status USER')", &ctl, &b);
        if (r < 0)
                return r;
        r = rows_collect_or_log(&b, &s, 0, &rows);
        if (r < 0)
                return r;
        rows_log_skipped(&rows);
        rows_sort(&ctl, &rows);
        return rows_print(&ctl, &rows);
}

/* top: the terminal goes back to how it was on every way out, signals included. */
static struct termios saved_tio;
static bool tio_saved;
static volatile sig_atomic_t quit_signal;

static void restore_terminal(void) {
        if (tio_saved)
                (void) tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
        tio_saved = false;
}

static void on_signal(int sig) {
        quit_signal = sig;
}

static int raw_terminal(void) {
        struct termios t;
        struct sigaction sa = { .sa_handler = on_signal };

        if (tcgetattr(STDIN_FILENO, &saved_tio) < 0)
                return -errno;
        t = saved_tio;
        t.c_lflag &= ~(tcflag_t) (ICANON | ECHO);
        t.c_cc[VMIN] = 0;
        t.c_cc[VTIME] = 0;
        if (tcsetattr(STDIN_FILENO, TCSANOW, &t) < 0)
                return -errno;
        tio_saved = true;
        atexit(restore_terminal);
        /* no SA_RESTART: poll() returns EINTR and the loop ends */
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        return 0;
}

/* Waits up to the delay; true if the user asked to quit. */
static bool wait_for_key(uint64_t usec) {
        struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
        int ms = (int) (usec / 1000);

        for (;;) {
                char c;
                int k = poll(&p, 1, ms);

                if (quit_signal || k < 0)
                        return true;
                if (k == 0)
                        return false;
                if (read(STDIN_FILENO, &c, 1) != 1)
                        return true; /* EOF on the terminal */
                if (c == 'q' || c == 'Q')
                        return true;
                /* any other key: refresh now */
                return false;
        }
}

/* "2024-05-01 12:34:56 +0200" above a batch refresh; a heading, so not with -n, nor in JSON */
static void print_timestamp(void) {
        char buf[64];
        struct tm tm;
        time_t t = time(NULL);

        if (arg_json || arg_noheadings || !localtime_r(&t, &tm) || strftime(buf, sizeof buf, "%F %T %z", &tm) == 0)
                return;
        printf("%s\n", buf);
}

int verb_top(int argc, char **argv) {
        _cleanup_(backend_closep) SliceBackend b = {};
        _cleanup_(sampler_done) Sampler s = { .interval_usec = arg_interval_usec };
        TableControl ctl;
        bool interactive;
        int r;

        r = table_setup(argc, "'top' takes no arguments", &ctl, &b);
        if (r < 0)
                return r;
        interactive = !arg_batch && !arg_json && !arg_raw && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
        if (interactive && raw_terminal() < 0)
                interactive = false;
        if (interactive)
                ctl.legend = false; /* the screen's first line has the count */
        for (unsigned i = 1;; i++) {
                _cleanup_(rows_done) Rows rows = {};

                r = rows_collect_or_log(&b, &s, 0, &rows);
                if (r < 0)
                        break;
                rows_sort(&ctl, &rows);
                if (interactive) {
                        char skipped[64] = "";

                        /* stderr lines would scroll the screen away: the count only */
                        if (rows.n_skipped)
                                snprintf(skipped, sizeof skipped, " (%zu skipped: see slicectl list)",
                                         rows.n_skipped);
                        printf("\033[H\033[2J%zu user slice%s%s, refresh every %.1f s; q quits\n\n", rows.n,
                               rows.n == 1 ? "" : "s", skipped, (double) arg_delay_usec / 1e6);
                } else {
                        rows_log_skipped(&rows);
                        if (i > 1)
                                putchar('\n');
                        print_timestamp(); /* as top -b: each refresh says when it was taken */
                }
                r = rows_print(&ctl, &rows);
                fflush(stdout);
                if (r < 0 || (arg_iterations && i >= arg_iterations))
                        break;
                if (interactive ? wait_for_key(arg_delay_usec) : (usleep((useconds_t) arg_delay_usec), false))
                        break;
        }
        restore_terminal();
        return r < 0 ? r : 0;
}

/* status */

typedef struct StatusLine {
        char config[CPU_FORMAT_MAX]; /* what the config says ("-": a login does not apply it) */
        char live[CPU_FORMAT_MAX];
        const Rule *source; /* NULL: default */
        const char *note;   /* NULL, or why the kernel gets another value */
        char note_buf[PATH_MAX + 128];
        bool drift;
} StatusLine;

/* On a systemd host only what the config gives is the module's: the rest is systemd's own (unit
 * files, user-.slice.d/, set-property), an admin's persistent set-property holds against the
 * config, an admin's set-property --runtime holds until the next login sends the config's value
 * again, and a systemd before 252 runs CPUWeight=idle as 1. None of that is drift, and none of it
 * is for slicectl apply to undo. */
static void status_systemd_notes(const SliceBackend *b, uid_t uid, const Resolved *res, const SliceInfo *info,
                                 StatusLine lines[static _SETTING_MAX]) {
        for (Setting s = SETTING_WEIGHT; s < _SETTING_MAX; s++) {
                StatusLine *l = &lines[s];
                char value[CPU_FORMAT_MAX], path[PATH_MAX];
                int r;

                if (setting_is_spelling(s))
                        continue;
                if (!resolved_holder(res, s)) {
                        strcpy(l->config, "-");
                        l->note = "not in the config: systemd's own value";
                        l->drift = false;
                } else if ((r = backend_admin_value(&arg_target, uid, s, value, path, sizeof path)) ==
                           ADMIN_VALUE_PERSISTENT) {
                        snprintf(l->note_buf, sizeof l->note_buf, "held at %s by systemctl set-property in %s", value,
                                 path);
                        l->note = l->note_buf;
                        l->drift = false;
                } else if (r == ADMIN_VALUE_RUNTIME && l->drift) {
                        snprintf(l->note_buf, sizeof l->note_buf,
                                 "set to %s by systemctl set-property --runtime in %s, until the next login", value,
                                 path);
                        l->note = l->note_buf;
                        l->drift = false;
                } else if (s == SETTING_WEIGHT && info && res->limits.weight == CPU_WEIGHT_IDLE &&
                           strcmp(l->live, "1") == 0) {
                        l->note = "this systemd has no CPUWeight=idle (before 252): 1 in effect";
                        l->drift = false;
                }
        }
}

/* One line per setting, answering what a login would do (login_gets_slice): for a user the
 * module leaves alone the config's values mean nothing, and a running slice is not drift. */
static void status_lines(bool v2, const Resolved *res, const SliceInfo *info, StatusLine lines[static _SETTING_MAX]) {
        bool gets = login_gets_slice(res);
        CpuKernelValues k;
        unsigned drift;

        cpu_limits_to_kernel(&res->limits, &k);
        for (Setting s = 0; s < _SETTING_MAX; s++)
                lines[s] =
                        (StatusLine) { .live = "-", .config = "-", .source = gets ? resolved_holder(res, s) : NULL };
        lines[SETTING_SLICE].source = res->source[SETTING_SLICE];
        strcpy(lines[SETTING_SLICE].config, gets ? "yes" : "no");
        if (!res->matched)
                lines[SETTING_SLICE].note = login_skip_reason(res);
        if (gets) {
                cpu_weight_format(res->limits.weight, lines[SETTING_WEIGHT].config);
                cpu_quota_format(res->limits.quota_per_sec, lines[SETTING_QUOTA].config);
                if (resolved_share_format(res, lines[SETTING_QUOTA].note_buf))
                        lines[SETTING_QUOTA].note = lines[SETTING_QUOTA].note_buf;
                cpu_period_format(res->limits.period_usec, lines[SETTING_PERIOD].config); /* as explain says */
                cpu_period_format(k.burst_usec, lines[SETTING_BURST].config);
                if (k.burst_dropped)
                        lines[SETTING_BURST].note = k.quota_usec == CPU_QUOTA_INFINITY
                                                            ? "left out: no CPUQuota= to burst above"
                                                            : "left out: more than the quota per period";
                if (k.period_usec != res->limits.period_usec) {
                        char p[CPU_FORMAT_MAX];

                        snprintf(lines[SETTING_PERIOD].note_buf, sizeof lines[SETTING_PERIOD].note_buf,
                                 "the kernel gets %s: %s", cpu_period_format(k.period_usec, p),
                                 res->limits.quota_per_sec == CPU_QUOTA_INFINITY
                                         ? "without a quota the period is the default"
                                         : "a period must hold at least 1ms of quota and be 1ms..1s");
                        lines[SETTING_PERIOD].note = lines[SETTING_PERIOD].note_buf;
                }
        }
        if (!info)
                return;
        drift = gets ? slice_drift(v2, info, &k) : 0;
        for (Setting s = 0; s < _SETTING_MAX; s++) {
                char buf[CPU_FORMAT_MAX];

                snprintf(lines[s].live, CPU_FORMAT_MAX, "%s", live_value(v2, info, res, s, buf));
                lines[s].drift = drift & (1u << s);
        }
}

/* "file:line", "default" or "-" (not applied), and the note in parentheses */
static const char *source_of(const RuleSet *rs, const StatusLine *l, char *buf, size_t n) {
        char where[1024];

        if (l->source)
                snprintf(where, sizeof where, "%s:%u", rule_file(rs, l->source), l->source->line);
        else
                snprintf(where, sizeof where, "%s", l->note ? "" : strcmp(l->config, "-") == 0 ? "-" : "default");
        /* a path longer than the line is cut: the message is for people */
        if (snprintf(buf, n, "%s%s%s%s%s", where, where[0] && l->note ? " " : "", l->note ? "(" : "",
                     strempty(l->note), l->note ? ")" : "") < 0)
                buf[0] = '\0';
        return buf;
}

static void print_cpu_stat(const SliceInfo *info) {
        const CpuStat *st = &info->stat;
        char a[FORMAT_MAX], b[FORMAT_MAX], c[FORMAT_MAX];

        if (st->usage_usec != CGSTAT_NONE) {
                printf("CPU time:   %s", format_usec(st->usage_usec, a));
                if (st->user_usec != CGSTAT_NONE && st->system_usec != CGSTAT_NONE)
                        printf(" (user %s, system %s)", format_usec(st->user_usec, b),
                               format_usec(st->system_usec, c));
                printf("\n");
        } else
                printf("CPU time:   not available\n");
        if (st->nr_periods != CGSTAT_NONE && st->nr_throttled != CGSTAT_NONE) {
                printf("Throttled:  %" PRIu64 " of %" PRIu64 " periods", st->nr_throttled, st->nr_periods);
                if (st->nr_periods > 0)
                        printf(" (%.1f %%)", (double) st->nr_throttled * 100.0 / (double) st->nr_periods);
                if (st->throttled_usec != CGSTAT_NONE)
                        printf(", %s in total", format_usec(st->throttled_usec, a));
                printf("\n");
        } else
                printf("Throttled:  not available\n");
        if (info->pressure >= 0)
                printf("Pressure:   %.2f %% of the last 10 s a task waited for a CPU (cpu.pressure some avg10)\n",
                       info->pressure);
        else
                printf("Pressure:   not available (no PSI here)\n");
}

static void print_sessions(const SliceInfo *info) {
        printf("Sessions:   %zu\n", info->n_scopes);
        for (size_t i = 0; i < info->n_scopes; i++) {
                const ScopeInfo *sc = &info->scopes[i];

                print_line(stdout, "  %s", sc->name);
                for (size_t j = 0; j < sc->n_pids; j++)
                        print_line(stdout, "    %7d  %s", (int) sc->pids[j], sc->comms[j] ? sc->comms[j] : "?");
        }
}

/* Why a login's first move may wait: only on real cgroupfs, where mountinfo says */
static void print_host_notes(const SliceBackend *b) {
        const char *root = arg_target.cgroup_root ? arg_target.cgroup_root : "/sys/fs/cgroup";
        int r;

        if (!b->cgfs.layout.check_fs)
                return;
        r = cgroup_layout_favordynmods(root, &b->cgfs.layout, NULL);
        if (r < 0)
                return;
        printf("\n");
        print_line(stdout, "Host: cgroup favordynmods %s",
                   r ? "on"
                     : "off (moving a process into a cgroup may wait "
                       "for an RCU grace period, several ms per login; see pam_cpuslice(8))");
}

static void json_stat(JsonOut *j, const char *key, uint64_t v) {
        if (v == CGSTAT_NONE)
                json_null(j, key);
        else
                json_u64(j, key, v);
}

static void status_json_running(JsonOut *j, const SliceInfo *info) {
        const CpuStat *st = &info->stat;

        json_open(j, "cpu", '{');
        json_stat(j, "usage_usec", st->usage_usec);
        json_stat(j, "user_usec", st->user_usec);
        json_stat(j, "system_usec", st->system_usec);
        json_stat(j, "nr_periods", st->nr_periods);
        json_stat(j, "nr_throttled", st->nr_throttled);
        json_stat(j, "throttled_usec", st->throttled_usec);
        if (info->pressure >= 0)
                json_double(j, "pressure_some_avg10", info->pressure);
        else
                json_null(j, "pressure_some_avg10");
        json_close(j, '{');
        json_open(j, "sessions", '[');
        for (size_t i = 0; i < info->n_scopes; i++) {
                const ScopeInfo *sc = &info->scopes[i];

                json_open(j, NULL, '{');
                json_string(j, "scope", sc->name);
                json_open(j, "processes", '[');
                for (size_t k = 0; k < sc->n_pids; k++) {
                        json_open(j, NULL, '{');
                        json_u64(j, "pid", (uint64_t) sc->pids[k]);
                        json_string(j, "comm", sc->comms[k]);
                        json_close(j, '{');
                }
                json_close(j, '[');
                json_close(j, '{');
        }
        json_close(j, '[');
}

/* What status says of a user's penalty: their state, and whether it caps the quota now. */
typedef struct StatusPenalty {
        bool enabled;
        int error; /* < 0: the state was refused, why says why */
        char why[128];
        PenaltyState st;
        bool capped;
        uint64_t cap;
} StatusPenalty;

static void status_penalty_load(const UserIdent *u, Resolved *res, StatusPenalty *p) {
        *p = (StatusPenalty) { .enabled = login_gets_slice(res) && penalty_policy_enabled(&res->penalty) };
        p->error = penalty_state_load(arg_state_root, u->uid, &p->st, p->why, sizeof p->why);
        if (p->error < 0 && p->error != -EPERM && p->error != -EBADMSG)
                snprintf(p->why, sizeof p->why, "%s", strerror(-p->error));
        if (p->error < 0 || !p->enabled)
                return;
        p->cap = penalty_level_quota(&res->penalty, p->st.level);
        p->capped = penalty_cap_apply(res, &p->st, realtime_usec());
}

static void status_penalty_print(const Resolved *res, const StatusPenalty *p) {
        char cap[CPU_FORMAT_MAX], use[CPU_FORMAT_MAX], above[CPU_FORMAT_MAX], win[FORMAT_MAX], t1[FORMAT_MAX],
                t2[FORMAT_MAX];

        if (p->error < 0) {
                print_line(stdout, "Penalty:    state refused (%s); logins get the configured values", p->why);
                return;
        }
        if (!p->enabled && p->st.level == 0)
                return;
        cpu_quota_format(res->penalty.above_per_sec, above);
        format_usec(res->penalty.window_usec, win);
        if (p->st.active)
                print_line(stdout,
                           "Penalty:    level %u since %s: CPUQuota=%s until %s (used %s over %s, above %s); "
                           "only root lifts it ('slicectl penalty clear')",
                           p->st.level, format_walltime(p->st.since, t1), cpu_quota_format(p->cap, cap),
                           format_walltime(p->st.until, t2), cpu_quota_format(p->st.cause_per_sec, use), win, above);
        else if (p->st.level > 0)
                print_line(stdout,
                           "Penalty:    none now; level %u since %s, one level forgotten per %s without an offence",
                           p->st.level, format_walltime(p->st.until, t1), format_usec(res->penalty.forget_usec, t2));
        else
                print_line(stdout, "Penalty:    none (use above %s over %s starts one)", above, win);
}

static void status_penalty_json(JsonOut *j, const StatusPenalty *p) {
        char cap[CPU_FORMAT_MAX], use[CPU_FORMAT_MAX];

        if (p->error >= 0 && !p->enabled && p->st.level == 0) {
                json_null(j, "penalty");
                return;
        }
        json_open(j, "penalty", '{');
        json_string(j, "error", p->error < 0 ? p->why : NULL);
        json_u64(j, "level", p->st.level);
        json_bool(j, "active", p->st.active);
        json_string(j, "cap", p->st.active ? cpu_quota_format(p->cap, cap) : NULL);
        json_u64(j, "since", p->st.since / USEC_PER_SEC);
        json_u64(j, "until", p->st.until / USEC_PER_SEC);
        json_string(j, "cause", p->st.active ? cpu_quota_format(p->st.cause_per_sec, use) : NULL);
        json_close(j, '{');
}

/* status --json: what the text shows, one object; the exit status is the text's */
static void status_json(const RuleSet *rs, const UserIdent *u, const Resolved *res, const StatusLine *lines,
                        const SliceInfo *info, const char *skipped, const StatusPenalty *pen) {
        JsonOut j = { .f = stdout };
        char slice[SLICE_NAME_MAX];

        slice_name(u->uid, slice);
        json_open(&j, NULL, '{');
        json_string(&j, "user", u->name);
        json_u64(&j, "uid", u->uid);
        json_string(&j, "slice", slice);
        json_bool(&j, "running", info != NULL);
        json_string(&j, "skipped", skipped); /* null, or why the slice there could not be read */
        json_bool(&j, "gets_slice", login_gets_slice(res));
        json_string(&j, "reason", login_skip_reason(res));
        json_open(&j, "settings", '[');
        for (Setting s = 0; s < _SETTING_MAX; s++) {
                char share[CPU_FORMAT_MAX];

                if (setting_is_spelling(s))
                        continue;
                json_open(&j, NULL, '{');
                json_string(&j, "setting", setting_to_string(s));
                if (s == SETTING_QUOTA) {
                        const Rule *w = res->source[SETTING_QUOTA_SHARE];

                        json_string(&j, "share", w ? cpu_quota_format(w->quota_share, share) : NULL);
                        json_u64(&j, "cpus", res->share_cpus);
                }
                json_string(&j, "config", strcmp(lines[s].config, "-") == 0 ? NULL : lines[s].config);
                json_string(&j, "live", strcmp(lines[s].live, "-") == 0 ? NULL : lines[s].live);
                if (lines[s].source) {
                        json_string(&j, "file", rule_file(rs, lines[s].source));
                        json_u64(&j, "line", lines[s].source->line);
                } else {
                        json_null(&j, "file");
                        json_null(&j, "line");
                }
                json_string(&j, "note", lines[s].note);
                json_bool(&j, "drift", lines[s].drift);
                json_close(&j, '{');
        }
        json_close(&j, '[');
        status_penalty_json(&j, pen);
        if (info)
                status_json_running(&j, info);
        json_close(&j, '{');
}

int verb_status(int argc, char **argv) {
        _cleanup_(backend_closep) SliceBackend b = {};
        _cleanup_(ruleset_done) RuleSet rs = {};
        _cleanup_(user_done) UserIdent u = {};
        SliceInfo info = {};
        StatusLine lines[_SETTING_MAX];
        char slice[SLICE_NAME_MAX], src[1200];
        const char *skipped = NULL;
        Resolved res;
        StatusPenalty pen;
        CsError e = {};
        bool have_slice, drift = false;
        int r;

        r = resolve_one_user("status", argc, argv, &u, &rs, &res);
        if (r < 0)
                return r;
        status_penalty_load(&u, &res, &pen);
        r = backend_open_or_log(&b, &arg_target);
        if (r < 0)
                return r;
        slice_name(u.uid, slice);
        r = b.ops->read_one(&b, u.uid, SLICE_READ_PROCS, &info, &e);
        if (r == -ENOMEM)
                return log_error(r, "out of memory");
        if (r < 0 && r != -ENOENT) {
                /* as list: named, and left out; what the config says is still worth showing */
                skipped = cs_error_text(&e, r);
                log_warning("skipped %s: %s", slice, skipped);
        }
        have_slice = r >= 0;

        status_lines(b.v2, &res, have_slice ? &info : NULL, lines);
        if (pen.capped)
                lines[SETTING_QUOTA].note = "a penalty's cap";
        if (b.systemd && login_gets_slice(&res))
                status_systemd_notes(&b, u.uid, &res, have_slice ? &info : NULL, lines);
        if (arg_json) {
                status_json(&rs, &u, &res, lines, have_slice ? &info : NULL, skipped, &pen);
                slice_info_done(&info);
                return have_slice ? 0 : 3;
        }
        print_line(stdout, "%s (uid %u): %s%s", u.name, (unsigned) u.uid, slice,
                   have_slice ? ""
                   : skipped  ? " (skipped: not readable)"
                              : " (no running slice)");
        putchar('\n');
        printf("%-20s %-10s %-10s %s\n", "SETTING", "CONFIG", "LIVE", "SOURCE");
        for (Setting s = 0; s < _SETTING_MAX; s++) {
                char name[32];

                if (setting_is_spelling(s))
                        continue;
                snprintf(name, sizeof name, "%s=", setting_to_string(s));
                print_line(stdout, "%-20s %-10s %-10s %s%s", name, lines[s].config, lines[s].live,
                           source_of(&rs, &lines[s], src, sizeof src), lines[s].drift ? "  <- DRIFT" : "");
                drift = drift || lines[s].drift;
        }
        if (!login_gets_slice(&res)) {
                printf("\n");
                print_line(stdout, "pam_cpuslice leaves logins of %s alone (%s)%s", u.name, login_skip_reason(&res),
                           have_slice ? "; the running slice is not its own, and apply leaves it as it is" : "");
        }
        if (drift) {
                printf("\nWarning: the live values differ from the config (drift):");
                for (Setting s = 0; s < _SETTING_MAX; s++)
                        if (lines[s].drift)
                                printf(" %s= is %s in the cgroup, the config says %s;", setting_to_string(s),
                                       lines[s].live, lines[s].config);
                printf("\n");
                print_line(stdout, "'slicectl apply %s' writes the config's values.", u.name);
        }
        if (pen.error < 0 || pen.enabled || pen.st.level > 0) {
                printf("\n");
                status_penalty_print(&res, &pen);
        }
        if (!have_slice)
                return STATUS_NO_SLICE;
        printf("\n");
        print_cpu_stat(&info);
        print_sessions(&info);
        backend_print_manager_view(&b, u.uid);
        print_host_notes(&b);
        slice_info_done(&info);
        return 0;
}
