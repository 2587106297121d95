/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* conf-scale: what pam_cpuslice does with the config at every session open (conf_load +
 * user_lookup + rules_resolve), through the project's own static library, on one config file.
 *
 *   conf-scale CONF USER REPS
 *
 * Prints "median_ns min_ns peak_rss_kib rules matched": the median and minimum of REPS full
 * load+resolve runs, and the process's peak RSS (run one size per process). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "conf.h"
#include "diag.h"
#include "rules.h"
#include "user.h"

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
        ConfPaths paths = { .drop_in_dir = "", .run_dir = "" };
        size_t n_rules = 0;
        bool matched = false;
        uint64_t *t;
        struct rusage ru;
        long reps;

        if (argc != 4)
                return 64;
        paths.main_file = argv[1];
        reps = strtol(argv[3], NULL, 10);
        if (reps <= 0)
                return 64;
        t = calloc((size_t) reps, sizeof *t);
        if (!t)
                return 1;
        for (long i = 0; i < reps; i++) {
                RuleSet rs = {};
                DiagList diags = {};
                UserIdent u = {};
                Resolved res = {};
                uint64_t t0 = now_ns();
                int r;

                r = user_lookup(argv[2], &u);
                if (r >= 0)
                        r = conf_load(&rs, &paths, CONF_PERMS_ENFORCE, &diags);
                if (r >= 0)
                        r = rules_resolve(&rs, &u, &res);
                t[i] = now_ns() - t0;
                if (r < 0) {
                        fprintf(stderr, "conf-scale: %s: %s\n", argv[1], strerror(-r));
                        return 1;
                }
                if (diag_count(&diags, DIAG_ERROR) + diag_count(&diags, DIAG_WARNING) > 0)
                        fprintf(stderr, "conf-scale: %s: %zu diagnostics\n", argv[1], diags.n);
                n_rules = rs.n;
                matched = res.matched;
                ruleset_done(&rs);
                diag_list_done(&diags);
                user_done(&u);
        }
        qsort(t, (size_t) reps, sizeof *t, cmp_u64);
        getrusage(RUSAGE_SELF, &ru);
        printf("%" PRIu64 " %" PRIu64 " %ld %zu %d\n", t[reps / 2], t[0], ru.ru_maxrss, n_rules, matched);
        free(t);
        return 0;
}
