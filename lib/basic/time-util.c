/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "parse-util.h"
#include "time-util.h"

static const struct {
        const char *suffix;
        uint64_t usec;
} time_units[] = {
        { "us", 1 },
        { "usec", 1 },
        { "ms", USEC_PER_MSEC },
        { "msec", USEC_PER_MSEC },
        { "s", USEC_PER_SEC },
        { "sec", USEC_PER_SEC },
        { "", USEC_PER_SEC },
        /* systemd's too, for spans of minutes and hours (PenaltyTime=30min,1h) */
        { "m", USEC_PER_MINUTE },
        { "min", USEC_PER_MINUTE },
        { "h", USEC_PER_HOUR },
        { "hr", USEC_PER_HOUR },
        { "d", USEC_PER_DAY },
};

int parse_sec(const char *s, uint64_t *ret_usec) {
        uint64_t thousandths, usec;
        size_t digits;
        char num[32];
        int r;

        if (!s)
                return -EINVAL;
        digits = strspn(s, "0123456789.");
        if (digits == 0 || digits >= sizeof num)
                return -EINVAL;
        memcpy(num, s, digits);
        num[digits] = '\0';
        r = parse_fixed_point(num, 3, &thousandths);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(time_units); i++) {
                if (strcmp(s + digits, time_units[i].suffix) != 0)
                        continue;
                if (thousandths > UINT64_MAX / time_units[i].usec)
                        return -ERANGE;
                usec = thousandths * time_units[i].usec;
                if (usec % 1000 != 0)
                        return -EINVAL; /* a fraction of a microsecond: a typo, not a time */
                *ret_usec = usec / 1000;
                return 0;
        }
        return -EINVAL;
}
