/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The writing verbs: set, unset (50-slicectl.conf, then live), apply (live only), gc. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "conf-edit.h"
#include "cpu-value.h"
#include "login-policy.h"
#include "rows.h"
#include "slicectl-util.h"
#include "verbs.h"

#define SHADOW_REPORT_MAX 10

static const char *edit_dir(void) {
        ConfPaths p = conf_paths();

        return arg_runtime ? p.run_dir : p.drop_in_dir;
}

/* The domain as given on the command line: well-formed. A name NSS does not know is the rule
 * check has: a warning (the line is valid and matches no one until the name exists, e.g. an
 * LDAP group that is not reachable right now). */
static int parse_domain_arg(const char *s, Domain *ret) {
        const char *why = NULL, *unknown;
        int r = domain_parse(s, ret, &why);

        if (r == -ENOMEM)
                return log_error(r, "out of memory");
        if (r < 0)
                return log_error(r, "%s: '%s'", why, s);
        unknown = domain_unknown_kind(ret);
        if (unknown)
                log_warning("unknown %s '%s': the line matches no one until it exists", unknown, ret->name);
        return 0;
}

static void describe_change(bool v2, const SliceInfo *info, const Resolved *res, unsigned drift, char *buf,
                            size_t n) {
        CpuKernelValues k;
        size_t len = 0;

        cpu_limits_to_kernel(&res->limits, &k);
        buf[0] = '\0';
        for (Setting s = 0; s < _SETTING_MAX && len < n; s++) {
                char a[CPU_FORMAT_MAX], b[CPU_FORMAT_MAX];
                const char *to = s == SETTING_WEIGHT  ? cpu_weight_format(res->limits.weight, b)
                                 : s == SETTING_QUOTA ? cpu_quota_format(res->limits.quota_per_sec, b)
                                 : s == SETTING_BURST ? cpu_period_format(k.burst_usec, b)
                                                      : cpu_period_format(k.period_usec, b);

                const char *from = live_value(v2, info, res, s, a);

                /* a new period changes the quota per period, not the percentage: name only the period */
                if (!(drift & (1u << s)) || strcmp(from, to) == 0)
                        continue;
                len += (size_t) snprintf(buf + len, n - len, "%s%s= %s -> %s", len ? ", " : "", setting_to_string(s),
                                         from, to);
        }
}

typedef struct ApplyFilter {
        const Domain *domain; /* only users this domain matches */
        const uid_t *uids;    /* only these (apply USER...) */
        size_t n_uids;
        bool verbose;         /* print what changed */
        bool warn_left_alone; /* say which running slices a login would not get (apply) */
        bool *seen;           /* per uid in uids: it had a slice */
} ApplyFilter;

static int filter_match(const ApplyFilter *f, UserIdent *u) {
        if (f->uids) {
                bool found = false;
                for (size_t i = 0; i < f->n_uids; i++)
                        if (f->uids[i] == u->uid) {
                                f->seen[i] = true;
                                found = true;
                        }
                if (!found)
                        return 0;
        }
        if (f->domain) {
                Rule r = { .domain = *f->domain };
                return rule_matches(&r, u);
        }
        return 1;
}

/* A slice the cgroupfs backend may write (and gc remove): root's own. One that is not was delegated
 * or made by a container runtime; its owner decides there. */
static bool slice_writable(const SliceBackend *b, const SliceInfo *info) {
        return b->systemd || geteuid() != 0 || info->owner == 0;
}

static void warn_not_root(const SliceInfo *info, const char *verb) {
        char slice[SLICE_NAME_MAX];

        slice_name(info->uid, slice);
        log_warning("skipped %s: owned by uid %u, not root (delegated, or a container runtime's); %s leaves it "
                    "alone",
                    slice, (unsigned) info->owner, verb);
}

/* Writes the config's resolution to each running slice that differs; returns how many failed. */
static int apply_running(SliceBackend *b, const RuleSet *rs, const ApplyFilter *f, SliceList *slices) {
        int failed = 0, r;

        for (size_t i = 0; i < slices->n; i++) {
                const SliceInfo *info = &slices->slices[i];
                _cleanup_(user_done) UserIdent u = {};
                CpuKernelValues k;
                Resolved res;
                CsError e = {};
                unsigned drift;
                char what[512];

                r = ident_for_uid(info->uid, &u);
                if (r >= 0)
                        r = filter_match(f, &u);
                if (r >= 0 && r > 0)
                        r = rules_resolve(rs, &u, &res);
                else if (r == 0)
                        continue;
                if (r < 0) {
                        log_error(r, "uid %u: %s", (unsigned) info->uid, strerror(-r));
                        failed++;
                        continue;
                }
                if (!slice_writable(b, info)) {
                        warn_not_root(info, "apply");
                        continue;
                }
                if (!login_gets_slice(&res)) {
                        const Resolved none = {};

                        /* values the module gave before go back to systemd's own, as at a login */
                        if (backend_revert_pending(b, info->uid, &none)) {
                                r = b->ops->reset(b, info->uid, &e);
                                if (r < 0) {
                                        log_error(r, "%s: %s", u.name, cs_error_text(&e, r));
                                        failed++;
                                } else
                                        backend_report_apply(b, u.name, info->uid, login_skip_reason(&res));
                                continue;
                        }
                        /* a login of this user gets no slice from us: the running one is someone else's */
                        if (f->warn_left_alone)
                                log_warning("%s: %s, so pam_cpuslice gives logins no slice; the running slice is "
                                            "left as it is",
                                            u.name, login_skip_reason(&res));
                        continue;
                }
                penalty_cap_or_warn(&u, &res);
                cpu_limits_to_kernel(&res.limits, &k);
                drift = slice_drift(b->v2, info, &k) & backend_owned_settings(b, &res);
                if (!drift && !backend_revert_pending(b, info->uid, &res))
                        continue;
                describe_change(b->v2, info, &res, drift, what, sizeof what);
                r = b->ops->update(b, info->uid, &res, &e);
                /* its last session closed since the slice was listed: nothing is left to apply to, and
                 * the next login reads the config anew (ENODEV: removed after it was opened) */
                if (r == -ENOENT || r == -ENODEV) {
                        if (f->verbose)
                                print_line(stdout, "%s (uid %u): slice ended meanwhile; nothing to apply", u.name,
                                           (unsigned) info->uid);
                        continue;
                }
                if (r < 0) {
                        log_error(r, "%s: applying %s: %s", u.name, what, cs_error_text(&e, r));
                        failed++;
                        continue;
                }
                backend_report_apply(b, u.name, info->uid, "no longer in the config");
                describe_change(b->v2, info, &res, drift & backend_sent_settings(b), what, sizeof what);
                if (!what[0])
                        continue;
                if (f->verbose)
                        print_line(stdout, "%s (uid %u): %s", u.name, (unsigned) info->uid, what);
                log_change("applied to %s (uid %u): %s", u.name, (unsigned) info->uid, what);
        }
        return failed;
}

/* The config and the running slices, for apply and for set/unset's live step; config problems
 * are logged here, backend errors are left to the caller's wording. */
static int load_config_and_slices(RuleSet *rs, SliceBackend *b, SliceList *slices, bool *ret_backend, CsError *e) {
        int r = load_config(rs);

        *ret_backend = false;
        if (r < 0)
                return r;
        *ret_backend = true;
        r = backend_open(b, &arg_target, e);
        if (r < 0)
                return r;
        r = b->ops->read_all(b, 0, slices, e);
        if (r < 0)
                return r;
        log_skipped_slices(slices->skipped, slices->n_skipped);
        return 0;
}

static int apply_live(const Domain *domain, unsigned mask, const char *path) {
        _cleanup_(backend_closep) SliceBackend b = {};
        _cleanup_(ruleset_done) RuleSet rs = {};
        _cleanup_(slice_list_done) SliceList slices = {};
        ApplyFilter f = { .domain = domain, .verbose = true };
        CsError e = {};
        size_t shadowed = 0;
        bool backend;
        int r;

        r = load_config_and_slices(&rs, &b, &slices, &backend, &e);
        if (r < 0 && backend)
                return log_error(r, "saved to %s, but not applied to running slices: %s", path, cs_error_text(&e, r));
        if (r < 0)
                return r;
        if (apply_running(&b, &rs, &f, &slices) > 0)
                r = -EIO;

        /* a more specific line, or a later one, may still decide for some users: say so */
        for (size_t i = 0; mask && i < slices.n + 1; i++) {
                _cleanup_(user_done) UserIdent u = {};
                Resolved res;

                if (i < slices.n) {
                        if (ident_for_uid(slices.slices[i].uid, &u) < 0)
                                continue;
                } else if (domain->type == DOMAIN_USER) {
                        if (user_lookup(domain->name, &u) < 0)
                                continue;
                } else if (domain->type == DOMAIN_UID) {
                        if (ident_for_uid(domain->uid_min, &u) < 0)
                                continue;
                } else
                        continue;
                if (i == slices.n && slices.n > 0) {
                        bool dup = false; /* the named user also has a slice: already looked at */
                        for (size_t j = 0; j < slices.n; j++)
                                dup = dup || slices.slices[j].uid == u.uid;
                        if (dup)
                                continue;
                }
                if (filter_match(&f, &u) <= 0 || rules_resolve(&rs, &u, &res) < 0)
                        continue;
                for (Setting s = 0; s < _SETTING_MAX; s++) {
                        const Rule *w = resolved_holder(&res, s);

                        if (!(mask & (1u << s)) || !w)
                                continue;
                        if (strcmp(rule_file(&rs, w), path) == 0 && domain_equal(&w->domain, domain))
                                continue;
                        if (++shadowed <= SHADOW_REPORT_MAX)
                                log_warning("%s: %s= still comes from %s:%u (%s): %s", u.name, setting_to_string(s),
                                            rule_file(&rs, w), w->line, w->text,
                                            domain_specificity(&w->domain) > domain_specificity(domain)
                                                    ? "a more specific line"
                                                    : "read later, as specific");
                }
        }
        if (shadowed > SHADOW_REPORT_MAX)
                log_warning("... and %zu more settings shadowed", shadowed - SHADOW_REPORT_MAX);
        return r < 0 ? r : 0;
}

/* One line on stdout and one in syslog per edit: "Set alice CPUWeight=800 in /etc/.../50-slicectl.conf" */
static void report_edit(const char *verb, int argc, char **argv, const char *prep, const char *path) {
        char what[1024];
        size_t len = 0;

        for (int i = 1; i < argc && len < sizeof what; i++)
                len += (size_t) snprintf(what + len, sizeof what - len, "%s%s", i > 1 ? " " : "", argv[i]);
        print_line(stdout, "%s %s %s %s", verb, what, prep, path);
        log_change("%s %s %s %s", verb, what, prep, path);
}

static void conf_edit_donep(ConfEdit *ed) {
        conf_edit_done(ed);
}

/* set and unset: root only, then the slicectl drop-in opened under its lock; 1 when opened. With
 * must_exist (unset), a drop-in that is not there is 0 and nothing is opened: no directory and
 * no lock file are made for an edit with nothing to take out. Looking without the lock is enough,
 * as the file is only ever replaced whole: the unset is a no-op at the moment of the look. */
static int open_drop_in(const char *verb, const char *dir, bool must_exist, ConfEdit *ed) {
        _cleanup_free_ char *path = NULL;
        CsError e = {};
        struct stat st;
        int r = require_root(verb, "writes the drop-in 50-slicectl.conf");

        if (r < 0)
                return r;
        /* the module would not read the edit either: nothing is written while it refuses the config */
        r = check_config_accepted();
        if (r < 0)
                return r;
        if (must_exist) {
                if (asprintf(&path, "%s/%s", dir, CONF_EDIT_FILE) < 0)
                        return log_error(-ENOMEM, "out of memory");
                /* lstat: a symlink there is conf_edit_open's to refuse, not "nothing to unset" */
                if (lstat(path, &st) < 0 && errno == ENOENT)
                        return 0;
        }
        r = conf_edit_open(dir, NULL, ed, &e);
        if (r < 0)
                return log_error(r, "%s", cs_error_text(&e, r));
        return 1;
}

/* set and unset after the edit: written, the lock let go (not needed for the live part), one
 * line each on stdout and in syslog, then the running slices */
static int commit_and_apply(ConfEdit *ed, const char *verb, int argc, char **argv, const Domain *d, unsigned mask) {
        _cleanup_free_ char *path = NULL;
        CsError e = {};
        int r;

        r = conf_edit_commit(ed, &e);
        if (r < 0)
                return log_error(r, "%s; %s left as it was", cs_error_text(&e, r), ed->path);
        path = strdup(ed->path);
        if (!path)
                return log_error(-ENOMEM, "out of memory");
        conf_edit_done(ed);
        report_edit(verb, argc, argv, "in", path);
        return apply_live(d, mask, path);
}

int verb_set(int argc, char **argv) {
        _cleanup_(conf_edit_donep) ConfEdit ed = { .dir_fd = -EBADF, .lock_fd = -EBADF };
        _cleanup_(domain_done) Domain d = {};
        _cleanup_free_ char *why = NULL;
        const char *dir = edit_dir();
        unsigned mask = 0;
        int r;

        if (argc < 3)
                return log_error(-EINVAL, "'set' takes DOMAIN SETTING=VALUE... (settings: %s)", settings_allowed());
        r = parse_domain_arg(argv[1], &d);
        if (r < 0)
                return r;
        /* validated before anything is touched: a bad setting writes nothing */
        for (int i = 2; i < argc; i++) {
                char name[64];
                int s;

                snprintf(name, sizeof name, "%.*s", (int) strcspn(argv[i], "="), argv[i]);
                s = setting_from_string(name);
                if (s >= 0)
                        mask |= 1u << s;
        }
        r = open_drop_in("set", dir, false, &ed);
        if (r < 0)
                return r;
        r = conf_edit_set(&ed, argv[1], argv + 2, (size_t) argc - 2, &why);
        if (r == -ENOMEM)
                return log_error(r, "out of memory");
        if (r < 0)
                return log_error(r, "%s; nothing written", why ? why : "invalid setting");
        return commit_and_apply(&ed, "Set", argc, argv, &d, mask);
}

int verb_unset(int argc, char **argv) {
        _cleanup_(conf_edit_donep) ConfEdit ed = { .dir_fd = -EBADF, .lock_fd = -EBADF };
        _cleanup_(domain_done) Domain d = {};
        _cleanup_free_ char *why = NULL;
        const char *dir = edit_dir();
        unsigned mask = 0;
        int r, removed;

        if (argc < 2)
                return log_error(-EINVAL, "'unset' takes DOMAIN [SETTING...]");
        {
                const char *reason = NULL;
                r = domain_parse(argv[1], &d, &reason);
                if (r < 0)
                        return log_error(r, "%s: '%s'", reason ? reason : "bad domain", argv[1]);
        }
        for (int i = 2; i < argc; i++) {
                char name[64];
                size_t n = strlen(argv[i]);
                int s;

                if (strchr(argv[i], '=') && argv[i][n - 1] != '=')
                        return log_error(-EINVAL, "'unset' takes setting names, not values: '%s' (e.g. '%.*s')",
                                         argv[i], (int) strcspn(argv[i], "="), argv[i]);
                if (n > 0 && argv[i][n - 1] == '=')
                        n--;
                snprintf(name, sizeof name, "%.*s", (int) n, argv[i]);
                s = setting_from_string(name);
                if (s < 0)
                        return log_error(-EINVAL, "unknown setting '%s' (allowed: %s)", argv[i], settings_allowed());
                mask |= 1u << s;
        }
        r = open_drop_in("unset", dir, true, &ed);
        if (r < 0)
                return r;
        if (r == 0) {
                log_warning("%s/%s does not exist: nothing to unset for %s; nothing changed", dir, CONF_EDIT_FILE,
                            argv[1]);
                return 0;
        }
        removed = conf_edit_unset(&ed, argv[1], mask, &why);
        if (removed < 0)
                return log_error(removed, "%s", why ? why : strerror(-removed));
        if (removed == 0) {
                log_warning("%s sets nothing of that for %s; nothing changed", ed.path, argv[1]);
                return 0;
        }
        return commit_and_apply(&ed, "Unset", argc, argv, &d, 0);
}

int verb_apply(int argc, char **argv) {
        _cleanup_(backend_closep) SliceBackend b = {};
        _cleanup_(ruleset_done) RuleSet rs = {};
        _cleanup_(slice_list_done) SliceList slices = {};
        _cleanup_free_ uid_t *uids = NULL;
        _cleanup_free_ bool *seen = NULL;
        ApplyFilter f = { .verbose = true, .warn_left_alone = true };
        CsError e = {};
        bool backend;
        int r;

        if (argc > 1) {
                uids = calloc((size_t) argc - 1, sizeof *uids);
                seen = calloc((size_t) argc - 1, sizeof *seen);
                if (!uids || !seen)
                        return log_error(-ENOMEM, "out of memory");
                for (int i = 1; i < argc; i++) {
                        _cleanup_(user_done) UserIdent u = {};
                        r = resolve_user_arg(argv[i], true, &u);
                        if (r < 0)
                                return r;
                        uids[i - 1] = u.uid;
                }
                f.uids = uids;
                f.n_uids = (size_t) argc - 1;
                f.seen = seen;
        }
        r = require_root("apply", "writes the user slices' cgroup files");
        if (r < 0)
                return r;
        r = load_config_and_slices(&rs, &b, &slices, &backend, &e);
        if (r < 0 && backend)
                return log_error(r, "%s", cs_error_text(&e, r));
        if (r < 0)
                return r;
        r = apply_running(&b, &rs, &f, &slices) > 0 ? -EIO : 0;
        for (size_t i = 0; i < f.n_uids; i++)
                if (!seen[i])
                        log_warning("%s has no running slice; nothing to apply (apply never creates one)",
                                    argv[i + 1]);
        return r;
}

static bool has_scope(const SliceInfo *s, const char *name) {
        for (size_t i = 0; i < s->n_scopes; i++)
                if (strcmp(s->scopes[i].name, name) == 0)
                        return true;
        return false;
}

int verb_gc(int argc, char **argv) {
        _cleanup_(backend_closep) SliceBackend b = {};
        _cleanup_(slice_list_done) SliceList before = {}, after = {};
        CsError e = {};
        int r;

        if (argc > 1)
                return log_error(-EINVAL, "'gc' takes no arguments");
        r = backend_open_as_root(&b, "gc", "removes cgroups");
        if (r < 0)
                return r;
        r = b.ops->read_all(&b, SLICE_READ_SCOPES, &before, &e);
        if (r >= 0)
                r = b.ops->gc(&b, &e);
        if (r >= 0)
                r = b.ops->read_all(&b, SLICE_READ_SCOPES, &after, &e);
        if (r < 0)
                return log_error(r, "%s", cs_error_text(&e, r));
        /* what gc never touches: say so, once per slice (the ones the readers skipped are not read
         * by gc either) */
        log_skipped_slices(before.skipped, before.n_skipped);
        for (size_t i = 0; i < before.n; i++)
                if (!slice_writable(&b, &before.slices[i]))
                        warn_not_root(&before.slices[i], "gc");
        /* one line per removed slice or scope, as systemctl names what it removed */
        for (size_t i = 0, j = 0; i < before.n; i++) {
                const SliceInfo *was = &before.slices[i];
                char slice[SLICE_NAME_MAX];

                slice_name(was->uid, slice);
                while (j < after.n && after.slices[j].uid < was->uid)
                        j++;
                if (j >= after.n || after.slices[j].uid != was->uid) {
                        print_line(stdout, "Removed %s", slice);
                        log_change("gc removed %s", slice);
                        continue;
                }
                for (size_t k = 0; k < was->n_scopes; k++)
                        if (!has_scope(&after.slices[j], was->scopes[k].name)) {
                                print_line(stdout, "Removed %s/%s", slice, was->scopes[k].name);
                                log_change("gc removed %s/%s", slice, was->scopes[k].name);
                        }
        }
        return 0;
}
