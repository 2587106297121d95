/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Where the cpu controller lives, and where per-cgroup CPU usage can be read. Detection is its
 * own step so that tests (and cgroup_layout= in the module) can name a layout outright. */

#include <stdbool.h>

#include "error.h"

typedef enum CgroupLayoutKind {
        CGROUP_LAYOUT_UNIFIED, /* cgroup2 at the root, cpu in cgroup.controllers */
        CGROUP_LAYOUT_LEGACY,  /* v1 cpu hierarchy (maybe co-mounted cpu,cpuacct) */
        CGROUP_LAYOUT_HYBRID,  /* v1 cpu hierarchy plus a cgroup2 mount at unified/ */
        _CGROUP_LAYOUT_MAX,
} CgroupLayoutKind;

typedef struct CgroupHierarchy {
        char *path; /* relative to the cgroup root: "" (the root itself), "cpu", "unified", ...; NULL: none */
        bool v2;
} CgroupHierarchy;

typedef struct CgroupLayout {
        CgroupLayoutKind kind;
        CgroupHierarchy cpu;  /* holds cpu.weight/cpu.max or cpu.shares/cpu.cfs_* */
        CgroupHierarchy acct; /* a second tree mirrored for usage accounting; path NULL: cpu has it */
        bool check_fs;        /* every directory opened must be cgroupfs (off only for a plain
                                 * directory tree: allow_plain_tree) */
} CgroupLayout;

const char *cgroup_layout_kind_to_string(CgroupLayoutKind k); /* NULL if out of range */
const char *cgroup_layout_to_string(CgroupLayoutKind k);      /* "?" if out of range, for messages */
int cgroup_layout_kind_from_string(const char *s);            /* "unified", "legacy", "hybrid"; -EINVAL */

/* What one pass over mountinfo found (exposed for the mountinfo fuzzer and tests). */
typedef struct CgroupMountScan {
        bool root_v2;
        char *cpu_v1;      /* relative path of the v1 hierarchy holding cpu */
        bool cpu_has_acct; /* co-mounted cpu,cpuacct */
        char *acct_v1;
        bool unified_v2; /* cgroup2 at <root>/unified */
} CgroupMountScan;

/* Parses one mountinfo line (modified in place); records cgroup mounts at root or directly below. */
int cgroup_layout_scan_line(const char *root, char *line, CgroupMountScan *s);
void cgroup_mount_scan_done(CgroupMountScan *s);

/* Reads mountinfo (NULL: /proc/self/mountinfo) for cgroup mounts directly below `root`. */
int cgroup_layout_detect(const char *root, const char *mountinfo, CgroupLayout *ret, CsError *e);
/* A named layout over a plain directory tree laid out like cgroupfs:
 * unified: cpu at the root (v2); legacy: cpu at cpu/ and, if it exists, cpuacct/ mirrored;
 * hybrid: cpu at cpu/, unified/ (v2) mirrored. Does not check the filesystem type. */
int cgroup_layout_named(const char *root, CgroupLayoutKind kind, CgroupLayout *ret, CsError *e);
int cgroup_layout_copy(CgroupLayout *dst, const CgroupLayout *src);
/* Whether the mounts the layout uses (cpu and the accounting mirror, below root) carry the
 * favordynmods option (Linux 6.0+): without it, the first move of a process into a cgroup after
 * some idle time waits for an RCU grace period. 1 all do, 0 not all, -errno. */
int cgroup_layout_favordynmods(const char *root, const CgroupLayout *l, const char *mountinfo);
void cgroup_layout_done(CgroupLayout *l);
