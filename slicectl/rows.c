/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu-value.h"
#include "rows.h"
#include "slicectl-util.h"
#include "time-util.h"

/* From this many slices on, the names come from one enumeration of the users (user_table_load())
 * rather than a lookup each: below it, an enumeration of a large directory would cost more. */
#define ROWS_USER_TABLE_MIN 64

uint64_t row_weight(bool v2, const SliceInfo *info, const Resolved *res) {
        if (info->idle)
                return CPU_WEIGHT_IDLE;
        if (v2)
                return info->weight;
        if (info->shares == CGSTAT_NONE)
                return CGSTAT_NONE;
        if (res && cpu_weight_to_shares(res->limits.weight) == info->shares)
                return res->limits.weight;
        return cpu_shares_to_weight(info->shares);
}

/* Usage samples are sorted by uid: slices come back from readdir in any order. */
static int cmp_sample(const void *a, const void *b) {
        uid_t x = ((const UsageSample *) a)->uid, y = ((const UsageSample *) b)->uid;

        return x < y ? -1 : x > y;
}

static const UsageSample *find_sample(const Sampler *s, uid_t uid) {
        UsageSample key = { .uid = uid };

        return s->n_prev ? bsearch(&key, s->prev, s->n_prev, sizeof key, cmp_sample) : NULL;
}

static int prime(SliceBackend *b, Sampler *s, CsError *e) {
        uint64_t t0 = now_usec();
        int r;

        r = b->ops->read_usage(b, &s->prev, &s->n_prev, e);
        if (r < 0)
                return r;
        s->t_prev = (t0 + now_usec()) / 2;
        if (s->n_prev > 1)
                qsort(s->prev, s->n_prev, sizeof *s->prev, cmp_sample);
        s->primed = true;
        if (s->interval_usec > 0)
                sleep_usec(s->interval_usec);
        return 0;
}

/* Ends the sample: CPU% from the previous usage, and this read becomes the next baseline. */
static int sample(Sampler *s, Rows *rows, uint64_t t) {
        UsageSample *cur = calloc(rows->n ? rows->n : 1, sizeof *cur);
        double dt = (double) (t - s->t_prev);

        if (!cur)
                return -ENOMEM;
        for (size_t i = 0; i < rows->n; i++) {
                SliceRow *row = &rows->rows[i];
                const UsageSample *p = find_sample(s, row->info.uid);
                uint64_t u = row->info.stat.usage_usec;

                row->cpu_percent = -1.0;
                if (p && p->usage_usec != CGSTAT_NONE && u != CGSTAT_NONE && dt > 0)
                        row->cpu_percent = u >= p->usage_usec ? (double) (u - p->usage_usec) * 100.0 / dt : 0.0;
                cur[i] = (UsageSample) { row->info.uid, u };
        }
        free(s->prev);
        s->prev = cur;
        s->n_prev = rows->n;
        s->t_prev = t;
        return 0; /* rows come sorted by uid: so is cur */
}

static int fill_row(Rows *rows, const UserTable *users, SliceRow *row, bool v2) {
        UserIdent u = {};
        int r;

        r = ident_for_uid_in(users, row->info.uid, &u);
        if (r < 0)
                return r;
        row->user = TAKE_PTR(u.name);
        u.name = strdup(row->user);
        if (!u.name) {
                user_done(&u);
                return -ENOMEM;
        }
        row->have_config = rules_resolve(&rows->rules, &u, &row->res) >= 0;
        user_done(&u);
        row->weight = row_weight(v2, &row->info, row->have_config ? &row->res : NULL);
        row->quota_percent = !row->info.have_quota || row->info.period_usec == CGSTAT_NONE
                                     ? -1.0
                                     : cpu_quota_percent(row->info.quota_usec, row->info.period_usec);
        row->cpu_percent = -1.0;
        return 0;
}

int rows_collect(SliceBackend *b, Sampler *s, const ConfPaths *conf, SliceReadFlags flags, Rows *ret, CsError *e) {
        _cleanup_(user_table_done) UserTable users = {};
        Rows rows = {};
        SliceList l = {};
        uint64_t t0, t1;
        DiagList d = {};
        int r;

        if (s && !s->primed) {
                r = prime(b, s, e);
                if (r < 0)
                        return r;
        }
        t0 = now_usec();
        r = b->ops->read_all(b, flags, &l, e);
        if (r < 0)
                return r;
        t1 = now_usec();
        /* the config only sharpens the v1 weight; a config we cannot read is not an error here */
        (void) conf_load(&rows.rules, conf, CONF_PERMS_ENFORCE, &d);
        diag_list_done(&d);
        rows.rows = calloc(l.n ? l.n : 1, sizeof *rows.rows);
        if (!rows.rows) {
                slice_list_done(&l);
                ruleset_done(&rows.rules);
                return -ENOMEM;
        }
        /* a failed enumeration leaves the table empty: each uid is then looked up alone */
        if (l.n >= ROWS_USER_TABLE_MIN)
                (void) user_table_load(&users);
        for (size_t i = 0; i < l.n; i++) {
                rows.rows[i].info = l.slices[i];
                l.slices[i] = (SliceInfo) {};
                rows.n++;
                r = fill_row(&rows, &users, &rows.rows[i], b->v2);
                if (r < 0)
                        goto fail;
        }
        rows.skipped = TAKE_PTR(l.skipped);
        rows.n_skipped = l.n_skipped;
        l.n_skipped = 0;
        slice_list_done(&l);
        if (s) {
                r = sample(s, &rows, (t0 + t1) / 2);
                if (r < 0)
                        goto fail;
        }
        *ret = rows;
        return 0;
fail:
        slice_list_done(&l);
        rows_done(&rows);
        return r;
}

int rows_collect_or_log(SliceBackend *b, Sampler *s, SliceReadFlags flags, Rows *ret) {
        CsError e = {};
        int r = rows_collect(b, s, &arg_conf, flags, ret, &e);

        return r < 0 ? log_error(r, "reading the user slices: %s", cs_error_text(&e, r)) : 0;
}

void rows_done(Rows *r) {
        for (size_t i = 0; i < r->n; i++) {
                slice_info_done(&r->rows[i].info);
                free(r->rows[i].user);
        }
        free(r->rows);
        for (size_t i = 0; i < r->n_skipped; i++)
                free(r->skipped[i].name);
        free(r->skipped);
        ruleset_done(&r->rules);
        *r = (Rows) {};
}

void log_skipped_slices(const SkippedSlice *skipped, size_t n) {
        for (size_t i = 0; i < n; i++)
                log_warning("skipped %s: %s", skipped[i].name, skipped[i].reason);
}

void sampler_done(Sampler *s) {
        free(s->prev);
        *s = (Sampler) { .interval_usec = s->interval_usec };
}

/* v1: idle is cpu.idle where the kernel has it, else shares of 2 (the module writes what it can) */
static bool drift_v1_weight(const SliceInfo *info, const CpuKernelValues *k) {
        if (k->idle)
                return !info->idle && info->shares != k->shares;
        return info->idle || info->shares != k->shares;
}

unsigned slice_drift(bool v2, const SliceInfo *info, const CpuKernelValues *k) {
        unsigned m = 0;

        if (v2 ? info->idle != k->idle || (!k->idle && info->weight != k->weight) : drift_v1_weight(info, k))
                m |= 1u << SETTING_WEIGHT;
        if (info->have_quota && info->quota_usec != k->quota_usec)
                m |= 1u << SETTING_QUOTA;
        if (info->period_usec != k->period_usec)
                m |= 1u << SETTING_PERIOD;
        /* absent (before Linux 5.14) is not drift: there is nothing to write */
        if (info->burst_usec != CGSTAT_NONE && info->burst_usec != k->burst_usec)
                m |= 1u << SETTING_BURST;
        return m;
}

const char *live_value(bool v2, const SliceInfo *info, const Resolved *res, Setting s,
                       char buf[static CPU_FORMAT_MAX]) {
        uint64_t w;

        switch (s) {
        case SETTING_SLICE:
                return "yes";
        case SETTING_WEIGHT:
                w = row_weight(v2, info, res);
                return w == CGSTAT_NONE ? "?" : cpu_weight_format(w, buf);
        case SETTING_QUOTA:
                if (!info->have_quota || info->period_usec == CGSTAT_NONE || info->period_usec == 0)
                        return "?";
                if (info->quota_usec == CPU_QUOTA_INFINITY)
                        return "infinity";
                return cpu_quota_format(info->quota_usec * USEC_PER_SEC / info->period_usec, buf);
        case SETTING_PERIOD:
                return info->period_usec == CGSTAT_NONE ? "?" : cpu_period_format(info->period_usec, buf);
        case SETTING_BURST:
                return info->burst_usec == CGSTAT_NONE ? "?" : cpu_period_format(info->burst_usec, buf);
        default:
                return "?";
        }
}
