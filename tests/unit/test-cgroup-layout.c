/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgroup-layout.h"
#include "test-util.h"

typedef struct Fx {
        char *dir;
        char mountinfo[512];
} Fx;

static int setup(void **state) {
        Fx *f = calloc(1, sizeof *f);

        if (!f)
                return -1;
        umask(022);
        f->dir = scratch_dir();
        if (!f->dir)
                return -1;
        snprintf(f->mountinfo, sizeof f->mountinfo, "%s/mountinfo", f->dir);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fx *f = *state;

        rm_rf(f->dir);
        free(f->dir);
        free(f);
        return 0;
}

/* mountinfo's own escaping of a mount point: space, tab, newline and backslash as \ooo */
static void escape_mountpoint(const char *s, char *out, size_t n) {
        size_t w = 0;

        for (; *s && w + 5 < n; s++) {
                if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
                        w += (size_t) snprintf(out + w, n - w, "\\%03o", (unsigned char) *s);
                else
                        out[w++] = *s;
        }
        out[w] = '\0';
}

/* Writes `text` with every "@ROOT@" replaced by the escaped form of root. */
static void write_mountinfo(const char *path, const char *text, const char *root) {
        char esc[1024];
        FILE *f = fopen(path, "we");

        assert_non_null(f);
        escape_mountpoint(root, esc, sizeof esc);
        for (const char *p = text; *p;) {
                const char *m = strstr(p, "@ROOT@");
                size_t n = m ? (size_t) (m - p) : strlen(p);

                assert_int_equal(fwrite(p, 1, n, f), n);
                p += n;
                if (m) {
                        fputs(esc, f);
                        p += strlen("@ROOT@");
                }
        }
        assert_int_equal(fclose(f), 0);
}

/* ---- cgroup_layout_scan_line ---- */

typedef struct ScanCase {
        const char *line;
        int r;
        bool root_v2, unified_v2, cpu_has_acct;
        const char *cpu_v1, *acct_v1;
} ScanCase;

#define R "/sys/fs/cgroup"

static const ScanCase scan_cases[] = {
        /* this host */
        { "32 31 0:29 / " R "/cpu rw,relatime - cgroup cgroup rw,cpu\n", 0, .cpu_v1 = "cpu" },
        { "33 31 0:30 / " R "/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n", 0, .acct_v1 = "cpuacct" },
        { "41 31 0:38 / " R "/unified rw,relatime - cgroup2 cgroup2 rw\n", 0, .unified_v2 = true },
        /* the tmpfs at the root itself, other controllers, named hierarchies */
        { "31 23 0:28 / " R " rw,relatime - tmpfs tmpfs rw,mode=755\n", 0 },
        { "34 31 0:31 / " R "/cpuset rw,relatime - cgroup cgroup rw,cpuset\n", 0 },
        { "40 31 0:37 / " R "/systemd rw,relatime - cgroup cgroup rw,name=systemd\n", 0 },
        { "40 31 0:37 / " R "/x rw - cgroup cgroup rw,name=cpu\n", 0 },
        /* systemd's legacy co-mount, either order of options, optional fields before the separator */
        { "25 24 0:22 / " R "/cpu,cpuacct rw,nosuid shared:8 - cgroup cgroup rw,cpu,cpuacct\n", 0,
          .cpu_v1 = "cpu,cpuacct", .cpu_has_acct = true },
        { "25 24 0:22 / " R "/cpuacct,cpu rw shared:8 master:1 - cgroup cgroup rw,cpuacct,cpu\n", 0,
          .cpu_v1 = "cpuacct,cpu", .cpu_has_acct = true },
        /* cgroup2 at the root */
        { "26 24 0:23 / " R " rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n", 0, .root_v2 = true },
        /* cgroup2 somewhere else directly below the root is not the hybrid mirror */
        { "26 24 0:23 / " R "/other rw - cgroup2 cgroup2 rw\n", 0 },
        /* a v1 hierarchy mounted at the root itself is not used */
        { "26 24 0:23 / " R " rw - cgroup cgroup rw,cpu\n", 0 },
        /* deeper than one level, lookalike prefixes, elsewhere */
        { "50 32 0:29 / " R "/cpu/nested rw - cgroup cgroup rw,cpu\n", 0 },
        { "51 31 0:38 / " R "/unified/x rw - cgroup2 cgroup2 rw\n", 0 },
        { "52 23 0:29 / " R "foo/cpu rw - cgroup cgroup rw,cpu\n", 0 },
        { "53 23 0:29 / " R "foo rw - cgroup2 cgroup2 rw\n", 0 },
        { "56 23 0:29 / " R "cpu rw - cgroup cgroup rw,cpu\n", 0 },
        { "57 23 0:29 / " R "unified rw - cgroup2 cgroup2 rw\n", 0 },
        { "58 23 0:29 / " R "-cpuacct rw - cgroup cgroup rw,cpuacct\n", 0 },
        { "54 23 0:29 / /sys/fs rw - cgroup cgroup rw,cpu\n", 0 },
        { "55 23 0:29 / /mnt/cpu rw - cgroup cgroup rw,cpu\n", 0 },
        /* malformed */
        { "", -EINVAL },
        { "\n", -EINVAL },
        { "garbage without the separator\n", -EINVAL },
        { "1 2 3 - cgroup cgroup rw,cpu\n", -EINVAL },
        { "1 2 0:3 / " R "/cpu rw - cgroup\n", -EINVAL },
        { "1 2 0:3 / " R "/cpu rw - cgroup cgroup\n", -EINVAL },
        { "1 2 0:3 / " R "/cpu rw - \n", -EINVAL },
};

static void test_scan_line(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(scan_cases); i++) {
                const ScanCase *t = &scan_cases[i];
                CgroupMountScan s = {};
                char *line = strdup(t->line);

                assert_non_null(line);
                if (cgroup_layout_scan_line(R, line, &s) != t->r)
                        fail_msg("case %zu '%s': expected %d", i, t->line, t->r);
                assert_int_equal(s.root_v2, t->root_v2);
                assert_int_equal(s.unified_v2, t->unified_v2);
                assert_int_equal(s.cpu_has_acct, t->cpu_has_acct);
                if (t->cpu_v1)
                        assert_string_equal(s.cpu_v1, t->cpu_v1);
                else
                        assert_null(s.cpu_v1);
                if (t->acct_v1)
                        assert_string_equal(s.acct_v1, t->acct_v1);
                else
                        assert_null(s.acct_v1);
                cgroup_mount_scan_done(&s);
                free(line);
        }
}

static void test_scan_line_accumulates(void **state) {
        const char *lines[] = {
                "32 31 0:29 / " R "/cpu rw - cgroup cgroup rw,cpu\n",
                /* a second hierarchy with cpu (e.g. mounted again) does not replace the first */
                "60 31 0:29 / " R "/cpu2 rw - cgroup cgroup rw,cpu\n",
                "33 31 0:30 / " R "/cpuacct rw - cgroup cgroup rw,cpuacct\n",
                "61 31 0:30 / " R "/acct2 rw - cgroup cgroup rw,cpuacct\n",
                "41 31 0:38 / " R "/unified rw - cgroup2 cgroup2 rw\n",
        };
        CgroupMountScan s = {};

        for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
                char *l = strdup(lines[i]);
                assert_int_equal(cgroup_layout_scan_line(R, l, &s), 0);
                free(l);
        }
        assert_string_equal(s.cpu_v1, "cpu");
        assert_false(s.cpu_has_acct);
        assert_string_equal(s.acct_v1, "cpuacct");
        assert_true(s.unified_v2);
        assert_false(s.root_v2);
        cgroup_mount_scan_done(&s);
}

static void test_scan_line_escaped(void **state) {
        char line[] = "32 31 0:29 / /tmp/cg\\040root/cpu\\134x rw - cgroup cgroup rw,cpu\n";
        char line2[] = "41 31 0:38 / /tmp/cg\\040root/unified rw - cgroup2 cgroup2 rw\n";
        char other[] = "41 31 0:38 / /tmp/cg\\040rootx/unified rw - cgroup2 cgroup2 rw\n";
        CgroupMountScan s = {};

        assert_int_equal(cgroup_layout_scan_line("/tmp/cg root", line, &s), 0);
        assert_int_equal(cgroup_layout_scan_line("/tmp/cg root", line2, &s), 0);
        assert_int_equal(cgroup_layout_scan_line("/tmp/cg root", other, &s), 0);
        assert_string_equal(s.cpu_v1, "cpu\\x");
        assert_true(s.unified_v2);
        cgroup_mount_scan_done(&s);
}

/* ---- cgroup_layout_detect on sample mount tables ---- */

#define TMPFS "31 23 0:28 / @ROOT@ rw,relatime - tmpfs tmpfs rw,mode=755\n"
#define CPU "32 31 0:29 / @ROOT@/cpu rw,relatime - cgroup cgroup rw,cpu\n"
#define CPUACCT "33 31 0:30 / @ROOT@/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
#define COMOUNT "25 31 0:22 / @ROOT@/cpu,cpuacct rw,nosuid shared:8 - cgroup cgroup rw,cpu,cpuacct\n"
#define UNIFIED "41 31 0:38 / @ROOT@/unified rw,relatime - cgroup2 cgroup2 rw\n"
#define ROOT2 "26 24 0:23 / @ROOT@ rw,nosuid,nodev shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
#define OTHERS                                                                                                       \
        "34 31 0:31 / @ROOT@/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"                                         \
        "35 31 0:32 / @ROOT@/memory rw,relatime - cgroup cgroup rw,memory\n"                                         \
        "40 31 0:37 / @ROOT@/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
#define NOISE                                                                                                        \
        "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"                                                    \
        "23 22 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"                                                             \
        "this line is garbage\n"                                                                                     \
        "\n"                                                                                                         \
        "1 2 3 - cgroup2 cgroup2\n"                                                                                  \
        "70 31 0:29 / @ROOT@/cpu/deeper rw - cgroup cgroup rw,cpu\n"                                                 \
        "71 31 0:38 / @ROOT@/unified/deeper rw - cgroup2 cgroup2 rw\n"                                               \
        "72 23 0:29 / @ROOT@foo rw - cgroup2 cgroup2 rw\n"                                                           \
        "73 23 0:29 / @ROOT@foo/cpu rw - cgroup cgroup rw,cpu\n"                                                     \
        "74 23 0:29 / @ROOT@cpu rw - cgroup cgroup rw,cpu\n"                                                         \
        "75 23 0:29 / @ROOT@unified rw - cgroup2 cgroup2 rw\n"

typedef struct DetectCase {
        const char *name;
        const char *mountinfo;
        const char *rootname;    /* directory below the scratch dir standing in for the cgroup root */
        const char *rootsuffix;  /* appended to the root handed to detect ("/", "//") */
        const char *controllers; /* <root>/cgroup.controllers; NULL: no such file */
        int r;
        CgroupLayoutKind kind;
        const char *cpu;
        bool cpu_v2;
        const char *acct; /* NULL: no mirror */
        bool acct_v2;
        const char *msg; /* expected in the error message */
} DetectCase;

static const DetectCase detect_cases[] = {
        { "this host: hybrid, cpuacct separate", TMPFS CPU CPUACCT OTHERS UNIFIED, .r = 0,
          .kind = CGROUP_LAYOUT_HYBRID, .cpu = "cpu", .acct = "unified", .acct_v2 = true },
        { "hybrid, unified listed first", UNIFIED TMPFS CPUACCT CPU, .r = 0, .kind = CGROUP_LAYOUT_HYBRID,
          .cpu = "cpu", .acct = "unified", .acct_v2 = true },
        { "hybrid with noise", NOISE TMPFS CPU NOISE CPUACCT UNIFIED NOISE, .r = 0, .kind = CGROUP_LAYOUT_HYBRID,
          .cpu = "cpu", .acct = "unified", .acct_v2 = true },
        { "hybrid, trailing slash on root", TMPFS CPU CPUACCT UNIFIED, .rootsuffix = "/", .r = 0,
          .kind = CGROUP_LAYOUT_HYBRID, .cpu = "cpu", .acct = "unified", .acct_v2 = true },
        { "hybrid, two trailing slashes", TMPFS CPU UNIFIED, .rootsuffix = "//", .r = 0, .kind = CGROUP_LAYOUT_HYBRID,
          .cpu = "cpu", .acct = "unified", .acct_v2 = true },
        { "hybrid, escaped space in the root", TMPFS CPU CPUACCT UNIFIED, .rootname = "cg root", .r = 0,
          .kind = CGROUP_LAYOUT_HYBRID, .cpu = "cpu", .acct = "unified", .acct_v2 = true },
        { "hybrid, escaped tab and backslash in the root", TMPFS CPU UNIFIED, .rootname = "cg\t\\root", .r = 0,
          .kind = CGROUP_LAYOUT_HYBRID, .cpu = "cpu", .acct = "unified", .acct_v2 = true },
        { "legacy co-mount: no mirror", TMPFS COMOUNT OTHERS, .r = 0, .kind = CGROUP_LAYOUT_LEGACY,
          .cpu = "cpu,cpuacct" },
        { "co-mount plus unified: hybrid, still no mirror", TMPFS COMOUNT OTHERS UNIFIED, .r = 0,
          .kind = CGROUP_LAYOUT_HYBRID, .cpu = "cpu,cpuacct" },
        { "legacy, separate cpuacct mirrored", TMPFS CPU CPUACCT OTHERS, .r = 0, .kind = CGROUP_LAYOUT_LEGACY,
          .cpu = "cpu", .acct = "cpuacct" },
        { "legacy, cpuacct listed first", TMPFS CPUACCT CPU, .r = 0, .kind = CGROUP_LAYOUT_LEGACY, .cpu = "cpu",
          .acct = "cpuacct" },
        { "legacy, cpu only", TMPFS CPU, .r = 0, .kind = CGROUP_LAYOUT_LEGACY, .cpu = "cpu" },
        { "unified with cpu", NOISE ROOT2, .controllers = "cpuset cpu io memory hugetlb pids rdma misc\n", .r = 0,
          .kind = CGROUP_LAYOUT_UNIFIED, .cpu = "", .cpu_v2 = true },
        { "unified, cpu the only controller, no newline", ROOT2, .controllers = "cpu", .r = 0,
          .kind = CGROUP_LAYOUT_UNIFIED, .cpu = "", .cpu_v2 = true },
        { "unified, trailing slash", ROOT2, .rootsuffix = "/", .controllers = "memory cpu\n", .r = 0,
          .kind = CGROUP_LAYOUT_UNIFIED, .cpu = "", .cpu_v2 = true },
        { "unified wins over v1 mounts below it", ROOT2 CPU, .controllers = "cpu\n", .r = 0,
          .kind = CGROUP_LAYOUT_UNIFIED, .cpu = "", .cpu_v2 = true },
        { "unified without cpu", ROOT2, .controllers = "cpuset io memory pids\n", .r = -ENODEV,
          .msg = "the cpu controller is not available on the cgroup2 mount at " },
        { "unified, empty cgroup.controllers", ROOT2, .controllers = "", .r = -ENODEV,
          .msg = "the cpu controller is not available" },
        { "unified, no cgroup.controllers", ROOT2, .r = -ENOENT,
          .msg = "/cgroup.controllers: No such file or directory" },
        { "no cpu anywhere", TMPFS CPUACCT OTHERS UNIFIED, .r = -ENODEV,
          .msg = "no cgroup hierarchy with the cpu controller is mounted below " },
        { "only deeper and lookalike mounts", NOISE, .r = -ENODEV, .msg = "no cgroup hierarchy with the cpu" },
        { "empty mount table", "", .r = -ENODEV, .msg = "no cgroup hierarchy with the cpu" },
        { "name=cpu is not the cpu controller", TMPFS "40 31 0:37 / @ROOT@/cpu rw - cgroup cgroup rw,name=cpu\n",
          .r = -ENODEV, .msg = "no cgroup hierarchy with the cpu" },
};

static void test_detect(void **state) {
        Fx *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(detect_cases); i++) {
                const DetectCase *t = &detect_cases[i];
                char root[1024], arg[1100];
                CgroupLayout l = { .kind = _CGROUP_LAYOUT_MAX };
                CsError e = {};
                int r;

                snprintf(root, sizeof root, "%s/%zu-%s", f->dir, i, t->rootname ? t->rootname : "cgroup");
                assert_int_equal(mkdir(root, 0755), 0);
                if (t->controllers)
                        assert_int_equal(write_file(root, "cgroup.controllers", t->controllers, 0644), 0);
                write_mountinfo(f->mountinfo, t->mountinfo, root);
                snprintf(arg, sizeof arg, "%s%s", root, t->rootsuffix ? t->rootsuffix : "");

                r = cgroup_layout_detect(arg, f->mountinfo, &l, &e);
                if (r != t->r)
                        fail_msg("case '%s': got %d (%s), expected %d", t->name, r, e.msg, t->r);
                if (r < 0) {
                        assert_int_equal(e.code, t->r);
                        if (!strstr(e.msg, t->msg))
                                fail_msg("case '%s': message '%s' lacks '%s'", t->name, e.msg, t->msg);
                        assert_int_equal(l.kind, _CGROUP_LAYOUT_MAX); /* untouched */
                        assert_null(l.cpu.path);
                        continue;
                }
                if (l.kind != t->kind)
                        fail_msg("case '%s': kind %s, expected %s", t->name, cgroup_layout_to_string(l.kind),
                                 cgroup_layout_to_string(t->kind));
                assert_string_equal(l.cpu.path, t->cpu);
                assert_int_equal(l.cpu.v2, t->cpu_v2);
                if (t->acct) {
                        assert_non_null(l.acct.path);
                        assert_string_equal(l.acct.path, t->acct);
                        assert_int_equal(l.acct.v2, t->acct_v2);
                } else if (l.acct.path)
                        fail_msg("case '%s': unexpected mirror '%s'", t->name, l.acct.path);
                assert_true(l.check_fs); /* detected layouts always check the filesystem */
                cgroup_layout_done(&l);
                assert_null(l.cpu.path);
        }
}

static void test_detect_no_mountinfo(void **state) {
        Fx *f = *state;
        CgroupLayout l = {};
        CsError e = {};
        char p[600];

        snprintf(p, sizeof p, "%s/nonexistent", f->dir);
        assert_int_equal(cgroup_layout_detect("/sys/fs/cgroup", p, &l, &e), -ENOENT);
        assert_string_equal(e.msg, "cannot read mount table: No such file or directory");
        assert_null(l.cpu.path);
}

static void test_detect_escaped_message(void **state) {
        Fx *f = *state;
        char root[600];
        CgroupLayout l = {};
        CsError e = {};

        /* the error names the unescaped root */
        snprintf(root, sizeof root, "%s/my root", f->dir);
        write_mountinfo(f->mountinfo, TMPFS CPUACCT, root);
        assert_int_equal(cgroup_layout_detect(root, f->mountinfo, &l, &e), -ENODEV);
        assert_non_null(strstr(e.msg, "mounted below "));
        assert_non_null(strstr(e.msg, "/my root"));
}

/* ---- this host ---- */

static void test_detect_this_host(void **state) {
        CgroupLayout l = {};
        CsError e = {};
        struct stat st;

        if (stat("/sys/fs/cgroup/cpu", &st) < 0 || !S_ISDIR(st.st_mode)) {
                if (getenv("CPUSLICE_REQUIRE_ALL"))
                        fail_msg("/sys/fs/cgroup/cpu is absent (not this host's hybrid layout), and "
                                 "CPUSLICE_REQUIRE_ALL is set");
                print_message("skipping: /sys/fs/cgroup/cpu is absent, not a hybrid cgroup host\n");
                skip();
        }
        assert_int_equal(cgroup_layout_detect("/sys/fs/cgroup", NULL, &l, &e), 0);
        assert_int_equal(l.kind, CGROUP_LAYOUT_HYBRID);
        assert_string_equal(l.cpu.path, "cpu");
        assert_false(l.cpu.v2);
        assert_non_null(l.acct.path);
        assert_string_equal(l.acct.path, "unified");
        assert_true(l.acct.v2);
        assert_true(l.check_fs);
        cgroup_layout_done(&l);
        /* the same with an explicit mount table and a trailing slash */
        assert_int_equal(cgroup_layout_detect("/sys/fs/cgroup/", "/proc/self/mountinfo", &l, &e), 0);
        assert_int_equal(l.kind, CGROUP_LAYOUT_HYBRID);
        cgroup_layout_done(&l);
}

/* ---- named layouts and kind names ---- */

/* favordynmods on the mounts the layout uses, and only those */
static void test_favordynmods(void **state) {
        static const struct {
                const char *mountinfo;
                int want;
        } cases[] = {
                { TMPFS CPU CPUACCT UNIFIED, 0 },
                { TMPFS "32 31 0:29 / @ROOT@/cpu rw - cgroup cgroup rw,cpu,favordynmods\n" CPUACCT UNIFIED, 0 },
                { TMPFS "32 31 0:29 / @ROOT@/cpu rw - cgroup cgroup rw,cpu,favordynmods\n" CPUACCT
                        "41 31 0:38 / @ROOT@/unified rw - cgroup2 cgroup2 rw,favordynmods\n",
                  1 },
                { "26 24 0:23 / @ROOT@ rw - cgroup2 cgroup2 rw,nsdelegate,favordynmods\n", 1 },
                { ROOT2, 0 },
                /* another mount's option counts for nothing */
                { "26 24 0:23 / @ROOT@ rw - cgroup2 cgroup2 rw\n"
                  "27 24 0:24 / @ROOT@/other rw - cgroup cgroup rw,favordynmods\n",
                  0 },
        };
        Fx *f = *state;
        char root[600];

        snprintf(root, sizeof root, "%s/cg", f->dir);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CgroupLayout l = {};
                bool v2root = strstr(cases[i].mountinfo, "cgroup2 cgroup2 rw,nsdelegate") ||
                              strncmp(cases[i].mountinfo, "26 24", 5) == 0;

                write_mountinfo(f->mountinfo, cases[i].mountinfo, root);
                assert_int_equal(cgroup_layout_named(root, v2root ? CGROUP_LAYOUT_UNIFIED : CGROUP_LAYOUT_HYBRID, &l,
                                                     NULL),
                                 0);
                if (cgroup_layout_favordynmods(root, &l, f->mountinfo) != cases[i].want)
                        fail_msg("case %zu: wanted %d", i, cases[i].want);
                cgroup_layout_done(&l);
        }
        assert_true(cgroup_layout_favordynmods(root, &(CgroupLayout) {}, "/nonexistent") < 0);
}

static void test_named(void **state) {
        Fx *f = *state;
        char p[600];
        CgroupLayout l = {};
        CsError e = {};

        assert_int_equal(cgroup_layout_named(f->dir, CGROUP_LAYOUT_UNIFIED, &l, &e), 0);
        assert_int_equal(l.kind, CGROUP_LAYOUT_UNIFIED);
        assert_string_equal(l.cpu.path, "");
        assert_true(l.cpu.v2);
        assert_null(l.acct.path);
        assert_false(l.check_fs);
        cgroup_layout_done(&l);

        /* legacy: cpuacct/ mirrored only if it exists (a directory, not a symlink) */
        assert_int_equal(cgroup_layout_named(f->dir, CGROUP_LAYOUT_LEGACY, &l, &e), 0);
        assert_int_equal(l.kind, CGROUP_LAYOUT_LEGACY);
        assert_string_equal(l.cpu.path, "cpu");
        assert_false(l.cpu.v2);
        assert_null(l.acct.path);
        assert_false(l.check_fs);
        cgroup_layout_done(&l);
        snprintf(p, sizeof p, "%s/cpuacct", f->dir);
        assert_int_equal(symlink("/tmp", p), 0);
        assert_int_equal(cgroup_layout_named(f->dir, CGROUP_LAYOUT_LEGACY, &l, &e), 0);
        assert_null(l.acct.path);
        cgroup_layout_done(&l);
        assert_int_equal(unlink(p), 0);
        assert_int_equal(mkdir(p, 0755), 0);
        assert_int_equal(cgroup_layout_named(f->dir, CGROUP_LAYOUT_LEGACY, &l, &e), 0);
        assert_string_equal(l.cpu.path, "cpu");
        assert_string_equal(l.acct.path, "cpuacct");
        assert_false(l.acct.v2);
        cgroup_layout_done(&l);

        assert_int_equal(cgroup_layout_named(f->dir, CGROUP_LAYOUT_HYBRID, &l, &e), 0);
        assert_int_equal(l.kind, CGROUP_LAYOUT_HYBRID);
        assert_string_equal(l.cpu.path, "cpu");
        assert_false(l.cpu.v2);
        assert_string_equal(l.acct.path, "unified");
        assert_true(l.acct.v2);
        assert_false(l.check_fs);
        cgroup_layout_done(&l);

        l = (CgroupLayout) {};
        assert_int_equal(cgroup_layout_named(f->dir, _CGROUP_LAYOUT_MAX, &l, &e), -EINVAL);
        assert_string_equal(e.msg, "unknown cgroup layout");
        assert_int_equal(cgroup_layout_named(f->dir, (CgroupLayoutKind) -1, &l, &e), -EINVAL);
        assert_null(l.cpu.path);
}

static void test_kind_strings(void **state) {
        static const struct {
                const char *s;
                int k;
        } cases[] = {
                { "unified", CGROUP_LAYOUT_UNIFIED },
                { "legacy", CGROUP_LAYOUT_LEGACY },
                { "hybrid", CGROUP_LAYOUT_HYBRID },
                { "auto", -EINVAL },
                { "Unified", -EINVAL },
                { "hybrid ", -EINVAL },
                { "", -EINVAL },
                { NULL, -EINVAL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                assert_int_equal(cgroup_layout_kind_from_string(cases[i].s), cases[i].k);
                if (cases[i].k < 0)
                        continue;
                assert_string_equal(cgroup_layout_to_string((CgroupLayoutKind) cases[i].k), cases[i].s);
        }
        assert_string_equal(cgroup_layout_to_string(_CGROUP_LAYOUT_MAX), "?");
        assert_string_equal(cgroup_layout_to_string((CgroupLayoutKind) -1), "?");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
        const struct CMUnitTest tests[] = {
                T(test_scan_line),
                T(test_scan_line_accumulates),
                T(test_scan_line_escaped),
                T(test_detect),
                T(test_detect_no_mountinfo),
                T(test_favordynmods),
                T(test_detect_escaped_message),
                T(test_detect_this_host),
                T(test_named),
                T(test_kind_strings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
