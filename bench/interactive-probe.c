/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* interactive-probe WARM_S DUR_S OUT: the wake-up probe of bench/run interactive, after cyclictest's
 * non-RT mode. SCHED_OTHER, timer slack 1 ns; each iteration sleeps 10 ms (relative
 * clock_nanosleep) and records how late it woke: (woke - went to sleep) - 10 ms. Samples of the
 * first WARM_S seconds are dropped; after WARM_S + DUR_S it writes one lateness per line (µs, one
 * decimal) to OUT and exits. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#define INTERVAL_NS 10000000LL

static int64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
        if (argc != 4) {
                fprintf(stderr, "usage: interactive-probe WARM_S DUR_S OUT\n");
                return 64;
        }
        double warm = atof(argv[1]), dur = atof(argv[2]);
        size_t cap = (size_t) (dur * 1e9 / INTERVAL_NS) + 16, n = 0;
        int32_t *lat = malloc(cap * sizeof *lat); /* in 0.1 µs */
        if (!lat)
                return 1;
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

        int64_t start = now_ns(), rec = start + (int64_t) (warm * 1e9), end = rec + (int64_t) (dur * 1e9);
        const struct timespec iv = { 0, INTERVAL_NS };
        for (;;) {
                int64_t t0 = now_ns();
                if (t0 >= end)
                        break;
                while (clock_nanosleep(CLOCK_MONOTONIC, 0, &iv, NULL) == EINTR)
                        ;
                int64_t late = now_ns() - t0 - INTERVAL_NS;
                if (t0 >= rec && n < cap)
                        lat[n++] = (int32_t) ((late > 2000000000LL ? 2000000000LL : late) / 100);
        }

        FILE *f = fopen(argv[3], "w");
        if (!f) {
                perror(argv[3]);
                return 1;
        }
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%d.%d\n", lat[i] / 10, lat[i] % 10);
        return fclose(f) == 0 ? 0 : 1;
}
