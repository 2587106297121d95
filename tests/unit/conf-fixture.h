/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A scratch config tree for the tests of conf and login-policy: cpuslice.conf, cpuslice.d/ and
 * run.d/ in a fresh directory, the RuleSet and DiagList a load fills, and the i-th diagnostic as
 * the edges print it. One fixture per test (conf_fx_setup / conf_fx_teardown). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "conf.h"
#include "diag.h"
#include "test-util.h"

typedef struct Fx {
        char *dir;
        char main[512], dropin[512], run[512];
        ConfPaths paths;
        RuleSet rs;
        DiagList d;
} Fx;

static inline int conf_fx_setup(void **state) {
        Fx *f = calloc(1, sizeof *f);

        if (!f)
                return -1;
        umask(022);
        f->dir = scratch_dir();
        if (!f->dir)
                return -1;
        snprintf(f->main, sizeof f->main, "%s/cpuslice.conf", f->dir);
        snprintf(f->dropin, sizeof f->dropin, "%s/cpuslice.d", f->dir);
        snprintf(f->run, sizeof f->run, "%s/run.d", f->dir);
        if (mkdir(f->dropin, 0755) < 0 || mkdir(f->run, 0755) < 0)
                return -1;
        f->paths = (ConfPaths) { f->main, f->dropin, f->run };
        *state = f;
        return 0;
}

static inline int conf_fx_teardown(void **state) {
        Fx *f = *state;

        rm_rf(f->dir);
        free(f->dir);
        ruleset_done(&f->rs);
        diag_list_done(&f->d);
        free(f);
        return 0;
}

static inline const char *conf_fx_msg(Fx *f, size_t i) {
        static char buf[1024];

        assert_true(i < f->d.n);
        return diag_format(&f->d.items[i], buf, sizeof buf);
}
