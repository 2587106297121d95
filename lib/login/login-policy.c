/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "login-policy.h"

int login_config_load(RuleSet *rs, const ConfPaths *paths, DiagList *diags) {
        return conf_load(rs, paths, CONF_PERMS_ENFORCE, diags);
}

const char *login_skip_reason(const Resolved *res) {
        if (!res->matched)
                return "no config line matches";
        if (!res->slice)
                return "CPUSlice=no";
        return NULL;
}

bool login_gets_slice(const Resolved *res) {
        return !login_skip_reason(res);
}
