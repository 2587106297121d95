/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"
#include "penalty-cap.h"
#include "state-file.h"
#include "time-util.h"

bool penalty_cap_apply(Resolved *res, const PenaltyState *st, uint64_t now) {
        uint64_t cap;

        if (!st->active || now >= st->until || !penalty_policy_enabled(&res->penalty) ||
            penalty_policy_check(&res->penalty, NULL) < 0)
                return false;
        cap = penalty_level_quota(&res->penalty, st->level);
        if (cap >= res->limits.quota_per_sec && resolved_quota_source(res))
                return false; /* the config's own quota is already as strict */
        res->limits.quota_per_sec = MIN(cap, res->limits.quota_per_sec);
        res->penalty_capped = true;
        return true;
}

int penalty_cap_load_apply(Resolved *res, const char *root, uid_t uid, char *why, size_t why_len) {
        PenaltyState st;
        int r;

        if (!penalty_policy_enabled(&res->penalty))
                return 0;
        r = penalty_state_load(root, uid, &st, why, why_len);
        if (r < 0)
                return r;
        return penalty_cap_apply(res, &st, realtime_usec());
}

bool ruleset_has_penalties(const RuleSet *rs) {
        for (size_t i = 0; i < rs->n; i++)
                if ((rs->rules[i].penalty.mask & (1u << PENALTY_KEY_ABOVE)) &&
                    penalty_policy_enabled(&rs->rules[i].penalty.policy))
                        return true;
        return false;
}

int penalty_marker_set(const char *root, bool enabled) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        char dir[PATH_MAX];
        const char *name = strrchr(PENALTY_ENABLED_MARKER, '/') + 1;
        struct stat st;

        snprintf(dir, sizeof dir, "%s%.*s", root ? root : "", (int) (name - 1 - PENALTY_ENABLED_MARKER),
                 PENALTY_ENABLED_MARKER);
        dfd = state_dir_open(dir, enabled);
        if (dfd < 0)
                return dfd == -ENOENT && !enabled ? 0 : dfd;
        if (!enabled)
                return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) >= 0)
                return 0;
        fd = openat_mode(dfd, name, O_WRONLY | O_NOCTTY, 0644);
        return fd < 0 ? fd : 0;
}
