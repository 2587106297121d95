/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#include "backend-cgroupfs.h"
#include "backend-systemd.h"
#include "macro.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"

/* sd_bus_flush() first waits for the connection to be up, for up to sd-bus's 90 s authentication
 * timeout: a connection that never got there is closed without it. */
static inline void bus_closep(sd_bus **b) {
        if (!*b)
                return;
        if (sd_bus_is_ready(*b) > 0)
                sd_bus_flush_close_unref(*b);
        else
                sd_bus_close_unref(*b);
}
#define _cleanup_bus_close_ _cleanup_(bus_closep)
#define _cleanup_bus_message_ _cleanup_(sd_bus_message_unrefp)
#define _cleanup_bus_error_ _cleanup_(sd_bus_error_free)

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

/* Drives the connection until authenticated and Hello'd, or until the deadline: sd-bus's own
 * authentication timeout is 90 s, far too long for a login waiting on a hung bus. */
static int bus_wait_ready(sd_bus *bus, uint64_t deadline, CsError *e) {
        for (;;) {
                uint64_t now;
                int r = sd_bus_is_ready(bus);

                if (r > 0)
                        return 0;
                if (r < 0)
                        return cs_error(e, r, "cannot connect to the system bus: %m");
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return cs_error(e, r, "cannot connect to the system bus: %m");
                if (r > 0)
                        continue;
                now = now_usec();
                if (now >= deadline)
                        return cs_error(e, -ETIMEDOUT, "the system bus did not answer in time");
                r = sd_bus_wait(bus, deadline - now);
                if (r < 0)
                        return cs_error(e, r, "cannot connect to the system bus: %m");
        }
}

static int bus_open(uint64_t timeout_usec, sd_bus **ret, CsError *e) {
        _cleanup_bus_close_ sd_bus *bus = NULL;
        const char *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
        int r;

        /* a private connection: a long-lived process like sshd must not keep one from a module;
         * set up by hand rather than with sd_bus_open_system() so that connecting is bounded too */
        r = sd_bus_new(&bus);
        if (r < 0)
                return cs_error(e, r, "cannot allocate a bus connection: %m");
        r = sd_bus_set_address(bus, address ? address : "unix:path=/run/dbus/system_bus_socket");
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_set_method_call_timeout(bus, timeout_usec);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                return cs_error(e, r, "cannot connect to the system bus: %m");
        r = bus_wait_ready(bus, now_usec() + timeout_usec, e);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

static int append_property(sd_bus_message *m, const char *name, uint64_t value) {
        return sd_bus_message_append(m, "(sv)", name, "t", value);
}

static int build_set_properties(sd_bus *bus, const char *unit, uint64_t weight, uint64_t quota, uint64_t period,
                                sd_bus_message **ret) {
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
        if ((r = append_property(m, "CPUWeight", weight)) < 0 ||
            (r = append_property(m, "CPUQuotaPerSecUSec", quota)) < 0 ||
            (r = append_property(m, "CPUQuotaPeriodUSec", period)) < 0)
                return r;
        r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

static int call_set_properties(sd_bus *bus, const char *unit, uint64_t weight, uint64_t quota, uint64_t period,
                               uint64_t timeout_usec, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *m = NULL, *reply = NULL;
        int r;

        r = build_set_properties(bus, unit, weight, quota, period, &m);
        if (r < 0)
                return r;
        return sd_bus_call(bus, m, timeout_usec, error, &reply);
}

int bus_apply_slice(uid_t uid, const BusSliceSettings *s, uint64_t timeout_usec, bool *ret_idle_fallback,
                    CsError *e) {
        _cleanup_bus_close_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        char unit[CGFS_NAME_MAX];
        uint64_t weight, quota, period;
        int r;

        cgfs_slice_name(uid, unit);
        weight = s->weight_set ? s->limits.weight : BUS_USEC_INFINITY;
        quota = s->quota_set ? s->limits.quota_per_sec : BUS_USEC_INFINITY;
        period = s->period_set ? s->limits.period_usec : BUS_USEC_INFINITY;
        if (ret_idle_fallback)
                *ret_idle_fallback = false;
        r = bus_open(timeout_usec, &bus, e);
        if (r < 0)
                return r;
        r = call_set_properties(bus, unit, weight, quota, period, timeout_usec, &error);
        if (r < 0 && weight == CPU_WEIGHT_IDLE && sd_bus_error_has_name(&error, SD_BUS_ERROR_INVALID_ARGS)) {
                /* systemd before CPUWeight=idle: the lowest weight is the closest it has */
                sd_bus_error_free(&error);
                if (ret_idle_fallback)
                        *ret_idle_fallback = true;
                r = call_set_properties(bus, unit, CPU_WEIGHT_MIN, quota, period, timeout_usec, &error);
        }
        if (r < 0)
                return cs_error(e, r, "systemd SetUnitProperties(%s): %s", unit,
                                error.message ? error.message : strerror(-r));
        return 0;
}

int bus_pid_in_user_slice(pid_t pid, uid_t uid) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        char path[64], slice[CGFS_NAME_MAX + 2];
        size_t cap = 0;

        snprintf(path, sizeof path, "/proc/%" PRIi32 "/cgroup", (int32_t) pid);
        snprintf(slice, sizeof slice, "/user-%" PRIu32 ".slice/", (uint32_t) uid);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        while (getline(&line, &cap, f) > 0) {
                /* the unified line, or systemd's own named hierarchy on legacy/hybrid hosts */
                if (strncmp(line, "0::", 3) != 0 && !strstr(line, ":name=systemd:"))
                        continue;
                if (strstr(line, slice))
                        return 1;
        }
        return 0;
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

static int build_scope_call(sd_bus *bus, const char *scope, uid_t uid, pid_t pid, const char *description,
                            sd_bus_message **ret) {
        _cleanup_bus_message_ sd_bus_message *m = NULL;
        char slice[CGFS_NAME_MAX];
        int r;

        cgfs_slice_name(uid, slice);
        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "StartTransientUnit");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "ss", scope, "fail");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "a(sv)", 4, "Slice", "s", slice, "PIDs", "au", 1, (uint32_t) pid,
                                  "Description", "s", description, "CollectMode", "s", "inactive-or-failed");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "a(sa(sv))", 0);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

static int wait_job(sd_bus *bus, JobWait *w, uint64_t timeout_usec, CsError *e) {
        uint64_t deadline = now_usec() + timeout_usec;

        while (!w->done) {
                uint64_t now = now_usec();
                int r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return cs_error(e, r, "waiting for systemd: %m");
                if (r > 0)
                        continue;
                if (now >= deadline)
                        return cs_error(e, -ETIMEDOUT, "systemd did not finish the scope job in time");
                r = sd_bus_wait(bus, deadline - now);
                if (r < 0)
                        return cs_error(e, r, "waiting for systemd: %m");
        }
        if (strcmp(w->result, "done") != 0)
                return cs_error(e, -EIO, "systemd's job for the scope ended with '%s'", w->result);
        return 0;
}

int bus_move_to_user_slice(uid_t uid, pid_t pid, const char *description, uint64_t timeout_usec, char **ret_scope,
                           CsError *e) {
        _cleanup_bus_close_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        JobWait w = {};
        char scope[128];
        int r;

        snprintf(scope, sizeof scope, "cpuslice-%" PRIu32 "-%" PRIi32 ".scope", (uint32_t) uid, (int32_t) pid);
        r = bus_open(timeout_usec, &bus, e);
        if (r < 0)
                return r;
        /* subscribe before the call, or the signal may pass before we listen */
        r = sd_bus_match_signal(bus, &slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved", on_job_removed, &w);
        if (r < 0)
                return cs_error(e, r, "cannot listen for systemd's JobRemoved: %m");
        r = build_scope_call(bus, scope, uid, pid, description, &m);
        if (r < 0)
                return cs_error(e, r, "building StartTransientUnit: %m");
        r = sd_bus_call(bus, m, timeout_usec, &error, &reply);
        if (r < 0)
                return cs_error(e, r, "systemd StartTransientUnit(%s): %s", scope,
                                error.message ? error.message : strerror(-r));
        r = sd_bus_message_read(reply, "o", &w.job);
        if (r < 0)
                return cs_error(e, r, "StartTransientUnit: bad reply");
        r = wait_job(bus, &w, timeout_usec, e);
        if (r < 0)
                return r;
        if (ret_scope && !(*ret_scope = strdup(scope)))
                return -ENOMEM;
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

static int get_strv(sd_bus *bus, const char *path, char ***ret, size_t *ret_n) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        char **v = NULL;
        size_t n = 0;
        int r;

        r = sd_bus_get_property_strv(bus, SD_DEST, path, "org.freedesktop.systemd1.Unit", "DropInPaths", &error, &v);
        if (r < 0)
                return r;
        while (v && v[n])
                n++;
        *ret = v;
        *ret_n = n;
        return 0;
}

int bus_read_slice(uid_t uid, uint64_t timeout_usec, BusSliceView *ret, CsError *e) {
        _cleanup_bus_close_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        BusSliceView v = {};
        char unit[CGFS_NAME_MAX];
        int r;

        cgfs_slice_name(uid, unit);
        r = bus_open(timeout_usec, &bus, e);
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
                r = get_strv(bus, path, &v.drop_in_paths, &v.n_drop_in_paths);
        if (r < 0) {
                bus_slice_view_done(&v);
                return cs_error(e, r, "reading %s properties from systemd: %m", unit);
        }
        *ret = v;
        return 0;
}

void bus_slice_view_done(BusSliceView *v) {
        for (size_t i = 0; i < v->n_drop_in_paths; i++)
                free(v->drop_in_paths[i]);
        free(v->drop_in_paths);
        free(v->active_state);
        *v = (BusSliceView) {};
}
