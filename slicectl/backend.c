/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "applied-record.h"
#include "backend.h"
#include "output.h"
#include "plugin.h"

static int cg_read_all(SliceBackend *b, SliceReadFlags flags, SliceList *ret, CsError *e) {
        return slice_read_all(&b->cgfs, flags, ret, e);
}

static int cg_read_one(SliceBackend *b, uid_t uid, SliceReadFlags flags, SliceInfo *ret, CsError *e) {
        return slice_read_one(&b->cgfs, uid, flags, ret, e);
}

static int cg_read_usage(SliceBackend *b, UsageSample **ret, size_t *ret_n, CsError *e) {
        return slice_read_usage(&b->cgfs, ret, ret_n, e);
}

static int cg_update(SliceBackend *b, uid_t uid, const Resolved *res, CsError *e) {
        CpuKernelValues k;

        cpu_limits_to_kernel(&res->limits, &k);
        return cgfs_update_slice(&b->cgfs, uid, &k, e);
}

/* On a systemd host the live values are still read from cgroupfs, but every write goes through
 * PID 1, the single writer of user.slice. */
static int sd_update(SliceBackend *b, uid_t uid, const Resolved *res, CsError *e) {
        BusSliceSettings s = slice_target_bus_settings(res);
        bool burst = res->source[SETTING_BURST] != NULL; /* only what the config gives is ours */
        const SystemdPlugin *plugin;
        CpuKernelValues k;
        int r;

        r = slicectl_plugin(&plugin, e);
        if (r < 0)
                return r;
        cpu_limits_to_kernel(&res->limits, &k);
        if (burst && (r = cgfs_write_burst(&b->cgfs, uid, &k, true, e)) < 0 && r != -ENOENT)
                return r;
        r = plugin->apply_slice(uid, &s, &b->bus, BUS_TIMEOUT_DEFAULT_USEC, &b->last_apply, e);
        if (r >= 0 && burst)
                r = cgfs_write_burst(&b->cgfs, uid, &k, false, e);
        return r == -ENOENT ? 0 : r;
}

/* No settings given: every property the record says is ours goes back to systemd's own files. */
static int sd_reset(SliceBackend *b, uid_t uid, CsError *e) {
        const BusSliceSettings none = {};
        const SystemdPlugin *plugin;
        int r;

        r = slicectl_plugin(&plugin, e);
        if (r < 0)
                return r;
        return plugin->apply_slice(uid, &none, &b->bus, BUS_TIMEOUT_DEFAULT_USEC, &b->last_apply, e);
}

static int cg_reset(SliceBackend *b, uid_t uid, CsError *e) {
        const CpuLimits defaults = CPU_LIMITS_DEFAULT;
        CpuKernelValues k;

        cpu_limits_to_kernel(&defaults, &k);
        return cgfs_update_slice(&b->cgfs, uid, &k, e);
}

static int sd_gc(SliceBackend *b, CsError *e) {
        return 0; /* logind and systemd remove user slices themselves */
}

static int cg_gc(SliceBackend *b, CsError *e) {
        return cgfs_gc(&b->cgfs, e);
}

static void cg_close(SliceBackend *b) {
        cgfs_close(&b->cgfs);
}

static const SliceBackendOps cgroupfs_ops = {
        .name = "cgroupfs",
        .read_all = cg_read_all,
        .read_one = cg_read_one,
        .read_usage = cg_read_usage,
        .update = cg_update,
        .gc = cg_gc,
        .reset = cg_reset,
        .close = cg_close,
};

static const SliceBackendOps systemd_ops = {
        .name = "systemd",
        .read_all = cg_read_all,
        .read_one = cg_read_one,
        .read_usage = cg_read_usage,
        .update = sd_update,
        .gc = sd_gc,
        .reset = sd_reset,
        .close = cg_close,
};

int backend_open(SliceBackend *ret, const SliceTarget *t, CsError *e) {
        bool systemd = slice_target_uses_systemd(t);
        int r;

        if (t->backend == SLICE_BACKEND_SYSTEMD && !t->bus.socket && !systemd_booted())
                return cs_error(e, -EOPNOTSUPP, "--backend=systemd, but this host was not booted with systemd");
        *ret = (SliceBackend) { .ops = systemd ? &systemd_ops : &cgroupfs_ops, .systemd = systemd, .bus = t->bus };
        r = slice_target_open_cgfs(t, NULL, &ret->cgfs, e);
        if (r < 0)
                return r;
        ret->v2 = ret->cgfs.layout.cpu.v2;
        return 0;
}

int backend_open_or_log(SliceBackend *ret, const SliceTarget *t) {
        CsError e = {};
        int r = backend_open(ret, t, &e);

        return r < 0 ? log_error(r, "%s", cs_error_text(&e, r)) : 0;
}

void backend_close(SliceBackend *b) {
        if (b->ops)
                b->ops->close(b);
        b->ops = NULL;
}

static void print_bus_value(const char *name, uint64_t v, uint64_t unset_value, const char *unset) {
        if (v == unset_value)
                printf("  %s=%s\n", name, unset);
        else
                printf("  %s=%" PRIu64 "\n", name, v);
}

void backend_print_manager_view(const SliceBackend *b, uid_t uid) {
        const SystemdPlugin *plugin;
        BusSliceView v = {};
        CsError e = {};

        if (!b->systemd)
                return;
        printf("\nsystemd (writes this slice):\n");
        if (slicectl_plugin(&plugin, &e) < 0 ||
            plugin->read_slice(uid, &b->bus, BUS_TIMEOUT_DEFAULT_USEC, &v, &e) < 0) {
                print_line(stdout, "  not available: %s", e.msg);
                return;
        }
        print_line(stdout, "  ActiveState=%s", v.active_state ? v.active_state : "?");
        if (v.cpu_weight == CPU_WEIGHT_IDLE)
                printf("  CPUWeight=idle\n");
        else
                print_bus_value("CPUWeight", v.cpu_weight, BUS_WEIGHT_UNSET, "(unset: 100)");
        print_bus_value("CPUQuotaPerSecUSec", v.quota_per_sec, BUS_USEC_INFINITY, "infinity");
        print_bus_value("CPUQuotaPeriodUSec", v.period_usec, BUS_USEC_INFINITY, "(default: 100ms)");
        printf("  Drop-ins (settings made outside pam_cpuslice show up here):\n");
        for (size_t i = 0; i < v.n_drop_in_paths; i++)
                print_line(stdout, "    %s", v.drop_in_paths[i]);
        if (v.n_drop_in_paths == 0)
                printf("    none\n");
        plugin->slice_view_done(&v);
}

/* Setting ↔ BusProp: the module's settings after CPUSlice= are systemd's three properties, and
 * CPUQuotaShare= is one more spelling of CPUQuota= */
static Setting prop_setting(BusProp p) {
        return (Setting) (p + SETTING_WEIGHT);
}

static BusProp setting_prop(Setting s) {
        return s == SETTING_QUOTA_SHARE ? setting_prop(SETTING_QUOTA) : (BusProp) (s - SETTING_WEIGHT);
}

unsigned backend_owned_settings(const SliceBackend *b, const Resolved *res) {
        unsigned mask = 0;

        if (!b->systemd)
                return ~0u; /* the cgroupfs backend owns its tree: every value is ours */
        for (Setting s = 0; s < _SETTING_MAX; s++)
                if (resolved_gives(res, s))
                        mask |= 1u << s;
        return mask;
}

int backend_recorded_uids(const SliceBackend *b, uid_t **ret, size_t *ret_n) {
        *ret = NULL;
        *ret_n = 0;
        if (!b->systemd)
                return 0;
        return applied_record_list(b->bus.root, ret, ret_n);
}

bool backend_revert_pending(const SliceBackend *b, uid_t uid, const Resolved *res) {
        AppliedRecord rec;

        if (!b->systemd)
                return false;
        if (applied_record_load(b->bus.root, uid, &rec) < 0)
                return false;
        for (BusProp p = 0; p < _BUS_PROP_MAX; p++)
                if (rec.prop[p].set && !resolved_gives(res, prop_setting(p)))
                        return true;
        return false;
}

unsigned backend_sent_settings(const SliceBackend *b) {
        unsigned mask = 0;

        if (!b->systemd)
                return ~0u;
        for (BusProp p = 0; p < _BUS_PROP_MAX; p++)
                if (b->last_apply.sent & (1u << p))
                        mask |= 1u << prop_setting(p);
        return mask;
}

static const char *prop_value_format(BusProp p, uint64_t v, char buf[static CPU_FORMAT_MAX]) {
        if (v == BUS_PROP_UNSET)
                return "unset";
        return p == BUS_PROP_WEIGHT  ? cpu_weight_format(v, buf)
               : p == BUS_PROP_QUOTA ? cpu_quota_format(v, buf)
                                     : cpu_period_format(v, buf);
}

/* The parts of the last systemd update that did not do what the config says: warnings, and the
 * reverts as changes. */
void backend_report_apply(const SliceBackend *b, const char *user, uid_t uid, const char *why) {
        const BusApplyResult *a = &b->last_apply;

        if (!b->systemd)
                return;
        for (BusProp p = 0; p < _BUS_PROP_MAX; p++) {
                char v[CPU_FORMAT_MAX];

                if (a->kept & (1u << p))
                        log_warning("%s: %s= not applied: an admin's `systemctl set-property` holds it "
                                    "(" SYSTEMD_CONTROL_PERSISTENT "/user-%u.slice.d/50-%s.conf); remove that file "
                                    "and run systemctl daemon-reload to let cpuslice.conf decide",
                                    user, bus_prop_key_to_string(p), (unsigned) uid, bus_prop_key_to_string(p));
                if (a->reverted & (1u << p)) {
                        print_line(stdout, "%s (uid %u): %s= %s: back to systemd's own unit files (%s)", user,
                                   (unsigned) uid, bus_prop_key_to_string(p), why,
                                   prop_value_format(p, a->value[p], v));
                        log_change("returned %s (uid %u) %s= to systemd's unit files (%s)", user, (unsigned) uid,
                                   bus_prop_key_to_string(p), prop_value_format(p, a->value[p], v));
                }
        }
        if (a->idle_fallback)
                log_warning("%s: this systemd does not support CPUWeight=idle (before 252); CPUWeight=1 was used",
                            user);
        if (a->record_error < 0)
                log_warning("%s: the record " APPLIED_RECORD_DIR "/user-%u.slice: %s", user, (unsigned) uid,
                            strerror(-a->record_error));
}

int backend_admin_value(const SliceTarget *t, uid_t uid, Setting s, char value[static CPU_FORMAT_MAX], char *path,
                        size_t n) {
        AdminValue kind = ADMIN_VALUE_PERSISTENT;
        BusProp p;
        char *one[1] = { path };
        AppliedRecord rec;
        uint64_t v;
        int r;

        /* CPUBurst= has no systemd property: nothing an admin could hold */
        if (s < SETTING_WEIGHT || s >= _SETTING_MAX || s == SETTING_BURST || !slice_target_uses_systemd(t))
                return ADMIN_VALUE_NONE;
        p = setting_prop(s);
        r = control_dropin_path(t->bus.root, false, uid, p, path, n);
        if (r < 0)
                return r;
        if (access(path, F_OK) < 0) {
                /* systemd writes the module's values to the same runtime file an admin's
                 * set-property --runtime does: the record tells them apart, as at a login */
                kind = ADMIN_VALUE_RUNTIME;
                r = control_dropin_path(t->bus.root, true, uid, p, path, n);
                if (r < 0)
                        return r;
                if (access(path, F_OK) < 0 || applied_record_load(t->bus.root, uid, &rec) < 0 ||
                    applied_record_owns(&rec, p, path))
                        return ADMIN_VALUE_NONE;
        }
        r = dropin_files_value(one, 1, NULL, p, &v);
        if (r < 0)
                return r;
        prop_value_format(p, v, value);
        return kind;
}
