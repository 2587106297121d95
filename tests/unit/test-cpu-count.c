/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "cpu-count.h"

static void test_list(void **state) {
        static const struct {
                const char *text;
                int r;
                unsigned n;
        } cases[] = {
                { "0\n", 0, 1 },       { "0-3\n", 0, 4 },       { "0-3,8,10-11\n", 0, 7 }, { "0-127", 0, 128 },
                { "5", 0, 1 },         { "", -EINVAL, 0 },      { "\n", -EINVAL, 0 },      { "3-1", -EINVAL, 0 },
                { "0-", -EINVAL, 0 },  { "a", -EINVAL, 0 },     { "0,,1", -EINVAL, 0 },    { "-1", -EINVAL, 0 },
                { "0 1", -EINVAL, 0 }, { "99999", -EINVAL, 0 }, { "0-3,", 0, 4 },
        };

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                unsigned n = 0;
                int r = cpu_list_count(cases[i].text, &n);

                if (r != cases[i].r || (r == 0 && n != cases[i].n))
                        fail_msg("'%s': %d, %u CPUs", cases[i].text, r, n);
        }
}

/* The host's own: as many as glibc counts online. */
static void test_online(void **state) {
        unsigned n = 0;

        if (access("/sys/devices/system/cpu/online", R_OK) < 0)
                skip();
        assert_int_equal(cpus_online(&n), 0);
        assert_int_equal(n, (unsigned) sysconf(_SC_NPROCESSORS_ONLN));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_list),
                cmocka_unit_test(test_online),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
