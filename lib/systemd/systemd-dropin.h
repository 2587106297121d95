/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* systemd's own files for a user slice, read without libsystemd: the drop-in file each CPU
 * property lands in when it is set over D-Bus (SetUnitProperties writes 50-NAME.conf under
 * /run/systemd/system.control when runtime, /etc/systemd/system.control when not), and the value
 * a list of unit files and drop-ins gives a property, in systemd's order (the last assignment
 * wins, an empty one resets). That is what the module returns a property to when the config
 * stops giving it, instead of systemd's default. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum BusProp {
        BUS_PROP_WEIGHT,
        BUS_PROP_QUOTA,
        BUS_PROP_PERIOD,
        _BUS_PROP_MAX,
} BusProp;

#define BUS_PROP_ALL ((1u << _BUS_PROP_MAX) - 1)
/* the D-Bus value that means "not set" for each of the three */
#define BUS_PROP_UNSET UINT64_MAX

#define SYSTEMD_CONTROL_PERSISTENT "/etc/systemd/system.control"
#define SYSTEMD_CONTROL_RUNTIME "/run/systemd/system.control"

const char *bus_prop_name_to_string(BusProp p); /* "CPUQuotaPerSecUSec": the D-Bus property */
const char *bus_prop_key_to_string(BusProp p);  /* "CPUQuota": the unit file key and drop-in name */
int bus_prop_key_from_string(const char *s);    /* -EINVAL if unknown */

/* ROOT/{etc,run}/systemd/system.control/user-UID.slice.d/50-KEY.conf; root NULL or "" for "/". */
int control_dropin_path(const char *root, bool runtime, uid_t uid, BusProp p, char *buf, size_t n);

/* The value unit files and drop-ins give p, read in the order given (systemd's DropInPaths order,
 * the fragment first), leaving out `skip` (NULL: none). *ret is BUS_PROP_UNSET when none sets it
 * or the last assignment is empty. A file that cannot be read is an error: guessing would put a
 * wrong limit on a user. */
int dropin_files_value(char *const *paths, size_t n, const char *skip, BusProp p, uint64_t *ret);

/* One file's assignments to p, applied to *value in order. */
int dropin_buffer_value(const char *buf, BusProp p, uint64_t *value);
