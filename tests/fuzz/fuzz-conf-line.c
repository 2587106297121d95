/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One config line through conf_parse_line. Every field after the domain is either used or skipped
 * with a reason; a parsed line's text (comment, blanks and skipped settings removed) parses again
 * to the same rule, with nothing skipped. */
#include "conf-parse.h"
#include "fuzz-check.h"
#include "parse-util.h"

static size_t count_fields(const char *line) {
        char *copy = strdup(line), *save = NULL, *s;
        size_t n = 0;

        FUZZ_CHECK(copy);
        s = strchr(copy, '#');
        if (s)
                *s = '\0';
        for (s = strtok_r(strstrip(copy), " \t", &save); s; s = strtok_r(NULL, " \t", &save))
                n++;
        free(copy);
        return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *line = fuzz_strndup(data, size);
        ConfSkips skips = {}, none = {};
        Rule rule, again;
        int r;

        r = conf_parse_line(line, &rule, &skips);
        FUZZ_CHECK(r <= 1);
        FUZZ_CHECK(r != 1 || skips.n == 0);
        FUZZ_CHECK(r >= 0 || skips.n >= 1);
        for (size_t i = 0; i < skips.n; i++) {
                const ConfSkip *k = &skips.items[i];
                FUZZ_CHECK(k->reason && *k->reason);
                FUZZ_CHECK(k->setting >= -1 && k->setting < _SETTING_MAX);
                /* a skipped setting of a rule is one field of the line, naming the setting it counts for */
                FUZZ_CHECK(r != 0 || (k->token && *k->token && !strpbrk(k->token, " \t#")));
                FUZZ_CHECK(k->setting < 0 || (strncmp(k->token, setting_to_string(k->setting),
                                                      strlen(setting_to_string(k->setting))) == 0 &&
                                              k->token[strlen(setting_to_string(k->setting))] == '='));
        }
        if (r == 0) {
                check_rule(&rule);
                FUZZ_CHECK(count_fields(rule.text) + skips.n == count_fields(line));
                FUZZ_CHECK(conf_parse_line(rule.text, &again, &none) == 0 && none.n == 0);
                FUZZ_CHECK(again.mask == rule.mask && again.domain.type == rule.domain.type &&
                           again.domain.uid_min == rule.domain.uid_min &&
                           again.domain.uid_max == rule.domain.uid_max);
                FUZZ_CHECK(strcmp(again.text, rule.text) == 0);
                FUZZ_CHECK(!(rule.mask & (1u << SETTING_WEIGHT)) || again.weight == rule.weight);
                FUZZ_CHECK(!(rule.mask & (1u << SETTING_QUOTA)) || again.quota_per_sec == rule.quota_per_sec);
                FUZZ_CHECK(!(rule.mask & (1u << SETTING_PERIOD)) || again.period_usec == rule.period_usec);
                FUZZ_CHECK(!(rule.mask & (1u << SETTING_QUOTA_SHARE)) ||
                           (again.quota_share == rule.quota_share && rule.quota_share > 0 &&
                            rule.quota_share <= USEC_PER_SEC));
                /* one spelling of the quota per line */
                FUZZ_CHECK((rule.mask & setting_rivals(SETTING_QUOTA)) != setting_rivals(SETTING_QUOTA));
                FUZZ_CHECK(!(rule.mask & (1u << SETTING_SLICE)) || again.slice == rule.slice);
                rule_done(&again);
                rule_done(&rule);
        }
        conf_skips_done(&skips);
        conf_skips_done(&none);
        free(line);
        return 0;
}
