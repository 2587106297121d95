/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"

static const char *plugin_path(void) {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

        if (n > 0) {
                exe[n] = '\0';
                if (strcmp(exe, SLICECTL_BUILD_PATH) == 0)
                        return SYSTEMD_PLUGIN_BUILD_PATH;
        }
        return SYSTEMD_PLUGIN_INSTALLED_PATH;
}

int slicectl_plugin(const SystemdPlugin **ret, CsError *e) {
        static const SystemdPlugin *loaded;
        void *handle; /* never closed: slicectl exits soon after */
        int r;

        if (!loaded) {
                r = systemd_plugin_open(plugin_path(), &handle, &loaded, e);
                if (r < 0)
                        return r;
        }
        *ret = loaded;
        return 0;
}
