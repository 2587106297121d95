/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The systemd backend lives in pam_cpuslice-systemd.so, beside the module, and is dlopen()ed only
 * on hosts booted with systemd: linking libsystemd (and libgcrypt, liblzma, libzstd, liblz4,
 * libcap behind it) into the module itself costs every login on every host a few milliseconds
 * of dynamic loading. */

#include "backend-systemd.h"

#define SYSTEMD_PLUGIN_NAME "pam_cpuslice-systemd.so"
#define SYSTEMD_PLUGIN_SYMBOL "cpuslice_systemd_plugin"
#define SYSTEMD_PLUGIN_ABI 5

typedef struct SystemdPlugin {
        unsigned abi;
        int (*open_session)(const BusSessionRequest *req, BusSessionResult *ret, CsError *e);
} SystemdPlugin;
