/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One config line through conf_parse_line. A parsed line's text (comment and blanks removed)
 * parses again to the same rule. */
#include "conf.h"
#include "fuzz-check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *line = fuzz_strndup(data, size), *why = NULL, *why2 = NULL;
        Rule rule, again;
        int r;

        r = conf_parse_line(line, &rule, &why);
        FUZZ_CHECK(r <= 1);
        if (r < 0) {
                FUZZ_CHECK(why && *why);
                free(why);
        } else if (r == 0) {
                FUZZ_CHECK(!why);
                check_rule(&rule);
                FUZZ_CHECK(conf_parse_line(rule.text, &again, &why2) == 0);
                FUZZ_CHECK(again.mask == rule.mask && again.domain.type == rule.domain.type &&
                           again.domain.uid_min == rule.domain.uid_min && again.domain.uid_max == rule.domain.uid_max);
                FUZZ_CHECK(strcmp(again.text, rule.text) == 0);
                FUZZ_CHECK(!(rule.mask & (1u << SETTING_WEIGHT)) || again.weight == rule.weight);
                FUZZ_CHECK(!(rule.mask & (1u << SETTING_QUOTA)) || again.quota_per_sec == rule.quota_per_sec);
                FUZZ_CHECK(!(rule.mask & (1u << SETTING_PERIOD)) || again.period_usec == rule.period_usec);
                FUZZ_CHECK(!(rule.mask & (1u << SETTING_SLICE)) || again.slice == rule.slice);
                rule_done(&again);
                rule_done(&rule);
        }
        free(line);
        return 0;
}
