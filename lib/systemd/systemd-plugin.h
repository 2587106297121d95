/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The systemd backend lives in pam_cpuslice-systemd.so, beside the module, and is dlopen()ed only
 * where it is needed: by the module on hosts booted with systemd, by slicectl for the verbs that
 * talk to systemd. Linking libsystemd (and libgcrypt, liblzma, libzstd, liblz4, libcap behind it)
 * into either costs every login and every slicectl run a few milliseconds of dynamic loading. */

#include <stdint.h>
#include <sys/types.h>

#include "backend-systemd.h"
#include "error.h"

#define SYSTEMD_PLUGIN_NAME "pam_cpuslice-systemd.so"
#define SYSTEMD_PLUGIN_SYMBOL "cpuslice_systemd_plugin"
#define SYSTEMD_PLUGIN_ABI 6

typedef struct SystemdPlugin {
        unsigned abi;
        /* the module's */
        int (*open_session)(const BusSessionRequest *req, BusSessionResult *ret, CsError *e);
        /* slicectl's: backend-systemd.h's calls, and sd-login's as libsystemd has them */
        int (*apply_slice)(uid_t uid, const BusSliceSettings *s, const BusPaths *paths, uint64_t timeout_usec,
                           BusApplyResult *ret, CsError *e);
        int (*read_slice)(uid_t uid, const BusPaths *paths, uint64_t timeout_usec, BusSliceView *ret, CsError *e);
        void (*slice_view_done)(BusSliceView *v);
        int (*uid_get_sessions)(uid_t uid, int require_active, char ***ret_sessions);
        int (*session_get_tty)(const char *session, char **ret_tty);
} SystemdPlugin;

/* The plugin is code run as root (in every su and sudo, and by slicectl through sudo rules): it
 * is refused unless it and its directory are root's and writable by no one else (as for the
 * config), and never through a symlink. The checked file itself is what is loaded, through its
 * fd: nothing can be swapped in between. On success the dlopen() handle (for dlclose()) and the
 * plugin's table of this ABI; -EPERM/-ELOOP for a file refused, -errno if it cannot be opened,
 * -ELIBBAD if it does not load or is of another ABI, each with its line in e. */
int systemd_plugin_open(const char *path, void **ret_handle, const SystemdPlugin **ret, CsError *e);
