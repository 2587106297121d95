/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <time.h>



/* CLOCK_MONOTONIC in µs: deadlines and rates, never wall-clock time */
static inline uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000) + (uint64_t) ts.tv_nsec / 1000;
}

static inline uint64_t usec_deadline(uint64_t timeout_usec) {
        return now_usec() + timeout_usec;
}
