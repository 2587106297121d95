/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include <inttypes.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "backend-systemd.h"
#include "backend.h"
#include "slicectl.h"

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
        BusSliceSettings s = {
                .weight_set = res->source[SETTING_WEIGHT] != NULL,
                .quota_set = res->source[SETTING_QUOTA] != NULL,
                .period_set = res->source[SETTING_PERIOD] != NULL,
                .limits = res->limits,
        };

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

/* A named layout over the real cgroup mount keeps the cgroupfs check; over a scratch tree
 * (tests) there is no cgroupfs to check. */
static const SliceBackendOps systemd_ops = {
        .name = "systemd",
        .read_all = cg_read_all,
        .read_one = cg_read_one,
        .read_usage = cg_read_usage,
        .update = sd_update,
        .gc = sd_gc,
        .close = cg_close,
};

static bool on_cgroupfs(const char *root, const char *sub) {
        _cleanup_free_ char *p = NULL;
        struct statfs s;

        if (asprintf(&p, "%s/%s", root, sub) < 0)
                return true;
        if (statfs(p, &s) < 0)
                return true;
        return s.f_type == CGROUP_SUPER_MAGIC || s.f_type == CGROUP2_SUPER_MAGIC;
}

int backend_open(SliceBackend *ret, CsError *e) {
        const char *root = arg_cgroup_root ? arg_cgroup_root : "/sys/fs/cgroup";
        CgroupLayout layout = {};
        int r;

        bool systemd = arg_backend == SLICECTL_BACKEND_SYSTEMD ||
                       (arg_backend == SLICECTL_BACKEND_AUTO && sd_booted() > 0);

        if (arg_backend == SLICECTL_BACKEND_SYSTEMD && sd_booted() <= 0)
                return cs_error(e, -EOPNOTSUPP, "--backend=systemd, but this host was not booted with systemd");
        *ret = (SliceBackend) { .ops = systemd ? &systemd_ops : &cgroupfs_ops, .systemd = systemd };
        if (arg_layout >= 0) {
                r = cgroup_layout_named(root, (CgroupLayoutKind) arg_layout, &layout, e);
                if (r < 0)
                        return r;
                layout.check_fs = on_cgroupfs(root, layout.cpu.path);
        }
        r = cgfs_open(root, arg_parent ? arg_parent : "", arg_layout >= 0 ? &layout : NULL, NULL, &ret->cgfs, e);
        cgroup_layout_done(&layout);
        if (r < 0)
                return r;
        ret->v2 = ret->cgfs.layout.cpu.v2;
        return 0;
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
