/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "backend.h"
#include "output.h"

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

        return bus_apply_slice(uid, &s, BUS_TIMEOUT_DEFAULT_USEC, NULL, e);
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
        .close = cg_close,
};

static const SliceBackendOps systemd_ops = {
        .name = "systemd",
        .read_all = cg_read_all,
        .read_one = cg_read_one,
        .read_usage = cg_read_usage,
        .update = sd_update,
        .gc = sd_gc,
        .close = cg_close,
};

int backend_open(SliceBackend *ret, const SliceTarget *t, CsError *e) {
        bool systemd = slice_target_uses_systemd(t);
        int r;

        if (t->backend == SLICE_BACKEND_SYSTEMD && !systemd_booted())
                return cs_error(e, -EOPNOTSUPP, "--backend=systemd, but this host was not booted with systemd");
        *ret = (SliceBackend) { .ops = systemd ? &systemd_ops : &cgroupfs_ops, .systemd = systemd };
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

static void print_bus_value(const char *name, uint64_t v, const char *unset) {
        if (v == BUS_USEC_INFINITY)
                printf("  %s=%s\n", name, unset);
        else
                printf("  %s=%" PRIu64 "\n", name, v);
}

void backend_print_manager_view(const SliceBackend *b, uid_t uid) {
        BusSliceView v = {};
        CsError e = {};

        if (!b->systemd)
                return;
        printf("\nsystemd (writes this slice):\n");
        if (bus_read_slice(uid, BUS_TIMEOUT_DEFAULT_USEC, &v, &e) < 0) {
                print_line(stdout, "  not available: %s", e.msg);
                return;
        }
        print_line(stdout, "  ActiveState=%s", v.active_state ? v.active_state : "?");
        if (v.cpu_weight == CPU_WEIGHT_IDLE)
                printf("  CPUWeight=idle\n");
        else
                print_bus_value("CPUWeight", v.cpu_weight, "(unset: 100)");
        print_bus_value("CPUQuotaPerSecUSec", v.quota_per_sec, "infinity");
        print_bus_value("CPUQuotaPeriodUSec", v.period_usec, "(default: 100ms)");
        printf("  Drop-ins (settings made outside pam_cpuslice show up here):\n");
        for (size_t i = 0; i < v.n_drop_in_paths; i++)
                print_line(stdout, "    %s", v.drop_in_paths[i]);
        if (v.n_drop_in_paths == 0)
                printf("    none\n");
        bus_slice_view_done(&v);
}
