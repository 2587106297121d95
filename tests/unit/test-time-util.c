/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "time-util.h"

/* TIME as cpuslice.conf(5) (CPUQuotaPeriodSec=), pam_cpuslice(8) (timeout=) and slicectl(1)
 * (--interval, --delay) document it; each caller checks its own range on top. */
static void test_parse_sec(void **state) {
        static const struct {
                const char *in;
                int r;
                uint64_t usec;
        } cases[] = {
                { "5", 0, 5 * USEC_PER_SEC }, /* a bare number is seconds, as systemd */
                { "5s", 0, 5 * USEC_PER_SEC },
                { "5sec", 0, 5 * USEC_PER_SEC },
                { "500ms", 0, 500 * USEC_PER_MSEC },
                { "500msec", 0, 500 * USEC_PER_MSEC },
                { "500000us", 0, 500000 },
                { "7usec", 0, 7 },
                { "0.05s", 0, 50 * USEC_PER_MSEC },
                { "1.5", 0, 1500 * USEC_PER_MSEC },
                { "2.5ms", 0, 2500 },
                { "0", 0, 0 },
                { "0.001", 0, 1000 },
                { "1.5us", -EINVAL, 0 },   /* finer than a microsecond */
                { "0.0005s", -EINVAL, 0 }, /* four decimals */
                { "", -EINVAL, 0 },
                { "s", -EINVAL, 0 },
                { "ms", -EINVAL, 0 },
                { "5 s", -EINVAL, 0 }, /* no blank before the unit */
                { " 5s", -EINVAL, 0 },
                { "5m", 0, 5 * USEC_PER_MINUTE }, /* systemd's minutes, hours and days */
                { "5min", 0, 5 * USEC_PER_MINUTE },
                { "1.5h", 0, 90 * USEC_PER_MINUTE },
                { "2hr", 0, 2 * USEC_PER_HOUR },
                { "1d", 0, USEC_PER_DAY },
                { "5mins", -EINVAL, 0 },
                { "5M", -EINVAL, 0 },
                { "5S", -EINVAL, 0 },
                { "-5s", -EINVAL, 0 },
                { "1.s", -EINVAL, 0 },
                { ".5s", -EINVAL, 0 },
                { "1..5s", -EINVAL, 0 },
                { "soon", -EINVAL, 0 },
                { "18446744073709551615s", -ERANGE, 0 },
                { "18446744073709551616", -ERANGE, 0 },
                { "1234567890123456789012345678901234567890", -EINVAL, 0 }, /* longer than any number */
        };

        (void) state;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                uint64_t v = 4242;
                int r = parse_sec(cases[i].in, &v);

                if (r != cases[i].r)
                        fail_msg("'%s': %d, expected %d", cases[i].in, r, cases[i].r);
                assert_int_equal(v, r == 0 ? cases[i].usec : 4242); /* set only on success */
        }
        assert_int_equal(parse_sec(NULL, &(uint64_t) { 0 }), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_sec),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
