/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Time in µs: monotonic for deadlines, rates and waits; the wall clock only where it must be. */

#include <errno.h>
#include <stdint.h>
#include <time.h>

#define USEC_PER_SEC UINT64_C(1000000)
#define USEC_PER_MSEC UINT64_C(1000)
#define USEC_PER_MINUTE (60 * USEC_PER_SEC)
#define USEC_PER_HOUR (60 * USEC_PER_MINUTE)
#define USEC_PER_DAY (24 * USEC_PER_HOUR)

/* A time span, the one spelling of TIME in the config, the module's arguments and slicectl's
 * options: a decimal number with at most three decimals and, without a blank, a unit: us (usec),
 * ms (msec) or s (sec); a bare number is seconds, as in systemd. -EINVAL for anything else or for
 * a span finer than a microsecond, -ERANGE if it does not fit. The caller checks its own range. */
int parse_sec(const char *s, uint64_t *ret_usec);

static inline uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000) + (uint64_t) ts.tv_nsec / 1000;
}

/* Wall-clock µs: only for what must outlive a reboot (a penalty's end), never for a span. */
static inline uint64_t realtime_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000) + (uint64_t) ts.tv_nsec / 1000;
}

/* Monotonic, suspend included: for spans kept in files under /run, which a reboot empties. */
static inline uint64_t boottime_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_BOOTTIME, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000) + (uint64_t) ts.tv_nsec / 1000;
}

static inline uint64_t usec_deadline(uint64_t timeout_usec) {
        return now_usec() + timeout_usec;
}

/* The whole time, signals or not. */
static inline void sleep_usec(uint64_t usec) {
        struct timespec ts = { (time_t) (usec / UINT64_C(1000000)), (long) (usec % UINT64_C(1000000)) * 1000 };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* What is left until deadline, at least 1 µs: sd-bus reads a timeout of 0 as "its own default" */
static inline uint64_t usec_left(uint64_t deadline) {
        uint64_t now = now_usec();
        return deadline > now ? deadline - now : 1;
}
