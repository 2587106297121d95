/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The first field of a config line: who a rule is for, and how specific that is. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum DomainType {
        DOMAIN_ALL,       /* "*" */
        DOMAIN_GROUP,     /* "@staff" */
        DOMAIN_UID_RANGE, /* "1000:1999", "1000:", ":999" */
        DOMAIN_USER,      /* "alice" */
        DOMAIN_UID,       /* "1001" */
        DOMAIN_SLICES,    /* "user.slice": the cgroup that holds every user slice, never a user */
} DomainType;

/* Higher wins. A user name and a single uid are equally specific. */
typedef enum Specificity {
        SPECIFICITY_ALL,
        SPECIFICITY_GROUP,
        SPECIFICITY_RANGE,
        SPECIFICITY_USER,
} Specificity;

typedef struct Domain {
        DomainType type;
        char *name; /* user or group name */
        uint32_t uid_min, uid_max;
} Domain;

#define DOMAIN_NAME_MAX 256

/* On failure *ret_reason says what is wrong and what is allowed. */
int domain_parse(const char *s, Domain *ret, const char **ret_reason);
Specificity domain_specificity(const Domain *d);
const char *specificity_to_string(Specificity s);
/* Whether this domain names one user outright (the only way root gets a slice). */
bool domain_names_user(const Domain *d, const char *user, uid_t uid);
/* The same domain as written: one user, group or range (not: matching the same users). */
bool domain_equal(const Domain *a, const Domain *b);
void domain_done(Domain *d);
