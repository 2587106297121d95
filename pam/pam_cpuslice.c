/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pam_cpuslice: puts each login into its user's CPU slice. Only the PAM hooks live here; the
 * config, the rules and the backends are in lib/. Failures are fail-open (the login goes on,
 * one log line) unless `strict` is given. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <dlfcn.h>

#include "applied-record.h"
#include "backend-cgroupfs.h"
#include "escape.h"
#include "systemd-plugin.h"
#include "conf.h"
#include "login-policy.h"
#include "penalty-cap.h"
#include "macro.h"
#include "pam-args.h"
#include "rules.h"
#include "slice-target.h"
#include "time-util.h"
#include "user.h"

#define SESSION_DATA "pam_cpuslice.session"
/* set by the first instance in a stack that placed the login: runuser-l includes runuser, su
 * includes common-session, so an admin may well list the module twice for one login */
#define PLACED_DATA "pam_cpuslice.placed"
#define LOG_NAME_MAX 64

typedef struct Login {
        pam_handle_t *h;
        ModuleArgs args;
        UserIdent user;
        char user_esc[LOG_NAME_MAX * 4 + 8]; /* PAM_USER, escaped for a log line */
        RuleSet rules;
        DiagList diags;
        Resolved res;
        Resolved slices; /* the user.slice lines' settings, for the cgroup that holds every user slice */
        bool left_alone; /* no line gives this user a slice (or CPUSlice=no) */
} Login;

static void login_done(Login *l) {
        user_done(&l->user);
        ruleset_done(&l->rules);
        diag_list_done(&l->diags);
}

/* The one log line of a failure; the login proceeds unless `strict`. */
static int fail(Login *l, const char *fmt, ...) _printf_(2, 3);
static int fail(Login *l, const char *fmt, ...) {
        char msg[1024], esc[4096];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        /* messages carry bus error texts and cgroup names: bytes from outside */
        pam_syslog(l->h, LOG_ERR, "%s: %s; %s", l->user_esc[0] ? l->user_esc : "?",
                   escape_for_log(msg, sizeof msg, esc, sizeof esc),
                   l->args.strict ? "session denied (strict)" : "login proceeds without a CPU slice");
        return l->args.strict ? PAM_SESSION_ERR : PAM_IGNORE;
}

static int load_user(Login *l) {
        const char *name = NULL;
        int r;

        /* the item, not pam_get_user(), which would prompt for a name inside a session hook */
        r = pam_get_item(l->h, PAM_USER, (const void **) &name);
        if (r != PAM_SUCCESS || !name)
                return fail(l, "cannot determine the user: %s", pam_strerror(l->h, r));
        escape_for_log(name, LOG_NAME_MAX, l->user_esc, sizeof l->user_esc);
        r = user_lookup(name, &l->user);
        if (r < 0)
                return fail(l, "user not known to NSS: %s", strerror(-r));
        return PAM_SUCCESS;
}

static void log_diags(Login *l) {
        for (size_t i = 0; i < l->diags.n; i++) {
                char line[1024], esc[2048];
                diag_format(&l->diags.items[i], line, sizeof line);
                pam_syslog(l->h, l->diags.items[i].level == DIAG_ERROR ? LOG_ERR : LOG_WARNING, "%s",
                           escape_for_log(line, sizeof line, esc, sizeof esc));
        }
}

static void log_resolution(Login *l) {
        char w[CPU_FORMAT_MAX], q[CPU_FORMAT_MAX], p[CPU_FORMAT_MAX], share[SHARE_FORMAT_MAX];

        if (!l->args.debug)
                return;
        for (Setting s = 0; s < _SETTING_MAX; s++) {
                const Rule *r = l->res.source[s];
                if (r)
                        pam_syslog(l->h, LOG_DEBUG, "%s: %s= from %s:%u", l->user_esc, setting_to_string(s),
                                   rule_file(&l->rules, r), r->line);
        }
        pam_syslog(l->h, LOG_DEBUG, "%s (uid %u): CPUWeight=%s CPUQuota=%s CPUQuotaPeriodSec=%s", l->user_esc,
                   (unsigned) l->user.uid, cpu_weight_format(l->res.limits.weight, w),
                   cpu_quota_format(l->res.limits.quota_per_sec, q), cpu_period_format(l->res.limits.period_usec, p));
        if (resolved_share_format(&l->res, share))
                pam_syslog(l->h, LOG_DEBUG, "%s: the CPUQuota= is %s", l->user_esc, share);
}

/* A penalty the timer's pass gave this user holds across logins: the stricter of the config's
 * quota and the penalty's cap. A state that cannot be trusted is not obeyed, but said. */
static void apply_penalty(Login *l) {
        char why[128];
        int r;

        if (!penalty_policy_enabled(&l->res.penalty))
                return;
        (void) penalty_marker_set(l->args.state_root, true);
        r = penalty_cap_load_apply(&l->res, l->args.state_root, l->user.uid, why, sizeof why);
        if (r < 0)
                pam_syslog(l->h, LOG_ERR,
                           "%s: penalty state " PENALTY_STATE_DIR "/%u %s; the configured values apply", l->user_esc,
                           (unsigned) l->user.uid, r == -EPERM || r == -EBADMSG ? why : strerror(-r));
        else if (r > 0 && l->args.debug)
                pam_syslog(l->h, LOG_DEBUG, "%s: penalized: CPUQuota capped", l->user_esc);
}

/* PAM_SUCCESS: go on and apply; anything else is the hook's answer. */
static int resolve_settings(Login *l) {
        int r;

        r = login_config_load(&l->rules, &l->args.conf, &l->diags);
        log_diags(l); /* bad lines are skipped and logged, never a reason to deny */
        if (r == -ENOMEM)
                return fail(l, "out of memory reading the config");
        if (r < 0)
                return fail(l, "a config file was refused (see above)");
        slice_target_count_cpus(&l->args.target, &l->rules);
        rules_resolve_slices(&l->rules, &l->slices);
        r = rules_resolve(&l->rules, &l->user, &l->res);
        if (r < 0)
                return fail(l, "group lookup failed: %s", strerror(-r));
        if (!login_gets_slice(&l->res)) {
                l->left_alone = true;
                if (l->args.debug)
                        pam_syslog(l->h, LOG_DEBUG, "%s: %s; left alone", l->user_esc, login_skip_reason(&l->res));
                return PAM_IGNORE;
        }
        apply_penalty(l);
        log_resolution(l);
        return PAM_SUCCESS;
}

/* The plugin beside this module's own file, checked as systemd_plugin_open() says; closed again by
 * the caller (no state between logins). */
static int load_plugin(Login *l, void **ret_handle, const SystemdPlugin **ret) {
        Dl_info info = {};
        char path[PATH_MAX], *slash;
        CsError e = {};

        if (!dladdr((void *) pam_sm_open_session, &info) || !info.dli_fname)
                return fail(l, "cannot find the module's own path to load %s", SYSTEMD_PLUGIN_NAME);
        snprintf(path, sizeof path, "%s", info.dli_fname);
        slash = strrchr(path, '/');
        snprintf(slash ? slash + 1 : path, sizeof path - (size_t) (slash ? slash + 1 - path : 0), "%s",
                 SYSTEMD_PLUGIN_NAME);
        if (systemd_plugin_open(path, ret_handle, ret, &e) < 0)
                return fail(l, "%s", e.msg);
        return PAM_SUCCESS;
}

static void describe_scope(Login *l, char *buf, size_t n) {
        const void *service = NULL, *ruser = NULL;
        char esc[128], ruser_esc[128];

        (void) pam_get_item(l->h, PAM_SERVICE, &service);
        (void) pam_get_item(l->h, PAM_RUSER, &ruser);
        snprintf(buf, n, "%s session of %s opened by %s (uid %u), via pam_cpuslice",
                 service ? escape_for_log(service, 32, esc, sizeof esc) : "PAM", l->user_esc,
                 ruser ? escape_for_log(ruser, 32, ruser_esc, sizeof ruser_esc) : "?", (unsigned) getuid());
}

/* bits of BusProp → "CPUWeight=, CPUQuota=" */
static const char *prop_list(unsigned mask, char *buf, size_t n) {
        size_t k = 0;

        buf[0] = '\0';
        for (BusProp p = 0; p < _BUS_PROP_MAX; p++)
                if (mask & (1u << p))
                        k += (size_t) snprintf(buf + k, k < n ? n - k : 0, "%s%s=", k ? ", " : "",
                                               bus_prop_key_to_string(p));
        return buf;
}

/* What systemd was not given as the config asked: never silent. */
static void log_applied(Login *l, const BusApplyResult *a) {
        char list[128];

        if (a->idle_fallback)
                pam_syslog(l->h, LOG_WARNING,
                           "%s: this systemd does not support CPUWeight=idle (before 252); "
                           "used CPUWeight=1",
                           l->user_esc);
        if (a->kept)
                pam_syslog(l->h, LOG_NOTICE,
                           "%s: %s kept as set with systemctl set-property in " SYSTEMD_CONTROL_PERSISTENT
                           "/user-%u.slice.d/; cpuslice.conf's value not applied",
                           l->user_esc, prop_list(a->kept, list, sizeof list), (unsigned) l->user.uid);
        if (a->reverted && l->args.debug)
                pam_syslog(l->h, LOG_DEBUG, "%s: %s no longer in the config: back to systemd's own unit files",
                           l->user_esc, prop_list(a->reverted, list, sizeof list));
        if (a->record_error < 0)
                pam_syslog(
                        l->h, LOG_WARNING,
                        "%s: the record of what was set (" APPLIED_RECORD_DIR "/user-%u.slice): "
                        "%s; values this module set will not be returned to the admin's when the config drops them",
                        l->user_esc, (unsigned) l->user.uid, strerror(-a->record_error));
}

/* su, sudo and runuser open a session without a new logind session (systemd#35452): the process
 * would stay in the caller's slice, so the plugin moves it unless it is in the target's already. */
/* user.slice's: only what changed or failed is worth a line at every login. */
static void log_applied_slices(Login *l, const BusApplyResult *a) {
        char list[128];

        if (a->record_error < 0)
                pam_syslog(l->h, LOG_WARNING, "user.slice: the record of what pam_cpuslice set could not be kept: %s",
                           strerror(-a->record_error));
        if (a->kept)
                pam_syslog(l->h, LOG_NOTICE,
                           "user.slice: %s held by an admin's systemctl set-property; the user.slice line's value "
                           "is not sent",
                           prop_list(a->kept, list, sizeof list));
        if (l->args.debug && a->sent)
                pam_syslog(l->h, LOG_DEBUG, "user.slice: %s given to systemd", prop_list(a->sent, list, sizeof list));
}

static int apply_with_plugin(Login *l, const SystemdPlugin *plugin, uint64_t deadline) {
        /* a user left alone gets nothing and stays where systemd put them; what the module set
         * for them before goes back to systemd's own files */
        BusSliceSettings s = l->left_alone ? (BusSliceSettings) {} : slice_target_bus_settings(&l->res);
        /* always: what the module set on user.slice goes back when its line is gone */
        BusSliceSettings slices = slice_target_bus_settings(&l->slices);
        char desc[512];
        BusSessionRequest req = {
                .uid = l->user.uid,
                .settings = &s,
                .slices = &slices,
                .move_pid = l->args.target_user && !l->left_alone ? getpid() : 0,
                .description = desc,
                .paths = l->args.target.bus,
                .deadline_usec = deadline,
        };
        BusSessionResult res;
        CsError e = {};
        int r;

        describe_scope(l, desc, sizeof desc);
        r = plugin->open_session(&req, &res, &e);
        if (r < 0)
                return fail(l, "%s", cs_error_text(&e, r));
        log_applied(l, &res.applied);
        log_applied_slices(l, &res.slices_applied);
        if (l->args.debug)
                pam_syslog(l->h, LOG_DEBUG, "%s: settings given to systemd for user-%u.slice%s%s", l->user_esc,
                           (unsigned) l->user.uid, res.scope[0] ? "; moved into " : "", res.scope);
        return PAM_SUCCESS;
}

/* The kernel refuses a burst above the quota per period, and one without a quota means nothing. */
static void log_burst_dropped(Login *l, const CpuKernelValues *k) {
        char b[CPU_FORMAT_MAX];

        if (k->burst_dropped)
                pam_syslog(l->h, LOG_WARNING, "%s: CPUBurst=%s left out: %s", l->user_esc,
                           cpu_period_format(l->res.limits.burst_usec, b),
                           k->quota_usec == CPU_QUOTA_INFINITY ? "no CPUQuota= to burst above"
                                                               : "more than the quota per period");
}

/* systemd has no property for CPUBurst=: the module writes the slice's file itself, around
 * SetUnitProperties (a burst above the new quota would make the kernel refuse systemd's cpu.max).
 * Only what the config gives; a failure costs the burst alone, with one log line. */
static void burst_beside_systemd(Login *l, Cgfs *c, bool before) {
        CsError e = {};
        CpuKernelValues k;
        int r;

        if (c->root_fd < 0) /* no tree (not opened: no CPUBurst= given, or it failed, said once) */
                return;
        cpu_limits_to_kernel(&l->res.limits, &k);
        if (!before)
                log_burst_dropped(l, &k);
        r = cgfs_write_burst(c, l->user.uid, &k, before, &e);
        if (r >= 0 && !before && c->burst_missing)
                pam_syslog(l->h, LOG_WARNING, "%s: CPUBurst= left out: this kernel has no CPU burst (Linux 5.14+)",
                           l->user_esc);
        if (r < 0 && !(before && r == -ENOENT))
                pam_syslog(l->h, LOG_WARNING, "%s: CPUBurst= not written: %s", l->user_esc, cs_error_text(&e, r));
}

/* The tree the burst is written in, opened once for both writes of a login (layout detection
 * parses mountinfo); root_fd stays < 0 when there is nothing to write. */
static void open_burst_tree(Login *l, Cgfs *c) {
        CsError e = {};
        int r;

        if (l->left_alone || !l->res.source[SETTING_BURST])
                return;
        r = slice_target_open_cgfs(&l->args.target, NULL, c, &e);
        if (r < 0)
                pam_syslog(l->h, LOG_WARNING, "%s: CPUBurst= not written: %s", l->user_esc, cs_error_text(&e, r));
}

static int apply_systemd(Login *l) {
        _cleanup_(cgfs_close) Cgfs burst = { .root_fd = -EBADF };
        /* one deadline for everything the login waits on: loading, connecting, calls, the job */
        uint64_t deadline = usec_deadline(l->args.timeout_usec);
        const SystemdPlugin *plugin = NULL;
        void *handle = NULL;
        int r;

        if (!l->args.target.bus.socket && !systemd_booted())
                return fail(l, "backend=systemd, but this host was not booted with systemd");
        r = load_plugin(l, &handle, &plugin);
        if (r != PAM_SUCCESS)
                return r;
        open_burst_tree(l, &burst);
        burst_beside_systemd(l, &burst, true);
        r = apply_with_plugin(l, plugin, deadline);
        dlclose(handle);
        if (r == PAM_SUCCESS)
                burst_beside_systemd(l, &burst, false);
        return r;
}

/* What open_session hands to close_session: where the process came from, and the layout, so
 * that close neither detects it again nor can see a different one. */
typedef struct SessionState {
        CgfsSession s;
        CgroupLayout layout;
} SessionState;

static void session_free(pam_handle_t *h, void *data, int status) {
        SessionState *st = data;

        if (st) {
                cgfs_session_done(&st->s);
                cgroup_layout_done(&st->layout);
                free(st);
        }
}

static const char *session_id(Login *l) {
        const char *id = pam_getenv(l->h, "XDG_SESSION_ID");
        char esc[256];

        if (id && !session_id_valid(id)) {
                pam_syslog(l->h, LOG_WARNING, "%s: ignoring unusable XDG_SESSION_ID '%s'", l->user_esc,
                           escape_for_log(id, 64, esc, sizeof esc));
                return NULL;
        }
        return id;
}

/* The user.slice lines, on the cgroup that holds every user slice (the module's own tree here).
 * A failure costs them alone, with one line. */
static void apply_slices_cgroupfs(Login *l, Cgfs *c) {
        CsError e = {};
        CpuKernelValues k;
        int r;

        cpu_limits_to_kernel(&l->slices.limits, &k);
        r = cgfs_update_slice(c, SLICE_ROOT_UID, &k, &e);
        if (r < 0)
                pam_syslog(l->h, LOG_WARNING, "user.slice line not applied: %s", cs_error_text(&e, r));
}

static void log_joined(Login *l, const CgfsSession *s) {
        char esc[LOG_NAME_MAX * 4 + 8];

        escape_for_log(s->scope, LOG_NAME_MAX, esc, sizeof esc);
        /* the cap keeps one user from filling cgroup.max.descendants for everyone: say so when it
         * bites, and where the login went, since it shares that scope's fate */
        if (s->at_cap)
                pam_syslog(l->h, LOG_WARNING,
                           "%s: user-%u.slice has %u other session scopes still in use, the most that "
                           "max_scopes=%u allows; this login joins %s",
                           l->user_esc, (unsigned) l->user.uid, s->at_cap, l->args.max_scopes, esc);
        else if (l->args.debug)
                pam_syslog(l->h, LOG_DEBUG, "%s: joined %s in user-%u.slice", l->user_esc, esc,
                           (unsigned) l->user.uid);
}

static int apply_cgroupfs(Login *l) {
        _cleanup_(cgfs_close) Cgfs c = { .root_fd = -EBADF };
        SessionState *st = calloc(1, sizeof *st);
        CsError e = {};
        CpuKernelValues k;
        int r;

        if (!st)
                return fail(l, "out of memory");
        cpu_limits_to_kernel(&l->res.limits, &k);
        if (k.period_adjusted)
                pam_syslog(l->h, LOG_WARNING,
                           "%s: CPUQuotaPeriodSec= adjusted to %" PRIu64 "us so that period and "
                           "quota stay within 1ms..1s",
                           l->user_esc, k.period_usec);
        if (k.quota_raised)
                pam_syslog(l->h, LOG_WARNING,
                           "%s: CPUQuota= raised to the kernel's minimum of 1ms per %" PRIu64 "us period",
                           l->user_esc, k.period_usec);
        log_burst_dropped(l, &k);
        r = slice_target_open_cgfs(&l->args.target, NULL, &c, &e);
        c.max_scopes = l->args.max_scopes;
        if (r >= 0)
                r = cgfs_open_session(&c, l->user.uid, session_id(l), getpid(), &k, &st->s, &e);
        if (r >= 0 && l->rules.has_slices)
                apply_slices_cgroupfs(l, &c);
        if (r >= 0 && c.burst_missing)
                pam_syslog(l->h, LOG_WARNING, "%s: CPUBurst= left out: this kernel has no CPU burst (Linux 5.14+)",
                           l->user_esc);
        if (r >= 0 && !st->s.scope[0]) {
                if (l->args.debug)
                        pam_syslog(l->h, LOG_DEBUG, "%s: already in user-%u.slice; left where it is", l->user_esc,
                                   (unsigned) l->user.uid);
                session_free(l->h, st, 0);
                return PAM_SUCCESS;
        }
        if (r >= 0 && cgroup_layout_copy(&st->layout, &c.layout) < 0) {
                (void) cgfs_close_session(&c, &st->s, getpid(), NULL);
                r = cs_error(&e, -ENOMEM, "out of memory");
        }
        if (r < 0) {
                session_free(l->h, st, 0);
                return fail(l, "%s", cs_error_text(&e, r));
        }
        log_joined(l, &st->s);
        r = pam_set_data(l->h, SESSION_DATA, st, session_free);
        if (r != PAM_SUCCESS) {
                (void) cgfs_close_session(&c, &st->s, getpid(), NULL);
                session_free(l->h, st, 0);
                return fail(l, "pam_set_data: %s", pam_strerror(l->h, r));
        }
        return PAM_SUCCESS;
}

static bool placed_already(Login *l) {
        const void *placed = NULL;

        if (pam_get_data(l->h, PLACED_DATA, &placed) != PAM_SUCCESS || !placed)
                return false;
        if (l->args.debug)
                pam_syslog(l->h, LOG_DEBUG,
                           "an earlier pam_cpuslice in this stack placed the session; nothing to do");
        return true;
}

/* A user left alone on a systemd host may still carry values the module gave before (the config
 * changed, or slicectl set CPUSlice=no): the record under /run says so, at the cost of a stat. */
static int release_left_alone(Login *l) {
        if (slice_target_uses_systemd(&l->args.target) && applied_record_exists(l->args.target.bus.root, l->user.uid))
                (void) apply_systemd(l);
        return PAM_IGNORE;
}

_public_ PAM_EXTERN int pam_sm_open_session(pam_handle_t *h, int flags, int argc, const char **argv) {
        static const char placed = 1;
        _cleanup_(login_done) Login l = { .h = h };
        int r;

        module_args_parse(h, argc, argv, &l.args);
        if (placed_already(&l))
                return PAM_IGNORE;
        r = load_user(&l);
        if (r != PAM_SUCCESS)
                return r;
        r = resolve_settings(&l);
        if (r != PAM_SUCCESS)
                return l.left_alone ? release_left_alone(&l) : r;
        /* systemd is the single writer of user.slice on a host it booted: never write behind its back */
        r = slice_target_uses_systemd(&l.args.target) ? apply_systemd(&l) : apply_cgroupfs(&l);
        if (r == PAM_SUCCESS && pam_set_data(h, PLACED_DATA, (void *) &placed, NULL) != PAM_SUCCESS)
                pam_syslog(h, LOG_WARNING, "pam_set_data: a second pam_cpuslice in this stack would act again");
        return r;
}

_public_ PAM_EXTERN int pam_sm_close_session(pam_handle_t *h, int flags, int argc, const char **argv) {
        _cleanup_(login_done) Login l = { .h = h };
        _cleanup_(cgfs_close) Cgfs c = { .root_fd = -EBADF };
        const void *data = NULL;
        const SessionState *st;
        const char *name = NULL;
        char scope_esc[LOG_NAME_MAX * 4 + 8];
        CsError e = {};
        int r;

        if (pam_get_data(h, SESSION_DATA, &data) != PAM_SUCCESS || !data) {
                /* the systemd path (or a process placed already) keeps no session data, but its
                 * mark must go too: a second open in this handle is a new session and must act */
                (void) pam_set_data(h, PLACED_DATA, NULL, NULL);
                return PAM_IGNORE; /* nothing of ours to undo */
        }
        st = data;
        module_args_parse(h, argc, argv, &l.args);
        if (pam_get_item(h, PAM_USER, (const void **) &name) == PAM_SUCCESS && name)
                escape_for_log(name, LOG_NAME_MAX, l.user_esc, sizeof l.user_esc);
        escape_for_log(st->s.scope, LOG_NAME_MAX, scope_esc, sizeof scope_esc);
        r = slice_target_open_cgfs(&l.args.target, &st->layout, &c, &e);
        if (r >= 0)
                r = cgfs_close_session(&c, &st->s, getpid(), &e);
        /* the data is spent either way: a second close must not act on it again */
        (void) pam_set_data(h, SESSION_DATA, NULL, NULL);
        (void) pam_set_data(h, PLACED_DATA, NULL, NULL);
        if (r < 0) {
                pam_syslog(h, LOG_ERR, "%s: closing %s: %s", l.user_esc[0] ? l.user_esc : "?", scope_esc,
                           cs_error_text(&e, r));
                return l.args.strict ? PAM_SESSION_ERR : PAM_IGNORE;
        }
        return PAM_SUCCESS;
}

_public_ PAM_EXTERN int pam_sm_authenticate(pam_handle_t *h, int flags, int argc, const char **argv) {
        return PAM_IGNORE;
}

_public_ PAM_EXTERN int pam_sm_setcred(pam_handle_t *h, int flags, int argc, const char **argv) {
        return PAM_IGNORE;
}

_public_ PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *h, int flags, int argc, const char **argv) {
        return PAM_IGNORE;
}

_public_ PAM_EXTERN int pam_sm_chauthtok(pam_handle_t *h, int flags, int argc, const char **argv) {
        return PAM_IGNORE;
}
