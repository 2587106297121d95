/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* cpuslice.conf(5): which files are read, in which order, refused unless root-owned; each one's
 * lines go to conf-parse.h. The loading path reads one way: conf_load() -> conf_parse_buffer()
 * -> the RuleSet of rules.h. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "diag.h"
#include "rules.h"
#include "strv.h"

#define CONF_MAIN_FILE "/etc/security/cpuslice.conf"
#define CONF_DROP_IN_DIR "/etc/security/cpuslice.d"
#define CONF_RUN_DIR "/run/cpuslice.d"

#define CONF_FILE_MAX (16u * 1024 * 1024)

typedef struct ConfPaths {
        const char *main_file; /* NULL: the default; "" : none */
        const char *drop_in_dir;
        const char *run_dir;
} ConfPaths;

typedef enum ConfPermMode {
        CONF_PERMS_ENFORCE, /* what the module does: unsafe files are refused */
        CONF_PERMS_WARN,    /* slicectl check FILE: files in a git checkout are not root's */
} ConfPermMode;

/* The ownership and mode rule for a config file or its directory: owned by root, writable by no
 * one else. ENFORCE: -EPERM if broken (the reason in diags); WARN: only the warning. */
int conf_check_stat(const char *path, const struct stat *st, ConfPermMode mode, DiagList *diags);
/* Reads one file with the ownership/mode/size checks; -ENOENT if missing; <0 if refused (also
 * recorded in diags). */
int conf_load_file(RuleSet *rs, const char *path, ConfPermMode mode, DiagList *diags);
/* The *.conf names of a drop-in directory in C-locale order, after its safety checks: a strv
 * (strv.h), with its length in *ret_n. */
int conf_list_dir(const char *dir, ConfPermMode mode, char ***ret_paths, size_t *ret_n, DiagList *diags);
/* All files, in order: main, drop-ins, runtime. Missing ones are fine; returns the first refusal
 * (<0) but still reads everything else so every problem is reported. */
int conf_load(RuleSet *rs, const ConfPaths *paths, ConfPermMode mode, DiagList *diags);
void conf_paths_fill_defaults(ConfPaths *p);
