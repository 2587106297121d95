/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What pam_cpuslice itself gave systemd for one user slice, kept under /run (gone at reboot,
 * like the runtime drop-ins it describes): per property the value sent and the identity of the
 * runtime drop-in file systemd wrote for it. Only with this can a property the config no longer
 * gives be returned to what systemd's own files say, and only while that drop-in is still the
 * one we caused: an admin's later `systemctl set-property --runtime` replaces the file, and then
 * the value is theirs. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "systemd-dropin.h"

#define APPLIED_RECORD_DIR "/run/cpuslice/systemd"

typedef struct AppliedProp {
        bool set;
        uint64_t value;
        dev_t dev;
        ino_t ino;
        int64_t mtime_nsec; /* of the drop-in, in ns since the epoch */
} AppliedProp;

typedef struct AppliedRecord {
        AppliedProp prop[_BUS_PROP_MAX];
} AppliedRecord;

/* root: prefix of APPLIED_RECORD_DIR (NULL or "" on a real host; tests: bus_root=). A missing
 * record is an empty one; one that is not a regular file owned by root (or by the reader), that
 * others may write, or that does not parse, is -EPERM/-EBADMSG (the caller reports it and treats
 * the slice as never set by us: nothing is reverted on a record it cannot trust). */
int applied_record_load(const char *root, uid_t uid, AppliedRecord *ret);
/* Replaces it atomically (mode 0644, directories 0755 whatever the umask); an empty record
 * removes the file. */
int applied_record_save(const char *root, uid_t uid, const AppliedRecord *rec);

/* Marks p as set to value, with the identity of the drop-in file now at `dropin` (a missing file
 * is recorded as such: it can never match later, so nothing is reverted by mistake). */
void applied_record_note(AppliedRecord *rec, BusProp p, uint64_t value, const char *dropin);
/* Whether the file at `dropin` is still the one recorded for p. */
bool applied_record_owns(const AppliedRecord *rec, BusProp p, const char *dropin);

/* The uids that have a record below root (SLICE_ROOT_UID for user.slice's), in directory order;
 * none when the directory is missing. *ret is malloc()ed. */
int applied_record_list(const char *root, uid_t **ret, size_t *ret_n);
/* Whether uid has a record at all: one stat, for a login that may have nothing to do. */
bool applied_record_exists(const char *root, uid_t uid);
