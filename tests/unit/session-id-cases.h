/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Session ids from the PAM environment, usable as a scope name or not: one table for the naming
 * test and for the cgroupfs backend's sessions. */

#include <stddef.h>

static const char id64[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-";
static const char id65[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-x";

static const struct {
        const char *id;
        const char *scope; /* NULL: unsafe, pam-PID is used */
} id_cases[] = {
        { "7", "session-7.scope" },
        { "c12", "session-c12.scope" },
        { "A_z-9", "session-A_z-9.scope" },
        { "-", "session--.scope" },
        { id64, "session-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-.scope" },
        { id65, NULL },
        { NULL, NULL },
        { "", NULL },
        { "../x", NULL },
        { "..", NULL },
        { ".", NULL },
        { "a/b", NULL },
        { "/", NULL },
        { "a b", NULL },
        { " 7", NULL },
        { "7\n", NULL },
        { "x.scope", NULL },
        { "caf\xc3\xa9", NULL },
        { "a\\b", NULL },
        { "a*", NULL },
};
