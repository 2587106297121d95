/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What pam_cpuslice does at a login, as one decision the module and slicectl share:
 *
 *   - the config is read with the module's checks (CONF_PERMS_ENFORCE); if any file or directory
 *     is refused or unreadable, every login is left alone (no slice, one log line), so slicectl
 *     must not act on the rest either;
 *   - a user gets a slice only if some line matches (root only through lines naming it) and
 *     CPUSlice= is not no. */

#include <stdbool.h>

#include "conf.h"
#include "rules.h"

/* conf_load() as a login calls it. 0: logins use these rules. <0: -ENOMEM, or a file was refused
 * (described in diags) and logins get no slice until it is fixed. */
int login_config_load(RuleSet *rs, const ConfPaths *paths, DiagList *diags);
/* Whether a login of the user res was resolved for gets a slice. */
bool login_gets_slice(const Resolved *res);
/* Why not, in a few words ("no config line matches", "CPUSlice=no"); NULL when it does. */
const char *login_skip_reason(const Resolved *res);
