/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd's unit files as the module reads them to return a property to the admin's value, and
 * the record of what the module set. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "applied-record.h"
#include "systemd-dropin.h"
#include "test-util.h"

static uint64_t value_of(const char *text, BusProp p) {
        uint64_t v = 12345;

        assert_int_equal(dropin_buffer_value(text, p, &v), 0);
        return v;
}

static void test_buffer(void **state) {
        /* what SetUnitProperties writes, byte for byte */
        static const char set_property[] =
                "# This is a drop-in unit file extension, created via \"systemctl set-property\"\n"
                "# or an equivalent operation. Do not edit.\n"
                "[Slice]\n"
                "CPUQuota=30%\n";

        assert_int_equal(value_of(set_property, BUS_PROP_QUOTA), 300000);
        assert_int_equal(value_of(set_property, BUS_PROP_WEIGHT), 12345); /* untouched: not there */
        assert_int_equal(value_of("[Slice]\n CPUWeight = 300 \nCPUWeight=idle\n", BUS_PROP_WEIGHT), 0);
        assert_int_equal(value_of("[Slice]\nCPUWeight=300\nCPUWeight=\n", BUS_PROP_WEIGHT), BUS_PROP_UNSET);
        assert_int_equal(value_of("[Slice]\nCPUQuotaPeriodSec=50ms", BUS_PROP_PERIOD), 50000);
        assert_int_equal(value_of("[Slice]\nCPUQuota=12.50%\n", BUS_PROP_QUOTA), 125000);
        /* other sections, comments and values systemd would reject leave it as it was */
        assert_int_equal(value_of("[Unit]\nCPUWeight=7\n[Slice]\n#CPUWeight=8\n;CPUWeight=9\nCPUWeight=abc\n"
                                  "CPUWeightX=5\n",
                                  BUS_PROP_WEIGHT),
                         12345);
        assert_int_equal(value_of("[Slice]\nCPUWeight=20000\n", BUS_PROP_WEIGHT), 12345);
}

static char *put_file(const char *dir, const char *name, const char *text) {
        char *p;
        FILE *f;

        assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
        f = fopen(p, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        return p;
}

static void test_files(void **state) {
        char *dir = scratch_dir();
        char *paths[4];
        uint64_t v;

        assert_non_null(dir);
        paths[0] = put_file(dir, "user-.slice", "[Unit]\nDescription=x\n[Slice]\n");
        paths[1] = put_file(dir, "10-cap.conf", "[Slice]\nCPUQuota=70%\n");
        paths[2] = put_file(dir, "50-CPUQuota.conf", "[Slice]\nCPUQuota=50%\n");
        assert_true(asprintf(&paths[3], "%s/gone.conf", dir) > 0); /* removed since systemd loaded it */

        /* the last one read wins ... */
        assert_int_equal(dropin_files_value(paths, 4, NULL, BUS_PROP_QUOTA, &v), 0);
        assert_int_equal(v, 500000);
        /* ... unless it is the one being returned */
        assert_int_equal(dropin_files_value(paths, 4, paths[2], BUS_PROP_QUOTA, &v), 0);
        assert_int_equal(v, 700000);
        assert_int_equal(dropin_files_value(paths, 1, NULL, BUS_PROP_QUOTA, &v), 0);
        assert_int_equal(v, BUS_PROP_UNSET);
        /* a file that is there but cannot be read is an error, not "unset" */
        assert_int_equal(dropin_files_value(&dir, 1, NULL, BUS_PROP_QUOTA, &v), -EBADFD);

        for (size_t i = 0; i < 4; i++)
                free(paths[i]);
        rm_rf(dir);
        free(dir);
}

static void test_paths(void **state) {
        char buf[256];

        assert_int_equal(control_dropin_path(NULL, true, 1001, BUS_PROP_QUOTA, buf, sizeof buf), 0);
        assert_string_equal(buf, "/run/systemd/system.control/user-1001.slice.d/50-CPUQuota.conf");
        assert_int_equal(control_dropin_path("/t", false, 7, BUS_PROP_PERIOD, buf, sizeof buf), 0);
        assert_string_equal(buf, "/t/etc/systemd/system.control/user-7.slice.d/50-CPUQuotaPeriodSec.conf");
        assert_int_equal(control_dropin_path(NULL, false, 7, BUS_PROP_WEIGHT, buf, 20), -ENAMETOOLONG);
        assert_string_equal(bus_prop_name_to_string(BUS_PROP_QUOTA), "CPUQuotaPerSecUSec");
}

static void test_record(void **state) {
        char *dir = scratch_dir(), *rec_dir, *dropin, *file;
        AppliedRecord rec = {}, back;
        mode_t old = umask(0777); /* the caller's umask must not decide the modes */
        struct stat st;

        assert_non_null(dir);
        assert_true(asprintf(&rec_dir, "%s" APPLIED_RECORD_DIR, dir) > 0);
        assert_true(asprintf(&file, "%s/run", dir) > 0);
        assert_int_equal(mkdir(file, 0755), 0);
        assert_int_equal(chmod(file, 0755), 0); /* made under the umask 0777 above */
        free(file);
        dropin = put_file(dir, "50-CPUWeight.conf", "[Slice]\nCPUWeight=300\n");

        assert_int_equal(applied_record_load(dir, 1001, &back), 0); /* none yet: empty */
        assert_false(applied_record_exists(dir, 1001));
        assert_false(back.prop[BUS_PROP_WEIGHT].set);
        applied_record_note(&rec, BUS_PROP_WEIGHT, 300, dropin);
        assert_true(applied_record_owns(&rec, BUS_PROP_WEIGHT, dropin));
        assert_false(applied_record_owns(&rec, BUS_PROP_QUOTA, dropin));
        assert_int_equal(applied_record_save(dir, 1001, &rec), 0);
        assert_true(applied_record_exists(dir, 1001));
        umask(old);

        assert_true(asprintf(&file, "%s/user-1001.slice", rec_dir) > 0);
        assert_int_equal(stat(file, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_int_equal(stat(rec_dir, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);

        assert_int_equal(applied_record_load(dir, 1001, &back), 0);
        assert_true(back.prop[BUS_PROP_WEIGHT].set);
        assert_int_equal(back.prop[BUS_PROP_WEIGHT].value, 300);
        assert_true(applied_record_owns(&back, BUS_PROP_WEIGHT, dropin));

        /* an admin's set-property --runtime replaces the file: it is theirs now */
        unlink(dropin);
        free(put_file(dir, "50-CPUWeight.conf", "[Slice]\nCPUWeight=500\n"));
        assert_false(applied_record_owns(&back, BUS_PROP_WEIGHT, dropin));

        /* a record that does not parse, or that others may write, is refused */
        free(put_file(rec_dir, "user-1002.slice", "CPUWeight 300 1 2\n"));
        assert_int_equal(applied_record_load(dir, 1002, &back), -EBADMSG);
        free(put_file(rec_dir, "user-1003.slice", "CPUWeight 300 1 2 3\n"));
        assert_int_equal(applied_record_load(dir, 1003, &back), 0);
        assert_int_equal(chmod(file, 0666), 0);
        assert_int_equal(applied_record_load(dir, 1001, &back), -EPERM);
        /* nor one of another user's: only root's, or the reader's own (a user's slicectl status) */
        assert_int_equal(chmod(file, 0644), 0);
        if (geteuid() == 0) {
                assert_int_equal(chown(file, 1001, 1001), 0);
                assert_int_equal(applied_record_load(dir, 1001, &back), -EPERM);
                assert_int_equal(chown(file, 0, 0), 0);
        }
        assert_int_equal(applied_record_load(dir, 1001, &back), 0);

        /* nothing left to record: the file goes */
        rec = (AppliedRecord) {};
        assert_int_equal(applied_record_save(dir, 1001, &rec), 0);
        assert_int_equal(access(file, F_OK), -1);

        free(file);
        free(dropin);
        free(rec_dir);
        rm_rf(dir);
        free(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_buffer),
                cmocka_unit_test(test_files),
                cmocka_unit_test(test_paths),
                cmocka_unit_test(test_record),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
