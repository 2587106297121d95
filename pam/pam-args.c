/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#include "pam-args.h"
#include "parse-util.h"

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

/* "5", "5s" or "500ms", 1 ms .. 60 s */
static int parse_timeout_ms(const char *v, uint64_t *ret) {
        char num[24];
        size_t n = strspn(v, "0123456789");
        uint64_t x, mult;

        if (n == 0 || n >= sizeof num)
                return -EINVAL;
        if (strcmp(v + n, "ms") == 0)
                mult = 1;
        else if (strcmp(v + n, "s") == 0 || v[n] == '\0')
                mult = 1000;
        else
                return -EINVAL;
        memcpy(num, v, n);
        num[n] = '\0';
        if (safe_atou64(num, &x) < 0 || x == 0 || x > 60000 || x * mult > 60000)
                return -ERANGE;
        *ret = x * mult;
        return 0;
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
                a->target.cgroup_root = v;
        else if ((v = value_of(arg, "parent")))
                a->target.parent = v;
        else if ((v = value_of(arg, "slice_root")))
                a->target.slice_root = v;
        else if ((v = value_of(arg, "bus_socket")))
                a->target.bus.socket = v;
        else if ((v = value_of(arg, "bus_root")))
                a->target.bus.root = v;
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
        else if (strcmp(arg, "allow_plain_tree") == 0) /* a plain directory tree for cgroupfs: the test suites */
                a->target.allow_plain_tree = true;
        else if ((v = value_of(arg, "cgroup_layout"))) {
                int k = strcmp(v, "auto") == 0 ? -1 : cgroup_layout_kind_from_string(v);
                if (k == -EINVAL)
                        bad_value(h, arg, "auto, unified, legacy, hybrid");
                else
                        a->target.layout = k;
        } else if ((v = value_of(arg, "timeout"))) {
                uint64_t ms;
                if (parse_timeout_ms(v, &ms) < 0)
                        bad_value(h, arg, "a time of 1ms..60s, e.g. 500ms or 5s");
                else
                        a->timeout_usec = ms * 1000;
        } else if ((v = value_of(arg, "max_scopes"))) {
                uint64_t n;
                if (safe_atou64(v, &n) < 0 || n > MAX_SCOPES_MAX)
                        bad_value(h, arg, "a number of 0..65536, 0 for no cap");
                else
                        a->max_scopes = (unsigned) n;
        } else if ((v = value_of(arg, "target_user"))) {
                if (strcmp(v, "yes") == 0)
                        a->target_user = true;
                else if (strcmp(v, "no") == 0)
                        a->target_user = false;
                else
                        bad_value(h, arg, "yes, no");
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
