/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "parse-util.h"
#include "slice-name.h"

void slice_name(uid_t uid, char buf[static SLICE_NAME_MAX]) {
        if (uid == SLICE_ROOT_UID)
                snprintf(buf, SLICE_NAME_MAX, "user.slice");
        else
                snprintf(buf, SLICE_NAME_MAX, "user-%" PRIu32 ".slice", (uint32_t) uid);
}

int slice_name_to_uid(const char *name, uid_t *ret) {
        char digits[16];
        size_t n = strlen(name);
        uint32_t uid;

        if (n <= strlen("user-.slice") || strncmp(name, "user-", 5) != 0 || strcmp(name + n - 6, ".slice") != 0)
                return -EINVAL;
        n -= strlen("user-.slice");
        if (n >= sizeof digits)
                return -EINVAL;
        memcpy(digits, name + 5, n);
        digits[n] = '\0';
        if (safe_atou32(digits, &uid) < 0 || uid == UINT32_MAX)
                return -EINVAL;
        *ret = (uid_t) uid;
        return 0;
}

bool session_id_valid(const char *id) {
        return name_is_safe(id, SESSION_ID_MAX);
}

bool scope_name_valid(const char *name) {
        size_t k = strlen(name);

        return name[0] != '.' && k > 6 && strcmp(name + k - 6, ".scope") == 0;
}

const char *scope_name(const char *session_id, char buf[static SLICE_NAME_MAX]) {
        if (!session_id_valid(session_id))
                return NULL;
        snprintf(buf, SLICE_NAME_MAX, "session-%s.scope", session_id);
        return buf;
}

const char *slice_path_child(const char *path, const char *slices, uid_t uid) {
        char prefix[PATH_MAX], slice[SLICE_NAME_MAX];
        size_t n;

        slice_name(uid, slice);
        if (!path ||
            snprintf(prefix, sizeof prefix, "/%s%s%s/", slices, *slices ? "/" : "", slice) >= (int) sizeof prefix)
                return NULL;
        n = strlen(prefix);
        return strncmp(path, prefix, n) == 0 ? path + n : NULL;
}

bool slice_path_in_slice(const char *path, const char *slices, uid_t uid) {
        return slice_path_child(path, slices, uid) != NULL;
}
