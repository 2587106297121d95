/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The one drop-in slicectl owns, 50-slicectl.conf: read it, set or unset a domain's settings,
 * write it back atomically (temp file in the same directory, fsync, rename, fsync of the
 * directory), all under an flock on a lock file so concurrent edits never lose an update.
 * Every other config file is left alone. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "atomic-file.h"
#include "conf-parse.h"
#include "domain.h"
#include "error.h"
#include "rules.h"

#define CONF_EDIT_FILE "50-slicectl.conf"
#define CONF_EDIT_LOCK ".50-slicectl.conf.lock" /* hidden and not *.conf: the loader skips it */

/* File operations a test can replace to inject a failure mid-write: atomic-file.h's. */
typedef AtomicFileOps ConfEditOps;

typedef struct ConfEditLine {
        char *verbatim; /* comments, blank and unusable lines: kept as they are */
        char *domain;   /* the domain as written; NULL for verbatim lines */
        Domain parsed;
        char *values[_SETTING_MAX]; /* NULL: the line does not set it */
        char *penalty;              /* the Penalty*= keys as written: slicectl set does not edit
                                     * them, they are kept (unset of everything drops them) */
        ConfSkips skipped;          /* settings the module skips (a hand edit's typo), written back
                                         * after the others; a set or unset of their setting drops them */
} ConfEditLine;

typedef struct ConfEdit {
        char *path; /* <dir>/50-slicectl.conf */
        int dir_fd;
        int lock_fd;
        ConfEditLine *lines;
        size_t n;
        bool exists;            /* the file is there: as read, or as written or removed since */
        const ConfEditOps *ops; /* NULL: the real system calls */
} ConfEdit;

/* Creates the directory if missing (0755), takes the lock (blocking) and reads the file. A
 * directory or file the module would refuse to read (conf_check_stat) is refused here too (-EPERM,
 * before anything is created); a symlinked directory is not followed. */
int conf_edit_open(const char *dir, const ConfEditOps *ops, ConfEdit *ret, CsError *e);
/* Validates "DOMAIN SETTING=VALUE..." as a config line first: nothing changes on failure and
 * *ret_reason says why. Merges the settings into the domain's line (appended if it has none). */
int conf_edit_set(ConfEdit *ed, const char *domain, char *const *assignments, size_t n, char **ret_reason);
/* Removes the given settings (mask 0: all) from the domain's lines, with the skipped ones that
 * name them (a bad value, a repeat); lines left without a valid setting go. Returns how many
 * settings were removed. */
int conf_edit_unset(ConfEdit *ed, const char *domain, unsigned mask, char **ret_reason);
/* The file as it would be written. */
int conf_edit_render(const ConfEdit *ed, char **ret);
/* Writes atomically, mode 0644 (owner root when run as root). On failure the old file is intact
 * and no temp file is left behind. A file left with nothing but its header is removed instead. */
int conf_edit_commit(ConfEdit *ed, CsError *e);
/* Releases the lock. Where no drop-in is left (or none was there) the lock file goes too, removed
 * while still held: a waiter on it retries with a new one. */
void conf_edit_done(ConfEdit *ed);
