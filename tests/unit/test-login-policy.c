/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* login-policy: the config loaded as a login loads it (a refused file is an error, where slicectl's
 * check only warns), and who gets a slice: some line matches (root only through lines naming it)
 * and CPUSlice= is not no. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "login-policy.h"
#include "conf-fixture.h"

/* the decision for one user under the loaded rules: NULL (gets a slice) or the reason not */
static const char *decide(Fx *f, const char *name, uid_t uid, const char *const *groups, Resolved *ret) {
        UserIdent u = { .name = strdup(name), .uid = uid, .gid = uid };
        Resolved res;

        assert_non_null(u.name);
        assert_int_equal(user_set_groups(&u, groups), 0);
        assert_int_equal(rules_resolve(&f->rs, &u, &res), 0);
        user_done(&u);
        assert_int_equal(login_gets_slice(&res), login_skip_reason(&res) == NULL);
        if (ret)
                *ret = res;
        return login_skip_reason(&res);
}

#define GROUPS(...) ((const char *const[]) { __VA_ARGS__, NULL })

static void test_skip_reason(void **state) {
        Resolved none = { .matched = false, .slice = true }, no = { .matched = true, .slice = false },
                 yes = { .matched = true, .slice = true }, both = { .matched = false, .slice = false };

        (void) state;
        assert_string_equal(login_skip_reason(&none), "no config line matches");
        assert_false(login_gets_slice(&none));
        assert_string_equal(login_skip_reason(&no), "CPUSlice=no");
        assert_false(login_gets_slice(&no));
        assert_null(login_skip_reason(&yes));
        assert_true(login_gets_slice(&yes));
        /* no line matched says more than the default slice=false would */
        assert_string_equal(login_skip_reason(&both), "no config line matches");
}

static void test_decisions(void **state) {
        Fx *f = *state;
        Resolved res;

        REQUIRE_ROOT(); /* the files must be root's for a login to read them */
        assert_int_equal(write_file(f->dir, "cpuslice.conf",
                                    "* CPUWeight=100\n"
                                    "@staff CPUWeight=300\n"
                                    "alice CPUSlice=no\n"
                                    "2000:2999 CPUQuota=50%\n",
                                    0644),
                         0);
        assert_int_equal(write_file(f->dropin, "10-root.conf", "0 CPUWeight=50\n", 0644), 0);
        assert_int_equal(login_config_load(&f->rs, &f->paths, &f->d), 0);
        assert_int_equal(f->d.n, 0);
        assert_int_equal(f->rs.n, 5);

        assert_string_equal(decide(f, "alice", 1001, GROUPS("alice", "staff"), &res), "CPUSlice=no");
        assert_true(res.matched);
        assert_null(decide(f, "bob", 1002, GROUPS("bob", "students"), &res));
        assert_int_equal(res.limits.weight, 100);
        assert_null(decide(f, "erin", 2500, GROUPS("erin", "staff"), &res));
        assert_int_equal(res.limits.weight, 300);
        assert_int_equal(res.limits.quota_per_sec, 500000);
        /* root: only through the line that names it, not through * */
        assert_null(decide(f, "root", 0, GROUPS("root"), &res));
        assert_int_equal(res.limits.weight, 50);
        assert_ptr_equal(res.source[SETTING_WEIGHT], &f->rs.rules[4]);

        /* without that line root is left alone; and with no * line, so is everyone unnamed */
        ruleset_done(&f->rs);
        f->rs = (RuleSet) {};
        assert_int_equal(write_file(f->dropin, "10-root.conf", "# nothing for root\n", 0644), 0);
        assert_int_equal(write_file(f->dir, "cpuslice.conf", "@staff CPUWeight=300\n", 0644), 0);
        assert_int_equal(login_config_load(&f->rs, &f->paths, &f->d), 0);
        assert_string_equal(decide(f, "root", 0, GROUPS("root", "staff"), &res), "no config line matches");
        assert_false(res.matched);
        assert_string_equal(decide(f, "bob", 1002, GROUPS("bob"), NULL), "no config line matches");
        assert_null(decide(f, "erin", 2500, GROUPS("erin", "staff"), NULL));
}

/* No config at all: loading succeeds, and no one gets a slice. */
static void test_no_config(void **state) {
        Fx *f = *state;
        ConfPaths p = { "/nonexistent/cpuslice.conf", "/nonexistent/d", "/nonexistent/r" };

        assert_int_equal(login_config_load(&f->rs, &p, &f->d), 0);
        assert_int_equal(f->rs.n, 0);
        assert_int_equal(f->d.n, 0);
        assert_string_equal(decide(f, "alice", 1001, GROUPS("alice"), NULL), "no config line matches");
}

/* A file a login may not trust is an error for the login (every login is left alone), where
 * slicectl's check of the same files only warns. */
static void test_refused_file(void **state) {
        Fx *f = *state;
        RuleSet warn_rs = {};
        DiagList warn_d = {};
        bool root = geteuid() == 0;
        char path[600];

        assert_int_equal(write_file(f->dir, "cpuslice.conf", "* CPUWeight=100\n", 0644), 0);
        assert_int_equal(write_file(f->dropin, "50-x.conf", "alice CPUWeight=900\n", 0664), 0);
        snprintf(path, sizeof path, "%s/50-x.conf", f->dropin);
        assert_int_equal(login_config_load(&f->rs, &f->paths, &f->d), -EPERM);
        assert_int_equal(diag_count(&f->d, DIAG_ERROR), f->d.n);
        assert_non_null(
                strstr(conf_fx_msg(f, f->d.n - 1), "50-x.conf: file is writable by its group (mode 0664); refused"));
        /* the refused file's line was not read */
        for (size_t i = 0; i < f->rs.n; i++)
                assert_int_not_equal(f->rs.rules[i].weight, 900);

        assert_int_equal(conf_load(&warn_rs, &f->paths, CONF_PERMS_WARN, &warn_d), 0);
        assert_int_equal(diag_count(&warn_d, DIAG_ERROR), 0);
        assert_true(diag_count(&warn_d, DIAG_WARNING) >= 1);
        assert_int_equal(warn_rs.n, 2);
        if (root)
                assert_int_equal(warn_d.n, 1);
        ruleset_done(&warn_rs);
        diag_list_done(&warn_d);

        /* the drop-in fixed, a run-time directory (slicectl's) anyone may write to is refused the same */
        assert_int_equal(chmod(f->run, 0777), 0);
        assert_int_equal(chmod(path, 0644), 0);
        ruleset_done(&f->rs);
        diag_list_done(&f->d);
        f->rs = (RuleSet) {};
        assert_int_equal(login_config_load(&f->rs, &f->paths, &f->d), -EPERM);
        assert_non_null(
                strstr(conf_fx_msg(f, f->d.n - 1), "run.d: directory is writable by others (mode 0777); refused"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_skip_reason),
                cmocka_unit_test_setup_teardown(test_decisions, conf_fx_setup, conf_fx_teardown),
                cmocka_unit_test_setup_teardown(test_no_config, conf_fx_setup, conf_fx_teardown),
                cmocka_unit_test_setup_teardown(test_refused_file, conf_fx_setup, conf_fx_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
