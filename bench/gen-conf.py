#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# gen-conf.py cpuslice N | cgrules N PARENT: an N-line config of mixed rules (users, uid ranges,
# numeric uids, groups) that ends with the line for the benchmarked user csb-a, so every line has
# to be read. The other names do not exist (as in a real site file, most lines are about others).
import sys

kind, n = sys.argv[1], int(sys.argv[2])
out = []
if kind == "cpuslice":
    out.append("* CPUWeight=100")
    for i in range(n - 2):
        k = i % 5
        if k == 0:
            out.append(f"csb-x{i:06d} CPUWeight={100 + i % 900}")
        elif k == 1:
            a = 100000 + i * 10
            out.append(f"{a}:{a + 9} CPUQuota={10 + i % 190}%")
        elif k == 2:
            out.append(f"@csb-g{i % 50} CPUWeight={50 + i % 500}")
        elif k == 3:
            out.append(f"{2000000 + i} CPUQuotaPeriodSec=50ms")
        else:
            out.append(f"csb-y{i:06d} CPUSlice=no")
    out.append("csb-a CPUWeight=200 CPUQuota=150%")
elif kind == "cgrules":
    parent = sys.argv[3]
    for i in range(n - 1):
        if i % 3 == 2:
            out.append(f"@csb-g{i % 50}\tcpu\t{parent}/cg/%u")
        else:
            out.append(f"csb-x{i:06d}\tcpu\t{parent}/cg/%u")
    out.append(f"csb-a\tcpu,cpuacct\t{parent}/cg/%u")
else:
    sys.exit("usage: gen-conf.py cpuslice N | cgrules N PARENT")
print("\n".join(out))
