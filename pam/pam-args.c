/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#include "pam-args.h"
#include "parse-util.h"

static const char *value_of(const char *arg, const char *key) {
        size_t n = strlen(key);
        return strncmp(arg, key, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

static void bad_value(pam_handle_t *h, const char *arg, const char *allowed) {
        char esc[256];
        pam_syslog(h, LOG_ERR, "bad argument '%s' (allowed: %s); ignored", escape_for_log(arg, 128, esc, sizeof esc),
                   allowed);
}

static bool parse_path_arg(const char *arg, ModuleArgs *a) {
        const char *v;

        if ((v = value_of(arg, "conf")))
                a->conf.main_file = v;
        else if ((v = value_of(arg, "confdir")))
                a->conf.drop_in_dir = v;
        else if ((v = value_of(arg, "rundir")))
                a->conf.run_dir = v;
        else if ((v = value_of(arg, "cgroup_root")))
                a->cgroup_root = v;
        else if ((v = value_of(arg, "parent")))
                a->parent = v;
        else
                return false;
        return true;
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
        else if (strcmp(arg, "test_tree") == 0)
                a->test_tree = true;
        else if ((v = value_of(arg, "cgroup_layout"))) {
                int k = strcmp(v, "auto") == 0 ? -1 : cgroup_layout_kind_from_string(v);
                if (k == -EINVAL)
                        bad_value(h, arg, "auto, unified, legacy, hybrid");
                else
                        a->layout = k;
        } else if ((v = value_of(arg, "backend"))) {
                if (strcmp(v, "auto") == 0)
                        a->backend = BACKEND_AUTO;
                else if (strcmp(v, "cgroupfs") == 0)
                        a->backend = BACKEND_CGROUPFS;
                else if (strcmp(v, "systemd") == 0)
                        a->backend = BACKEND_SYSTEMD;
                else
                        bad_value(h, arg, "auto, cgroupfs, systemd");
        } else
                pam_syslog(h, LOG_ERR, "unknown argument '%s'; ignored", escape_for_log(arg, 128, esc, sizeof esc));
}

void module_args_parse(pam_handle_t *h, int argc, const char **argv, ModuleArgs *ret) {
        ModuleArgs a = {
                .cgroup_root = "/sys/fs/cgroup",
                .parent = "",
                .layout = -1,
                .backend = BACKEND_AUTO,
        };

        for (int i = 0; i < argc; i++)
                parse_one(h, argv[i], &a);
        conf_paths_fill_defaults(&a.conf);
        *ret = a;
}
