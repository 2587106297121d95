/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Where users' slices are kept and who writes them: the one policy the PAM module (from its
 * arguments) and slicectl (from its options) share. On a host booted with systemd, PID 1 is the
 * single writer of user.slice (see backend-systemd.h); elsewhere the cgroupfs backend writes the
 * tree itself. This file needs no libsystemd: the module loads the systemd backend only when
 * slice_target_uses_systemd() says so. */

#include <stdbool.h>

#include "cgfs.h"
#include "backend-systemd.h"
#include "rules.h"

typedef enum SliceBackendKind {
        SLICE_BACKEND_AUTO, /* systemd on a host booted with it, else cgroupfs */
        SLICE_BACKEND_CGROUPFS,
        SLICE_BACKEND_SYSTEMD,
} SliceBackendKind;

typedef struct SliceTarget {
        SliceBackendKind backend;
        const char *cgroup_root; /* NULL: /sys/fs/cgroup */
        const char *parent;      /* NULL or "": user.slice at each hierarchy's root */
        const char *slice_root;  /* NULL: PARENT/user.slice; else the cgroup that holds the
                                         * user-UID.slice groups ("/": each hierarchy's root) */
        int layout;              /* CgroupLayoutKind, or -1: detect from mountinfo */
        BusPaths bus;            /* systemd backend: NULL, NULL on a real host (tests: a fake) */
        bool allow_plain_tree;   /* a named layout over a plain directory tree (not cgroupfs) uses
                                         * it unchecked (the module's allow_plain_tree; slicectl always); a
                                         * real hierarchy is always checked */
} SliceTarget;

/* "auto", "cgroupfs", "systemd"; -EINVAL if unknown, NULL if out of range */
int slice_backend_from_string(const char *s);
const char *slice_backend_to_string(SliceBackendKind b);
/* sd_booted() without libsystemd: the same test it makes */
bool systemd_booted(void);
bool slice_target_uses_systemd(const SliceTarget *t);
/* The cgroupfs handle for the target: its layout named, known (close_session: the one open
 * saw), or detected. */
int slice_target_open_cgfs(const SliceTarget *t, const CgroupLayout *known, Cgfs *ret, CsError *e);
/* The CPUs users can run on below the target (cpu-count.h), which CPUQuotaShare= is a share of;
 * the online CPUs when the tree cannot be read. */
unsigned slice_target_cpus(const SliceTarget *t);
/* ruleset_set_cpus() with them, when some line has a CPUQuotaShare=. */
void slice_target_count_cpus(const SliceTarget *t, RuleSet *rs);
/* What systemd is told for a user: the settings the config gives, and which of them it gives
 * (the others are left to systemd's own files; see backend-systemd.h). */
BusSliceSettings slice_target_bus_settings(const Resolved *res);
