/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>

#include "slice-name.h"

void slice_name(uid_t uid, char buf[static SLICE_NAME_MAX]) {
        snprintf(buf, SLICE_NAME_MAX, "user-%" PRIu32 ".slice", (uint32_t) uid);
}
