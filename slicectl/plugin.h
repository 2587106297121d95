/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* slicectl's way to the systemd backend: the module's plugin (systemd-plugin.h), dlopen()ed the
 * first time a verb needs it, so that the verbs that never talk to systemd (list, penalty run
 * with nothing to decide, --version) do not load libsystemd. */

#include "error.h"
#include "systemd-plugin.h"

/* The plugin of this slicectl: the build tree's when this is the build tree's slicectl (the path
 * of /proc/self/exe compared exactly with the one meson built), else the installed one beside
 * the PAM module. Never a path from the environment: slicectl runs as root through sudo rules.
 * Loaded once, kept until exit. */
int slicectl_plugin(const SystemdPlugin **ret, CsError *e);
