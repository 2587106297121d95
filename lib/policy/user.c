/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parse-util.h"
#include "user.h"

#define NSS_BUF_START 4096
#define NSS_BUF_MAX (1024 * 1024)

static int from_passwd(const struct passwd *pw, UserIdent *ret) {
        *ret = (UserIdent) { .uid = pw->pw_uid, .gid = pw->pw_gid };
        ret->name = strdup(pw->pw_name);
        ret->home = strdup(strempty(pw->pw_dir));
        if (!ret->name || !ret->home) {
                user_done(ret);
                return -ENOMEM;
        }
        return 0;
}

typedef enum NssQuery {
        NSS_PASSWD_BY_NAME,
        NSS_PASSWD_BY_UID,
        NSS_GROUP_BY_NAME,
} NssQuery;

typedef union NssEntry {
        struct passwd pw;
        struct group gr;
} NssEntry;

/* One getpw*_r()/getgr*_r() call, with a buffer that grows while NSS says ERANGE (it does not say
 * how much it needs); the entry's strings point into *ret_buf. No such entry is -ENOENT, however
 * the module says it (0 and no entry, ENOENT or ESRCH, as getpwnam_r(3) allows). */
static int nss_get(NssQuery q, const char *name, uid_t uid, NssEntry *ret, char **ret_buf) {
        for (size_t size = NSS_BUF_START;; size *= 2) {
                _cleanup_free_ char *buf = malloc(size);
                struct passwd *pw = NULL;
                struct group *gr = NULL;
                int r;

                if (!buf)
                        return -ENOMEM;
                if (q == NSS_GROUP_BY_NAME)
                        r = getgrnam_r(name, &ret->gr, buf, size, &gr);
                else if (q == NSS_PASSWD_BY_NAME)
                        r = getpwnam_r(name, &ret->pw, buf, size, &pw);
                else
                        r = getpwuid_r(uid, &ret->pw, buf, size, &pw);
                if (r == ERANGE && size < NSS_BUF_MAX)
                        continue;
                if (r != 0 && r != ENOENT && r != ESRCH)
                        return -r;
                if (!pw && !gr)
                        return -ENOENT;
                *ret_buf = TAKE_PTR(buf);
                return 0;
        }
}

static int passwd_get(const char *name, uid_t uid, UserIdent *ret) {
        _cleanup_free_ char *buf = NULL;
        NssEntry e;
        int r;

        r = nss_get(name ? NSS_PASSWD_BY_NAME : NSS_PASSWD_BY_UID, name, uid, &e, &buf);
        return r < 0 ? r : from_passwd(&e.pw, ret);
}

int user_lookup(const char *name, UserIdent *ret) {
        if (!name || !*name || strlen(name) > 256)
                return -ENOENT;
        return passwd_get(name, 0, ret);
}

int user_lookup_uid(uid_t uid, UserIdent *ret) {
        return passwd_get(NULL, uid, ret);
}

/* The rule's group name to its gid, one NSS lookup: memberships are compared by gid only, so a
 * name that NSS returns for some gid is never taken for a rule's name. */
static int group_gid(const char *name, gid_t *ret) {
        _cleanup_free_ char *buf = NULL;
        NssEntry e;
        int r;

        r = nss_get(NSS_GROUP_BY_NAME, name, 0, &e, &buf);
        if (r < 0)
                return r;
        *ret = e.gr.gr_gid;
        return 0;
}

static int load_groups(UserIdent *u) {
        int n = 32;
        _cleanup_free_ gid_t *gids = NULL;

        for (;;) {
                int want = n;
                gid_t *g = realloc(gids, (size_t) n * sizeof *g);
                if (!g)
                        return -ENOMEM;
                gids = g;
                if (getgrouplist(u->name, u->gid, gids, &want) >= 0) {
                        n = want;
                        break;
                }
                if (want <= n || want > 65536)
                        return -EIO;
                n = want;
        }
        u->n_groups = (size_t) n;
        u->gids = TAKE_PTR(gids);
        u->groups_loaded = true;
        return 0;
}

static bool has_gid(const UserIdent *u, gid_t gid) {
        for (size_t i = 0; i < u->n_groups; i++)
                if (u->gids && u->gids[i] == gid)
                        return true;
        return false;
}

int user_in_group(UserIdent *u, const char *group) {
        uint32_t num;
        gid_t gid = 0;
        int r;

        if (!u->groups_loaded) {
                r = load_groups(u);
                if (r < 0)
                        return r;
        }
        /* all digits: a gid, never a group that happens to be named so */
        if (safe_atou32(group, &num) >= 0)
                return has_gid(u, (gid_t) num);
        if (u->test_group_names) {
                for (size_t i = 0; u->test_group_names[i]; i++)
                        if (strcmp(u->test_group_names[i], group) == 0)
                                return 1;
                return 0;
        }
        r = group_gid(group, &gid);
        if (r == -ENOENT)
                return 0;
        return r < 0 ? r : has_gid(u, gid);
}

int user_set_groups(UserIdent *u, const char *const *names) {
        size_t n = 0;

        while (names && names[n])
                n++;
        u->test_group_names = calloc(n + 1, sizeof(char *));
        if (!u->test_group_names)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (!(u->test_group_names[i] = strdup(names[i])))
                        return -ENOMEM;
        u->groups_loaded = true;
        return 0;
}

void user_done(UserIdent *u) {
        for (size_t i = 0; u->test_group_names && u->test_group_names[i]; i++)
                free(u->test_group_names[i]);
        free(u->test_group_names);
        free(u->gids);
        free(u->name);
        free(u->home);
        *u = (UserIdent) {};
}

typedef struct TableEntry {
        UserIdent u;
        size_t seen; /* the enumeration's order: the first of a uid wins */
} TableEntry;

static int entry_cmp(const void *a, const void *b) {
        const TableEntry *x = a, *y = b;

        if (x->u.uid != y->u.uid)
                return x->u.uid < y->u.uid ? -1 : 1;
        return x->seen < y->seen ? -1 : x->seen > y->seen;
}

int user_table_load(UserTable *ret) {
        _cleanup_free_ TableEntry *e = NULL;
        size_t n = 0, cap = 0, k = 0;
        struct passwd *pw;
        int r = 0;

        setpwent();
        while ((pw = getpwent())) {
                if (!GREEDY_REALLOC(e, cap, n + 1)) {
                        r = -ENOMEM;
                        break;
                }
                r = from_passwd(pw, &e[n].u);
                if (r < 0)
                        break;
                e[n].seen = n;
                n++;
        }
        endpwent();
        if (r >= 0 && n > 1)
                qsort(e, n, sizeof *e, entry_cmp);
        *ret = (UserTable) {};
        if (r >= 0 && n > 0)
                ret->users = calloc(n, sizeof *ret->users);
        for (size_t i = 0; i < n; i++) {
                if (r < 0 || !ret->users || (k > 0 && ret->users[k - 1].uid == e[i].u.uid))
                        user_done(&e[i].u);
                else
                        ret->users[k++] = e[i].u;
        }
        if (r < 0 || (n > 0 && !ret->users)) {
                user_table_done(ret);
                return r < 0 ? r : -ENOMEM;
        }
        ret->n = k;
        return 0;
}

static int uid_cmp(const void *key, const void *elem) {
        uid_t x = *(const uid_t *) key, y = ((const UserIdent *) elem)->uid;

        return x < y ? -1 : x > y;
}

int user_table_lookup_uid(const UserTable *t, uid_t uid, UserIdent *ret) {
        const UserIdent *u = t && t->n ? bsearch(&uid, t->users, t->n, sizeof *t->users, uid_cmp) : NULL;
        UserIdent c;

        if (!u)
                return user_lookup_uid(uid, ret);
        c = (UserIdent) { .uid = u->uid, .gid = u->gid, .name = strdup(u->name), .home = strdup(u->home) };
        if (!c.name || !c.home) {
                user_done(&c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

void user_table_done(UserTable *t) {
        for (size_t i = 0; i < t->n; i++)
                user_done(&t->users[i]);
        free(t->users);
        *t = (UserTable) {};
}
