/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pam_cpuslice-systemd.so: the systemd backend for the module, loaded on demand (see
 * lib/systemd/systemd-plugin.h). Exports one table and nothing else. */
#include "macro.h"
#include "systemd-plugin.h"

_public_ const SystemdPlugin cpuslice_systemd_plugin = {
        .abi = SYSTEMD_PLUGIN_ABI,
        .open_session = bus_open_session,
};
