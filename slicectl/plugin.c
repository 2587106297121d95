/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"

static const char *plugin_path(void) {
#ifdef SLICECTL_BUILD_PATH
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

        if (n > 0) {
                exe[n] = '\0';
                if (strcmp(exe, SLICECTL_BUILD_PATH) == 0)
                        return SYSTEMD_PLUGIN_BUILD_PATH;
        }
#endif
        return SYSTEMD_PLUGIN_INSTALLED_PATH;
}

int slicectl_plugin(const SystemdPlugin **ret, CsError *e) {
        static const SystemdPlugin *loaded;
        void *handle; /* never closed: slicectl exits soon after */
        int r;

        if (!loaded) {
                r = systemd_plugin_open(plugin_path(), &handle, &loaded, e);
                if (r == -ENOENT && strcmp(SYSTEMD_PLUGIN_LIB_PATH, SYSTEMD_PLUGIN_INSTALLED_PATH) != 0) {
                        CsError lib = {};
                        int k = systemd_plugin_open(SYSTEMD_PLUGIN_LIB_PATH, &handle, &loaded, &lib);

                        /* absent there too: the error names the path this build installs to */
                        if (k != -ENOENT) {
                                r = k;
                                *e = lib;
                        }
                }
                if (r < 0)
                        return r;
        }
        *ret = loaded;
        return 0;
}
