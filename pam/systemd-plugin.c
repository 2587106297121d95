/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pam_cpuslice-systemd.so: the systemd backend for the module and slicectl, loaded on demand (see
 * lib/systemd/systemd-plugin.h). Exports one table and nothing else. */
#include <systemd/sd-login.h>

#include "macro.h"
#include "systemd-plugin.h"

_public_ const SystemdPlugin cpuslice_systemd_plugin = {
        .abi = SYSTEMD_PLUGIN_ABI,
        .open_session = bus_open_session,
        .apply_slice = bus_apply_slice,
        .read_slice = bus_read_slice,
        .slice_view_done = bus_slice_view_done,
        .uid_get_sessions = sd_uid_get_sessions,
        .session_get_tty = sd_session_get_tty,
};
