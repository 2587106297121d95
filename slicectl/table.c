/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <libsmartcols.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpu-value.h"
#include "escape.h"
#include "format.h"
#include "output.h"
#include "table.h"

enum {
        COL_USER,
        COL_UID,
        COL_SESSIONS,
        COL_WEIGHT,
        COL_QUOTA,
        COL_PERIOD,
        COL_CPU,
        COL_TIME,
        COL_THROTTLED,
        COL_NR_PERIODS,
        COL_NR_THROTTLED,
        COL_THROTTLED_TIME,
        COL_PRESSURE,
        _COL_MAX,
};

struct colinfo {
        const char *name;      /* table header, --output and --sort */
        const char *json_name; /* key in --json (a stable interface: see slicectl(1)) */
        double whint;
        int flags;
        int json_type;
        bool descending; /* figures sort biggest first; names and ids ascending */
        const char *help;
};

static const struct colinfo infos[_COL_MAX] = {
        [COL_USER] = { "USER", "user", 8, 0, SCOLS_JSON_STRING, false,
                       "user name (the uid if NSS does not know it)" },
        [COL_UID] = { "UID", "uid", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "user id" },
        [COL_SESSIONS] = { "SESSIONS", "sessions", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true,
                           "session scopes in the slice" },
        [COL_WEIGHT] = { "WEIGHT", "weight", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true,
                         "CPUWeight= in effect (idle, or 1..10000; on cgroup v1 from cpu.shares)" },
        [COL_QUOTA] = { "QUOTA", "quota_percent", 7, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true,
                        "CPUQuota= in effect, % of one CPU (- for none)" },
        [COL_PERIOD] = { "PERIOD", "period_usec", 7, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "quota period" },
        [COL_CPU] = { "CPU%", "cpu_percent", 7, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true,
                      "CPU use over the sample interval, % of one CPU" },
        [COL_TIME] = { "TIME", "cpu_usec", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "CPU time used so far" },
        [COL_THROTTLED] = { "THROTTLED", "throttled_percent", 7, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true,
                            "share of quota periods throttled" },
        [COL_NR_PERIODS] = { "PERIODS", "nr_periods", 8, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true,
                             "quota periods elapsed (cpu.stat nr_periods)" },
        [COL_NR_THROTTLED] = { "NR-THROTTLED", "nr_throttled", 8, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true,
                               "periods in which the slice was throttled" },
        [COL_THROTTLED_TIME] = { "THROTTLED-TIME", "throttled_usec", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true,
                                 "total time throttled" },
        [COL_PRESSURE] = { "PRESSURE%", "pressure_some_avg10", 9, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true,
                           "% of the last 10 s a task waited for a CPU (cpu.pressure some avg10; - without PSI)" },
};

static const int default_table[] = { COL_USER, COL_UID,  COL_SESSIONS,  COL_WEIGHT,         COL_QUOTA,
                                     COL_CPU,  COL_TIME, COL_THROTTLED, COL_THROTTLED_TIME, COL_PRESSURE };
static const int default_json[] = { COL_USER,           COL_UID,     COL_SESSIONS, COL_WEIGHT,     COL_QUOTA,
                                    COL_PERIOD,         COL_CPU,     COL_TIME,     COL_NR_PERIODS, COL_NR_THROTTLED,
                                    COL_THROTTLED_TIME, COL_PRESSURE };

_Static_assert(TABLE_COLUMNS_MAX == _COL_MAX * 2, "each column twice");

static bool name_is(const char *name, const char *s, size_t n) {
        size_t len = strlen(name);

        /* a unit sign may be left out: "-o CPU", and "PRESSURE" from before the column showed its unit */
        if (len > 1 && name[len - 1] == '%' && n == len - 1)
                len--;
        return len == n && strncasecmp(s, name, n) == 0;
}

static int column_from_name(const char *s, size_t n) {
        for (int i = 0; i < _COL_MAX; i++)
                if (name_is(infos[i].name, s, n) ||
                    (strlen(infos[i].json_name) == n && strncmp(s, infos[i].json_name, n) == 0))
                        return i;
        return -EINVAL;
}

static int parse_list(TableControl *ctl, const char *list) {
        for (const char *p = list; *p;) {
                size_t n = strcspn(p, ",");
                int c = column_from_name(p, n);

                if (c < 0)
                        return log_error(-EINVAL, "unknown column '%.*s' (see --list-columns)", (int) n, p);
                if (ctl->n_columns >= ELEMENTSOF(ctl->columns))
                        return log_error(-E2BIG, "too many columns in --output");
                ctl->columns[ctl->n_columns++] = c;
                p += n;
                if (*p == ',')
                        p++;
        }
        return 0;
}

int table_control_setup(TableControl *ctl) {
        const int *def = ctl->json ? default_json : default_table;
        size_t n_def = ctl->json ? ELEMENTSOF(default_json) : ELEMENTSOF(default_table);
        int r;

        ctl->n_columns = 0;
        ctl->sort_column = COL_CPU;
        if (!ctl->output || ctl->output[0] == '+')
                for (size_t i = 0; i < n_def; i++)
                        ctl->columns[ctl->n_columns++] = def[i];
        if (ctl->output) {
                r = parse_list(ctl, ctl->output[0] == '+' ? ctl->output + 1 : ctl->output);
                if (r < 0)
                        return r;
                if (ctl->n_columns == 0)
                        return log_error(-EINVAL, "--output names no columns");
        }
        if (ctl->sort) {
                ctl->sort_column = column_from_name(ctl->sort, strlen(ctl->sort));
                if (ctl->sort_column < 0)
                        return log_error(-EINVAL, "unknown sort column '%s' (see --list-columns)", ctl->sort);
        }
        return 0;
}

void columns_help(FILE *f) {
        for (int i = 0; i < _COL_MAX; i++)
                fprintf(f, "%15s  %-20s %s\n", infos[i].name, infos[i].json_name, infos[i].help);
}

/* The value a column sorts by; NAN-free: absent is -1 (below every real figure). */
static double sort_key(const SliceRow *r, int col) {
        const CpuStat *st = &r->info.stat;
#define OR_NONE(v) ((v) == CGSTAT_NONE ? -1.0 : (double) (v))
        switch (col) {
        case COL_UID:
                return (double) r->info.uid;
        case COL_SESSIONS:
                return (double) r->info.n_scopes;
        case COL_WEIGHT:
                return OR_NONE(r->weight);
        case COL_QUOTA:
                /* no quota is the most CPU a slice can be allowed */
                return r->info.have_quota && r->info.quota_usec == CPU_QUOTA_INFINITY ? 1e18 : r->quota_percent;
        case COL_PERIOD:
                return OR_NONE(r->info.period_usec);
        case COL_CPU:
                return r->cpu_percent;
        case COL_TIME:
                return OR_NONE(st->usage_usec);
        case COL_THROTTLED:
                return st->nr_periods == CGSTAT_NONE || st->nr_throttled == CGSTAT_NONE || st->nr_periods == 0
                               ? -1.0
                               : (double) st->nr_throttled / (double) st->nr_periods;
        case COL_NR_PERIODS:
                return OR_NONE(st->nr_periods);
        case COL_NR_THROTTLED:
                return OR_NONE(st->nr_throttled);
        case COL_THROTTLED_TIME:
                return OR_NONE(st->throttled_usec);
        case COL_PRESSURE:
                return r->info.pressure;
        }
#undef OR_NONE
        return 0;
}

static int cmp_rows(const void *a, const void *b, void *userdata) {
        const SliceRow *x = a, *y = b;
        int sort_column = *(const int *) userdata;

        if (sort_column == COL_USER) {
                int c = strcmp(x->user, y->user);
                if (c != 0)
                        return c;
        } else {
                double kx = sort_key(x, sort_column), ky = sort_key(y, sort_column);
                if (kx < ky || kx > ky || isunordered(kx, ky)) /* kx != ky, NaN included */
                        return (kx > ky) == infos[sort_column].descending ? -1 : 1;
        }
        return x->info.uid < y->info.uid ? -1 : x->info.uid > y->info.uid;
}

void rows_sort(const TableControl *ctl, Rows *rows) {
        if (rows->n > 1)
                qsort_r(rows->rows, rows->n, sizeof *rows->rows, cmp_rows, (void *) &ctl->sort_column);
}

/* Cell text: readable units in the table; plain numbers for --json and --raw (absent: null / "-"). */
static const char *cell(const TableControl *ctl, const SliceRow *r, int col, char buf[static FORMAT_MAX]) {
        bool machine = ctl->json || ctl->raw;
        const CpuStat *st = &r->info.stat;

#define NUM(v) ((v) == CGSTAT_NONE ? NULL : (snprintf(buf, FORMAT_MAX, "%" PRIu64, (uint64_t) (v)), buf))
#define USEC(v) ((v) == CGSTAT_NONE ? NULL : machine ? NUM(v) : format_usec(v, buf))
        switch (col) {
        case COL_USER:
                return r->user;
        case COL_UID: /* never absent: CGSTAT_NONE is not a uid_t */
                snprintf(buf, FORMAT_MAX, "%u", (unsigned) r->info.uid);
                return buf;
        case COL_SESSIONS:
                return NUM(r->info.n_scopes);
        case COL_WEIGHT:
                if (r->weight == CPU_WEIGHT_IDLE)
                        return ctl->json ? "\"idle\"" : "idle"; /* the one non-number: a JSON string */
                return NUM(r->weight);
        case COL_QUOTA:
                if (r->quota_percent < 0)
                        return NULL;
                if (machine)
                        return snprintf(buf, FORMAT_MAX, "%.2f", r->quota_percent), buf;
                return format_percent(r->quota_percent, buf);
        case COL_PERIOD:
                return USEC(r->info.period_usec);
        case COL_CPU:
                if (r->cpu_percent < 0)
                        return NULL;
                if (machine)
                        return snprintf(buf, FORMAT_MAX, "%.2f", r->cpu_percent), buf;
                return snprintf(buf, FORMAT_MAX, "%.1f %%", r->cpu_percent), buf;
        case COL_TIME:
                return USEC(st->usage_usec);
        case COL_THROTTLED: {
                double share = sort_key(r, COL_THROTTLED);
                if (share < 0)
                        return NULL;
                if (machine)
                        return snprintf(buf, FORMAT_MAX, "%.2f", share * 100.0), buf;
                return format_percent(share * 100.0, buf);
        }
        case COL_NR_PERIODS:
                return NUM(st->nr_periods);
        case COL_NR_THROTTLED:
                return NUM(st->nr_throttled);
        case COL_THROTTLED_TIME:
                return USEC(st->throttled_usec);
        case COL_PRESSURE:
                if (r->info.pressure < 0)
                        return NULL;
                /* two decimals, the kernel's own: a pressure of 0.04 % is not none */
                return snprintf(buf, FORMAT_MAX, machine ? "%.2f" : "%.2f %%", r->info.pressure), buf;
        }
#undef USEC
#undef NUM
        return NULL;
}

static void unref_table(struct libscols_table **t) {
        scols_unref_table(*t);
}

typedef struct JsonCount {
        const char *key;
        size_t value;
} JsonCount;

/* {"slices": [...], "skipped": N}: libsmartcols writes the one table it knows as the whole document,
 * so the counts go in before its closing brace. */
static int print_json_with_counts(struct libscols_table *t, const JsonCount *counts, size_t n) {
        _cleanup_free_ char *doc = NULL;
        char *end;

        if (scols_print_table_to_string(t, &doc) < 0 || !doc)
                return log_error(-ENOMEM, "out of memory");
        end = strrchr(doc, '}');
        if (!end)
                return log_error(-EIO, "cannot write the table");
        while (end > doc && (end[-1] == '\n' || end[-1] == ' '))
                end--;
        if (printf("%.*s", (int) (end - doc), doc) < 0)
                return log_error(-EIO, "cannot write the table");
        for (size_t i = 0; i < n; i++)
                if (printf(",\n   \"%s\": %zu", counts[i].key, counts[i].value) < 0)
                        return log_error(-EIO, "cannot write the table");
        if (printf("\n}\n") < 0)
                return log_error(-EIO, "cannot write the table");
        return 0;
}

/* check --json: {"diagnostics": [{"file", "line", "severity", "message"}], "errors": N, "warnings": N},
 * for CI pipelines */
int diags_print_json(const DiagList *d) {
        static const struct {
                const char *name;
                int json_type;
        } cols[] = { { "file", SCOLS_JSON_STRING },
                     { "line", SCOLS_JSON_NUMBER },
                     { "severity", SCOLS_JSON_STRING },
                     { "message", SCOLS_JSON_STRING } };
        _cleanup_(unref_table) struct libscols_table *t = scols_new_table();

        if (!t)
                return log_error(-ENOMEM, "out of memory");
        scols_table_enable_json(t, true);
        scols_table_set_name(t, "diagnostics");
        for (size_t i = 0; i < ELEMENTSOF(cols); i++) {
                struct libscols_column *cl = scols_table_new_column(t, cols[i].name, 0, 0);
                if (!cl)
                        return log_error(-ENOMEM, "out of memory");
                scols_column_set_json_type(cl, cols[i].json_type);
        }
        for (size_t i = 0; i < d->n; i++) {
                const Diag *x = &d->items[i];
                struct libscols_line *ln = scols_table_new_line(t, NULL);
                _cleanup_free_ char *file = x->file ? escape_dup(x->file) : NULL, *msg = escape_dup(x->msg);
                char line[16];

                snprintf(line, sizeof line, "%u", x->line);
                if (!ln || (x->file && !file) || !msg || (file && scols_line_set_data(ln, 0, file) < 0) ||
                    (x->line > 0 && scols_line_set_data(ln, 1, line) < 0) ||
                    scols_line_set_data(ln, 2, x->level == DIAG_ERROR ? "error" : "warning") < 0 ||
                    scols_line_set_data(ln, 3, msg) < 0)
                        return log_error(-ENOMEM, "out of memory");
        }
        return print_json_with_counts(t,
                                      (const JsonCount[]) { { "errors", diag_count(d, DIAG_ERROR) },
                                                            { "warnings", diag_count(d, DIAG_WARNING) } },
                                      2);
}

/* libsmartcols (2.38) prints nothing at all for a table without lines, and an empty list that
 * prints nothing reads as a command that did not run. The header alone, as libsmartcols lays it
 * out: the first line of the table with one line of empty cells. */
static int print_header_only(struct libscols_table *t) {
        _cleanup_free_ char *doc = NULL;

        if (!scols_table_new_line(t, NULL) || scols_print_table_to_string(t, &doc) < 0 || !doc)
                return log_error(-ENOMEM, "out of memory");
        if (printf("%.*s\n", (int) strcspn(doc, "\n"), doc) < 0)
                return log_error(-EIO, "cannot write the table");
        return 0;
}

/* As systemctl and loginctl close their tables; the skipped ones were named on stderr */
static int print_legend(const Rows *rows) {
        int k = printf("\n%zu user slice%s listed", rows->n, rows->n == 1 ? "" : "s");

        if (k >= 0 && rows->n_skipped > 0)
                k = printf("; %zu skipped (see the warnings)", rows->n_skipped);
        if (k >= 0)
                k = printf(".\n");
        return k < 0 ? log_error(-EIO, "cannot write the table") : 0;
}

int rows_print(const TableControl *ctl, const Rows *rows) {
        _cleanup_(unref_table) struct libscols_table *t = scols_new_table();
        int r;

        if (!t)
                return log_error(-ENOMEM, "out of memory");
        scols_table_enable_json(t, ctl->json);
        scols_table_enable_raw(t, ctl->raw);
        scols_table_enable_noheadings(t, ctl->noheadings);
        scols_table_set_name(t, "slices");
        for (size_t i = 0; i < ctl->n_columns; i++) {
                const struct colinfo *ci = &infos[ctl->columns[i]];
                struct libscols_column *cl =
                        scols_table_new_column(t, ctl->json ? ci->json_name : ci->name, ci->whint, ci->flags);
                if (!cl)
                        return log_error(-ENOMEM, "out of memory");
                scols_column_set_json_type(cl, ci->json_type);
        }
        for (size_t i = 0; i < rows->n; i++) {
                struct libscols_line *ln = scols_table_new_line(t, NULL);

                if (!ln)
                        return log_error(-ENOMEM, "out of memory");
                for (size_t c = 0; c < ctl->n_columns; c++) {
                        _cleanup_free_ char *esc = NULL;
                        char buf[FORMAT_MAX];
                        const char *v = cell(ctl, &rows->rows[i], ctl->columns[c], buf);

                        if (!v && !ctl->json)
                                v = "-";
                        /* Text from outside (a user name): in tables and --raw libsmartcols encodes
                         * control bytes and non-ASCII as \xNN itself (escaping again would turn "\x" into
                         * "\x5cx"); its JSON writer passes DEL and bytes >= 0x80 through, so JSON
                         * strings get the escape everything else slicectl prints gets. */
                        if (v && ctl->json && infos[ctl->columns[c]].json_type == SCOLS_JSON_STRING) {
                                v = esc = escape_dup(v);
                                if (!v)
                                        return log_error(-ENOMEM, "out of memory");
                        }
                        if (v && scols_line_set_data(ln, c, v) < 0)
                                return log_error(-ENOMEM, "out of memory");
                }
        }
        if (ctl->json)
                return print_json_with_counts(t, &(const JsonCount) { "skipped", rows->n_skipped }, 1);
        if (rows->n == 0)
                r = ctl->noheadings ? 0 : print_header_only(t);
        else
                r = scols_print_table(t) < 0 ? log_error(-EIO, "cannot write the table") : 0;
        return r < 0 || !ctl->legend ? r : print_legend(rows);
}
