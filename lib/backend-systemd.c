/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "backend-cgroupfs.h"
#include "backend-systemd.h"
#include "macro.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"

static inline void bus_closep(sd_bus **b) {
        if (*b)
                sd_bus_flush_close_unref(*b);
}
#define _cleanup_bus_close_ _cleanup_(bus_closep)
#define _cleanup_bus_message_ _cleanup_(sd_bus_message_unrefp)
#define _cleanup_bus_error_ _cleanup_(sd_bus_error_free)

static int bus_open(uint64_t timeout_usec, sd_bus **ret, CsError *e) {
        sd_bus *bus = NULL;
        int r;

        /* a private connection: a long-lived process like sshd must not keep one from a module */
        r = sd_bus_open_system(&bus);
        if (r < 0)
                return cs_error(e, r, "cannot connect to the system bus: %m");
        r = sd_bus_set_method_call_timeout(bus, timeout_usec);
        if (r < 0) {
                sd_bus_flush_close_unref(bus);
                return cs_error(e, r, "cannot set the bus timeout: %m");
        }
        *ret = bus;
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
