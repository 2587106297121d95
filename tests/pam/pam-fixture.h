/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the PAM-stack tests share: a scratch directory with a service directory for pam_wrapper,
 * a cgroup tree (allow_plain_tree) and a place outside it, the module's path, and runs of the PAM
 * stack in a fresh exec of the test binary (pam_wrapper reads the service directory once per
 * process), their pam_syslog lines (pam_wrapper's debug output on stderr) appended to log. */

#include <limits.h>
#include <stdbool.h>

typedef struct Fx {
        char *dir;
        char services[600], cgroot[600], conf[600], log[600], outside[600];
} Fx;

/* From main(): the binary to re-exec. Not /proc/self/exe: under valgrind that is valgrind's tool. */
void fx_set_self(const char *argv0);
const char *module_path(void);
/* cmocka setup and teardown: *state is a Fx; PAM_WRAPPER_SERVICE_DIR points at its services */
int fx_setup(void **state);
int fx_teardown(void **state);
/* The whole file (up to 64 KiB) in a static buffer; NULL if it cannot be opened. */
char *slurp(const char *path);
/* Whether rel exists below the cgroup tree (lstat: a link counts) */
bool exists(const Fx *f, const char *rel);
/* Runs this binary with args (NULL-terminated, after argv[0]), stderr appended to f->log; the
 * exit status, or 128 + the signal. */
int run_self(const Fx *f, const char *const args[]);

/* No child processes but run_self()'s: LD_PRELOAD carries pam_wrapper, whose start-up in every
 * child (a shell, find, rm) makes, and for dash leaks, a /tmp/pam.X directory that pam_wrapper's
 * stale-directory cleaning then races over with the PAM child's; a child that loses exits before
 * main. Read and remove files in this process (slurp, rm_rf). */
#pragma GCC poison popen system
