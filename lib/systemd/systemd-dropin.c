/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cpu-value.h"
#include "macro.h"
#include "parse-util.h"
#include "read-file.h"
#include "slice-name.h"
#include "string-table.h"
#include "systemd-dropin.h"

#define DROPIN_FILE_MAX (1024u * 1024)

static const char *const bus_prop_name_table[_BUS_PROP_MAX] = {
        [BUS_PROP_WEIGHT] = "CPUWeight",
        [BUS_PROP_QUOTA] = "CPUQuotaPerSecUSec",
        [BUS_PROP_PERIOD] = "CPUQuotaPeriodUSec",
};

static const char *const bus_prop_key_table[_BUS_PROP_MAX] = {
        [BUS_PROP_WEIGHT] = "CPUWeight",
        [BUS_PROP_QUOTA] = "CPUQuota",
        [BUS_PROP_PERIOD] = "CPUQuotaPeriodSec",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(bus_prop_name, BusProp)
DEFINE_STRING_TABLE_LOOKUP(bus_prop_key, BusProp)

int control_dropin_path(const char *root, bool runtime, uid_t uid, BusProp p, char *buf, size_t n) {
        char slice[SLICE_NAME_MAX];
        int k;

        if (p >= _BUS_PROP_MAX)
                return -EINVAL;
        slice_name(uid, slice);
        k = snprintf(buf, n, "%s%s/%s.d/50-%s.conf", root ? root : "",
                     runtime ? SYSTEMD_CONTROL_RUNTIME : SYSTEMD_CONTROL_PERSISTENT, slice, bus_prop_key_table[p]);
        return k < 0 || (size_t) k >= n ? -ENAMETOOLONG : 0;
}

static int parse_value(BusProp p, const char *v, uint64_t *ret) {
        if (!*v) {
                *ret = BUS_PROP_UNSET;
                return 0;
        }
        switch (p) {
        case BUS_PROP_WEIGHT:
                return cpu_weight_parse(v, ret);
        case BUS_PROP_QUOTA:
                return cpu_quota_parse(v, ret);
        default:
                return cpu_period_parse(v, ret);
        }
}

/* systemd's unit file syntax, as far as these keys need it: sections, comments, key=value with
 * blanks around; a value systemd itself would reject is ignored with the line, as systemd does. */
int dropin_buffer_value(const char *buf, BusProp p, uint64_t *value) {
        const char *key = bus_prop_key_to_string(p);
        bool in_slice = false;

        if (!key)
                return -EINVAL;
        for (const char *line = buf; line && *line;) {
                const char *end = strchrnul(line, '\n');
                _cleanup_free_ char *copy = strndup(line, (size_t) (end - line));
                char *s, *eq;
                uint64_t v;

                if (!copy)
                        return -ENOMEM;
                line = *end ? end + 1 : end;
                s = strstrip(copy);
                if (*s == '[') {
                        in_slice = strcmp(s, "[Slice]") == 0;
                        continue;
                }
                if (!in_slice || *s == '#' || *s == ';' || !(eq = strchr(s, '=')))
                        continue;
                *eq = '\0';
                if (strcmp(strstrip(s), key) != 0)
                        continue;
                if (parse_value(p, strstrip(eq + 1), &v) >= 0)
                        *value = v;
        }
        return 0;
}

int dropin_files_value(char *const *paths, size_t n, const char *skip, BusProp p, uint64_t *ret) {
        uint64_t value = BUS_PROP_UNSET;

        for (size_t i = 0; i < n; i++) {
                _cleanup_close_ int fd = -EBADF;
                _cleanup_free_ char *buf = NULL;
                struct stat st;
                int r;

                if (skip && strcmp(paths[i], skip) == 0)
                        continue;
                /* systemd's own paths (PID 1 names them); admins link drop-ins from elsewhere */
                fd = open(paths[i], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                if (fd < 0 && errno == ENOENT)
                        continue; /* removed since systemd loaded it: it no longer counts at a reload */
                if (fd < 0)
                        return -errno;
                if (fstat(fd, &st) < 0)
                        return -errno;
                if (!S_ISREG(st.st_mode))
                        return -EBADFD;
                r = read_full_fd(fd, DROPIN_FILE_MAX, NULL, &buf, NULL);
                if (r < 0)
                        return r;
                r = dropin_buffer_value(buf, p, &value);
                if (r < 0)
                        return r;
        }
        *ret = value;
        return 0;
}
