#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tests/vm/check-slicectl.py SHARE — checks the `slicectl list --json` output that
tests/vm/guest-cgroupfs.sh took inside the guest while the sessions ran (the guest has no
python3). slicectl-fair.json: alice and bob, each with nproc hogs; slicectl-quota.json: carol
with a 50 % quota and dave with 150 % in two sessions. Prints one line per slice; exits 1 on a
mismatch."""
import json
import os
import sys

# slice -> fixed fields, and the range cpu_percent (% of one CPU over the guest's 5 s sample) must fall in
EXPECT = {
    "fair": {
        "alice": ({"uid": 1001, "sessions": 1, "weight": 300, "quota_percent": None, "period_usec": 100000},
                  (80.0, 210.0)),
        "bob": ({"uid": 1002, "sessions": 1, "weight": 100, "quota_percent": None, "period_usec": 100000},
                (15.0, 110.0)),
    },
    "quota": {
        # a TCG guest's v1 cpuacct charges some of a vCPU's idle time (bullseye nosd-v1 read 63 %
        # in a 1 s sample while the guest's own 5 s window gave 49 %): the guest judges the quota
        # in its windows; here slicectl must only show a throttled slice, far below the 200 %
        # that carol's 4 hogs would take unthrottled on 2 vCPUs
        "carol": ({"uid": 1003, "sessions": 1, "weight": 100, "quota_percent": 50.0, "period_usec": 100000},
                  (15.0, 80.0)),
        "dave": ({"uid": 1500, "sessions": 2, "weight": 50, "quota_percent": 150.0, "period_usec": 50000},
                 (30.0, 170.0)),
    },
}

failed = 0


def bad(msg):
    global failed
    failed += 1
    print("CHECK FAIL slicectl: " + msg)


def main(share):
    for phase, want in EXPECT.items():
        path = os.path.join(share, "slicectl-%s.json" % phase)
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            bad("%s: %s" % (path, e))
            continue
        if list(doc) != ["slices", "skipped"]:
            bad("%s: top-level keys %r, wanted ['slices', 'skipped']" % (phase, list(doc)))
            continue
        if doc["skipped"] != 0:
            bad("%s: %r slices skipped, wanted 0 (every slice here is the module's own)" % (phase, doc["skipped"]))
        got = {s.get("user"): s for s in doc["slices"]}
        if sorted(got) != sorted(want):
            bad("%s: slices %r, wanted %r" % (phase, sorted(got), sorted(want)))
        for user, (fields, (lo, hi)) in want.items():
            s = got.get(user)
            if s is None:
                continue
            for k, v in fields.items():
                g = s.get(k, "<missing>")
                if g != v or type(g) is not type(v):
                    bad("%s: %s: %s = %r, wanted %r" % (phase, user, k, g, v))
            cpu = s.get("cpu_percent")
            if not isinstance(cpu, (int, float)) or not lo <= cpu <= hi:
                bad("%s: %s: cpu_percent %r, wanted %g..%g" % (phase, user, cpu, lo, hi))
            print("  %-5s %-5s uid %-4s sessions %s weight %-3s quota %-5s period %-6s cpu_percent %s" % (
                phase, user, s.get("uid"), s.get("sessions"), s.get("weight"), s.get("quota_percent"),
                s.get("period_usec"), cpu))
        if phase == "fair" and all(u in got for u in ("alice", "bob")):
            a, b = got["alice"].get("cpu_percent"), got["bob"].get("cpu_percent")
            if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not a > b:
                bad("fair: alice's cpu_percent %r is not above bob's %r" % (a, b))
    print("slicectl JSON: %s" % ("ok" if failed == 0 else "%d problem(s)" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
