/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include <linux/magic.h>

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

static int cg_update(SliceBackend *b, uid_t uid, const CpuKernelValues *k, CsError *e) {
        return cgfs_update_slice(&b->cgfs, uid, k, e);
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

        *ret = (SliceBackend) { .ops = &cgroupfs_ops };
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
