/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* domain_parse: the first field of a line. Accepted names carry nothing the syntax uses; a
 * rejection always says why. */
#include <errno.h>

#include "domain.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_strndup(data, size);
        const char *why = NULL;
        Domain d = {};
        int r;

        r = domain_parse(s, &d, &why);
        if (r < 0) {
                FUZZ_CHECK(r == -ENOMEM || (why && *why));
        } else {
                switch (d.type) {
                case DOMAIN_ALL:
                        FUZZ_CHECK(strcmp(s, "*") == 0);
                        break;
                case DOMAIN_SLICES:
                        FUZZ_CHECK(strcmp(s, "user.slice") == 0 && !d.name);
                        break;
                case DOMAIN_USER:
                case DOMAIN_GROUP:
                        FUZZ_CHECK(d.name && strcspn(d.name, " \t\n:#=*") == strlen(d.name));
                        FUZZ_CHECK(strlen(d.name) <= DOMAIN_NAME_MAX);
                        FUZZ_CHECK(strcmp(d.name, s + (d.type == DOMAIN_GROUP)) == 0);
                        break;
                case DOMAIN_UID:
                        FUZZ_CHECK(d.uid_min == d.uid_max && d.uid_max < UINT32_MAX && !d.name);
                        break;
                case DOMAIN_UID_RANGE:
                        /* an explicit upper end of 4294967295 is accepted; (uid_t) -1 is never a
                         * user, so it matches nothing ":4294967294" would not */
                        FUZZ_CHECK(d.uid_min <= d.uid_max && !d.name);
                        break;
                }
                FUZZ_CHECK(domain_specificity(&d) <= SPECIFICITY_USER);
                domain_done(&d);
        }
        free(s);
        return 0;
}
