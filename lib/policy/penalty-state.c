/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "parse-util.h"
#include "penalty-state.h"
#include "state-file.h"

#define STATE_MAX 1024

/* The keys in the order they are written; every one must be there, once. */
static const char *const keys[] = { "level", "active", "since", "until", "clean_since", "cause" };

static uint64_t *field(PenaltyState *s, size_t k, uint64_t *active, uint64_t *level) {
        uint64_t *const f[] = { level, active, &s->since, &s->until, &s->clean_since, &s->cause_per_sec };
        return f[k];
}

static void state_dir(const char *root, char buf[static PATH_MAX]) {
        snprintf(buf, PATH_MAX, "%s" PENALTY_STATE_DIR, root ? root : "");
}

static void uid_name(uid_t uid, char buf[static 16]) {
        snprintf(buf, 16, "%u", (unsigned) uid);
}

static int uid_from_name(const char *name, uid_t *ret) {
        uint64_t v;

        if (!*name || strspn(name, "0123456789") != strlen(name) || (name[0] == '0' && name[1]) ||
            safe_atou64(name, &v) < 0 || v >= UINT32_MAX)
                return -EINVAL;
        *ret = (uid_t) v;
        return 0;
}

static int parse_state(char *text, PenaltyState *ret) {
        PenaltyState s = {};
        uint64_t active = 0, level = 0;
        unsigned seen = 0;

        for (char *line = text, *end; *line; line = end) {
                char *value;
                size_t k;

                end = strchrnul(line, '\n');
                if (*end)
                        *end++ = '\0';
                value = strchr(line, ' ');
                if (!value)
                        return -EBADMSG;
                *value++ = '\0';
                for (k = 0; k < ELEMENTSOF(keys) && strcmp(line, keys[k]) != 0; k++)
                        ;
                if (k == ELEMENTSOF(keys) || (seen & (1u << k)) ||
                    safe_atou64(value, field(&s, k, &active, &level)) < 0)
                        return -EBADMSG;
                seen |= 1u << k;
        }
        if (seen != (1u << ELEMENTSOF(keys)) - 1 || active > 1 || level > UINT_MAX || (active && level == 0) ||
            s.until < s.since)
                return -EBADMSG;
        s.active = active;
        s.level = (unsigned) level;
        *ret = s;
        return 0;
}

int penalty_state_dir_open(const char *root) {
        char d[PATH_MAX];

        state_dir(root, d);
        return state_dir_open(d, false);
}

int penalty_state_load_at(int dfd, uid_t uid, PenaltyState *ret, char *why, size_t why_len) {
        _cleanup_free_ char *text = NULL;
        char name[16];
        int r;

        *ret = (PenaltyState) {};
        if (dfd < 0)
                return dfd == -ENOENT ? 0 : dfd;
        uid_name(uid, name);
        r = state_file_read(dfd, name, STATE_MAX, &text, why, why_len);
        if (r < 0 || !text)
                return r;
        r = parse_state(text, ret);
        if (r < 0 && why)
                snprintf(why, why_len, "does not parse as a penalty state");
        return r;
}

int penalty_state_load(const char *root, uid_t uid, PenaltyState *ret, char *why, size_t why_len) {
        _cleanup_close_ int dfd = penalty_state_dir_open(root);

        return penalty_state_load_at(dfd, uid, ret, why, why_len);
}

static int fill_state(FILE *f, void *userdata) {
        PenaltyState s = *(const PenaltyState *) userdata;
        uint64_t active = s.active, level = s.level;

        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                fprintf(f, "%s %" PRIu64 "\n", keys[k], *field(&s, k, &active, &level));
        return ferror(f) ? -EIO : 0;
}

int penalty_state_save(const char *root, uid_t uid, const PenaltyState *s) {
        char d[PATH_MAX], name[16];
        bool empty = s->level == 0 && !s->active;

        state_dir(root, d);
        uid_name(uid, name);
        return state_file_save(d, name, 0, empty ? NULL : fill_state, (void *) s);
}

int penalty_state_remove(const char *root, uid_t uid) {
        return penalty_state_save(root, uid, &(PenaltyState) {});
}

int penalty_state_list(const char *root, uid_t **ret, size_t *ret_n) {
        char d[PATH_MAX];

        state_dir(root, d);
        return state_dir_list_uids(d, uid_from_name, ret, ret_n);
}
