/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "format.h"
#include "time-util.h"

const char *format_usec(uint64_t usec, char buf[static FORMAT_MAX]) {
        if (usec < 1000)
                snprintf(buf, FORMAT_MAX, "%" PRIu64 " us", usec);
        else if (usec < 1000000 && usec % 1000 == 0)
                snprintf(buf, FORMAT_MAX, "%" PRIu64 " ms", usec / 1000);
        else if (usec < 1000000)
                snprintf(buf, FORMAT_MAX, "%.1f ms", (double) usec / 1e3);
        else if (usec < 60 * UINT64_C(1000000) && usec % 1000000 == 0)
                snprintf(buf, FORMAT_MAX, "%" PRIu64 " s", usec / 1000000);
        else if (usec < 60 * UINT64_C(1000000))
                snprintf(buf, FORMAT_MAX, "%.1f s", (double) usec / 1e6);
        else if (usec < 3600 * UINT64_C(1000000))
                snprintf(buf, FORMAT_MAX, "%" PRIu64 " min %" PRIu64 " s", usec / 60000000, usec / 1000000 % 60);
        else
                snprintf(buf, FORMAT_MAX, "%" PRIu64 " h %" PRIu64 " min", usec / 3600000000, usec / 60000000 % 60);
        return buf;
}

/* One decimal always, as the CPU% column: a column of "120 %" and "80.0 %" reads as two units */
const char *format_percent(double pct, char buf[static FORMAT_MAX]) {
        snprintf(buf, FORMAT_MAX, "%.1f %%", pct);
        return buf;
}

const char *format_walltime(uint64_t usec, char buf[static FORMAT_MAX]) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;

        if (usec == 0 || !localtime_r(&t, &tm) || strftime(buf, FORMAT_MAX, "%Y-%m-%d %H:%M:%S", &tm) == 0)
                return "-";
        return buf;
}
