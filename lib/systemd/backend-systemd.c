/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>
#include <sys/random.h>
#include <systemd/sd-bus.h>

#include "applied-record.h"
#include "backend-systemd.h"
#include "macro.h"
#include "proc-cgroup.h"
#include "slice-name.h"
#include "strv.h"
#include "time-util.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"

/* Never flushed: every message sent was answered before we close, and a flush waits without a
 * bound for a peer that stopped reading. */
static inline void bus_closep(sd_bus **b) {
        if (*b)
                sd_bus_close_unref(*b);
}
#define _cleanup_bus_close_ _cleanup_(bus_closep)
#define _cleanup_bus_message_ _cleanup_(sd_bus_message_unrefp)
#define _cleanup_bus_error_ _cleanup_(sd_bus_error_free)
#define _cleanup_bus_slot_ _cleanup_(sd_bus_slot_unrefp)

/* Drives the connection until done(bus, userdata) or the deadline, which is checked on every
 * turn: a peer that keeps sending messages must not keep us here. EINTR (su and sudo have signal
 * handlers, and the caller can send signals to them) is a reason to look again, not to give up. */
static int bus_run_until(sd_bus *bus, bool (*done)(sd_bus *, void *), void *userdata, uint64_t deadline,
                         const char *what, CsError *e) {
        for (;;) {
                uint64_t now = now_usec();
                int r;

                r = done(bus, userdata);
                if (r)
                        return 0;
                if (now >= deadline)
                        return cs_error(e, -ETIMEDOUT, "%s: no answer before the deadline that timeout= sets", what);
                r = sd_bus_process(bus, NULL);
                if (r == -EINTR || r > 0)
                        continue;
                if (r < 0)
                        return cs_error(e, r, "%s: %m", what);
                r = sd_bus_wait(bus, deadline - now);
                if (r < 0 && r != -EINTR)
                        return cs_error(e, r, "%s: %m", what);
        }
}

static bool bus_ready(sd_bus *bus, void *userdata) {
        return sd_bus_is_ready(bus) != 0; /* < 0: closed, which sd_bus_process() reports next */
}

/* The address is fixed, never taken from the environment: inside su and sudo the environment is
 * the caller's, and sd-bus executes unixexec: addresses as whoever calls it (root). */
static int bus_address(const char *socket_path, char *buf, size_t n) {
        static const char hex[] = "0123456789abcdef";
        const char *p = socket_path ? socket_path : BUS_SYSTEM_SOCKET;
        size_t k = (size_t) snprintf(buf, n, "unix:path=");

        if (*p != '/')
                return -EINVAL;
        /* D-Bus address escaping: only [-0-9A-Za-z_/.\*] may stand as they are */
        for (; *p; p++) {
                unsigned char c = (unsigned char) *p;
                bool plain = strchr("-_/.\\*", c) || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
                if (k + 4 > n)
                        return -ENAMETOOLONG;
                if (plain)
                        buf[k++] = (char) c;
                else {
                        buf[k++] = '%';
                        buf[k++] = hex[c >> 4];
                        buf[k++] = hex[c & 15];
                }
        }
        buf[k] = '\0';
        return 0;
}

static int bus_open(const char *socket_path, uint64_t deadline, sd_bus **ret, CsError *e) {
        _cleanup_bus_close_ sd_bus *bus = NULL;
        char address[BUS_ADDRESS_MAX];
        int r;

        r = bus_address(socket_path, address, sizeof address);
        if (r < 0)
                return cs_error(e, r, "bad bus socket path");
        /* a private connection: a long-lived process like sshd must not keep one from a module;
         * set up by hand rather than with sd_bus_open_system() so that connecting is bounded too */
        r = sd_bus_new(&bus);
        if (r < 0)
                return cs_error(e, r, "cannot allocate a bus connection: %m");
        r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0) /* sd-bus's own default comes from $SYSTEMD_BUS_TIMEOUT: never consulted */
                r = sd_bus_set_method_call_timeout(bus, usec_left(deadline));
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                return cs_error(e, r, "cannot connect to the system bus: %m");
        r = bus_run_until(bus, bus_ready, NULL, deadline, "connecting to the system bus", e);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

/* One method call, answered or failed within the deadline. */
typedef struct BusCall {
        bool done;
        sd_bus_message *reply;
        sd_bus_error error;
} BusCall;

static void bus_call_done(BusCall *c) {
        sd_bus_message_unref(c->reply);
        sd_bus_error_free(&c->error);
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        BusCall *c = userdata;

        c->done = true;
        if (sd_bus_message_is_method_error(m, NULL))
                return sd_bus_error_copy(&c->error, sd_bus_message_get_error(m)), 0;
        c->reply = sd_bus_message_ref(m);
        return 0;
}

static bool call_done(sd_bus *bus, void *userdata) {
        return ((BusCall *) userdata)->done;
}

/* r < 0 with c->error set when systemd answered with an error */
static int bus_call(sd_bus *bus, sd_bus_message *m, uint64_t deadline, const char *what, BusCall *c, CsError *e) {
        _cleanup_bus_slot_ sd_bus_slot *slot = NULL;
        int r;

        *c = (BusCall) { .error = SD_BUS_ERROR_NULL };
        r = sd_bus_call_async(bus, &slot, m, on_reply, c, usec_left(deadline));
        if (r < 0)
                return cs_error(e, r, "%s: %m", what);
        r = bus_run_until(bus, call_done, c, deadline, what, e);
        if (r < 0)
                return r;
        if (sd_bus_error_is_set(&c->error))
                /* sd_bus_error_get_errno() is positive; callers test r < 0 */
                return cs_error(e, -sd_bus_error_get_errno(&c->error), "%s: %s (%s)", what,
                                c->error.message ? c->error.message : "no message", c->error.name);
        return 0;
}

/* What one SetUnitProperties carries: per property, sent or not, and the value. */
typedef struct PropPlan {
        unsigned mask;
        uint64_t value[_BUS_PROP_MAX];
        unsigned forget; /* in the record, but its drop-in is someone else's now */
} PropPlan;

static int build_set_properties(sd_bus *bus, const char *unit, const PropPlan *plan, sd_bus_message **ret) {
        _cleanup_bus_message_ sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "SetUnitProperties");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "sb", unit, 1); /* runtime: /run/systemd/system.control, gone at reboot */
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r < 0)
                return r;
        for (BusProp p = 0; p < _BUS_PROP_MAX; p++)
                if (plan->mask & (1u << p)) {
                        r = sd_bus_message_append(m, "(sv)", bus_prop_name_to_string(p), "t", plan->value[p]);
                        if (r < 0)
                                return r;
                }
        r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

static int set_properties(sd_bus *bus, const char *unit, const PropPlan *plan, uint64_t deadline, BusCall *c,
                          CsError *e) {
        _cleanup_bus_message_ sd_bus_message *m = NULL;
        int r;

        r = build_set_properties(bus, unit, plan, &m);
        if (r < 0)
                return cs_error(e, r, "building SetUnitProperties: %m");
        r = bus_call(bus, m, deadline, "systemd SetUnitProperties", c, e);
        return r < 0 ? cs_error_prefix(e, "%s: ", unit) : r;
}

static int get_unit_path(sd_bus *bus, const char *unit, char **ret, CsError *e);
static int get_drop_in_paths(sd_bus *bus, const char *path, char ***ret, size_t *ret_n);

/* The unit file and its drop-ins, in the order systemd applied them. */
static int unit_sources(sd_bus *bus, const char *unit, char ***ret, size_t *ret_n, CsError *e) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL, *fragment = NULL;
        _cleanup_strv_free_ char **dropins = NULL;
        bool has_fragment;
        char **v;
        size_t n = 0;
        int r;

        r = get_unit_path(bus, unit, &path, e);
        if (r < 0)
                return r;
        r = sd_bus_get_property_string(bus, SD_DEST, path, "org.freedesktop.systemd1.Unit", "FragmentPath", &error,
                                       &fragment);
        if (r >= 0)
                r = get_drop_in_paths(bus, path, &dropins, &n);
        if (r < 0)
                return cs_error(e, r, "reading %s's unit files from systemd: %m", unit);
        v = calloc(n + 2, sizeof *v);
        if (!v)
                return -ENOMEM;
        has_fragment = fragment && *fragment; /* "" for a unit with no file of its own */
        if (has_fragment)
                v[0] = TAKE_PTR(fragment);
        if (n > 0)
                memcpy(v + has_fragment, dropins, n * sizeof *v);
        free(TAKE_PTR(dropins));
        *ret_n = n + has_fragment;
        *ret = v;
        return 0;
}

static bool file_exists(const char *path) {
        return access(path, F_OK) >= 0;
}

/* Which properties to send: the config's, unless an admin's persistent set-property holds one;
 * and the ones we set earlier that the config no longer gives, while their runtime drop-in is
 * still ours, returned to what systemd's files say. */
static int plan_properties(sd_bus *bus, const BusPaths *paths, uid_t uid, const BusSliceSettings *s,
                           const AppliedRecord *rec, PropPlan *plan, BusApplyResult *res, CsError *e) {
        const bool given[_BUS_PROP_MAX] = { s->weight_set, s->quota_set, s->period_set };
        const uint64_t want[_BUS_PROP_MAX] = { s->limits.weight, s->limits.quota_per_sec, s->limits.period_usec };
        _cleanup_strv_free_ char **sources = NULL;
        size_t n_sources = 0;
        char unit[SLICE_NAME_MAX];
        int r;

        slice_name(uid, unit);
        for (BusProp p = 0; p < _BUS_PROP_MAX; p++) {
                char persistent[PATH_MAX], runtime[PATH_MAX];

                if (control_dropin_path(paths->root, false, uid, p, persistent, sizeof persistent) < 0 ||
                    control_dropin_path(paths->root, true, uid, p, runtime, sizeof runtime) < 0)
                        return cs_error(e, -ENAMETOOLONG, "bus_root= too long");
                if (given[p] && !(p == BUS_PROP_QUOTA && s->quota_override) && file_exists(persistent)) {
                        res->kept |= 1u << p;
                        /* ours over the admin's value (a penalty's cap): theirs again */
                        if (!applied_record_owns(rec, p, runtime))
                                continue;
                } else if (given[p]) {
                        plan->mask |= 1u << p;
                        plan->value[p] = want[p];
                        continue;
                }
                if (!applied_record_owns(rec, p, runtime)) {
                        if (rec->prop[p].set)
                                plan->forget |= 1u << p;
                        continue;
                }
                if (!sources) {
                        r = unit_sources(bus, unit, &sources, &n_sources, e);
                        if (r < 0)
                                return r;
                }
                r = dropin_files_value(sources, n_sources, runtime, p, &plan->value[p]);
                if (r < 0)
                        return cs_error(e, r, "reading %s's unit files for %s=: %m", unit, bus_prop_key_to_string(p));
                plan->mask |= 1u << p;
                res->reverted |= 1u << p;
        }
        return 0;
}

/* After systemd took the plan: the record follows it, and a reverted property's runtime drop-in
 * (which now repeats what the files say) goes, so that the admin's files decide at a reload. */
static void note_applied(const BusPaths *paths, uid_t uid, const PropPlan *plan, const BusApplyResult *res,
                         AppliedRecord *rec) {
        for (BusProp p = 0; p < _BUS_PROP_MAX; p++) {
                char runtime[PATH_MAX];

                if (!(plan->mask & (1u << p)) ||
                    control_dropin_path(paths->root, true, uid, p, runtime, sizeof runtime) < 0)
                        continue;
                if (res->reverted & (1u << p)) {
                        (void) unlink(runtime);
                        rec->prop[p] = (AppliedProp) {};
                } else
                        applied_record_note(rec, p, plan->value[p], runtime);
        }
}

static int apply_on(sd_bus *bus, const BusPaths *paths, uid_t uid, const BusSliceSettings *s, uint64_t deadline,
                    BusApplyResult *res, CsError *e) {
        _cleanup_(bus_call_done) BusCall c = {};
        AppliedRecord rec;
        PropPlan plan = {};
        char unit[SLICE_NAME_MAX];
        int r;

        slice_name(uid, unit);
        *res = (BusApplyResult) {};
        res->record_error = applied_record_load(paths->root, uid, &rec);
        r = plan_properties(bus, paths, uid, s, &rec, &plan, res, e);
        if (r < 0)
                return r;
        for (BusProp p = 0; p < _BUS_PROP_MAX; p++)
                if (plan.forget & (1u << p))
                        rec.prop[p] = (AppliedProp) {};
        if (!plan.mask) {
                if (plan.forget && !res->record_error)
                        res->record_error = applied_record_save(paths->root, uid, &rec);
                return 0;
        }
        r = set_properties(bus, unit, &plan, deadline, &c, e);
        if (r < 0 && (plan.mask & (1u << BUS_PROP_WEIGHT)) && plan.value[BUS_PROP_WEIGHT] == CPU_WEIGHT_IDLE &&
            sd_bus_error_has_name(&c.error, SD_BUS_ERROR_INVALID_ARGS)) {
                /* systemd before 252 knows no CPUWeight=idle and refuses the whole call: the lowest
                 * weight is the closest it has, and the quota must not be lost with it */
                bus_call_done(&c);
                res->idle_fallback = true;
                plan.value[BUS_PROP_WEIGHT] = CPU_WEIGHT_MIN;
                r = set_properties(bus, unit, &plan, deadline, &c, e);
        }
        if (r < 0)
                return r;
        res->sent = plan.mask & ~res->reverted;
        memcpy(res->value, plan.value, sizeof res->value);
        note_applied(paths, uid, &plan, res, &rec);
        if (!res->record_error)
                res->record_error = applied_record_save(paths->root, uid, &rec);
        return 0;
}

int bus_apply_slice(uid_t uid, const BusSliceSettings *s, const BusPaths *paths, uint64_t timeout_usec,
                    BusApplyResult *ret, CsError *e) {
        _cleanup_bus_close_ sd_bus *bus = NULL;
        uint64_t deadline = usec_deadline(timeout_usec);
        BusApplyResult res;
        int r;

        r = bus_open(paths->socket, deadline, &bus, e);
        if (r < 0)
                return r;
        r = apply_on(bus, paths, uid, s, deadline, &res, e);
        if (r >= 0 && ret)
                *ret = res;
        return r;
}

static int line_in_user_slice(const char *id, const char *controllers, const char *path, void *userdata) {
        /* the unified line, or systemd's own named hierarchy on legacy/hybrid hosts */
        bool systemd_line = (strcmp(id, "0") == 0 && !*controllers) || strcmp(controllers, "name=systemd") == 0;

        return systemd_line && slice_path_in_slice(path, "user.slice", *(const uid_t *) userdata);
}

/* The path systemd puts a process of uid's slice at, exactly as a prefix (slice_path_in_slice). */
int bus_pid_in_user_slice(pid_t pid, uid_t uid) {
        return proc_cgroup_for_each(pid, line_in_user_slice, &uid);
}

typedef struct JobWait {
        const char *job;
        bool done;
        char result[32];
} JobWait;

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        JobWait *w = userdata;
        const char *path, *unit, *result;
        uint32_t id;

        if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
                return 0;
        if (w->job && strcmp(path, w->job) == 0) {
                w->done = true;
                snprintf(w->result, sizeof w->result, "%s", result);
        }
        return 0;
}

static bool job_done(sd_bus *bus, void *userdata) {
        return ((JobWait *) userdata)->done;
}

static int build_scope_call(sd_bus *bus, const char *scope, uid_t uid, pid_t pid, const char *description,
                            sd_bus_message **ret) {
        _cleanup_bus_message_ sd_bus_message *m = NULL;
        char slice[SLICE_NAME_MAX];
        int r;

        slice_name(uid, slice);
        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "StartTransientUnit");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "ss", scope, "fail");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "a(sv)", 4, "Slice", "s", slice, "PIDs", "au", 1, (uint32_t) pid, "Description",
                                  "s", description, "CollectMode", "s", "inactive-or-failed");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "a(sa(sv))", 0);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

/* cpuslice-UID-PID-RANDOM.scope: a unit left over from an earlier login (a crashed su, a PID
 * reused) must not make this one fail, so the name is never the same twice. */
static void transient_scope_name(uid_t uid, pid_t pid, char buf[static BUS_SCOPE_NAME_MAX]) {
        uint32_t rnd;

        if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd)
                rnd = (uint32_t) now_usec() ^ ((uint32_t) pid << 16);
        snprintf(buf, BUS_SCOPE_NAME_MAX, "cpuslice-%" PRIu32 "-%" PRIi32 "-%08" PRIx32 ".scope", (uint32_t) uid,
                 (int32_t) pid, rnd);
}

static int start_scope(sd_bus *bus, const char *scope, uid_t uid, pid_t pid, const char *description,
                       uint64_t deadline, BusCall *c, CsError *e) {
        _cleanup_bus_message_ sd_bus_message *m = NULL;
        int r;

        r = build_scope_call(bus, scope, uid, pid, description, &m);
        if (r < 0)
                return cs_error(e, r, "building StartTransientUnit: %m");
        return bus_call(bus, m, deadline, "systemd StartTransientUnit", c, e);
}

/* Moves pid into a new transient scope in user-UID.slice and waits for the job, or the shell
 * forked right after (su, sudo) would start behind in the caller's slice. */
static int move_on(sd_bus *bus, uid_t uid, pid_t pid, const char *description, uint64_t deadline,
                   char ret_scope[static BUS_SCOPE_NAME_MAX], CsError *e) {
        _cleanup_(bus_call_done) BusCall c = {};
        _cleanup_bus_slot_ sd_bus_slot *slot = NULL;
        JobWait w = {};
        int r;

        /* subscribe before the call, or the signal may pass before we listen; the match is sent
         * ahead of the call on the same connection, so the bus has it by then without a wait */
        r = sd_bus_match_signal_async(bus, &slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved", on_job_removed, NULL,
                                      &w);
        if (r < 0)
                return cs_error(e, r, "cannot listen for systemd's JobRemoved: %m");
        transient_scope_name(uid, pid, ret_scope);
        r = start_scope(bus, ret_scope, uid, pid, description, deadline, &c, e);
        if (r < 0 && sd_bus_error_has_name(&c.error, "org.freedesktop.systemd1.UnitExists")) {
                bus_call_done(&c);
                transient_scope_name(uid, pid, ret_scope);
                r = start_scope(bus, ret_scope, uid, pid, description, deadline, &c, e);
        }
        if (r < 0)
                return r;
        r = sd_bus_message_read(c.reply, "o", &w.job);
        if (r < 0)
                return cs_error(e, r, "StartTransientUnit: bad reply");
        r = bus_run_until(bus, job_done, &w, deadline, "waiting for systemd's scope job", e);
        if (r < 0)
                return r;
        if (strcmp(w.result, "done") != 0)
                return cs_error(e, -EIO, "systemd's job for %s ended with '%s'", ret_scope, w.result);
        return 0;
}

int bus_open_session(const BusSessionRequest *req, BusSessionResult *ret, CsError *e) {
        _cleanup_bus_close_ sd_bus *bus = NULL;
        BusSessionResult res = {};
        int r;

        r = bus_open(req->paths.socket, req->deadline_usec, &bus, e);
        if (r < 0)
                return r;
        r = apply_on(bus, &req->paths, req->uid, req->settings, req->deadline_usec, &res.applied, e);
        if (r >= 0 && req->slices)
                r = apply_on(bus, &req->paths, SLICE_ROOT_UID, req->slices, req->deadline_usec, &res.slices_applied,
                             e);
        if (r < 0)
                return r;
        if (req->move_pid > 0) {
                /* unreadable /proc/PID/cgroup: moving is the safe side */
                if (bus_pid_in_user_slice(req->move_pid, req->uid) <= 0) {
                        r = move_on(bus, req->uid, req->move_pid, req->description, req->deadline_usec, res.scope, e);
                        if (r < 0)
                                return r;
                }
        }
        *ret = res;
        return 0;
}

static int get_unit_path(sd_bus *bus, const char *unit, char **ret, CsError *e) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        const char *path;
        int r;

        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "LoadUnit", &error, &reply, "s", unit);
        if (r < 0)
                return cs_error(e, r, "systemd LoadUnit(%s): %s", unit, error.message ? error.message : strerror(-r));
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return cs_error(e, r, "systemd LoadUnit(%s): bad reply", unit);
        *ret = strdup(path);
        return *ret ? 0 : -ENOMEM;
}

static int get_u64(sd_bus *bus, const char *path, const char *iface, const char *name, uint64_t *ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        return sd_bus_get_property_trivial(bus, SD_DEST, path, iface, name, &error, 't', ret);
}

static int get_drop_in_paths(sd_bus *bus, const char *path, char ***ret, size_t *ret_n) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        char **v = NULL;
        int r;

        r = sd_bus_get_property_strv(bus, SD_DEST, path, "org.freedesktop.systemd1.Unit", "DropInPaths", &error, &v);
        if (r < 0)
                return r;
        *ret_n = strv_length(v);
        *ret = v;
        return 0;
}

int bus_read_slice(uid_t uid, const BusPaths *paths, uint64_t timeout_usec, BusSliceView *ret, CsError *e) {
        _cleanup_bus_close_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        BusSliceView v = {};
        char unit[SLICE_NAME_MAX];
        int r;

        slice_name(uid, unit);
        r = bus_open(paths->socket, usec_deadline(timeout_usec), &bus, e);
        if (r < 0)
                return r;
        r = get_unit_path(bus, unit, &path, e);
        if (r < 0)
                return r;
        r = sd_bus_get_property_string(bus, SD_DEST, path, "org.freedesktop.systemd1.Unit", "ActiveState", &error,
                                       &v.active_state);
        if (r >= 0)
                r = get_u64(bus, path, "org.freedesktop.systemd1.Slice", "CPUWeight", &v.cpu_weight);
        if (r >= 0)
                r = get_u64(bus, path, "org.freedesktop.systemd1.Slice", "CPUQuotaPerSecUSec", &v.quota_per_sec);
        if (r >= 0)
                r = get_u64(bus, path, "org.freedesktop.systemd1.Slice", "CPUQuotaPeriodUSec", &v.period_usec);
        if (r >= 0)
                r = get_drop_in_paths(bus, path, &v.drop_in_paths, &v.n_drop_in_paths);
        if (r < 0) {
                bus_slice_view_done(&v);
                return cs_error(e, r, "reading %s properties from systemd: %m", unit);
        }
        *ret = v;
        return 0;
}

void bus_slice_view_done(BusSliceView *v) {
        strv_free(v->drop_in_paths);
        free(v->active_state);
        *v = (BusSliceView) {};
}
