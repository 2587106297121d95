/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A user as NSS reports it: the one logging in, or one slicectl is asked about. Memberships are
 * looked up lazily, at the first @group line matched against the user (getgrouplist(), and one
 * getgrnam() for the line's group): with LDAP/SSSD each lookup can be slow, so only a config that
 * has @group lines pays for them. */

#include <stdbool.h>
#include <sys/types.h>

typedef struct UserIdent {
        char *name;
        uid_t uid;
        gid_t gid;
        char *home;
        bool groups_loaded;
        gid_t *gids; /* primary and supplementary, from getgrouplist() */
        size_t n_groups;
        char **test_group_names; /* user_set_groups(): names matched as given, no NSS */
} UserIdent;

/* -ENOENT if NSS does not know the user (or the name is not a valid NSS key). */
int user_lookup(const char *name, UserIdent *ret);
int user_lookup_uid(uid_t uid, UserIdent *ret);
/* 1 if a member (primary or supplementary), 0 if not, <0 on NSS failure. The rule's name is
 * resolved to a gid (one getgrnam), and memberships compared by gid; all digits is a gid. */
int user_in_group(UserIdent *u, const char *group);
/* For tests and tools: the user is in exactly these groups, by name; NSS is not asked. */
int user_set_groups(UserIdent *u, const char *const *names);
void user_done(UserIdent *u);

/* Many uids at once (slicectl list over thousands of slices): with the files module every
 * getpwuid() reads the passwd file from its start, so one setpwent()/getpwent() pass fills a
 * table sorted by uid instead. The first entry of a uid is kept, as getpwuid() answers. */
typedef struct UserTable {
        UserIdent *users;
        size_t n;
} UserTable;

int user_table_load(UserTable *ret);
/* The uid from the table, or, if the enumeration did not yield it (sssd or LDAP hosts that do not
 * enumerate), user_lookup_uid()'s answer. The copy is the caller's; groups load lazily as ever. */
int user_table_lookup_uid(const UserTable *t, uid_t uid, UserIdent *ret);
void user_table_done(UserTable *t);
