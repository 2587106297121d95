/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#include "escape.h"
#include "macro.h"
#include "pam-args.h"
#include "parse-util.h"
#include "time-util.h"

/* cgroup.max.descendants is unlimited by default; a cap above this guards nothing */
#define MAX_SCOPES_MAX 65536

static const char *value_of(const char *arg, const char *key) {
        size_t n = strlen(key);
        return strncmp(arg, key, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

static void bad_value(pam_handle_t *h, const char *arg, const char *allowed) {
        char esc[256];
        pam_syslog(h, LOG_ERR, "bad argument '%s' (allowed: %s); ignored", escape_for_log(arg, 128, esc, sizeof esc),
                   allowed);
}

/* The arguments that name a file, directory or cgroup: taken as they are, checked where used. */
static const struct {
        const char *key;
        size_t offset;
} path_args[] = {
        { "conf", offsetof(ModuleArgs, conf.main_file) },
        { "confdir", offsetof(ModuleArgs, conf.drop_in_dir) },
        { "rundir", offsetof(ModuleArgs, conf.run_dir) },
        { "cgroup_root", offsetof(ModuleArgs, target.cgroup_root) },
        { "parent", offsetof(ModuleArgs, target.parent) },
        { "slice_root", offsetof(ModuleArgs, target.slice_root) },
        { "bus_socket", offsetof(ModuleArgs, target.bus.socket) },
        { "bus_root", offsetof(ModuleArgs, target.bus.root) },
        { "state_root", offsetof(ModuleArgs, state_root) },
};

static bool parse_path_arg(const char *arg, ModuleArgs *a) {
        for (size_t i = 0; i < ELEMENTSOF(path_args); i++) {
                const char *v = value_of(arg, path_args[i].key);

                if (v) {
                        *(const char **) (void *) ((char *) a + path_args[i].offset) = v;
                        return true;
                }
        }
        return false;
}

static void parse_one(pam_handle_t *h, const char *arg, ModuleArgs *a) {
        const char *v;
        char esc[256];

        if (parse_path_arg(arg, a))
                return;
        if (strcmp(arg, "strict") == 0)
                a->strict = true;
        else if (strcmp(arg, "debug") == 0)
                a->debug = true;
        else if (strcmp(arg, "allow_plain_tree") == 0) /* a plain directory tree for cgroupfs: the test suites */
                a->target.allow_plain_tree = true;
        else if ((v = value_of(arg, "cgroup_layout"))) {
                int k = strcmp(v, "auto") == 0 ? -1 : cgroup_layout_kind_from_string(v);
                if (k == -EINVAL)
                        bad_value(h, arg, "auto, unified, legacy, hybrid");
                else
                        a->target.layout = k;
        } else if ((v = value_of(arg, "timeout"))) {
                uint64_t usec;
                if (parse_sec(v, &usec) < 0 || usec < USEC_PER_MSEC || usec > 60 * USEC_PER_SEC)
                        bad_value(h, arg, "a time of 1ms..60s, e.g. 500ms or 5s");
                else
                        a->timeout_usec = usec;
        } else if ((v = value_of(arg, "max_scopes"))) {
                uint64_t n;
                if (safe_atou64(v, &n) < 0 || n > MAX_SCOPES_MAX)
                        bad_value(h, arg, "a number of 0..65536, 0 for no cap");
                else
                        a->max_scopes = (unsigned) n;
        } else if ((v = value_of(arg, "target_user"))) {
                int b = parse_boolean(v);
                if (b < 0)
                        bad_value(h, arg, "yes, no");
                else
                        a->target_user = b;
        } else if ((v = value_of(arg, "backend"))) {
                int b = slice_backend_from_string(v);
                if (b < 0)
                        bad_value(h, arg, "auto, cgroupfs, systemd");
                else
                        a->target.backend = b;
        } else
                pam_syslog(h, LOG_ERR, "unknown argument '%s'; ignored", escape_for_log(arg, 128, esc, sizeof esc));
}

void module_args_parse(pam_handle_t *h, int argc, const char **argv, ModuleArgs *ret) {
        ModuleArgs a = {
                .target = { .backend = SLICE_BACKEND_AUTO, .layout = -1 },
                .timeout_usec = BUS_TIMEOUT_DEFAULT_USEC,
                .max_scopes = CGFS_MAX_SCOPES_DEFAULT,
                .target_user = true,
        };

        for (int i = 0; i < argc; i++)
                parse_one(h, argv[i], &a);
        conf_paths_fill_defaults(&a.conf);
        *ret = a;
}
