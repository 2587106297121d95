/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "macro.h"
#include "cpu-count.h"
#include "slice-target.h"
#include "string-table.h"

#define CGROUP_ROOT_DEFAULT "/sys/fs/cgroup"

static const char *const slice_backend_table[] = {
        [SLICE_BACKEND_AUTO] = "auto",
        [SLICE_BACKEND_CGROUPFS] = "cgroupfs",
        [SLICE_BACKEND_SYSTEMD] = "systemd",
};

DEFINE_STRING_TABLE_LOOKUP(slice_backend, SliceBackendKind)

bool systemd_booted(void) {
        struct stat st;
        return lstat("/run/systemd/system/", &st) >= 0 && S_ISDIR(st.st_mode);
}

bool slice_target_uses_systemd(const SliceTarget *t) {
        return t->backend == SLICE_BACKEND_SYSTEMD || (t->backend == SLICE_BACKEND_AUTO && systemd_booted());
}

/* A hierarchy that statfs() cannot look at counts as cgroupfs: checked, never waved through. */
static bool on_cgroupfs(const char *root, const char *sub) {
        char p[PATH_MAX];
        struct statfs s;

        if (snprintf(p, sizeof p, "%s/%s", root, sub) >= (int) sizeof p || statfs(p, &s) < 0)
                return true;
        return s.f_type == CGROUP_SUPER_MAGIC || s.f_type == CGROUP2_SUPER_MAGIC;
}

static int open_at_target(const SliceTarget *t, const char *root, const CgroupLayout *known, Cgfs *ret, CsError *e) {
        const char *s = t->slice_root;
        char slices[PATH_MAX];
        size_t n;

        if (!s)
                return cgfs_open(root, strempty(t->parent), known, NULL, ret, e);
        /* both would name the one place the slices live, and neither may quietly win */
        if (t->parent && *t->parent)
                return cs_error(e, -EINVAL, "parent and slice root both given; give one");
        s += strspn(s, "/");
        n = strlen(s);
        while (n > 0 && s[n - 1] == '/')
                n--;
        if (n >= sizeof slices)
                return cs_error(e, -ENAMETOOLONG, "slice root '%s' is too long", t->slice_root);
        memcpy(slices, s, n);
        slices[n] = '\0';
        return cgfs_open_slices(root, slices, known, NULL, ret, e);
}

int slice_target_open_cgfs(const SliceTarget *t, const CgroupLayout *known, Cgfs *ret, CsError *e) {
        const char *root = t->cgroup_root ? t->cgroup_root : CGROUP_ROOT_DEFAULT;
        CgroupLayout layout = {};
        int r;

        if (!known && t->layout >= 0) {
                r = cgroup_layout_named(root, (CgroupLayoutKind) t->layout, &layout, e);
                if (r < 0)
                        return r;
                layout.check_fs = !t->allow_plain_tree || on_cgroupfs(root, layout.cpu.path);
                known = &layout;
        }
        r = open_at_target(t, root, known, ret, e);
        cgroup_layout_done(&layout);
        return r;
}

unsigned slice_target_cpus(const SliceTarget *t) {
        Cgfs c = {};
        CsError e = {};
        unsigned n = 0;
        int r;

        r = slice_target_open_cgfs(t, NULL, &c, &e);
        if (r >= 0) {
                r = cpus_for_slices(&c, &n, &e);
                cgfs_close(&c);
        }
        if (r < 0 && cpus_online(&n) < 0)
                n = 0; /* rules_resolve() counts them itself */
        return n;
}

void slice_target_count_cpus(const SliceTarget *t, RuleSet *rs) {
        if (rs->has_shares)
                ruleset_set_cpus(rs, slice_target_cpus(t));
}

BusSliceSettings slice_target_bus_settings(const Resolved *res) {
        return (BusSliceSettings) {
                .weight_set = res->source[SETTING_WEIGHT] != NULL,
                .quota_set = resolved_gives(res, SETTING_QUOTA),
                .quota_override = res->penalty_capped,
                .period_set = res->source[SETTING_PERIOD] != NULL,
                .limits = res->limits,
        };
}
