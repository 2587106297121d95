#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/demo's table of one phase: demo-report.py LIST.json NCPU (the output of slicectl list --json)."""
import json
import sys

slices = json.load(open(sys.argv[1]))["slices"]
ncpu = int(sys.argv[2])
total = sum(s["cpu_percent"] for s in slices) or 1
wsum = sum(s["weight"] for s in slices if s["weight"] != "idle") or 1
print(f"   {'USER':8} {'CPUWeight':>9} {'CPUQuota':>9} {'CPU% (of one CPU)':>18} {'share':>7} {'weights say':>12}")
for s in sorted(slices, key=lambda s: -s["cpu_percent"]):
    q = s["quota_percent"]
    expect = s["weight"] / wsum * 100 if s["weight"] != "idle" else 0
    print(f"   {s['user']:8} {s['weight']:>9} {(f'{q:g}%' if q is not None else '-'):>9} "
          f"{s['cpu_percent']:>17.1f}% {s['cpu_percent'] / total * 100:>6.1f}% {expect:>11.1f}%")
# what these slices may use at most: their quotas, or the whole machine
machine = ncpu * 100
allowed = min(machine, sum(min(s["quota_percent"], machine) if s["quota_percent"] is not None else machine
                           for s in slices))
busy = total / machine * 100
if allowed < machine and total >= allowed * 0.8:
    print(f"   (these users got {busy:.0f}% of the machine: their CPUQuota= allows {allowed:g}% of one CPU, "
          f"{allowed / 100:g} of the {ncpu} CPUs)")
elif total < allowed * 0.8:
    print(f"   (these users got {busy:.0f}% of the machine, below the {allowed / machine * 100:.0f}% their settings "
          f"allow: other work is competing from outside the demo)")
