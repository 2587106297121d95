/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <security/pam_modules.h>

#include "cgroup-layout.h"
#include "conf.h"

typedef enum Backend {
        BACKEND_AUTO,
        BACKEND_CGROUPFS,
        BACKEND_SYSTEMD,
} Backend;

typedef struct ModuleArgs {
        ConfPaths conf;
        const char *cgroup_root;
        const char *parent;
        int layout;             /* CgroupLayoutKind, or -1: detect */
        bool test_tree;         /* a plain directory stands in for cgroupfs (tests only) */
        Backend backend;
        uint64_t timeout_usec;  /* for the system bus: the whole of a login's bus work */
        const char *bus_socket; /* NULL: the system bus; another socket only from root's PAM config */
        bool target_user;       /* systemd: move su/sudo/runuser sessions into the target's slice */
        bool strict;
        bool debug;
} ModuleArgs;

/* Unknown arguments are logged and ignored: a typo must not lock anyone out. */
void module_args_parse(pam_handle_t *h, int argc, const char **argv, ModuleArgs *ret);
