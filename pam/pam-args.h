/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <security/pam_modules.h>

#include "cgfs.h"
#include "conf.h"
#include "slice-target.h"

typedef struct ModuleArgs {
        ConfPaths conf;
        SliceTarget target;     /* backend=, cgroup_root=, parent=, slice_root=, cgroup_layout=, allow_plain_tree,
                                 * bus_socket=, bus_root= */
        const char *state_root; /* state_root=: penalties' state below this (tests); NULL: / */
        uint64_t timeout_usec;  /* for the system bus: the whole of a login's bus work */
        unsigned max_scopes;    /* cgroupfs: live session scopes per user, the new one included (0: no cap) */
        bool target_user;       /* systemd: move su/sudo/runuser sessions into the target's slice */
        bool strict;
        bool debug;
} ModuleArgs;

/* Unknown arguments are logged and ignored: a typo must not lock anyone out. */
void module_args_parse(pam_handle_t *h, int argc, const char **argv, ModuleArgs *ret);
