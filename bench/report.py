#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/report.py KIND ...: the markdown reports of bench/run, from the raw samples it wrote (how to
read them: bench/README.md). KIND: host RAWDIR (the four host benchmarks' table), fresh RAWDIR (fresh
logins on this host), vm-fresh DIR --envs ENV... (fresh logins in the VMs), interactive RUNS OUT
--kind host|vm (light users against a heavy one, with its PNGs in OUT). Every claim is a ratio
between figures of one run."""
import argparse
import glob
import json
import os
import statistics
import sys
import textwrap


# bench/fresh-login's raw lines: one login per line, name=µs fields
def read_rows(path):
    """the logins of one raw file; none when it is missing (a kind that did not run)"""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [{k: int(v) for k, v in (kv.split("=") for kv in line.split())} for line in f if line.strip()]


def fmed(rows, key):
    v = [r[key] for r in rows if key in r]
    return statistics.median(v) if v else None


def fp90(rows, key, min_n=1):
    """None below min_n logins, where a p90 would be one sample"""
    v = sorted(r[key] for r in rows if key in r)
    return v[min(len(v) - 1, int(0.9 * len(v)))] if v and len(v) >= min_n else None


def fms(us, digits=2):
    return "-" if us is None else "%.*f ms" % (digits, us / 1000)


def read_kv(path):
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                out[k] = v
    return out


def host(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    for o in ("quick", "load-start", "load-end", "ncpu", "peers", "kernel", "cycles", "conc-cycles", "fair-sec", "scales"):
        ap.add_argument("--" + o, default="")
    a = ap.parse_args(argv)
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


def fresh(argv):
    med, ms, p90 = fmed, fms, fp90
    MODULES = [("floor", "floor (raw syscalls: mkdir, 3 settings, 2 moves; back, rmdir)"),
               ("permit", "pam_permit (libpam itself)"),
               ("cpuslice", "pam_cpuslice"),
               ("cgroup", "pam_cgroup (libcgroup)"),
               ("cgfs", "pam_cgfs (lxcfs)")]
    PHASES = ["module_load", "config_nss", "layout", "mkdir_settings", "scope_moves", "open", "kernel_moves", "own",
              "close", "close_own"]
    TARGET_US = 1500

    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("raw")
        ap.add_argument("--load-start")
        ap.add_argument("--load-end")
        ap.add_argument("--ncpu", type=int)
        ap.add_argument("--kernel")
        ap.add_argument("--gap")
        ap.add_argument("--hold-ms")
        a = ap.parse_args(argv)
        data = {m: read_rows(os.path.join(a.raw, "fresh-" + m)) for m, _ in MODULES + [("phases", "")]}
        n = len(data["cpuslice"])
        busy = float(a.load_start.split()[0]) > 0.5 * a.ncpu
        out = ["", "## Fresh logins (each a new process, %s s apart, held %s ms; %d per module)" % (a.gap, a.hold_ms, n),
               "", "Load average %s at the start, %s at the end; %d CPUs; kernel %s." % (a.load_start, a.load_end, a.ncpu,
                                                                                      a.kernel)]
        if busy:
            out += ["", "**The machine was busy (load above half its CPUs) when this started: the figures below "
                        "are not a measurement of the module, only of the contention.**"]
        out += ["", "| login | load (pam_start) | open median | open p90 | close median | close p90 |",
                "| --- | --- | --- | --- | --- | --- |"]
        for m, label in MODULES:
            rows = data[m]
            out.append("| %s | %s | %s | %s | %s | %s |" % (label, ms(med(rows, "load")), ms(med(rows, "open")),
                                                            ms(p90(rows, "open")), ms(med(rows, "close")),
                                                            ms(p90(rows, "close"))))
        fl, pe, cs = med(data["floor"], "open"), med(data["permit"], "open"), med(data["cpuslice"], "open")
        if None not in (fl, pe, cs):
            own = cs - fl - pe
            out += ["", "pam_cpuslice's own part of an open: median open %s − floor %s − pam_permit %s = **%s** "
                        "(target ≤ %s: %s); the floor's moves alone: %s." % (ms(cs), ms(fl), ms(pe), ms(own), ms(TARGET_US),
                                                                           "met" if own <= TARGET_US else "missed",
                                                                           ms(med(data["floor"], "moves")))]
        ph = data["phases"]
        own, floor_own = med(ph, "own"), med(data["floor"], "setup")
        if None not in (own, floor_own):
            out += ["", "Without the kernel's moves (each write of the pid to cgroup.procs waits for one or two RCU "
                        "grace periods, several ms, whoever writes it: medians of a handful of those are noise), "
                        "timed inside the same processes: pam_cpuslice's open does **%s** of its own work against "
                        "the floor's %s, **%s** above it (target ≤ %s: %s); its close %s of its own."
                    % (ms(own), ms(floor_own), ms(own - floor_own), ms(TARGET_US),
                       "met" if own - floor_own <= TARGET_US else "missed", ms(med(ph, "close_own")))]
        if ph:
            out += ["", "pam_cpuslice's steps (its library called directly, each timed, medians):", "",
                    "| " + " | ".join(PHASES) + " |", "|" + " --- |" * len(PHASES),
                    "| " + " | ".join(ms(med(ph, p)) for p in PHASES) + " |"]
        print("\n".join(out))
    main()


def vm_fresh(argv):
    med = fmed
    KINDS = {
        "permit": "pam_permit (libpam itself)",
        "sd": "(a) pam_systemd alone",
        "setprops": "(c) pam_systemd + a bare SetUnitProperties",
        "sdcs": "(b) pam_systemd + pam_cpuslice (systemd backend)",
        "split": "(b') the same, the module in a second PAM handle (timed apart)",
        "floor2": "floor: raw cgroup2 syscalls (mkdir, +cpu, weight, max, move; back, rmdir)",
        "cs": "pam_cpuslice (cgroupfs backend)",
    }
    P90_FROM = 10

    def load_rows(raw, env, phase, kind):
        return read_rows(os.path.join(raw, "%s-%s-%s" % (env, phase, kind)))

    def p90(rows, key):
        return fp90(rows, key, P90_FROM)

    def ms(us):
        return fms(us, 1)

    def ratio(a, b):
        return "-" if None in (a, b) or b == 0 else "%.2f×" % (a / b)

    def load1(s):
        return float(s.split()[0]) if s else 0.0

    class Env:
        def __init__(self, top, env):
            self.env = env
            self.raw = os.path.join(top, env, "raw")
            self.meta = read_kv(os.path.join(self.raw, env + "-meta"))
            self.host = read_kv(os.path.join(top, env, "host-meta"))
            self.nproc = int(self.meta.get("nproc", "2"))
            hn = int(self.host.get("host.nproc", "2"))
            self.host_busy = None
            if load1(self.host.get("host.load_start")) > 0.5 * hn:
                self.host_busy = "the host's load was %s at the start (above half its %d CPUs)" % (
                    self.host["host.load_start"], hn)
            elif float(self.host.get("host.other_cpus", "0")) > 0.25 * hn:
                self.host_busy = "the rest of the host used %s CPUs on average while the VM ran (above a quarter of %d)" % (
                    self.host["host.other_cpus"], hn)

        def rows(self, phase, kind):
            return load_rows(self.raw, self.env, phase, kind)

        def busy(self, phase):
            """why the phase's figures mean nothing, or None"""
            if self.host_busy:
                return self.host_busy
            start = self.meta.get(phase + ".load_start", "")
            if load1(start) > 0.5 * self.nproc:
                return "the guest's load was %s when it started (above half its %d CPUs)" % (start, self.nproc)
            return None

        def systemd(self):
            """the guest's systemd: the running one's version line (systemd-v2), else the installed package's"""
            pkg = self.meta.get("systemd_pkg", "")
            if "systemd" in self.meta:
                line = self.meta["systemd"]  # "systemd 257 (257.9-1~deb13u1)"
                return "**%s**" % line if pkg in ("", "-") or pkg in line else "**%s** (package %s)" % (line, pkg)
            if pkg and pkg != "-":
                return "systemd package %s installed, not PID 1" % pkg
            return None

        def header(self):
            h = self.host
            suite = self.meta.get("suite") or h.get("host.suite")
            sd = self.systemd()
            return ("Host: load %s at the start, %s at the end, the rest of the host used %s CPUs on average during the "
                    "%s s VM run (%s CPUs, kernel %s, %s, TCG). Guest: %skernel %s, %d vCPUs%s; cgroup2 mount `%s`." % (
                        h.get("host.load_start"), h.get("host.load_end"), "%.2f" % max(0.0, float(h.get("host.other_cpus", "0"))), h.get("host.vm_secs"),
                        h.get("host.nproc"), h.get("host.kernel"), h.get("host.qemu"),
                        "Debian %s, " % suite if suite else "", self.meta.get("kernel"),
                        self.nproc, ", " + sd if sd else "", self.meta.get("mount")))

    def login_table(e, phase, kinds):
        out = ["| login | logins | pam_start median | open median | open p90 | close median | close p90 |",
               "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for k in kinds:
            r = e.rows(phase, k)
            out.append("| %s | %d | %s | %s | %s | %s | %s |" % (KINDS[k], len(r), ms(med(r, "load")), ms(med(r, "open")),
                                                                  ms(p90(r, "open")), ms(med(r, "close")),
                                                                  ms(p90(r, "close"))))
        return out

    def summed(rows, keys, name):
        return [{name: sum(r[k] for k in keys)} for r in rows if all(k in r for k in keys)]

    def systemd_phase(e, phase, title, kinds):
        out = ["", "### %s" % title, "", "Guest load %s at the start, %s at the end." % (
            e.meta.get(phase + ".load_start"), e.meta.get(phase + ".load_end"))]
        why = e.busy(phase)
        if why:
            return out + ["", "**Not meaningful: %s.** No figures are given for this table." % why]
        out += [""] + login_table(e, phase, kinds)
        a, b, c = (e.rows(phase, k) for k in ("sd", "sdcs", "setprops"))
        ma, mb, mc = med(a, "open"), med(b, "open"), med(c, "open")
        if None in (ma, mb, mc):
            return out
        # p90, or with fewer logins the slowest one
        spread = max(((p90(r, "open") or max(x["open"] for x in r)) - med(r, "open")) for r in (a, b, c))
        noise = (" A difference below the opens' own spread (p90 or max − median, up to %s here) is noise: pam_systemd's "
                 "open varies more from login to login than these differences; the in-process line below is the "
                 "figure to trust." % ms(spread)) if spread else ""
        out += ["",
                "- The D-Bus call itself, (c) − (a): **%s** of open (%s over pam_systemd alone); timed inside the "
                "process: loading libsystemd %s, connecting + SetUnitProperties %s (medians)." % (
                    ms(mc - ma), ratio(mc, ma), ms(med(c, "libload")), ms(med(c, "call"))),
                "- pam_cpuslice's own part, (b) − (c): **%s** of open (the module's pam_start load is in the pam_start "
                "column: %s against %s); (b) is %s of (c) and %s of pam_systemd alone. Close: (b) %s, (c) %s, (a) %s." % (
                    ms(mb - mc), ms(med(b, "load")), ms(med(c, "load")), ratio(mb, mc), ratio(mb, ma),
                    ms(med(b, "close")), ms(med(c, "close")), ms(med(a, "close"))) + noise]
        s = e.rows(phase, "split")
        mod, bare = med(s, "open2"), med(summed(c, ["libload", "call"], "x"), "x")
        if None not in (mod, bare):
            out += ["- Inside the process, without the noise of pam_systemd's own open (b'): the module's open **%s** "
                    "against the bare call's (libsystemd loaded + connect + SetUnitProperties) %s: **%s** of its own "
                    "(%s of the bare call). A second handle's pam_start (libpam's stack parse + the module's dlopen) "
                    "%s, against pam_permit's whole pam_start %s; in one stack the module's line adds (b) − (a) = %s "
                    "to pam_start. pam_systemd's open in the same processes: %s (medians)." % (
                        ms(mod), ms(bare), ms(mod - bare), ratio(mod, bare), ms(med(s, "load2")),
                        ms(med(e.rows(phase, "permit"), "load")), ms(med(b, "load") - med(a, "load")),
                        ms(med(s, "pam_open")))]
        return out

    def fdm_table(e, kinds):
        out = ["", "### favordynmods off and on (remounted between rounds, order alternating)", "",
               "Guest load %s at the start, %s at the end; mount with it: `%s`." % (
                   e.meta.get("fdm.load_start"), e.meta.get("fdm.load_end"), e.meta.get("fdm.mount_on"))]
        why = e.busy("fdm")
        if why:
            return out + ["", "**Not meaningful: %s.** No figures are given for this table." % why]
        out += ["", "| login | logins | open off | open on | on ÷ off | close off | close on | on ÷ off |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for k in kinds:
            off, on = e.rows("fdm-off", k), e.rows("fdm-on", k)
            oo, on_o, co, cn = med(off, "open"), med(on, "open"), med(off, "close"), med(on, "close")
            out.append("| %s | %d + %d | %s | %s | %s | %s | %s | %s |" % (KINDS[k], len(off), len(on), ms(oo), ms(on_o),
                                                                       ratio(on_o, oo), ms(co), ms(cn), ratio(cn, co)))
        fl_off, fl_on = e.rows("fdm-off", "floor2"), e.rows("fdm-on", "floor2")
        if fl_off and fl_on:
            out += ["", "The floor's move into its scope alone (the write of the pid to cgroup.procs): %s without, %s "
                        "with favordynmods (medians)." % (ms(med(fl_off, "moves")), ms(med(fl_on, "moves")))]
        own = {}
        for mode in ("off", "on"):
            cs, pe, fl = (med(e.rows("fdm-" + mode, k), "open") for k in ("cs", "permit", "floor2"))
            own[mode] = None if None in (cs, pe, fl) else cs - fl - pe
        if None not in own.values():
            out += ["", "pam_cpuslice's own part of an open (its open − the floor − pam_permit): %s without, %s with "
                        "favordynmods." % (ms(own["off"]), ms(own["on"]))]
        return out

    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("dir")
        ap.add_argument("--envs", nargs="+", required=True)
        ap.add_argument("--gap")
        ap.add_argument("--hold-ms")
        ap.add_argument("--suite", default="", help="the guests' Debian suite (bench/run vm-fresh --suite), for the title")
        a = ap.parse_args(argv)
        envs = [Env(a.dir, name) for name in a.envs]
        suite = a.suite or next((e.meta.get("suite") for e in envs if e.meta.get("suite")), "")
        sds = sorted({e.meta["systemd"] for e in envs if "systemd" in e.meta})
        out = ["## Fresh logins in the VMs (bench/run vm-fresh%s)%s" % (
                   " --suite " + a.suite if a.suite else "",
                   ": Debian %s%s" % (suite, ", " + ", ".join(sds) if sds else "") if suite else ""), "",
               "Each login a new process (bench/fresh-login: pam_start … pam_end), %s s after the one before, the "
               "session held %s ms, kinds interleaved round by round. QEMU without KVM (TCG): absolute times are "
               "several times a real machine's; only the differences and ratios within one table count." % (
                   a.gap, a.hold_ms)]
        for e in envs:
            name = e.env
            out += ["", "## %s%s" % (name, " (%s)" % suite if suite else ""), "", e.header()]
            failed = sorted(k for k in e.meta if k.startswith("failed."))
            if failed:
                out += ["", "**Failed logins** (their rows are missing): " +
                        "; ".join("%s: %s" % (k[len("failed."):], e.meta[k]) for k in failed)]
            if name.startswith("systemd"):
                out += systemd_phase(e, "second", "A user already logged in (a second session: slice and user manager "
                                     "running)", ["permit", "sd", "setprops", "sdcs", "split"])
                out += systemd_phase(e, "first", "First login (each login by a user who never logged in: logind starts "
                                     "the slice and user@.service)", ["sd", "setprops", "sdcs", "split"])
                out += fdm_table(e, ["floor2", "sd", "sdcs"])
            else:
                out += fdm_table(e, ["floor2", "permit", "cs"])
        print("\n".join(out))
    main()


def interactive(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("runs")
    ap.add_argument("out")
    for a in ("load-start", "load-end", "kernel", "peers"):
        ap.add_argument("--" + a, required=True)
    for a in ("ncpu", "busy", "quick", "rounds", "hogs", "builds", "w-light", "w-heavy"):
        ap.add_argument("--" + a, type=int, required=True)
    ap.add_argument("--warm", type=float, required=True)
    ap.add_argument("--dur", type=float, required=True)
    ap.add_argument("--kind", choices=("host", "vm"), default="host")
    ap.add_argument("--facts", nargs="*", default=[], help="vm: the guest's facts.<round> files")
    ap.add_argument("--host-others", nargs="*", type=float, default=[],
                    help="vm: CPUs the rest of the host used during each boot (host busy time minus the VM's)")
    ap.add_argument("--host-ncpu", type=int, default=0)
    ap.add_argument("--job-kib", type=int, default=4096)
    ap.add_argument("--skipped", default="", help="KEY=one-line reason;... for configurations not run")
    ap.add_argument("--prefix", default=None, help="the pictures' file name prefix (default interactive[-vm])")
    ap.add_argument("--suite", default="", help="vm: the guest's Debian suite, for the header")
    o = ap.parse_args(argv)
    VM = o.kind == "vm"
    PREFIX = o.prefix or ("interactive-vm" if VM else "interactive")
    SKIPPED = dict(x.split("=", 1) for x in o.skipped.split(";") if "=" in x)
    # vm: configurations the guest could not run in its state (skipped.CONFIG=reason in facts.<round>)
    for f in o.facts:
        for line in open(f):
            k, _, v = line.strip().partition("=")
            if k.startswith("skipped.") and v:
                SKIPPED.setdefault(k[len("skipped."):], f"{v} ({os.path.basename(f)})")

    WSHARE = o.w_light / (o.w_light + o.w_heavy)
    SH_L, SH_H = o.w_light * 1024 // 100, o.w_heavy * 1024 // 100  # what the module writes on v1
    if VM:
        CONFIGS = [  # key, label, fair share of the light user (None: no heavy user), how it is placed
            ("idle-probe", "idle: the probe alone", None, "pam_systemd session, no other load"),
            ("idle", "idle: light user alone (reference)", None, "pam_systemd session, no heavy user"),
            ("flat", "no per-user cgroups, autogroup off", 0.5, "pam_permit; all users in one cgroup `/csi-flat`"),
            ("autogroup", "kernel autogroup", 0.5, "pam_permit; `/csi-ag` (root task group), a session (setsid) per user"),
            ("sd-default", "systemd's defaults (logind's user slices as shipped)", 0.5,
             "pam_systemd: `user-UID.slice/session-N.scope`, no CPU settings, autogroup as booted"),
            ("cgroup", "pam_cgroup", 0.5, ""),
            ("cgfs", "pam_cgfs", 0.5, ""),
            ("cs-eq", "**pam_cpuslice**, equal weights", 0.5, "pam_systemd + pam_cpuslice (systemd backend), `* CPUWeight=100`"),
            ("cs-w", "**pam_cpuslice**, light user weighted", WSHARE,
             f"the same, light and wake-only CPUWeight={o.w_light}, heavy {o.w_heavy}"),
        ]
    else:
        CONFIGS = [
            ("idle-probe", "idle: the probe alone", None, "pam_cpuslice session, no other load"),
            ("idle", "idle: light user alone (reference)", None, "pam_cpuslice session, no heavy user"),
            ("flat", "no per-user cgroups, autogroup off", 0.5, "all users in one cpu cgroup `PARENT/flat`"),
            ("autogroup", "kernel autogroup", 0.5, "root cpu cgroup, a session (setsid) per user"),
            ("cgroup", "pam_cgroup", 0.5, "cgrules template `cg/%u`, equal cpu.shares"),
            ("cgfs", "pam_cgfs", 0.5, "`-c cpu,cpuacct`: `/user/USER/N`, equal cpu.shares"),
            ("hw-eq", "hand-written cgroups 1024:1024", 0.5, "pam_permit; `PARENT/hw-eq/{light,heavy,wake}`, cpu.shares 1024 each"),
            ("hw-deep", "hand-written cgroups 1024:1024, pam_cpuslice's depth", 0.5,
             "pam_permit; `PARENT/hw-deep/user.slice/user-{light,heavy,wake}.slice/s.scope`, cpu.shares 1024 each"),
            ("hw-root", "hand-written cgroups 1024:1024 at the cpu root", 0.5,
             "pam_permit; `/csi-root-{light,heavy,wake}`: the users, and their tasks, at depth 1"),
            ("hw-sd", "hand-written cgroups 1024:1024, pam_cpuslice's tree at parent=/", 0.5,
             "pam_permit; `/csi-user.slice/user-{light,heavy,wake}.slice/s.scope`: depth 2 (not in the default run)"),
            ("cs-eq", "**pam_cpuslice**, equal weights", 0.5, "`* CPUWeight=100`"),
            ("hw-w", f"hand-written cgroups {SH_L}:{SH_H}", WSHARE,
             f"pam_permit; `PARENT/hw-w/{{light,heavy,wake}}`, cpu.shares {SH_L}, {SH_H} and {SH_L}"),
            ("cs-w", "**pam_cpuslice**, light user weighted", WSHARE,
             f"light and wake-only CPUWeight={o.w_light}, heavy {o.w_heavy}"),
            ("cs-root", "**pam_cpuslice** `slice_root=/`, equal weights", 0.5,
             "`* CPUWeight=100`; `/user-UID.slice/session-N.scope`: the users compete at depth 1"),
            ("cs-root-w", "**pam_cpuslice** `slice_root=/`, light user weighted", WSHARE,
             f"light and wake-only CPUWeight={o.w_light}, heavy {o.w_heavy}; `/user-UID.slice/session-N.scope`"),
            ("hw-min", "hand-written cgroups 1024:2", 1.0,
             "pam_permit; `PARENT/hw-min/{light,heavy,wake}`, the heavy user at v1's smallest cpu.shares (2), no cpu.idle"),
            ("cs-idle", "**pam_cpuslice**, heavy user idle", 1.0,
             "`csi-heavy CPUWeight=idle` (cpu.idle 1): the light users may have all they ask for"),
        ]
    LABEL = {k: l.replace("**", "") for k, l, _, _ in CONFIGS}

    def pct(xs, p):
        xs = sorted(xs)
        if not xs:
            return float("nan")
        k = (len(xs) - 1) * p / 100
        f = int(k)
        c = min(f + 1, len(xs) - 1)
        return xs[f] + (xs[c] - xs[f]) * (k - f)

    def parse_kv(path):
        d = {}
        for tok in open(path).read().split():
            k, _, v = tok.partition("=")
            d[k] = v
        return d

    R = {}
    others = []  # CPUs the rest of the host used in each window (all CPU time in /proc/stat minus ours)
    for key, label, fair, how in CONFIGS:
        dirs = sorted(glob.glob(os.path.join(o.runs, key + ".*")))
        if not dirs:
            continue
        lat, jobs, light, heavy, win, builds, cgs, ags, ctl = [], [], 0, 0, 0, 0, set(), set(), set()
        p99s = []  # each window's own p99: how far one window's tail is from the next
        # the wake-only user (csi-wake): its probe, CPU time, placement; none in run dirs made before it
        wlat, wp99s, wake, wcgs, wags, wleads = [], [], 0, set(), set(), []
        for d in dirs:
            wl = [float(x) for x in open(os.path.join(d, "probe")).read().split()]
            lat += wl
            p99s.append(pct(wl, 99))
            u = parse_kv(os.path.join(d, "usage"))
            t0, t1 = int(u["t0"]), int(u["t1"])
            light += int(u["light"])
            heavy += int(u["heavy"])
            wake += int(u.get("wake", 0))
            win += (t1 - t0) / 1000
            builds += int(u["builds"])
            others.append(max(0, int(u["host"]) - int(u["light"]) - int(u["heavy"]) - int(u.get("wake", 0)))
                          / ((t1 - t0) / 1000))
            cgs.add((u["cg_light"], u["cg_heavy"]))
            ags.add((u["ag_light"], u["ag_heavy"]))
            if "cpu_root" in u:  # vm: who splits the CPU in this window
                ctl.add((u["cpu_root"], u["cpu_user_slice"], u["weight_light"], u["weight_heavy"], u["autogroup"],
                         u.get("weight_wake", "-")))
            wp = os.path.join(d, "wake.probe")
            if os.path.exists(wp):
                ww = [float(x) for x in open(wp).read().split()]
                wlat += ww
                wp99s.append(pct(ww, 99))
                wcgs.add(u.get("cg_wake", "?"))
                wags.add(u.get("ag_wake", "?"))
                if "wake_lead" in u:
                    wleads.append(int(u["wake_lead"]))
            if os.path.exists(os.path.join(d, "job")):
                for line in open(os.path.join(d, "job")):
                    a, b = map(int, line.split())
                    if a >= t0 and b <= t1:
                        jobs.append((b - a) / 1e9)
        R[key] = dict(label=label, fair=fair, how=how, lat=lat, p50=pct(lat, 50), p99=pct(lat, 99),
                      p999=pct(lat, 99.9), n=len(lat), light=light, heavy=heavy, win=win,
                      share=light / (light + heavy) if light + heavy else float("nan"),
                      cpus_light=light / win, cpus_heavy=heavy / win,
                      job=statistics.median(jobs) if jobs else float("nan"), njobs=len(jobs),
                      builds=builds / win * 1e6, cgs=cgs, ags=ags, ctl=ctl, p99s=p99s,
                      wlat=wlat, wp50=pct(wlat, 50), wp99=pct(wlat, 99), wp999=pct(wlat, 99.9), wn=len(wlat),
                      wp99s=wp99s, cpus_wake=wake / win if wlat else float("nan"), wcgs=wcgs, wags=wags,
                      wlead=max(wleads) if wleads else None)

    OTHERS = max(others) if others else 0.0
    OTHERS_MEAN = sum(others) / len(others) if others else 0.0
    BUSY_LATER = OTHERS_MEAN > 0.25 * o.ncpu  # quiet at the start, but others took the CPUs during the run
    # vm: the rest of the host (its busy time minus the VM's cgroup) during each boot
    HOST_OTHERS = sum(o.host_others) / len(o.host_others) if o.host_others else 0.0
    HOST_BUSY = VM and HOST_OTHERS > 0.25 * o.host_ncpu
    BUSY = o.busy == 1 or BUSY_LATER or HOST_BUSY
    NAN = float("nan")
    for key, label, fair, how in CONFIGS:  # a development run may leave configurations out
        R.setdefault(key, dict(label=label, fair=fair, how=how, lat=[], p50=NAN, p99=NAN, p999=NAN, n=0, light=0,
                               heavy=0, win=1, share=NAN, cpus_light=NAN, cpus_heavy=NAN, job=NAN, njobs=0,
                               builds=NAN, cgs={("-", "-")}, ags={("-", "-")}, ctl=set(), p99s=[], missing=True,
                               wlat=[], wp50=NAN, wp99=NAN, wp999=NAN, wn=0, wp99s=[], cpus_wake=NAN, wcgs=set(),
                               wags=set(), wlead=None))
    idle = R["idle"]
    # the idle machine's wake-up latency: the light user's probe alone (idle-probe; since the wake-only
    # user, with the wake-only user's probe beside it, which takes no CPU either). Both users' p99 are
    # read against it in the wake-up table and the wake-only goal rows.
    IP = R["idle-probe"]["p99"]

    def us(x):
        return "–" if x != x else (f"{x:,.0f} µs" if x >= 100 else f"{x:.1f} µs")

    def ratio(x):
        return "–" if x != x else f"{x:.2f}×"

    def verdict(ok):
        return "not meaningful" if BUSY else ("**met**" if ok else "**missed**")

    out = []
    p = out.append
    mode = "quick" if o.quick else "full"
    nrounds = max((len(glob.glob(os.path.join(o.runs, k + '.*'))) for k, _, _, _ in CONFIGS), default=0)
    # what both headers say alike: the light user's load, the window, the other load in the machine
    LIGHT = (f"Light user: 10 ms wake-up probe + 1 CPU-bound thread + gzip -6 of {o.job_kib // 1024} MiB back to "
             f"back. Wake-only user (an editor or a shell): the same probe alone, no CPU-bound thread, no job, "
             "in a session of its own, placed and weighted like the light user.")
    WINDOW = f"{o.warm:g} s warm-up + {o.dur:g} s measured"
    REST = f"used {OTHERS_MEAN:.2f} CPUs on average during the windows (at most {OTHERS:.2f})."
    if VM:
        facts = " ".join(open(f).read().split("\n")[0] for f in sorted(o.facts)[:1])
        fk = dict(t.partition("=")[::2] for t in facts.split() if "=" in t)
        suite = o.suite or fk.get("suite", "")
        sdpkg = fk.get("systemd_pkg", "")
        p(f"systemd-v2 VM{', Debian ' + suite if suite else ''} (`bench/run vm-interactive"
          f"{' --suite ' + o.suite if o.suite else ''}`, {mode}): **systemd {fk.get('systemd', '?')}**"
          f"{' (' + sdpkg + ')' if sdpkg and sdpkg != '-' else ''}, kernel {o.kernel}, "
          f"pure cgroup v2, {o.ncpu} vCPUs under TCG on a {o.host_ncpu}-CPU host. Host load average {o.load_start} "
          f"at start, {o.load_end} at end; the rest of the host (its busy time minus the VM's cgroup) used "
          f"{HOST_OTHERS:.2f} CPUs on average over the boots. {nrounds} boot(s), one round each (pam_cpuslice's "
          f"configurations last in each boot; every other boot both blocks in reverse order), each window "
          f"{WINDOW}. {LIGHT} Heavy user: {o.hogs} hogs + {o.builds} build-like loops "
          f"(gzip -1 \\| sort of 64 KiB, 20 × sh -c true: no compiler in the guest). Every ratio is between figures "
          f"of this run; absolute times are TCG's. Inside the guest the rest of the system {REST}")
    else:
        p(f"Kernel {o.kernel}, {o.ncpu} CPUs, `bench/run interactive` ({mode}), load average {o.load_start} at start, "
          f"{o.load_end} at end. {nrounds} round(s) per configuration "
          f"(every other round in reverse order), each {WINDOW}. {LIGHT} Heavy user: "
          f"{o.hogs} hogs + {o.builds} build loops (cc -O2 -c, 20 × sh -c true). Peers: {o.peers}. Every ratio is "
          f"between figures of this run. The rest of the host {REST}")
    p("")
    if BUSY:
        why = (f"besides the VM the host used {HOST_OTHERS:.2f} CPUs on average, more than 0.25 × {o.host_ncpu}"
               if HOST_BUSY else f"the rest of the {'guest' if VM else 'host'} used {OTHERS_MEAN:.2f} CPUs on "
               f"average during the windows, more than 0.25 × {o.ncpu}" if o.busy != 1 else
               f"load average {o.load_start.split()[0]} at the start, above 0.5 × {o.host_ncpu if VM else o.ncpu} CPUs")
        p(f"**The machine was too busy for these figures to mean anything**: {why}. Every figure below is **not "
          f"meaningful**, kept only to show the run worked; no verdict is drawn.")
        p("")
    p("| configuration | placed by | light user's probe p50 | p99 | p99 of each window (min–max) | p99.9 | p99 ÷ idle "
      "| light user's CPU share (of light + heavy) | ÷ fair share | light CPUs / heavy CPUs | job (median) | job ÷ idle "
      "| heavy builds/s |")
    p("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key, label, fair, how in CONFIGS:
        if key in SKIPPED:
            p(f"| {label} | **not run**: {SKIPPED[key]} | " + " | ".join(["–"] * 11) + " |")
            continue
        if R[key].get("missing"):
            continue
        r = R[key]
        nm = " (not meaningful)" if BUSY else ""
        share = "–" if fair is None else f"{r['share'] * 100:.1f} % (fair {fair * 100:.0f} %)"
        vs_fair = "–" if fair is None else ratio(r["share"] / fair)
        cpus = f"{r['cpus_light']:.2f} / {r['cpus_heavy']:.2f}" if fair is not None else f"{r['cpus_light']:.2f} / –"
        job = "–" if key == "idle-probe" else (f"{r['job']:.2f} s ({r['njobs']})" if r["njobs"] else "none finished")
        job_r = "–" if key in ("idle-probe", "idle") else ratio(r["job"] / idle["job"])
        builds = "–" if fair is None else f"{r['builds']:.1f}"
        spread = f"{us(min(r['p99s']))} – {us(max(r['p99s']))}" if len(r["p99s"]) > 1 else "–"
        p(f"| {label}{nm} | {how} | {us(r['p50'])} | {us(r['p99'])} | {spread} | {us(r['p999'])} | "
          f"{ratio(r['p99'] / idle['p99'])} | {share} | {vs_fair} | {cpus} | {job} | {job_r} | {builds} |")
    p("")
    n = R["cs-eq"]["n"]
    ACCT_NOTE = ("of `user-UID.slice` where pam_systemd placed them, else of a per-user dir below the shared cgroup; "
                 if VM else "")
    p(f"Probe samples per configuration: {n} (p99.9 rests on the {max(1, round(n / 1000))} slowest). "
      f"*idle* = the light user's full load with no heavy user; the light user's CPU share is its "
      f"cgroup2 `usage_usec` over both users' ({ACCT_NOTE}the {'guest' if VM else 'host'}'s other load is not "
      f"in it). Placement checked in every window: " + "; ".join(
          f"{LABEL[k]}: `{'' if VM else 'cpu:'}{sorted(R[k]['cgs'])[0][0]}`" for k, _, f, _ in CONFIGS
          if f is not None and k != "autogroup" and not R[k].get("missing"))
      + (f"; autogroup: light `{sorted(R['autogroup']['ags'])[0][0]}`, heavy `{sorted(R['autogroup']['ags'])[0][1]}`"
         if not R["autogroup"].get("missing") else "") + ".")
    p("")

    # --- both light users' wake-ups: the CPU-bound one and the wake-only one ---------------------------
    p("Wake-ups of both light users, each against the idle machine's: the probe alone (*idle: the probe alone*, "
      f"p99 {us(IP)}, measured in this run). The CPU-bound light user competes like a hog for its thread and job; "
      "the wake-only user (an editor or a shell) only wakes up.")
    p("")
    p("| configuration | light user (CPU-bound): p50 | p99 | p99 ÷ idle probe | wake-only user: p50 | p99 "
      "| p99 of each window (min–max) | p99.9 | p99 ÷ idle probe | wake-only user's CPUs |")
    p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key, label, fair, how in CONFIGS:
        if key in SKIPPED:
            p(f"| {label} | " + " | ".join(["–"] * 9) + " |")
            continue
        if R[key].get("missing"):
            continue
        r = R[key]
        nm = " (not meaningful)" if BUSY else ""
        wspread = f"{us(min(r['wp99s']))} – {us(max(r['wp99s']))}" if len(r["wp99s"]) > 1 else "–"
        wcpu = f"{r['cpus_wake']:.3f}" if r["wn"] else "–"
        p(f"| {label}{nm} | {us(r['p50'])} | {us(r['p99'])} | {ratio(r['p99'] / IP)} | {us(r['wp50'])} | "
          f"{us(r['wp99'])} | {wspread} | {us(r['wp999'])} | {ratio(r['wp99'] / IP)} | {wcpu} |")
    p("")
    leads = [R[k]["wlead"] for k, _, _, _ in CONFIGS if R[k]["wlead"] is not None]
    lead = (f" Its probe starts before the light user's session opens: by at most {max(leads) / 1e6:.2f} s here, "
            f"inside its {o.warm:g} s warm-up" + ("" if max(leads) < o.warm * 1e6 else
                                                  ": **longer than the warm-up, so its first samples came before "
                                                  "the light user's load started**") + "." if leads else "")
    p(f"Wake-only user's probe samples per configuration: {R['cs-eq']['wn']}; its CPU time is its own cgroup2 "
      f"`usage_usec`, not in the light user's share above.{lead} Its placement, checked in every window like the "
      f"light user's: " + "; ".join(
          f"{LABEL[k]}: `{'' if VM else 'cpu:'}{sorted(R[k]['wcgs'])[0]}`" for k, _, _, _ in CONFIGS
          if k != "autogroup" and R[k]["wcgs"])
      + (f"; autogroup: `{sorted(R['autogroup']['wags'])[0]}`" if R["autogroup"]["wags"] else "") + ".")
    p("")
    if VM:
        # who splits the CPU: the cpu controller in / and user.slice, the slices' cpu.weight, autogroup
        p("Who splits the CPU in each window (read in the window: `cpu` in the `cgroup.subtree_control` of `/` and "
          "of `user.slice`, the users' `user-UID.slice/cpu.weight`, `sched_autogroup_enabled`):")
        p("")
        p("| configuration | cpu in `/` | cpu in `user.slice` | cpu.weight light / heavy / wake-only | autogroup |")
        p("| --- | --- | --- | --- | --- |")
        for key, label, fair, how in CONFIGS:
            if R[key].get("missing") or not R[key]["ctl"]:
                continue
            rows = sorted(R[key]["ctl"])
            yn = lambda v: "yes" if v == "cpu" else "no"
            p(f"| {LABEL[key]} | {' / '.join(sorted({yn(c[0]) for c in rows}))} | "
              f"{' / '.join(sorted({yn(c[1]) for c in rows}))} | "
              f"{', '.join(sorted({c[2] + ' / ' + c[3] + ' / ' + c[5] for c in rows}))} | "
              f"{' / '.join(sorted({c[4] for c in rows}))} |")
        p("")
        for f in sorted(o.facts):
            p(f"{'Peer modules tried after the windows' if os.path.basename(f).startswith('peers') else 'Boot facts'} "
              f"({os.path.basename(f)}): " + "; ".join(f"`{t}`" for t in open(f).read().splitlines() if t.strip()))
            p("")

    # --- the goal, and pam_cpuslice against every alternative ----------------------------------------
    eq, w = R["cs-eq"], R["cs-w"]
    p("| goal | measured | target | |")
    p("| --- | --- | --- | --- |")
    # each pam_cpuslice configuration run, with hand-written groups to read it against (the kernel's own answer)
    BY_HAND = "pam_cpuslice's shares, by hand"
    GOALS = [("cs-eq", "equal weights", "hw-deep", BY_HAND),
             ("cs-w", f"weight {o.w_light}:{o.w_heavy}", "hw-w", BY_HAND),
             ("cs-root", "slice_root=/, equal weights", "hw-root", BY_HAND),
             ("cs-root-w", f"slice_root=/, weight {o.w_light}:{o.w_heavy}", None, None),
             ("cs-idle", "heavy user CPUWeight=idle", "hw-min",
              "what CPUWeight=idle was on v1 before the module wrote cpu.idle")]
    for key, name, refkey, refnote in GOALS:
        r = R.get(key, {"missing": True})
        if r.get("missing"):
            continue
        p(f"| pam_cpuslice ({name}): light user's p99 wake-up latency ÷ idle machine's | {ratio(r['p99'] / idle['p99'])} "
          f"({us(r['p99'])} / {us(idle['p99'])}) | ≤ 2× | {verdict(r['p99'] <= 2 * idle['p99'])} |")
        pa = R["idle-probe"]
        p(f"| pam_cpuslice ({name}): the same ÷ the probe alone on an idle machine (context) | "
          f"{ratio(r['p99'] / pa['p99'])} ({us(r['p99'])} / {us(pa['p99'])}) | | |")
        if r["wn"]:
            p(f"| pam_cpuslice ({name}): wake-only user's p99 wake-up latency ÷ the probe alone on an idle machine | "
              f"{ratio(r['wp99'] / IP)} ({us(r['wp99'])} / {us(IP)}) | ≤ 2× | {verdict(r['wp99'] <= 2 * IP)} |")
        dev = abs(r["share"] / r["fair"] - 1)
        p(f"| pam_cpuslice ({name}): light user's CPU share against its fair share | {r['share'] * 100:.1f} % / "
          f"{r['fair'] * 100:.0f} % ({dev * 100:.1f} % off) | within 5 % | {verdict(dev <= 0.05)} |")
        if not VM and refkey and not R[refkey].get("missing"):
            ref = R[refkey]
            p(f"| {LABEL[refkey]} (context: {refnote}) | p99 {ratio(ref['p99'] / idle['p99'])} "
              f"idle; share {ref['share'] * 100:.1f} % ({abs(ref['share'] / r['fair'] - 1) * 100:.1f} % off) | | |")
    p("")
    p("pam_cpuslice (equal weights) against each alternative — ratios > 1× mean pam_cpuslice does better:")
    p("")
    p("| alternative | p99: alternative ÷ pam_cpuslice | p99.9: alternative ÷ pam_cpuslice | light share: "
      "pam_cpuslice ÷ alternative | job time: alternative ÷ pam_cpuslice | wake-only user's p99: alternative ÷ "
      "pam_cpuslice | latency | CPU split | as good? |")
    p("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |")

    def cmp_lat(r):  # the alternative's p99 against pam_cpuslice's: 1.25x either way is "the same"
        x = r["p99"] / eq["p99"]
        return "better" if x < 0.8 else ("worse" if x > 1.25 else "same")

    def same_state(key):  # vm: a window whose kernel state (who splits, the weights) is pam_cpuslice's own
        return VM and R[key]["ctl"] and R[key]["ctl"] == eq["ctl"] and len(eq["ctl"]) == 1

    def cmp_split(r):  # distance from the fair share, alternative against pam_cpuslice: 5 points is "the same"
        d = abs(r["share"] / 0.5 - 1) - abs(eq["share"] / 0.5 - 1)
        return "better" if d < -0.05 else ("worse" if d > 0.05 else "same")

    as_good = []
    ALTS = [k for k, _, f, _ in CONFIGS if f == 0.5 and not k.startswith("cs-")]
    for key in ALTS:
        if key in SKIPPED:
            p(f"| {LABEL[key]} | – | – | – | – | – | not run | not run | – |")
            continue
        if R[key].get("missing"):
            continue
        r = R[key]
        lat, split = cmp_lat(r), cmp_split(r)
        good = "worse" not in (lat, split)
        same = same_state(key)
        if same:  # the same kernel state: a difference between the two rows is this run's noise
            lat, split, good = f"{lat} (noise)", f"{split} (noise)", True
        if good:
            as_good.append((key, "same" if same else lat, "same" if same else split))
        nm = "not meaningful"
        p(f"| {LABEL[key]} | {ratio(r['p99'] / eq['p99'])} | {ratio(r['p999'] / eq['p999'])} | "
          f"{ratio(eq['share'] / r['share'])} | {ratio(r['job'] / eq['job'])} | {ratio(r['wp99'] / eq['wp99'])} | "
          f"{nm if BUSY else lat} | "
          f"{nm if BUSY else split} | {nm if BUSY else ('**yes**' + (', the same kernel state' if same else '') if good else 'no')} |")
    p("")
    p("*latency*: the alternative's p99 (the CPU-bound light user's) against pam_cpuslice's (within 1.25× either way: "
      "same; the wake-only user's column is context, not judged); *CPU split*: its "
      "light user's distance from the fair share (50 %) against pam_cpuslice's (within 5 % of the fair share: same); "
      "*as good*: worse on neither" + ("; or, in the VM, a window whose kernel state is pam_cpuslice's own (the cpu "
      "controller in the same places, the same `cpu.weight` on the users' slices, the same autogroup setting): then the two "
      "rows differ only by this run's noise, and that difference measures the noise." if VM else ".") )
    p("")
    if "hw-w" in R and not R["hw-w"].get("missing"):
        hw = R["hw-w"]
        p(f"pam_cpuslice (weight {o.w_light}:{o.w_heavy}) against hand-written cgroups with the cpu.shares it writes "
          f"({SH_L}:{SH_H}), the kernel's own answer for this load:")
        p("")
        p("| | p99 | p99 ÷ idle | light share | ÷ fair share | job (median) |")
        p("| --- | ---: | ---: | ---: | ---: | ---: |")
        for r in (w, hw):
            p(f"| {r['label'].replace('**', '')} | {us(r['p99'])} | {ratio(r['p99'] / idle['p99'])} | "
              f"{r['share'] * 100:.1f} % | {ratio(r['share'] / r['fair'])} | {r['job']:.2f} s |")
        p(f"| pam_cpuslice ÷ hand-written | {ratio(w['p99'] / hw['p99'])} | | {ratio(w['share'] / hw['share'])} | | "
          f"{ratio(w['job'] / hw['job'])} |")
        p("")
    if BUSY:
        p("No conclusion is drawn from a busy machine.")
    else:
        if as_good:
            names = ", ".join(f"**{LABEL[k]}**" + (f" (better on {' and '.join(n for n, v in (('latency', l), ('CPU split', sp)) if v == 'better')})"
                                                  if "better" in (l, sp) else "") for k, l, sp in as_good)
            p(f"As good as pam_cpuslice with equal weights in this run: {names}. What pam_cpuslice adds over "
              f"{'it' if len(as_good) == 1 else 'them'}: weights (the weighted row: the light user got "
              f"{w['share'] * 100:.1f} % of the CPU against the {w['fair'] * 100:.0f} % asked, p99 "
              f"{ratio(w['p99'] / idle['p99'])} idle) from one config line per user, `@group` or uid range" +
              (" — systemd alone gives every user the same default weight; a different one takes a "
               "`systemctl set-property user-UID.slice CPUWeight=` or a `user-UID.slice.d` drop-in, kept by hand for each uid, "
               "where pam_cpuslice resolves it from its rules at every login"
               if VM else
               " — of the alternatives only pam_cgroup can weight users too, with a cgconfig group or template per "
               "weight and a cgrules line per user (reparsed at every login), autogroup only by each session's nice "
               "value (`/proc/PID/autogroup`), pam_cgfs and no-cgroups not at all") +
              "; CPU quotas per user, group or uid range; system accounts left alone (`CPUSlice=no`); live changes "
              "(`slicectl set`) and a view of who uses the CPU (`slicectl list`).")
        else:
            p("None of the alternatives is as good as pam_cpuslice with equal weights in this run.")
        p("")
    p(f"![wake-up latency CDF per configuration]({PREFIX}-latency.png)")
    p(f"![the wake-only user's wake-up latency CDF per configuration]({PREFIX}-wake-latency.png)")
    p(f"![CPU share per configuration]({PREFIX}-cpu.png)")
    print("\n".join(out))

    # --- pictures ------------------------------------------------------------------------------------
    import matplotlib  # noqa: E402

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402

    tag = "  — NOT MEANINGFUL (machine busy)" if BUSY else ""
    sub = (f"systemd-v2 VM{' (' + suite + ')' if suite else ''}, {o.ncpu} vCPUs (TCG): host load {o.load_start.split()[0]} → {o.load_end.split()[0]}, "
           f"rest of the host {HOST_OTHERS:.2f} CPUs, rest of the guest {OTHERS_MEAN:.2f} CPUs, {mode} run" if VM else
           f"load {o.load_start.split()[0]} → {o.load_end.split()[0]}, rest of the host {OTHERS_MEAN:.2f} CPUs, "
           f"{o.ncpu} CPUs, {mode} run")
    colors = {"idle-probe": "#bbbbbb", "idle": "#000000", "flat": "#d62728", "autogroup": "#ff7f0e",
              "cgroup": "#8c564b", "cgfs": "#9467bd", "cs-eq": "#1f77b4", "cs-w": "#2ca02c",
              "sd-default": "#e377c2", "hw-eq": "#17becf", "hw-w": "#bcbd22", "hw-deep": "#7f7f7f",
              "hw-root": "#aec7e8", "hw-sd": "#98df8a", "cs-root": "#393b79", "cs-root-w": "#006400",
              "cs-idle": "#9edae5", "hw-min": "#c49c94"}
    styles = {"idle-probe": ":", "idle": "--", "cs-eq": "-", "cs-w": "-", "hw-eq": "-.", "hw-w": "-.", "hw-deep": "-."}
    def latency_png(field, p99key, who, fname):  # the CDF and the tail of one user's probe, per configuration
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 6))
        for key, label, fair, how in CONFIGS:
            if R[key].get("missing") or not R[key][field]:
                continue
            xs = sorted(max(x, 0.1) for x in R[key][field])
            nn = len(xs)
            ys = [(i + 1) / nn for i in range(nn)]
            lw = 2.2 if key.startswith("cs-") else 1.4
            lab = f"{LABEL[key]} (p99 {us(R[key][p99key])})"
            ax1.plot(xs, ys, styles.get(key, "-"), color=colors[key], lw=lw, label=lab)
            ax2.plot(xs, [1 - y + 1 / nn for y in ys], styles.get(key, "-"), color=colors[key], lw=lw)
        for ax in (ax1, ax2):
            ax.set_xscale("log")
            ax.set_xlabel("wake-up lateness of a 10 ms sleep (µs, log)")
            ax.grid(True, which="both", alpha=0.3)
        ax1.set_ylabel("fraction of wake-ups at most this late (CDF)")
        ax1.set_ylim(0, 1.01)
        ax2.set_yscale("log")
        ax2.set_ylabel("fraction of wake-ups later than this (log)")
        for q, lab in ((0.01, "p99"), (0.001, "p99.9")):
            ax2.axhline(q, color="grey", lw=0.8, ls=":")
            ax2.text(0.02, q, lab, transform=ax2.get_yaxis_transform(), va="bottom", fontsize=8, color="grey")
        ax1.set_title("Probe lateness, whole distribution")
        ax2.set_title("The tail")
        fig.legend(*ax1.get_legend_handles_labels(), fontsize=8.5, loc="lower center", ncol=3 if VM else 4, frameon=False)
        fig.suptitle(f"{who} under a heavy user, per configuration{tag}\n{sub}", fontsize=11)
        fig.tight_layout(rect=(0, 0.14 if VM else 0.1, 1, 1))
        fig.savefig(os.path.join(o.out, fname), dpi=110)
        plt.close(fig)

    latency_png("lat", "p99", "Light user's wake-up latency (probe + CPU-bound thread + job)", f"{PREFIX}-latency.png")
    latency_png("wlat", "wp99", "Wake-only user's wake-up latency (the probe alone, nothing CPU-bound)",
                f"{PREFIX}-wake-latency.png")

    keys = [k for k, _, f, _ in CONFIGS if f is not None and not R[k].get("missing")]
    fig, ax = plt.subplots(figsize=(12, 5.8))
    xs = range(len(keys))
    ls = [R[k]["share"] * 100 for k in keys]
    hs = [100 - v for v in ls]
    ax.bar(xs, ls, color="#1f77b4", label="light user (probe + 1 thread + gzip)")
    ax.bar(xs, hs, bottom=ls, color="#d9d9d9", label=f"heavy user ({o.hogs} hogs + {o.builds} build loops)")
    for i, k in enumerate(keys):
        f = R[k]["fair"] * 100
        ax.plot([i - 0.45, i + 0.45], [f, f], color="black", lw=2, ls="--", label="light user's fair share" if i == 0 else None)
        ax.text(i, ls[i] / 2, f"{ls[i]:.1f} %\n{R[k]['cpus_light']:.2f} CPUs", ha="center", va="center",
                color="white", fontsize=9, fontweight="bold")
        ax.text(i, ls[i] + hs[i] / 2 + (6 if abs(ls[i] - f) < 8 and f > ls[i] else 0),
                f"{R[k]['cpus_heavy']:.2f} CPUs", ha="center", va="center", fontsize=9)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([textwrap.fill(LABEL[k], 20) for k in keys], fontsize=8.5)
    ax.set_ylabel("share of the CPU time both users got (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.27), ncol=3)
    ax.set_title(f"CPU split between the light and the heavy user{tag}\n{sub}", fontsize=11)
    fig.tight_layout()
    fig.savefig(os.path.join(o.out, f"{PREFIX}-cpu.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    {"host": host, "fresh": fresh, "vm-fresh": vm_fresh, "interactive": interactive}[sys.argv[1]](sys.argv[2:])
