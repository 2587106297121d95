/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "domain.h"
#include "macro.h"
#include "parse-util.h"
#include "string-table.h"

/* Names come from NSS (local, LDAP, SSSD: "user@realm" and "DOMAIN\\user" are real), so accept
 * any printable text except what the config syntax itself uses. */
static bool name_valid(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > DOMAIN_NAME_MAX)
                return false;
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p <= ' ' || *p == 0x7f || *p == ':' || *p == '#' || *p == '=' || *p == '*')
                        return false;
        return true;
}

static int parse_range(const char *s, const char *colon, Domain *ret) {
        _cleanup_free_ char *lo = strndup(s, (size_t) (colon - s));
        uint32_t min = 0, max = UINT32_MAX - 1; /* (uid_t) -1 is never a user */

        if (!lo)
                return -ENOMEM;
        if (!*lo && !colon[1])
                return -EINVAL;
        if (*lo && safe_atou32(lo, &min) < 0)
                return -EINVAL;
        if (colon[1] && safe_atou32(colon + 1, &max) < 0)
                return -EINVAL;
        if (min > max)
                return -ERANGE;
        *ret = (Domain) { .type = DOMAIN_UID_RANGE, .uid_min = min, .uid_max = max };
        return 0;
}

int domain_parse(const char *s, Domain *ret, const char **ret_reason) {
        const char *colon;
        uint32_t uid;
        int r;

        if (strcmp(s, "*") == 0) {
                *ret = (Domain) { .type = DOMAIN_ALL };
                return 0;
        }
        if (strcmp(s, "user.slice") == 0) {
                *ret = (Domain) { .type = DOMAIN_SLICES };
                return 0;
        }
        if (all_digits(s)) {
                if (safe_atou32(s, &uid) < 0 || uid == UINT32_MAX) {
                        *ret_reason = "uid out of range (0..4294967294)";
                        return -ERANGE;
                }
                *ret = (Domain) { .type = DOMAIN_UID, .uid_min = uid, .uid_max = uid };
                return 0;
        }
        colon = strchr(s, ':');
        if (colon) {
                r = parse_range(s, colon, ret);
                if (r == -ERANGE)
                        *ret_reason = "uid range is empty (first uid is above the last)";
                else if (r < 0)
                        *ret_reason = "bad uid range (allowed: FIRST:LAST, FIRST: or :LAST with decimal uids)";
                return r;
        }
        if (s[0] == '@') {
                if (!name_valid(s + 1)) {
                        *ret_reason = "bad group name after '@'";
                        return -EINVAL;
                }
                *ret = (Domain) { .type = DOMAIN_GROUP, .name = strdup(s + 1) };
                return ret->name ? 0 : -ENOMEM;
        }
        if (!name_valid(s)) {
                *ret_reason = "bad domain (allowed: user name, uid, FIRST:LAST uid range, @group or *)";
                return -EINVAL;
        }
        *ret = (Domain) { .type = DOMAIN_USER, .name = strdup(s) };
        return ret->name ? 0 : -ENOMEM;
}

Specificity domain_specificity(const Domain *d) {
        switch (d->type) {
        case DOMAIN_USER:
        case DOMAIN_UID:
        case DOMAIN_SLICES: /* competes only with other user.slice lines: the last one wins */
                return SPECIFICITY_USER;
        case DOMAIN_UID_RANGE:
                return SPECIFICITY_RANGE;
        case DOMAIN_GROUP:
                return SPECIFICITY_GROUP;
        case DOMAIN_ALL:
        default:
                return SPECIFICITY_ALL;
        }
}

static const char *const specificity_table[] = {
        [SPECIFICITY_ALL] = "*",
        [SPECIFICITY_GROUP] = "group",
        [SPECIFICITY_RANGE] = "uid range",
        [SPECIFICITY_USER] = "user",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING_FALLBACK(specificity, Specificity, "?")

bool domain_names_user(const Domain *d, const char *user, uid_t uid) {
        if (d->type == DOMAIN_UID)
                return d->uid_min == uid;
        return d->type == DOMAIN_USER && user && strcmp(d->name, user) == 0;
}

bool domain_equal(const Domain *a, const Domain *b) {
        if (a->type != b->type)
                return false;
        if (a->type == DOMAIN_USER || a->type == DOMAIN_GROUP)
                return strcmp(a->name, b->name) == 0;
        return a->uid_min == b->uid_min && a->uid_max == b->uid_max;
}

void domain_done(Domain *d) {
        free(d->name);
        d->name = NULL;
}
