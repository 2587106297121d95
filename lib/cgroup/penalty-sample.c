/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "penalty-sample.h"
#include "state-file.h"
#include "strv.h"
#include "time-util.h"

/* a few dozen samples per user in a 5 min window at a pass every 30 s, and the exempt
 * processes: far below this for thousands of users */
#define SAMPLE_FILE_MAX (64 * 1024 * 1024)

void penalty_samples_done(PenaltySamples *s) {
        free(s->samples);
        free(s->procs);
        *s = (PenaltySamples) {};
}

/* A pass reads and writes every user's samples: thousands of lines, where sscanf() and fprintf()
 * were most of the pass's own CPU time. The lines are exactly what put_line() writes, "KEY N N N"
 * with single spaces and plain decimal numbers; anything else is not a line of ours. */
static bool parse_fields(const char *line, const char *key, uint64_t v[static 3]) {
        size_t k = strlen(key);

        if (strncmp(line, key, k) != 0)
                return false;
        line += k;
        for (size_t i = 0; i < 3; i++) {
                char *end;

                /* a digit first: strtoull() would also take a sign or more blanks */
                if (*line++ != ' ' || *line < '0' || *line > '9')
                        return false;
                errno = 0;
                v[i] = strtoull(line, &end, 10);
                if (errno == ERANGE)
                        return false;
                line = end;
        }
        return *line == '\0';
}

static int parse_line(PenaltySamples *s, const char *line) {
        uint64_t v[3];

        if (parse_fields(line, "sample", v)) {
                if (s->n >= PENALTY_SAMPLES_MAX || (s->n && s->samples[s->n - 1].time > v[0]))
                        return -EBADMSG;
                if (!GREEDY_REALLOC(s->samples, s->n_alloc, s->n + 1))
                        return -ENOMEM;
                s->samples[s->n++] = (PenaltySample) { .time = v[0], .usage_usec = v[1], .exempt_usec = v[2] };
                return 0;
        }
        if (parse_fields(line, "proc", v) && v[0] > 0 && v[0] <= INT_MAX && s->n_procs < PENALTY_PROCS_MAX) {
                if (!GREEDY_REALLOC(s->procs, s->n_procs_alloc, s->n_procs + 1))
                        return -ENOMEM;
                s->procs[s->n_procs++] = (PenaltyProc) { .pid = (pid_t) v[0], .start_tick = v[1], .cpu_usec = v[2] };
                return 0;
        }
        return -EBADMSG;
}

/* "KEY N N N\n", what parse_fields() reads */
static void put_line(FILE *f, const char *key, uint64_t a, uint64_t b, uint64_t c) {
        char buf[16 + 3 * 21], *p = buf + sizeof buf;
        const uint64_t v[3] = { a, b, c };

        *--p = '\n';
        for (size_t i = 3; i-- > 0;) {
                uint64_t x = v[i];

                do
                        *--p = (char) ('0' + x % 10);
                while ((x /= 10) > 0);
                *--p = ' ';
        }
        fputs(key, f);
        fwrite(p, 1, (size_t) (buf + sizeof buf - p), f);
}

/* The sections are kept sorted by uid, so that a pass over many users finds each in log time. */
static int entry_cmp(const void *a, const void *b) {
        uid_t x = ((const PenaltySampleEntry *) a)->uid, y = ((const PenaltySampleEntry *) b)->uid;

        return x < y ? -1 : x > y;
}

static PenaltySampleEntry *store_find(const PenaltySampleStore *st, uid_t uid) {
        PenaltySampleEntry key = { .uid = uid };

        return st->n ? bsearch(&key, st->entries, st->n, sizeof key, entry_cmp) : NULL;
}

void penalty_store_done(PenaltySampleStore *st) {
        for (size_t i = 0; i < st->n; i++)
                penalty_samples_done(&st->entries[i].s);
        free(st->entries);
        *st = (PenaltySampleStore) {};
}

/* Sections whose lines do not all parse, or a uid given twice, are dropped: only that user's
 * window starts again. */
static int parse_store(char *text, PenaltySampleStore *st) {
        PenaltySampleEntry *cur = NULL;
        bool bad = false;
        unsigned uid;
        int n = 0, r;

        for (char *line = text, *end; *line; line = end) {
                end = strchrnul(line, '\n');
                if (*end)
                        *end++ = '\0';
                /* the literal first: a sscanf() per sample line that cannot match cost a pass
                 * over 100 users a tenth of a millisecond */
                if (strncmp(line, "user", 4) == 0 && sscanf(line, "user %u%n", &uid, &n) == 1 && !line[n] &&
                    uid != (unsigned) -1) {
                        if (!GREEDY_REALLOC(st->entries, st->n_alloc, st->n + 1))
                                return -ENOMEM;
                        cur = &st->entries[st->n++];
                        *cur = (PenaltySampleEntry) { .uid = uid };
                        bad = false;
                        continue;
                }
                if (!cur || bad)
                        continue;
                r = parse_line(&cur->s, line);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        penalty_samples_done(&cur->s);
                        bad = true;
                }
        }
        qsort(st->entries, st->n, sizeof *st->entries, entry_cmp);
        for (size_t i = 0; i + 1 < st->n; i++)
                if (st->entries[i].uid == st->entries[i + 1].uid) {
                        penalty_samples_done(&st->entries[i].s);
                        penalty_samples_done(&st->entries[i + 1].s);
                }
        return 0;
}

static void store_dir(const char *root, char buf[static PATH_MAX]) {
        snprintf(buf, PATH_MAX, "%s" PENALTY_SAMPLE_DIR, root ? root : "");
}

int penalty_store_load(const char *root, PenaltySampleStore *ret) {
        _cleanup_(penalty_store_done) PenaltySampleStore st = {};
        _cleanup_close_ int dfd = -EBADF;
        _cleanup_free_ char *text = NULL;
        char d[PATH_MAX];
        int r;

        *ret = (PenaltySampleStore) {};
        store_dir(root, d);
        dfd = state_dir_open(d, false);
        if (dfd < 0)
                return dfd == -ENOENT ? 0 : dfd;
        r = state_file_read(dfd, PENALTY_SAMPLE_FILE, SAMPLE_FILE_MAX, &text, NULL, 0);
        if (r < 0 || !text)
                return r == -EPERM || r == -EFBIG ? 0 : r;
        r = parse_store(text, &st);
        if (r < 0)
                return r;
        *ret = st;
        st = (PenaltySampleStore) {};
        return 0;
}

PenaltySamples *penalty_store_get(PenaltySampleStore *st, uid_t uid) {
        PenaltySampleEntry *e = store_find(st, uid);
        size_t i;

        if (!e) {
                if (!GREEDY_REALLOC(st->entries, st->n_alloc, st->n + 1))
                        return NULL;
                for (i = st->n; i > 0 && st->entries[i - 1].uid > uid; i--)
                        ;
                memmove(st->entries + i + 1, st->entries + i, (st->n - i) * sizeof *st->entries);
                st->n++;
                e = &st->entries[i];
                *e = (PenaltySampleEntry) { .uid = uid };
        }
        e->kept = true;
        return &e->s;
}

void penalty_store_forget(PenaltySampleStore *st, uid_t uid) {
        PenaltySampleEntry *e = store_find(st, uid);

        if (e) {
                penalty_samples_done(&e->s);
                e->dropped = true;
        }
}

typedef struct StoreFill {
        const PenaltySampleStore *st;
        bool only_kept;
} StoreFill;

static bool entry_written(const StoreFill *w, const PenaltySampleEntry *e) {
        return !e->dropped && e->s.n > 0 && (!w->only_kept || e->kept);
}

static int fill_store(FILE *f, void *userdata) {
        const StoreFill *w = userdata;

        for (size_t k = 0; k < w->st->n; k++) {
                const PenaltySampleEntry *e = &w->st->entries[k];

                if (!entry_written(w, e))
                        continue;
                fprintf(f, "user %u\n", (unsigned) e->uid);
                for (size_t i = 0; i < e->s.n; i++)
                        put_line(f, "sample", e->s.samples[i].time, e->s.samples[i].usage_usec,
                                 e->s.samples[i].exempt_usec);
                for (size_t i = 0; i < e->s.n_procs; i++)
                        put_line(f, "proc", (uint64_t) e->s.procs[i].pid, e->s.procs[i].start_tick,
                                 e->s.procs[i].cpu_usec);
        }
        return ferror(f) ? -EIO : 0;
}

int penalty_store_save(const char *root, const PenaltySampleStore *st, bool only_kept) {
        StoreFill w = { st, only_kept };
        char d[PATH_MAX];
        bool any = false;

        for (size_t k = 0; k < st->n && !any; k++)
                any = entry_written(&w, &st->entries[k]);
        store_dir(root, d);
        return state_file_save(d, PENALTY_SAMPLE_FILE, ATOMIC_FILE_VOLATILE, any ? fill_store : NULL, &w);
}

int penalty_exempt_procs(const pid_t *pids, size_t n, char *const *exempt, PenaltyProc **ret, size_t *ret_n) {
        _cleanup_free_ PenaltyProc *v = NULL;
        size_t k = 0, cap = 0;

        for (size_t i = 0; i < n && exempt && k < PENALTY_PROCS_MAX; i++) {
                ProcStat st;

                if (proc_stat_read(pids[i], &st) < 0 || !strv_contains(exempt, st.comm))
                        continue;
                if (!GREEDY_REALLOC(v, cap, k + 1))
                        return -ENOMEM;
                v[k++] = (PenaltyProc) { pids[i], st.start_tick, st.cpu_usec };
        }
        *ret = TAKE_PTR(v);
        *ret_n = k;
        return 0;
}

/* What the exempt processes used since the last sample: per process, what it added; for one not
 * seen then, all of it if it started since (else nothing: what it used before is not this window's,
 * and its share of it cannot be told apart). */
static uint64_t exempt_since(const PenaltySamples *s, const PenaltyProc *procs, size_t n_procs, uint64_t last_time) {
        const uint64_t usec_per_tick = USEC_PER_SEC / (uint64_t) sysconf(_SC_CLK_TCK);
        uint64_t sum = 0;

        for (size_t i = 0; i < n_procs; i++) {
                bool seen = false;

                for (size_t j = 0; j < s->n_procs && !seen; j++)
                        if (s->procs[j].pid == procs[i].pid && s->procs[j].start_tick == procs[i].start_tick) {
                                sum += procs[i].cpu_usec - MIN(s->procs[j].cpu_usec, procs[i].cpu_usec);
                                seen = true;
                        }
                if (!seen && procs[i].start_tick * usec_per_tick >= last_time)
                        sum += procs[i].cpu_usec;
        }
        return sum;
}

/* Where the window starts: the oldest sample inside it, so that the measured span does not reach
 * back before now - window; with passes sparser than the window, the newest one before it. -1
 * while the history does not reach back a whole window. */
static ssize_t window_start(const PenaltySamples *s, uint64_t window) {
        uint64_t newest;

        if (s->n < 2)
                return -1;
        newest = s->samples[s->n - 1].time;
        if (newest < window || s->samples[0].time > newest - window)
                return -1;
        for (size_t i = 0; i < s->n - 1; i++)
                if (s->samples[i].time >= newest - window)
                        return (ssize_t) i;
        return (ssize_t) s->n - 2;
}

/* The samples a window needs: the newest one at or before its start (so that it stays covered as
 * time goes on) and those after. */
static void drop_old(PenaltySamples *s, uint64_t window) {
        uint64_t newest = s->samples[s->n - 1].time;
        size_t keep = 0;

        for (size_t i = 0; i < s->n && newest >= window && s->samples[i].time <= newest - window; i++)
                keep = i;
        if (keep > 0) {
                memmove(s->samples, s->samples + keep, (s->n - keep) * sizeof *s->samples);
                s->n -= keep;
        }
}

int penalty_samples_add(PenaltySamples *s, uint64_t now, uint64_t usage_usec, PenaltyProc *procs, size_t n_procs,
                        uint64_t window) {
        const PenaltySample *last = s->n ? &s->samples[s->n - 1] : NULL;
        PenaltySample x = { now, usage_usec, 0 };

        if (last && (usage_usec < last->usage_usec || now < last->time))
                s->n = 0, last = NULL;
        /* the first sample only marks where counting starts: whatever exempt processes used
         * before it is not in any window */
        if (last)
                x.exempt_usec = last->exempt_usec + exempt_since(s, procs, n_procs, last->time);
        /* passes closer together than the history can hold for a whole window: the newest sample
         * moves on instead of a new one (its exempt total is cumulative, so nothing is lost) */
        if (s->n >= 2 && now - s->samples[s->n - 2].time < window / (PENALTY_SAMPLES_MAX / 2))
                s->n--;
        if (s->n == PENALTY_SAMPLES_MAX)
                memmove(s->samples, s->samples + 1, --s->n * sizeof *s->samples);
        if (!GREEDY_REALLOC(s->samples, s->n_alloc, s->n + 1)) {
                free(procs);
                return -ENOMEM;
        }
        s->samples[s->n++] = x;
        free(s->procs);
        s->procs = procs;
        s->n_procs = s->n_procs_alloc = n_procs;
        drop_old(s, window);
        return 0;
}

uint64_t penalty_samples_use(const PenaltySamples *s, uint64_t window) {
        ssize_t start = window_start(s, window);
        const PenaltySample *a, *b;
        uint64_t used, exempt;

        if (start < 0)
                return PENALTY_USE_UNKNOWN;
        a = &s->samples[start];
        b = &s->samples[s->n - 1];
        used = b->usage_usec - a->usage_usec;
        exempt = b->exempt_usec - a->exempt_usec;
        used -= MIN(used, exempt);
        return (uint64_t) ((unsigned __int128) used * USEC_PER_SEC / (b->time - a->time));
}
