/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A CgfsOps table wrapping the real calls for the cgroupfs backend's tests: faults injected by
 * name, operation and place, every call recorded, and (fake.cgroupfs) cgroupfs emulated on a
 * scratch tree: rmdir succeeds only on an unpopulated leaf, writing a pid to cgroup.procs
 * moves it out of the hierarchy's other cgroups, and cpu.shares of a group whose cpu.idle is 1
 * is refused with EINVAL. fchmod of a directory is recorded under its name at open. */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "cgfs.h"

typedef enum Op {
        OP_OPENAT,
        OP_MKDIRAT,
        OP_UNLINKAT,
        OP_WRITE,
        OP_READ,
        OP_FSTATFS,
        OP_FCHMOD,
        OP_GETDENTS,
        _OP_MAX
} Op;

#define SHORT_WRITE (-1) /* Fault.err: write one byte less than asked */

typedef struct Fault {
        Op op;
        const char *name; /* what the call is about (write/read/fstatfs/getdents: the fd's name at open); NULL: any */
        int err;          /* errno to fail with */
        unsigned skip;    /* matching calls let through first */
        unsigned count;   /* matching calls failed after that; 0: all */
        const char *under; /* only in a directory whose real path contains this ("/unified/"); NULL: any */
} Fault;

typedef struct Call {
        Op op;
        char name[64];
        int r; /* 0 or -errno */
} Call;

#define FD_MAX 1024
#define CALLS_MAX 4096

typedef struct Fake {
        Fault faults[4];
        unsigned hits[4]; /* matching calls seen, per fault */
        size_t n_faults;
        bool cgroupfs;          /* emulate cgroupfs rmdir and cgroup.procs moves */
        char hier[3][PATH_MAX]; /* hierarchy roots (absolute), for cgroup.procs moves */
        size_t n_hier;
        char fdname[FD_MAX][64];
        Call calls[CALLS_MAX];
        size_t n_calls;
} Fake;

extern Fake fake;
extern const CgfsOps fake_ops;

void fake_reset(void);
void fake_add(Fault ft);
/* how many calls of op on name were made (ok_only: that succeeded) */
unsigned count_calls(Op op, const char *name, bool ok_only);
