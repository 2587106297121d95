/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* reset: users back to no pam_cpuslice limits without removing the package (and what the
 * package's removal runs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "slicectl-util.h"
#include "output.h"
#include "verbs.h"

typedef struct UidSet {
        uid_t *uids;
        size_t n, cap;
} UidSet;

static int uid_set_add(UidSet *s, uid_t uid) {
        for (size_t i = 0; i < s->n; i++)
                if (s->uids[i] == uid)
                        return 0;
        if (!GREEDY_REALLOC(s->uids, s->cap, s->n + 1))
                return -ENOMEM;
        s->uids[s->n++] = uid;
        return 0;
}

static void uid_set_done(UidSet *s) {
        free(s->uids);
}

/* Running slices, and on systemd the recorded ones too; or the users named. */
static int reset_targets(SliceBackend *b, int argc, char **argv, UidSet *ret) {
        _cleanup_(slice_list_done) SliceList slices = {};
        _cleanup_free_ uid_t *recorded = NULL;
        size_t n_recorded = 0;
        CsError e = {};
        int r;

        for (int i = 1; i < argc; i++) {
                _cleanup_(user_done) UserIdent u = {};

                r = resolve_user_arg(argv[i], true, &u);
                if (r < 0)
                        return r;
                if (uid_set_add(ret, u.uid) < 0)
                        return log_error(-ENOMEM, "out of memory");
        }
        if (argc > 1)
                return 0;
        r = b->ops->read_all(b, 0, &slices, &e);
        if (r < 0)
                return log_error(r, "%s", cs_error_text(&e, r));
        r = backend_recorded_uids(b, &recorded, &n_recorded);
        if (r < 0)
                return log_error(r, "reading the record of what pam_cpuslice set: %s", strerror(-r));
        for (size_t i = 0; i < slices.n; i++)
                if (uid_set_add(ret, slices.slices[i].uid) < 0)
                        return log_error(-ENOMEM, "out of memory");
        for (size_t i = 0; i < n_recorded; i++)
                if (uid_set_add(ret, recorded[i]) < 0)
                        return log_error(-ENOMEM, "out of memory");
        return 0;
}

int verb_reset(int argc, char **argv) {
        _cleanup_(backend_closep) SliceBackend b = {};
        _cleanup_(uid_set_done) UidSet targets = {};
        int r, failed = 0;

        r = backend_open_as_root(&b, "reset", "writes the user slices' settings");
        if (r < 0)
                return r;
        r = reset_targets(&b, argc, argv, &targets);
        if (r < 0)
                return r;
        for (size_t i = 0; i < targets.n; i++) {
                _cleanup_(user_done) UserIdent u = {};
                uid_t uid = targets.uids[i];
                CsError e = {};

                r = b.ops->reset(&b, uid, &e);
                if (r == -ENOENT || r == -ENODEV)
                        continue; /* cgroupfs: no slice, nothing of ours to lift */
                if (r < 0) {
                        log_error(r, "uid %u: %s", (unsigned) uid, cs_error_text(&e, r));
                        failed++;
                        continue;
                }
                if (uid == SLICE_ROOT_UID ? !(u.name = strdup("user.slice")) : ident_for_uid(uid, &u) < 0)
                        return log_error(-ENOMEM, "out of memory");
                if (b.systemd)
                        backend_report_apply(&b, u.name, uid, "reset");
                else {
                        print_line(stdout, "%s (uid %u): back to CPUWeight=100, no quota", u.name, (unsigned) uid);
                        log_change("reset %s (uid %u) to no limits", u.name, (unsigned) uid);
                }
        }
        return failed ? -EIO : 0;
}
