/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "macro.h"
#include "penalty-state.h"
#include "test-util.h"

DEFINE_SCRATCH_FIXTURE(root)

static void path_of(const char *name, char *buf, size_t n) {
        snprintf(buf, n, "%s" PENALTY_STATE_DIR "/%s", root, name);
}

static void put_state(const char *name, const char *text) {
        char p[512];
        FILE *f;

        path_of(name, p, sizeof p);
        f = fopen(p, "we");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

static const PenaltyState capped = {
        .level = 2,
        .active = true,
        .since = UINT64_C(1800000000000000),
        .until = UINT64_C(1800003600000000),
        .clean_since = UINT64_C(1799990000000000),
        .cause_per_sec = 2345678,
};

static void test_round_trip(void **state) {
        PenaltyState s = { .level = 9 };
        char p[512], why[128] = "";
        mode_t old = umask(0777);
        struct stat st;

        /* nothing kept yet: the empty state, and no directory made for it */
        assert_int_equal(penalty_state_load(root, 1001, &s, why, sizeof why), 0);
        assert_int_equal(s.level, 0);
        assert_int_equal(penalty_state_save(root, 1001, &(PenaltyState) {}), 0);
        path_of("", p, sizeof p);
        assert_int_equal(access(p, F_OK), -1);

        assert_int_equal(penalty_state_save(root, 1001, &capped), 0);
        umask(old);
        path_of("1001", p, sizeof p);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_int_equal(penalty_state_load(root, 1001, &s, why, sizeof why), 0);
        assert_memory_equal(&s, &capped, sizeof s);

        /* lifted, level kept: still remembered */
        s.active = false;
        assert_int_equal(penalty_state_save(root, 1001, &s), 0);
        assert_int_equal(penalty_state_load(root, 1001, &s, why, sizeof why), 0);
        assert_false(s.active);
        assert_int_equal(s.level, 2);
        /* all forgiven: the file goes */
        assert_int_equal(penalty_state_save(root, 1001, &(PenaltyState) { .clean_since = 5 }), 0);
        assert_int_equal(access(p, F_OK), -1);
        assert_int_equal(penalty_state_save(root, 1001, &capped), 0);
        assert_int_equal(penalty_state_remove(root, 1001), 0);
        assert_int_equal(access(p, F_OK), -1);
}

static void test_refused(void **state) {
        static const char *const bad[] = {
                "",                                                                       /* every key missing */
                "level 1\nactive 1\nsince 1\nuntil 2\nclean_since 0\n",                   /* cause missing */
                "level 1\nactive 1\nsince 1\nuntil 2\nclean_since 0\ncause 3\nlevel 1\n", /* repeated */
                "level 1\nactive 1\nsince 1\nuntil 2\nclean_since 0\ncause 3\nowner 0\n", /* unknown */
                "level one\nactive 1\nsince 1\nuntil 2\nclean_since 0\ncause 3\n",        /* not a number */
                "level -1\nactive 1\nsince 1\nuntil 2\nclean_since 0\ncause 3\n",
                "level 1\nactive 2\nsince 1\nuntil 2\nclean_since 0\ncause 3\n", /* active is 0 or 1 */
                "level 0\nactive 1\nsince 1\nuntil 2\nclean_since 0\ncause 3\n", /* capped at no level */
                "level 1\nactive 1\nsince 5\nuntil 2\nclean_since 0\ncause 3\n", /* ends before it starts */
                "level 4294967296\nactive 0\nsince 1\nuntil 2\nclean_since 0\ncause 3\n",
                "level 1 active 1\n",
                "level 1\nactive 1\nsince 1\nuntil 2\nclean_since 0\ncause 3", /* truncated: still whole */
        };
        PenaltyState s;
        char p[512], why[128];

        assert_int_equal(penalty_state_save(root, 1001, &capped), 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                put_state("1001", bad[i]);
                why[0] = '\0';
                s = capped;
                int r = penalty_state_load(root, 1001, &s, why, sizeof why);
                if (i == ELEMENTSOF(bad) - 1) { /* no final newline is still a whole state */
                        assert_int_equal(r, 0);
                        continue;
                }
                if (r != -EBADMSG)
                        fail_msg("case %zu: got %d", i, r);
                assert_string_equal(why, "does not parse as a penalty state");
                assert_int_equal(s.level, 0); /* nothing half-read handed out */
        }

        /* a file others may write: -EPERM and why, never "no penalty" */
        assert_int_equal(penalty_state_save(root, 1002, &capped), 0);
        path_of("1002", p, sizeof p);
        assert_int_equal(chmod(p, 0664), 0);
        assert_int_equal(penalty_state_load(root, 1002, &s, why, sizeof why), -EPERM);
        assert_string_equal(why, "writable by its group or others (mode 0664)");
}

static void test_list(void **state) {
        _cleanup_free_ uid_t *uids = NULL;
        size_t n = 7;
        uid_t sum = 0;

        assert_int_equal(penalty_state_list(root, &uids, &n), 0);
        assert_int_equal(n, 0);
        assert_int_equal(penalty_state_save(root, 1001, &capped), 0);
        assert_int_equal(penalty_state_save(root, 0, &capped), 0);
        assert_int_equal(penalty_state_save(root, 4294967294u, &capped), 0);
        put_state("01001", "x");      /* not how a uid is written */
        put_state("4294967295", "x"); /* (uid_t) -1 */
        put_state(".1001.ABCDEF", "x");
        assert_int_equal(penalty_state_list(root, &uids, &n), 0);
        assert_int_equal(n, 3);
        for (size_t i = 0; i < n; i++)
                sum += uids[i] == 4294967294u ? 1 : uids[i];
        assert_int_equal(sum, 1002);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
                cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_list, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
