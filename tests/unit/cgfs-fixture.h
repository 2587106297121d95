/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The cgroupfs backend's tests (test-backend-cgroupfs-*.c, one file per concern) share this
 * fixture: a scratch tree laid out like cgroupfs under mkdtemp() (check_fs off: files are created
 * on write), opened in one of four layouts; the whole tree as sorted text to compare; the fake
 * CgfsOps of cgfs-fake.h for faults and for emulating cgroupfs. Each test gets a fresh Fx
 * (fx_setup/fx_teardown), and teardown fails a test that leaks a file descriptor. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend-cgroupfs.h"
#include "cgfs-fake.h"
#include "test-util.h"

#define UID 1001
#define SLICE "user.slice/user-1001.slice"
#define SCOPE SLICE "/session-7.scope"

typedef enum TestLayout { TL_UNIFIED, TL_LEGACY, TL_LEGACY_NOACCT, TL_HYBRID, _TL_MAX } TestLayout;

extern const char *const tl_names[_TL_MAX];
/* hierarchy directories below the root ("" is the root itself) */
extern const char *const tl_cpu[_TL_MAX];
extern const char *const tl_acct[_TL_MAX];

typedef struct Fx {
        char *dir;
        char root[512];    /* the fake cgroup root */
        char outside[512]; /* where planted symlinks point */
        pid_t pid;
        char pidline[32];
        int fds; /* open fds at setup: the backend must leave none behind */
        Cgfs c;
        CsError e;
} Fx;

int fx_setup(void **state);
int fx_teardown(void **state);
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

/* the fixture's path for REL; a test path that does not fit is the test's bug */
char *fx_path(Fx *f, const char *rel, char *p, size_t n);
void mkdir_p(Fx *f, const char *rel);
void put(Fx *f, const char *rel, const char *text);
char *get(Fx *f, const char *rel);
bool exists(Fx *f, const char *rel);

#define assert_file(f, rel, want)                                                                                    \
        do {                                                                                                         \
                char *_t = get(f, rel);                                                                              \
                if (!_t)                                                                                             \
                        fail_msg("%s: missing", (const char *) (rel));                                               \
                assert_string_equal(_t, want);                                                                       \
                free(_t);                                                                                            \
        } while (0)

/* a hierarchy root for emulate_move(), without a trailing slash */
void set_hier(Fx *f, const char *sub);
/* Opens the backend on a scratch tree with the hierarchy directories a named layout expects.
 * slices non-NULL: the user slices in that cgroup (cgfs_open_slices), parent ignored */
void open_tl_at(Fx *f, TestLayout tl, const char *parent, const char *slices, const CgfsOps *ops);
void open_tl(Fx *f, TestLayout tl, const char *parent, const CgfsOps *ops);

CpuKernelValues kv(uint64_t weight, uint64_t quota_per_sec);
#define W300_Q50 kv(300, 500000)           /* CPUWeight=300 CPUQuota=50% */
#define IDLE_Q05 kv(CPU_WEIGHT_IDLE, 5000) /* CPUWeight=idle CPUQuota=0.5%: the period grows to 200 ms */
#define DEFAULTS kv(CPU_WEIGHT_DEFAULT, CPU_QUOTA_INFINITY)

/* the whole tree below dir as text: "dir/", "file = content" (newlines as \n), "link -> target",
 * sorted, one per line */
char *manifest(const char *dir);
/* expected lines with "@PID@" replaced by our pid, sorted and joined like manifest() */
char *expected(const char *const *lines, pid_t pid);
#define TREE(...) ((const char *const[]) { __VA_ARGS__, NULL })

#define assert_tree(dir, pid, ...)                                                                                   \
        do {                                                                                                         \
                char *_got = manifest(dir);                                                                          \
                char *_want = expected((const char *const[]) { __VA_ARGS__, NULL }, pid);                            \
                assert_string_equal(_got, _want);                                                                    \
                free(_got);                                                                                          \
                free(_want);                                                                                         \
        } while (0)

/* got is the cgroup this process is in per /proc/self/cgroup (v2, or the v1 line naming controller) */
void assert_orig(const char *got, bool v2, const char *controller);
/* close moves the process back to where it came from: here, each hierarchy's root */
void orig_at_roots(Fx *f, CgfsSession *s);
