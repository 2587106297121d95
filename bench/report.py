#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# report.py RAWDIR [--opts]: the one markdown table of bench/run, from the raw samples it wrote.
import argparse
import json
import os
import sys

ap = argparse.ArgumentParser()
ap.add_argument("raw")
for o in ("quick", "load-start", "load-end", "ncpu", "peers", "kernel", "cycles", "conc-cycles", "fair-sec", "scales"):
    ap.add_argument("--" + o, default="")
a = ap.parse_args()
R = a.raw


def col(name, i=0):
    with open(os.path.join(R, name)) as f:
        return sorted(int(l.split()[i]) for l in f if l.strip())


def pct(v, p):
    return v[min(len(v) - 1, int(len(v) * p))]


def med(v):
    return v[len(v) // 2]


def us(ns):
    return f"{ns / 1000:,.0f} µs" if ns >= 100_000 else f"{ns / 1000:,.1f} µs"


def ms(s):
    return f"{s * 1000:,.1f} ms"


rows = []
verdicts = []


def row(bench, what, median="", p95="", p99="", ratio="", target="", met=None, note=""):
    m = "" if met is None else ("**met**" if met else "**missed**")
    if met is not None:
        verdicts.append((bench, what, ratio, target, met))
    rows.append(f"| {bench} | {what} | {median} | {p95} | {p99} | {ratio} | {target} | {m} | {note} |")


def lat(name, i=0):
    v = col(name, i)
    return med(v), pct(v, 0.95), pct(v, 0.99), v


# 1. session open+close
floor_m, floor_95, floor_99, _ = lat("floor")
floorcpu_m, floorcpu_95, floorcpu_99, _ = lat("floor-cpu")
fl_parts = {n: med(col("floor", i)) for i, n in enumerate(["total", "mkdir", "write", "movein", "moveback", "rmdir"])}
permit = lat("permit")
cs = lat("cpuslice")
cg = lat("cgroup")
cf = lat("cgfs")
cycle = {s: med(col(s, 1)) for s in ("permit", "cpuslice", "cgroup", "cgfs")}
B1 = "1 session open+close"
row(B1, "floor: raw syscalls, cpu + cgroup2 mirror", us(floor_m), us(floor_95), us(floor_99),
    note="mkdir {mkdir}, 3 writes {write}, move in {movein}, back {moveback}, rmdir {rmdir} (medians, both hierarchies)".format(
        **{k: us(v) for k, v in fl_parts.items()}))
row(B1, "floor: raw syscalls, cpu hierarchy alone", us(floorcpu_m), us(floorcpu_95), us(floorcpu_99))
row(B1, "pam_permit (libpam itself)", us(permit[0]), us(permit[1]), us(permit[2]),
    note=f"whole cycle with pam_start/pam_end: {us(cycle['permit'])}")
base = floor_m + permit[0]
r = cs[0] / base
row(B1, "**pam_cpuslice** (scope made and removed each time)", us(cs[0]), us(cs[1]), us(cs[2]),
    f"{r:.2f}× (floor + pam_permit)", "≤ 2×", r <= 2.0, f"whole cycle: {us(cycle['cpuslice'])}")
r = cg[0] / cs[0]
row(B1, "pam_cgroup, warm (reuses its group)", us(cg[0]), us(cg[1]), us(cg[2]),
    f"{r:.2f}× pam_cpuslice", "≥ 3×", r >= 3.0, f"whole cycle: {us(cycle['cgroup'])}")
cold = col("cgroup.cold")[0]
row(B1, "pam_cgroup, cold first open (template group made)", us(cold), ratio=f"{cold / cs[0]:.1f}× pam_cpuslice", note="one sample")
r = cf[0] / cs[0]
row(B1, "pam_cgfs -c cpu,cpuacct", us(cf[0]), us(cf[1]), us(cf[2]),
    f"{r:.2f}× pam_cpuslice", "≥ 3×", r >= 3.0, f"whole cycle: {us(cycle['cgfs'])}")
cold = col("cgfs.cold")[0]
row(B1, "pam_cgfs, cold first open of a new user", us(cold), ratio=f"{cold / cs[0]:.1f}× pam_cpuslice", note="one sample")
for s, label in (("permit", "pam_permit"), ("cpuslice", "**pam_cpuslice**"), ("cgroup", "pam_cgroup"), ("cgfs", "pam_cgfs")):
    c = lat(s + ".conc")
    b = lat(s)[0]
    r = c[0] / b
    target, met = ("≤ 1.25× alone", r <= 1.25) if s == "cpuslice" else ("", None)
    row(B1, f"{label} with 100 other users' sessions open", us(c[0]), us(c[1]), us(c[2]),
        f"{r:.2f}× alone", target, met)

# 2. config scale
B2 = "2 config scale"
sc = {}
for n in (10, 1000, 100000):
    with open(os.path.join(R, f"scale-{n}")) as f:
        m, mn, rss, nrules, matched = f.read().split()
    sc[n] = (int(m), int(rss))
    row(B2, f"parse + resolve, {n:,} lines", us(int(m)),
        note=f"min {us(int(mn))}; {int(m) / n / 1000:.2f} µs/line; peak RSS {int(rss) / 1024:.1f} MiB; {nrules} rules")
per_line = (sc[100000][0] / 100000) / (sc[1000][0] / 1000)
row(B2, "linearity: cost per line, 100 000 vs 1 000 lines", ratio=f"{per_line:.2f}×", target="≈ 1× (≤ 1.5×)",
    met=per_line <= 1.5, note=f"RSS growth 1k→100k: {(sc[100000][1] - sc[1000][1]) / 1024:.1f} MiB")
c100 = lat("cpuslice.100k")
g100 = lat("cgroup.100k")
row(B2, "**pam_cpuslice** open+close, 100 000-rule config", us(c100[0]), us(c100[1]))
r = g100[0] / c100[0]
row(B2, "pam_cgroup open+close, 100 000-rule cgrules.conf", us(g100[0]), us(g100[1]),
    ratio=f"{r:.2f}× pam_cpuslice", target="≥ 3×", met=r >= 3.0)

# 3. slicectl at scale
B3 = "3 slicectl at scale"
scales = [int(x) for x in a.scales.split()]
sl = {}
for n in scales:
    with open(os.path.join(R, f"sc-{n}.json")) as f:
        res = {x["command"]: x for x in json.load(f)["results"]}
    t = {k: sorted(v["times"]) for k, v in res.items()}
    base_t = med(t["slicectl list"])
    sl[n] = base_t
    for k in ("slicectl list", "slicectl list --json", "lscgroup", "cgget (3 settings, every slice)", "systemd-cgtop -b -n 1"):
        m = med(t[k])
        if k.startswith("slicectl"):
            row(B3, f"**{k}**, {n:,} slices", ms(m), ms(max(t[k])), note=f"{len(t[k])} runs (p95 column: max)")
        else:
            r = m / base_t
            row(B3, f"{k}, {n:,} slices", ms(m), ms(max(t[k])), ratio=f"{r:.2f}× slicectl list",
                target="≥ 3×", met=r >= 3.0)
if len(scales) == 2:
    lo, hi = scales
    g = (sl[hi] / hi) / (sl[lo] / lo)
    row(B3, f"linearity: slicectl list per slice, {hi:,} vs {lo:,}", ratio=f"{g:.2f}×", target="≈ 1× (≤ 1.5×)", met=g <= 1.5)

# 4. fairness
B4 = "4 fairness"
fair = {}
with open(os.path.join(R, "fair")) as f:
    for l in f:
        name, cgp, used, dt = l.split()
        side = "mod" if "/mod-" in cgp else "ref"
        fair.setdefault(name, {}).setdefault(side, []).append((cgp.rsplit("/", 1)[1], int(used), int(dt)))


def fractions(lst):
    tot = sum(u for _, u, _ in lst)
    return [u / tot for _, u, _ in lst]


for name, label in (("w31", "weights 300:100"), ("w112", "weights 100:100:200")):
    d = fair[name]
    fm, fr = fractions(d["mod"]), fractions(d["ref"])
    err = max(abs(m / r - 1) for m, r in zip(fm, fr))
    if name == "w31":
        shown = f"{fm[0] / fm[1]:.2f} : 1", f"{fr[0] / fr[1]:.2f} : 1"
    else:
        shown = " : ".join(f"{x * 100:.1f}%" for x in fm), " : ".join(f"{x * 100:.1f}%" for x in fr)
    cpus = sum(u for _, u, _ in d["mod"]) / d["mod"][0][2]
    row(B4, f"{label}: pam_cpuslice / hand-written cgroups", f"{shown[0]} / {shown[1]}", ratio=f"{err * 100:.2f} % error",
        target="≤ 2 %", met=err <= 0.02, note=f"side by side; module tree got {cpus:.2f} CPUs")
for name, q in (("q25", 25), ("q50", 50), ("q150", 150)):
    d = fair[name]
    (_, um, dm), (_, ur, dr) = d["mod"][0], d["ref"][0]
    pm, pr = um / dm * 100, ur / dr * 100
    err = abs(pm / pr - 1)
    row(B4, f"quota {q} %: pam_cpuslice / hand-written", f"{pm:.1f} % / {pr:.1f} %", ratio=f"{err * 100:.2f} % error",
        target="≤ 2 %", met=err <= 0.02, note=f"one after the other; % of one CPU over {a.fair_sec} s")

print(f"## pam_cpuslice benchmarks ({'quick' if a.quick == '1' else 'full'} run)\n")
print(f"Kernel {a.kernel}, {a.ncpu} CPUs, load average {a.load_start} at start, {a.load_end} at end. "
      f"Peers: {a.peers}. Open+close: {a.cycles} cycles per module (interleaved rounds), "
      f"{a.conc_cycles} with 100 other sessions open. Every ratio is between figures of this run.\n")
print("| bench | measurement | median | p95 | p99 | ratio | target | | notes |")
print("| --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |")
print("\n".join(rows))
met = sum(1 for v in verdicts if v[4])
print(f"\nTargets: {met} of {len(verdicts)} met.")
for b, w, r, t, m in verdicts:
    if not m:
        print(f"- missed: {b}: {w}: {r} (target {t})")
