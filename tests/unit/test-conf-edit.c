/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf-edit.h"
#include "conf.h"
#include "test-util.h"

#define HEADER "# Written by slicectl(1): change it with 'slicectl set' and 'slicectl unset'.\n"

static char *slurp(const char *dir) {
        char path[4096], *buf;
        FILE *f;
        long n;

        snprintf(path, sizeof path, "%s/%s", dir, CONF_EDIT_FILE);
        f = fopen(path, "re");
        if (!f)
                return NULL;
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        rewind(f);
        buf = calloc(1, (size_t) n + 1);
        assert_non_null(buf);
        assert_int_equal(fread(buf, 1, (size_t) n, f), (size_t) n);
        fclose(f);
        return buf;
}

static void expect_file(const char *dir, const char *want) {
        char *got = slurp(dir);

        assert_non_null(got);
        assert_string_equal(got, want);
        free(got);
}

/* open, set one line's worth, commit */
static void set(const char *dir, const char *domain, const char *a, const char *b) {
        char *argv[] = { (char *) a, (char *) b };
        char *why = NULL;
        ConfEdit ed;
        CsError e = {};

        assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), 0);
        assert_int_equal(conf_edit_set(&ed, domain, argv, b ? 2 : 1, &why), 0);
        assert_null(why);
        assert_int_equal(conf_edit_commit(&ed, &e), 0);
        conf_edit_done(&ed);
}

static size_t count_entries(const char *dir) {
        DIR *d = opendir(dir);
        struct dirent *de;
        size_t n = 0;

        assert_non_null(d);
        while ((de = readdir(d)))
                n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
        closedir(d);
        return n;
}

static int setup(void **state) {
        *state = scratch_dir();
        return *state ? 0 : -1;
}

static int teardown(void **state) {
        rm_rf(*state);
        free(*state);
        return 0;
}

static void test_create_and_merge(void **state) {
        char path[4096], dir[1024];
        struct stat st;

        /* the directory itself is created when missing (a fresh /run/cpuslice.d) */
        snprintf(dir, sizeof dir, "%s/cpuslice.d", (char *) *state);
        /* sudo keeps its caller's umask: no mode may come from it */
        umask(0777);
        set(dir, "alice", "CPUWeight=400", NULL);
        umask(0022);
        expect_file(dir, HEADER "alice CPUWeight=400\n");
        snprintf(path, sizeof path, "%s/%s", dir, CONF_EDIT_FILE);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        if (geteuid() == 0)
                assert_int_equal(st.st_uid, 0);
        assert_int_equal(stat(dir, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);
        snprintf(path, sizeof path, "%s/%s", dir, CONF_EDIT_LOCK);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);

        set(dir, "@students", "CPUQuota=50%", "CPUWeight=idle");
        set(dir, "alice", "CPUQuota=200%", NULL); /* merged into alice's line */
        set(dir, "alice", "CPUWeight=300", NULL); /* replaces the value */
        set(dir, "1000:1999", "CPUQuotaPeriodSec=50ms", NULL);
        set(dir, "*", "CPUSlice=no", NULL);
        expect_file(dir, HEADER "alice CPUWeight=300 CPUQuota=200%\n"
                                "@students CPUWeight=idle CPUQuota=50%\n"
                                "1000:1999 CPUQuotaPeriodSec=50ms\n"
                                "* CPUSlice=no\n");
        /* only the file and the lock file: no temp files left behind */
        assert_int_equal(count_entries(dir), 2);
}

static void test_result_loads_cleanly(void **state) {
        const char *dir = *state;
        RuleSet rs = {};
        DiagList d = {};
        char path[4096];

        set(dir, "alice", "CPUWeight=400", "CPUQuota=12.5%");
        set(dir, "1001", "CPUQuotaPeriodSec=20ms", NULL);
        snprintf(path, sizeof path, "%s/%s", dir, CONF_EDIT_FILE);
        assert_int_equal(conf_load_file(&rs, path, geteuid() == 0 ? CONF_PERMS_ENFORCE : CONF_PERMS_WARN, &d), 0);
        assert_int_equal(d.n, 0);
        assert_int_equal(rs.n, 2);
        assert_int_equal(rs.rules[0].weight, 400);
        assert_int_equal(rs.rules[1].period_usec, 20000);
        ruleset_done(&rs);
        diag_list_done(&d);
}

static void test_invalid_changes_nothing(void **state) {
        const char *dir = *state;
        static const struct {
                const char *domain, *setting, *reason;
        } bad[] = {
                { "alice", "CPUWeight=0", "bad CPUWeight= value" },
                { "alice", "CPUWeight=10001", "bad CPUWeight= value" },
                { "alice", "CPUQuota=50", "bad CPUQuota= value" },
                { "alice", "Weight=5", "unknown setting" },
                { "alice", "CPUWeight", "expected SETTING=VALUE" },
                { "2000:1000", "CPUWeight=5", "uid range is empty" },
                { "@", "CPUWeight=5", "bad group name" },
                { "alice", "CPUWeight=5#x", "no blanks or '#'" },
                { "al ice", "CPUWeight=5", "bad domain" },
        };

        set(dir, "alice", "CPUWeight=400", NULL);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                char *argv[] = { (char *) bad[i].setting };
                char *why = NULL;
                ConfEdit ed;
                CsError e = {};

                print_message("case %zu\n", i);
                assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), 0);
                assert_true(conf_edit_set(&ed, bad[i].domain, argv, 1, &why) < 0);
                assert_non_null(why);
                assert_non_null(strstr(why, bad[i].reason));
                free(why);
                /* the edit is unchanged: committing it rewrites the same content */
                assert_int_equal(conf_edit_commit(&ed, &e), 0);
                conf_edit_done(&ed);
                expect_file(dir, HEADER "alice CPUWeight=400\n");
        }
}

static void test_unset(void **state) {
        const char *dir = *state;
        ConfEdit ed;
        CsError e = {};
        char *why = NULL;

        set(dir, "alice", "CPUWeight=400", "CPUQuota=50%");
        set(dir, "bob", "CPUWeight=200", NULL);
        assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), 0);
        assert_int_equal(conf_edit_unset(&ed, "alice", 1u << SETTING_QUOTA, &why), 1);
        assert_int_equal(conf_edit_unset(&ed, "alice", 1u << SETTING_QUOTA, &why), 0);
        assert_int_equal(conf_edit_unset(&ed, "carol", 0, &why), 0);
        assert_int_equal(conf_edit_unset(&ed, "bob", 0, &why), 1);
        assert_true(conf_edit_unset(&ed, "1:0", 0, &why) < 0);
        assert_non_null(why);
        free(why);
        assert_int_equal(conf_edit_commit(&ed, &e), 0);
        conf_edit_done(&ed);
        expect_file(dir, HEADER "alice CPUWeight=400\n");
}

static void test_hand_edits_kept(void **state) {
        const char *dir = *state;

        assert_int_equal(write_file(dir, CONF_EDIT_FILE,
                                    "# my notes\n"
                                    "alice CPUWeight=100 # old\n"
                                    "this line is broken\n"
                                    "\n"
                                    "alice CPUQuota=10%\n",
                                    0644),
                         0);
        /* the last line for the domain takes the value; the earlier duplicate loses it */
        set(dir, "alice", "CPUWeight=500", NULL);
        expect_file(dir, HEADER "# my notes\n"
                                "this line is broken\n"
                                "\n"
                                "alice CPUWeight=500 CPUQuota=10%\n");
}

/* a hand-edited line with a bad setting still gives its good ones, so set and unset edit it
 * like any other; what the module skips is kept as written, unless set or unset replace it */
static void test_skipped_settings(void **state) {
        const char *dir = *state;
        char *argv[] = { (char *) "CPUWeight=5", (char *) "CPUWieght=6" }, *why = NULL, path[4096];
        RuleSet rs = {};
        DiagList d = {};
        ConfEdit ed;
        CsError e = {};

        assert_int_equal(write_file(dir, CONF_EDIT_FILE,
                                    "alice CPUWieght=100 CPUQuota=10% CPUWeight=banana\n"
                                    "bob CPUWeight=5 CPUWeight=6\n"
                                    "@g CPUWieght=1\n",
                                    0644),
                         0);
        /* set validates strictly: one bad setting and nothing is written */
        assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), 0);
        assert_int_equal(conf_edit_set(&ed, "carol", argv, 2, &why), -EINVAL);
        assert_non_null(why);
        assert_non_null(strstr(why, "unknown setting 'CPUWieght='"));
        free(why);
        why = NULL;
        /* a repeat left behind would apply once the first is unset: it goes with it */
        assert_int_equal(conf_edit_unset(&ed, "bob", 1u << SETTING_WEIGHT, &why), 2);
        assert_int_equal(conf_edit_commit(&ed, &e), 0);
        conf_edit_done(&ed);
        /* the new value replaces the bad one; the unknown name stays for its author to see */
        set(dir, "alice", "CPUWeight=300", NULL);
        expect_file(dir, HEADER "alice CPUWeight=300 CPUQuota=10% CPUWieght=100\n@g CPUWieght=1\n");

        snprintf(path, sizeof path, "%s/%s", dir, CONF_EDIT_FILE);
        assert_int_equal(conf_load_file(&rs, path, CONF_PERMS_WARN, &d), 0);
        assert_int_equal(rs.n, 1);
        assert_int_equal(rs.rules[0].weight, 300);
        assert_int_equal(rs.rules[0].quota_per_sec, 100000);
        assert_int_equal(diag_count(&d, DIAG_ERROR), 2);
        assert_non_null(strstr(d.items[0].msg, "unknown setting 'CPUWieght='"));
        assert_non_null(strstr(d.items[0].msg, "; setting skipped"));
        assert_non_null(strstr(d.items[1].msg, "; line skipped"));
        ruleset_done(&rs);
        diag_list_done(&d);
}

/* the Penalty*= keys are kept as written through set and a partial unset; set does not take them */
static void test_penalty_keys_kept(void **state) {
        const char *dir = *state;
        char *argv[] = { (char *) "PenaltyAbove=150%" }, *why = NULL;
        ConfEdit ed;
        CsError e = {};

        assert_int_equal(write_file(dir, CONF_EDIT_FILE,
                                    "alice CPUWeight=100 PenaltyAbove=150% PenaltyExempt=make cc1 PenaltyTime=1h\n"
                                    "bob PenaltyAbove=off\n",
                                    0644),
                         0);
        set(dir, "alice", "CPUQuota=50%", NULL);
        expect_file(dir, HEADER "alice CPUWeight=100 CPUQuota=50% PenaltyAbove=150% PenaltyExempt=make cc1 "
                                "PenaltyTime=1h\nbob PenaltyAbove=off\n");

        assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), 0);
        assert_int_equal(conf_edit_set(&ed, "carol", argv, 1, &why), -EINVAL);
        assert_non_null(why);
        assert_non_null(strstr(why, "the Penalty*= keys are not set with slicectl set"));
        free(why);
        /* a line of penalty keys alone stays a line; unset of one CPU setting leaves them */
        assert_int_equal(conf_edit_unset(&ed, "bob", 1u << SETTING_WEIGHT, &why), 0);
        assert_int_equal(conf_edit_unset(&ed, "alice", 1u << SETTING_WEIGHT, &why), 1);
        /* unset of everything takes them too */
        assert_int_equal(conf_edit_unset(&ed, "bob", 0, &why), 1);
        assert_int_equal(conf_edit_commit(&ed, &e), 0);
        conf_edit_done(&ed);
        expect_file(dir, HEADER "alice CPUQuota=50% PenaltyAbove=150% PenaltyExempt=make cc1 PenaltyTime=1h\n");
}

static ssize_t failing_write(int fd, const void *buf, size_t n) {
        /* half the text reaches the temp file, then the disk is full */
        if (n > 8 && write(fd, buf, n / 2) < 0)
                return -1;
        errno = ENOSPC;
        return -1;
}

static int failing_rename(int a, const char *b, int c, const char *d) {
        errno = EIO;
        return -1;
}

static void test_failed_write_keeps_old(void **state) {
        const ConfEditOps broken_write = { failing_write, fsync, renameat };
        const ConfEditOps broken_rename = { write, fsync, failing_rename };
        const ConfEditOps *ops[] = { &broken_write, &broken_rename };
        const char *dir = *state;

        set(dir, "alice", "CPUWeight=400", NULL);
        for (size_t i = 0; i < 2; i++) {
                char *argv[] = { (char *) "CPUWeight=9" };
                char *why = NULL;
                ConfEdit ed;
                CsError e = {};

                assert_int_equal(conf_edit_open(dir, ops[i], &ed, &e), 0);
                assert_int_equal(conf_edit_set(&ed, "alice", argv, 1, &why), 0);
                assert_true(conf_edit_commit(&ed, &e) < 0);
                assert_true(e.code == -ENOSPC || e.code == -EIO);
                assert_non_null(strstr(e.msg, CONF_EDIT_FILE));
                conf_edit_done(&ed);
                expect_file(dir, HEADER "alice CPUWeight=400\n");
                assert_int_equal(count_entries(dir), 2);
        }
}

static void test_concurrent_sets(void **state) {
        const char *dir = *state;
        enum { N = 12 };
        RuleSet rs = {};
        DiagList d = {};
        char path[4096];
        pid_t pids[N];

        for (int i = 0; i < N; i++) {
                pids[i] = fork();
                assert_true(pids[i] >= 0);
                if (pids[i] == 0) {
                        char domain[16], w[32];
                        for (int k = 0; k < 5; k++) {
                                snprintf(domain, sizeof domain, "%d", 5000 + i);
                                snprintf(w, sizeof w, "CPUWeight=%d", 10 * i + k + 1);
                                set(dir, domain, w, NULL);
                        }
                        _exit(0);
                }
        }
        for (int i = 0; i < N; i++) {
                int status;
                assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
                assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        /* every child's last update survived */
        snprintf(path, sizeof path, "%s/%s", dir, CONF_EDIT_FILE);
        assert_int_equal(conf_load_file(&rs, path, CONF_PERMS_WARN, &d), 0);
        assert_int_equal(rs.n, N);
        for (size_t i = 0; i < rs.n; i++) {
                uint32_t uid = rs.rules[i].domain.uid_min;
                assert_true(uid >= 5000 && uid < 5000 + N);
                assert_int_equal(rs.rules[i].weight, 10 * (uid - 5000) + 5);
        }
        ruleset_done(&rs);
        diag_list_done(&d);
}

/* No drop-in, no lock file (slicectl(1), FILES): an editor that leaves none removes the lock file,
 * whether it found none, took the last line out or failed to write the first. */
static void test_no_dropin_no_lock_file(void **state) {
        const ConfEditOps broken_write = { failing_write, fsync, renameat };
        char *argv[] = { (char *) "CPUWeight=9" };
        const char *dir = *state;
        char *why = NULL;
        ConfEdit ed;
        CsError e = {};

        assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), 0);
        assert_int_equal(conf_edit_unset(&ed, "alice", 0, &why), 0);
        conf_edit_done(&ed);
        assert_int_equal(count_entries(dir), 0);

        assert_int_equal(conf_edit_open(dir, &broken_write, &ed, &e), 0);
        assert_int_equal(conf_edit_set(&ed, "alice", argv, 1, &why), 0);
        assert_true(conf_edit_commit(&ed, &e) < 0);
        conf_edit_done(&ed);
        assert_int_equal(count_entries(dir), 0);

        set(dir, "alice", "CPUWeight=400", NULL);
        assert_int_equal(count_entries(dir), 2);
        /* a drop-in that stays keeps its lock file, even when nothing changed */
        assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), 0);
        assert_int_equal(conf_edit_unset(&ed, "bob", 0, &why), 0);
        conf_edit_done(&ed);
        assert_int_equal(count_entries(dir), 2);

        assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), 0);
        assert_int_equal(conf_edit_unset(&ed, "alice", 0, &why), 1);
        assert_int_equal(conf_edit_commit(&ed, &e), 0);
        conf_edit_done(&ed);
        assert_int_equal(count_entries(dir), 0);
}

/* Lock files removed under their holders never let two editors in at once: each child takes the
 * lock, proves it is alone (a marker made with O_EXCL), and sets or unsets the one line, so that
 * the drop-in and its lock file come and go all the time. */
static void test_lock_while_lock_files_go(void **state) {
        const char *dir = *state;
        enum { N = 6, ROUNDS = 25 };
        char marker[4096];
        pid_t pids[N];

        snprintf(marker, sizeof marker, "%s/inside", dir);
        for (int i = 0; i < N; i++) {
                pids[i] = fork();
                assert_true(pids[i] >= 0);
                if (pids[i] != 0)
                        continue;
                for (int k = 0; k < ROUNDS; k++) {
                        char *argv[] = { (char *) "CPUWeight=7" };
                        char *why = NULL;
                        ConfEdit ed;
                        CsError e = {};
                        int fd;

                        if (conf_edit_open(dir, NULL, &ed, &e) < 0)
                                _exit(2);
                        fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
                        if (fd < 0)
                                _exit(3); /* someone else holds the lock too */
                        close(fd);
                        if ((k + i) % 2 ? conf_edit_set(&ed, "alice", argv, 1, &why) < 0
                                        : conf_edit_unset(&ed, "alice", 0, &why) < 0)
                                _exit(4);
                        usleep(500);
                        if (unlink(marker) < 0 || conf_edit_commit(&ed, &e) < 0)
                                _exit(5);
                        conf_edit_done(&ed);
                }
                _exit(0);
        }
        for (int i = 0; i < N; i++) {
                int status;

                assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
                assert_true(WIFEXITED(status));
                assert_int_equal(WEXITSTATUS(status), 0);
        }
        /* the drop-in and its lock file, or neither */
        assert_true(count_entries(dir) == 0 || count_entries(dir) == 2);
}

/* What the module would refuse to read is not edited: conf_check_stat, the loader's own rule */
static void test_refuses_what_the_module_refuses(void **state) {
        const char *dir = *state;
        char path[4096], link[4096];
        ConfEdit ed;
        CsError e = {};

        assert_int_equal(chmod(dir, 0775), 0);
        assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), -EPERM);
        assert_non_null(strstr(e.msg, "directory is writable by its group"));
        assert_int_equal(count_entries(dir), 0); /* not even the lock file */
        assert_int_equal(chmod(dir, 0755), 0);

        assert_int_equal(write_file(dir, CONF_EDIT_FILE, "alice CPUWeight=5\n", 0666), 0);
        e = (CsError) {};
        assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), -EPERM);
        assert_non_null(strstr(e.msg, "file is writable by others (mode 0666)"));
        assert_non_null(strstr(e.msg, "not edited"));
        expect_file(dir, "alice CPUWeight=5\n");

        snprintf(path, sizeof path, "%s/%s", dir, CONF_EDIT_FILE);
        assert_int_equal(chmod(path, 0644), 0);
        if (geteuid() == 0) {
                assert_int_equal(chown(path, 1, 0), 0);
                e = (CsError) {};
                assert_int_equal(conf_edit_open(dir, NULL, &ed, &e), -EPERM);
                assert_non_null(strstr(e.msg, "file is owned by uid 1, not root"));
                assert_int_equal(chown(path, 0, 0), 0);
        }
        set(dir, "alice", "CPUWeight=6", NULL);
        expect_file(dir, HEADER "alice CPUWeight=6\n");

        /* a symlinked directory is not followed */
        snprintf(link, sizeof link, "%s/link", dir);
        assert_int_equal(symlink(".", link), 0);
        e = (CsError) {};
        assert_int_equal(conf_edit_open(link, NULL, &ed, &e), -ENOTDIR); /* O_DIRECTORY|O_NOFOLLOW on a link */
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        const struct CMUnitTest tests[] = {
                T(test_create_and_merge),         T(test_result_loads_cleanly),
                T(test_invalid_changes_nothing),  T(test_unset),
                T(test_hand_edits_kept),          T(test_failed_write_keeps_old),
                T(test_concurrent_sets),          T(test_refuses_what_the_module_refuses),
                T(test_skipped_settings),         T(test_no_dropin_no_lock_file),
                T(test_lock_while_lock_files_go), T(test_penalty_keys_kept),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
