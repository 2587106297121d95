#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/report.py KIND ...: the markdown reports of bench/run, from the raw samples it wrote (how to
read them: bench/README.md). KIND: host RAWDIR, fresh RAWDIR, vm-fresh RAWDIR --envs ENV...,
interactive RUNS [--kind vm]. Each report is tables plus a few fixed lines; every claim is a ratio
between figures of one run."""
import argparse
import functools
import glob
import json
import os
import statistics
import sys

NAN = float("nan")


def table(head, rows, align):
    """markdown table lines; align: one letter per column, l or r"""
    return (["| " + " | ".join(head) + " |", "|" + "".join(" ---: |" if a == "r" else " --- |" for a in align)]
            + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])


def args(argv, pos, opts, **typed):
    ap = argparse.ArgumentParser()
    for p in pos:
        ap.add_argument(p)
    for o in opts.split():
        ap.add_argument("--" + o, default="")
    for o, t in typed.items():
        ap.add_argument("--" + o.replace("_", "-"), **t)
    return ap.parse_args(argv)


def read_rows(path):
    """bench/driver.c's fresh-login lines, one login each (name=µs fields); none when missing"""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [{k: int(v) for k, v in (kv.split("=") for kv in line.split())} for line in f if line.strip()]


def read_kv(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return dict(line.rstrip("\n").partition("=")[::2] for line in f)


def med(rows, key):
    v = [r[key] for r in rows if key in r]
    return statistics.median(v) if v else None


def p90(rows, key, min_n=1):
    """None below min_n logins, where a p90 would be one sample"""
    v = sorted(r[key] for r in rows if key in r)
    return v[min(len(v) - 1, int(0.9 * len(v)))] if v and len(v) >= min_n else None


def logins(rows, fmt, min_n=1):
    """pam_start median, open and close median and p90 of fresh logins"""
    return [fmt(med(rows, "load")), fmt(med(rows, "open")), fmt(p90(rows, "open", min_n)), fmt(med(rows, "close")),
            fmt(p90(rows, "close", min_n))]


def fms(us, digits=2):
    return "-" if us is None else "%.*f ms" % (digits, us / 1000)


def xr(a, b):
    return "-" if None in (a, b) or b == 0 else "%.2f×" % (a / b)


def load1(s):
    return float(s.split()[0]) if s else 0.0


def host(argv):
    a = args(argv, ["raw"], "quick load-start load-end ncpu peers kernel cycles conc-cycles fair-sec")

    def col(name, i=0):
        with open(os.path.join(a.raw, name)) as f:
            return sorted(int(l.split()[i]) for l in f if l.strip())

    def lat(name, i=0):
        v = col(name, i)
        return [v[len(v) // 2]] + [v[min(len(v) - 1, int(len(v) * p))] for p in (0.95, 0.99)]

    def us(ns):
        return f"{ns / 1000:,.0f} µs" if ns >= 100_000 else f"{ns / 1000:,.1f} µs"

    rows, verdicts = [], []

    def row(bench, what, m="", p95="", p99="", ratio="", target="", met=None, note=""):
        if met is not None:
            verdicts.append((bench, what, ratio, target, met))
        rows.append([bench, what, m, p95, p99, ratio, target, "" if met is None else "**met**" if met else "**missed**",
                     note])

    B = "1 session open+close"
    fl = {n: col("floor", i)[len(col("floor", i)) // 2] for i, n in enumerate(["total", "mkdir", "write", "movein",
                                                                               "moveback", "rmdir"])}
    row(B, "floor: raw syscalls, cpu + cgroup2 mirror", *map(us, lat("floor")),
        note="mkdir {mkdir}, 3 writes {write}, move in {movein}, back {moveback}, rmdir {rmdir} (medians, both "
             "hierarchies)".format(**{k: us(v) for k, v in fl.items()}))
    row(B, "floor: raw syscalls, cpu hierarchy alone", *map(us, lat("floor-cpu")))
    L = {s: lat(s) for s in ("permit", "cpuslice", "cgroup", "cgfs")}
    cyc = {s: us(lat(s, 1)[0]) for s in L}
    cs = L["cpuslice"][0]
    row(B, "pam_permit (libpam itself)", *map(us, L["permit"]), note=f"whole cycle with pam_start/pam_end: {cyc['permit']}")
    r = cs / (lat("floor")[0] + L["permit"][0])
    row(B, "**pam_cpuslice** (scope made and removed each time)", *map(us, L["cpuslice"]), f"{r:.2f}× (floor + pam_permit)",
        "≤ 2×", r <= 2.0, f"whole cycle: {cyc['cpuslice']}")
    for s, what in (("cgroup", "pam_cgroup, warm (reuses its group)"), ("cgfs", "pam_cgfs -c cpu,cpuacct")):
        r = L[s][0] / cs
        row(B, what, *map(us, L[s]), f"{r:.2f}× pam_cpuslice", "≥ 3×", r >= 3.0, f"whole cycle: {cyc[s]}")
    for s, label in (("permit", "pam_permit"), ("cpuslice", "**pam_cpuslice**"), ("cgroup", "pam_cgroup"), ("cgfs", "pam_cgfs")):
        c = lat(s + ".conc")
        r = c[0] / L[s][0]
        row(B, f"{label} with 100 other users' sessions open", *map(us, c), f"{r:.2f}× alone",
            *(("≤ 1.25× alone", r <= 1.25) if s == "cpuslice" else ("", None)))

    B = "2 config scale"
    sc = {}
    for n in (10, 1000, 100000):
        with open(os.path.join(a.raw, f"scale-{n}")) as f:
            m, mn, rss, nrules, _ = map(int, f.read().split())
        sc[n] = (m, rss)
        row(B, f"parse + resolve, {n:,} lines", us(m),
            note=f"min {us(mn)}; {m / n / 1000:.2f} µs/line; peak RSS {rss / 1024:.1f} MiB; {nrules} rules")
    r = (sc[100000][0] / 100000) / (sc[1000][0] / 1000)
    row(B, "linearity: cost per line, 100 000 vs 1 000 lines", ratio=f"{r:.2f}×", target="≈ 1× (≤ 1.5×)", met=r <= 1.5,
        note=f"RSS growth 1k→100k: {(sc[100000][1] - sc[1000][1]) / 1024:.1f} MiB")
    c100, g100 = lat("cpuslice.100k"), lat("cgroup.100k")
    row(B, "**pam_cpuslice** open+close, 100 000-rule config", us(c100[0]), us(c100[1]))
    r = g100[0] / c100[0]
    row(B, "pam_cgroup open+close, 100 000-rule cgrules.conf", us(g100[0]), us(g100[1]), ratio=f"{r:.2f}× pam_cpuslice",
        target="≥ 3×", met=r >= 3.0)

    B = "3 fairness"
    fair = {}
    with open(os.path.join(a.raw, "fair")) as f:
        for l in f:
            name, cgp, used, dt = l.split()
            fair.setdefault(name, {}).setdefault("mod" if "/mod-" in cgp else "ref", []).append((int(used), int(dt)))
    for name, label in (("w31", "weights 300:100"), ("w112", "weights 100:100:200")):
        fm, fr = ([u / sum(x[0] for x in fair[name][s]) for u, _ in fair[name][s]] for s in ("mod", "ref"))
        err = max(abs(m / r - 1) for m, r in zip(fm, fr))
        shown = [f"{x[0] / x[1]:.2f} : 1" if name == "w31" else " : ".join(f"{v * 100:.1f}%" for v in x) for x in (fm, fr)]
        cpus = sum(u for u, _ in fair[name]["mod"]) / fair[name]["mod"][0][1]
        row(B, f"{label}: pam_cpuslice / hand-written cgroups", " / ".join(shown), ratio=f"{err * 100:.2f} % error",
            target="≤ 2 %", met=err <= 0.02, note=f"side by side; module tree got {cpus:.2f} CPUs")
    for name, q in (("q25", 25), ("q50", 50), ("q150", 150)):
        (um, dm), (ur, dr) = fair[name]["mod"][0], fair[name]["ref"][0]
        pm, pr = um / dm * 100, ur / dr * 100
        err = abs(pm / pr - 1)
        row(B, f"quota {q} %: pam_cpuslice / hand-written", f"{pm:.1f} % / {pr:.1f} %", ratio=f"{err * 100:.2f} % error",
            target="≤ 2 %", met=err <= 0.02, note=f"one after the other; % of one CPU over {a.fair_sec} s")

    out = [f"## pam_cpuslice benchmarks ({'quick' if a.quick == '1' else 'full'} run)", "",
           f"Kernel {a.kernel}, {a.ncpu} CPUs, load average {a.load_start} at start, {a.load_end} at end. Peers: {a.peers}. "
           f"Open+close: {a.cycles} cycles per module (interleaved rounds), {a.conc_cycles} with 100 other sessions "
           "open. Every ratio is between figures of this run.", ""]
    out += table(["bench", "measurement", "median", "p95", "p99", "ratio", "target", "", "notes"], rows, "llrrrllll")
    out += ["", f"Targets: {sum(v[4] for v in verdicts)} of {len(verdicts)} met."]
    out += [f"- missed: {b}: {w}: {r} (target {t})" for b, w, r, t, m in verdicts if not m]
    print("\n".join(out))


def fresh(argv):
    a = args(argv, ["raw"], "load-start load-end kernel gap hold-ms", ncpu=dict(type=int))
    MODULES = [("floor", "floor (raw syscalls: mkdir, 3 settings, 2 moves; back, rmdir)"), ("permit", "pam_permit (libpam itself)"),
               ("cpuslice", "pam_cpuslice"), ("cgroup", "pam_cgroup (libcgroup)"), ("cgfs", "pam_cgfs (lxcfs)")]
    PHASES = ["module_load", "config_nss", "layout", "mkdir_settings", "scope_moves", "open", "kernel_moves", "own", "close",
              "close_own"]
    TARGET = 1500
    d = {m: read_rows(os.path.join(a.raw, "fresh-" + m)) for m, _ in MODULES + [("phases", "")]}
    out = ["", "## Fresh logins (each a new process, %s s apart, held %s ms; %d per module)" % (a.gap, a.hold_ms,
                                                                                                len(d["cpuslice"])),
           "", "Load average %s at the start, %s at the end; %d CPUs; kernel %s." % (a.load_start, a.load_end, a.ncpu, a.kernel)]
    if load1(a.load_start) > 0.5 * a.ncpu:
        out += ["", "**The machine was busy (load above half its CPUs) when this started: the figures below are not a "
                    "measurement of the module, only of the contention.**"]
    out += [""] + table(["login", "load (pam_start)", "open median", "open p90", "close median", "close p90"],
                        [[label] + logins(d[m], fms) for m, label in MODULES], "llllll")
    fl, pe, cs = (med(d[m], "open") for m in ("floor", "permit", "cpuslice"))
    if None not in (fl, pe, cs):
        out += ["", "pam_cpuslice's own part of an open: median open %s − floor %s − pam_permit %s = **%s** (target ≤ %s: "
                    "%s); the floor's moves alone: %s." % (fms(cs), fms(fl), fms(pe), fms(cs - fl - pe), fms(TARGET),
                                                           "met" if cs - fl - pe <= TARGET else "missed",
                                                           fms(med(d["floor"], "moves")))]
    ph = d["phases"]
    own, fown = med(ph, "own"), med(d["floor"], "setup")
    if None not in (own, fown):
        out += ["", "Timed inside the same processes without the kernel's moves (each waits for RCU grace periods): "
                    "pam_cpuslice's open does **%s** of its own work against the floor's %s, **%s** above it (target ≤ "
                    "%s: %s); its close %s." % (fms(own), fms(fown), fms(own - fown), fms(TARGET),
                                                "met" if own - fown <= TARGET else "missed", fms(med(ph, "close_own")))]
    if ph:
        out += ["", "pam_cpuslice's steps (its library called directly, medians):", ""]
        out += table(PHASES, [[fms(med(ph, p)) for p in PHASES]], "l" * len(PHASES))
    print("\n".join(out))


def vm_fresh(argv):
    a = args(argv, ["raw"], "gap hold-ms suite", envs=dict(nargs="+", required=True))
    KINDS = {"permit": "pam_permit (libpam itself)", "sd": "(a) pam_systemd alone",
             "sdcs": "(b) pam_systemd + pam_cpuslice (systemd backend)",
             "floor2": "floor: raw cgroup2 syscalls (mkdir, +cpu, weight, max, move; back, rmdir)",
             "cs": "pam_cpuslice (cgroupfs backend)"}

    ms = functools.partial(fms, digits=1)

    def rows(env, phase, kind):
        return read_rows(os.path.join(a.raw, f"{env}-{phase}-{kind}"))

    def busy(env, meta, hm, phase):
        hn, n = int(hm.get("host.nproc", "2")), int(meta.get("nproc", "2"))
        if load1(hm.get("host.load_start")) > 0.5 * hn:
            return "the host's load was %s at the start (above half its %d CPUs)" % (hm["host.load_start"], hn)
        if float(hm.get("host.other_cpus", "0")) > 0.25 * hn:
            return "the rest of the host used %s CPUs on average while the VM ran (above a quarter of %d)" % (
                hm["host.other_cpus"], hn)
        if load1(meta.get(phase + ".load_start", "")) > 0.5 * n:
            return "the guest's load was %s when it started (above half its %d CPUs)" % (meta[phase + ".load_start"], n)
        return None

    def loads(meta, phase):
        return "Guest load %s at the start, %s at the end" % (meta.get(phase + ".load_start"), meta.get(phase + ".load_end"))

    def systemd_phase(env, meta, hm, phase, title, kinds):
        out = ["", "### " + title, "", loads(meta, phase) + "."]
        why = busy(env, meta, hm, phase)
        if why:
            return out + ["", "**Not meaningful: %s.** No figures are given for this table." % why]
        R = {k: rows(env, phase, k) for k in kinds + ["permit"]}
        out += [""] + table(["login", "logins", "pam_start median", "open median", "open p90", "close median", "close p90"],
                            [[KINDS[k], len(R[k])] + logins(R[k], ms, 10) for k in kinds], "lrrrrrr")
        A, B = R["sd"], R["sdcs"]
        ma, mb = med(A, "open"), med(B, "open")
        if None in (ma, mb):
            return out
        spread = max((p90(r, "open", 10) or max(x["open"] for x in r)) - med(r, "open") for r in (A, B))
        return out + ["", "- (b) − (a), the module on top of pam_systemd: **%s** of open (%s); pam_start (b) %s, (a) %s; "
                          "close (b) %s, (a) %s. The opens spread by up to %s (p90 or max − median): a smaller difference "
                          "is noise." % (ms(mb - ma), xr(mb, ma), ms(med(B, "load")), ms(med(A, "load")),
                                         ms(med(B, "close")), ms(med(A, "close")), ms(spread))]

    def fdm_table(env, meta, hm, kinds):
        out = ["", "### favordynmods off and on (remounted between rounds, order alternating)", "",
               loads(meta, "fdm") + "; mount with it: `%s`." % meta.get("fdm.mount_on")]
        why = busy(env, meta, hm, "fdm")
        if why:
            return out + ["", "**Not meaningful: %s.** No figures are given for this table." % why]
        off, on = ({k: rows(env, "fdm-" + m, k) for k in kinds} for m in ("off", "on"))
        out += [""] + table(["login", "logins", "open off", "open on", "on ÷ off", "close off", "close on", "on ÷ off"],
                            [[KINDS[k], "%d + %d" % (len(off[k]), len(on[k]))]
                             + sum(([ms(med(off[k], x)), ms(med(on[k], x)), xr(med(on[k], x), med(off[k], x))]
                                    for x in ("open", "close")), []) for k in kinds], "lrrrrrrr")
        if off["floor2"] and on["floor2"]:
            out += ["", "The floor's move into its scope alone (the write of the pid to cgroup.procs): %s without, %s "
                        "with favordynmods (medians)." % (ms(med(off["floor2"], "moves")), ms(med(on["floor2"], "moves")))]
        if "cs" in kinds:
            own = [None if None in v else v[0] - v[1] - v[2] for v in
                   ([med(d[k], "open") for k in ("cs", "floor2", "permit")] for d in (off, on))]
            if None not in own:
                out += ["", "pam_cpuslice's own part of an open (its open − the floor − pam_permit): %s without, %s "
                            "with favordynmods." % (ms(own[0]), ms(own[1]))]
        return out

    metas = {e: read_kv(os.path.join(a.raw, e + "-meta")) for e in a.envs}
    suite = a.suite or next((m["suite"] for m in metas.values() if m.get("suite")), "")
    sds = sorted({m["systemd"] for m in metas.values() if "systemd" in m})
    out = ["## Fresh logins in the VMs (bench/run vm-fresh%s)%s" % (
               " --suite " + a.suite if a.suite else "", ": Debian %s%s" % (suite, ", " + ", ".join(sds) if sds else "") if suite else ""),
           "", "Each login a new process (bench/driver.c: pam_start … pam_end), %s s after the one before, the session "
               "held %s ms, kinds interleaved round by round. QEMU without KVM (TCG): absolute times are several times a "
               "real machine's; only the differences and ratios within one table count." % (a.gap, a.hold_ms)]
    for e in a.envs:
        m, h = metas[e], read_kv(os.path.join(a.raw, e + "-host-meta"))
        pkg = m.get("systemd_pkg", "")
        sd = (("**%s**" % m["systemd"] if pkg in ("", "-") or pkg in m["systemd"] else "**%s** (package %s)" % (m["systemd"], pkg))
              if "systemd" in m else "systemd package %s installed, not PID 1" % pkg if pkg and pkg != "-" else "")
        out += ["", "## %s%s" % (e, " (%s)" % suite if suite else ""), "",
                "Host: load %s at the start, %s at the end, the rest of the host used %.2f CPUs on average during the %s s "
                "VM run (%s CPUs, kernel %s, %s, TCG). Guest: %skernel %s, %s vCPUs%s; cgroup2 mount `%s`." % (
                    h.get("host.load_start"), h.get("host.load_end"), max(0.0, float(h.get("host.other_cpus", "0"))),
                    h.get("host.vm_secs"), h.get("host.nproc"), h.get("host.kernel"), h.get("host.qemu"),
                    "Debian %s, " % suite if suite else "", m.get("kernel"), m.get("nproc", "2"), ", " + sd if sd else "",
                    m.get("mount"))]
        failed = sorted(k for k in m if k.startswith("failed."))
        if failed:
            out += ["", "**Failed logins** (their rows are missing): " + "; ".join("%s: %s" % (k[7:], m[k]) for k in failed)]
        if e.startswith("systemd"):
            out += systemd_phase(e, m, h, "second", "A user already logged in (a second session: slice and user manager running)",
                                 ["permit", "sd", "sdcs"])
            out += systemd_phase(e, m, h, "first", "First login (each login by a user who never logged in: logind starts the "
                                 "slice and user@.service)", ["sd", "sdcs"])
            out += fdm_table(e, m, h, ["floor2", "sd", "sdcs"])
        else:
            out += fdm_table(e, m, h, ["floor2", "permit", "cs"])
    print("\n".join(out))


def scale(argv):
    w, rounds, users, facts = argv[0], int(argv[1]), int(argv[2]), " ".join(argv[3:])
    LIST, CGTOP = "`slicectl list -i 0`", "`systemd-cgtop -b -n 1 --depth=2`"

    def row(name, a, b, what, n, against, how=""):
        """the median over the rounds of one round's ratio: of the median wall times, of the mean CPU times"""
        ma, rw, rc, d = [], [], [], []
        for r in range(1, rounds + 1):
            with open(f"{w}/{name}.{r}.json") as f:
                res = {x["command"]: x for x in json.load(f)["results"]}
            wall = {k: statistics.median(x["times"]) for k, x in res.items()}
            cpu = {k: x["user"] + x["system"] for k, x in res.items()}  # hyperfine gives their means
            ma.append(wall[a]); rw.append(wall[a] / wall[b]); rc.append(cpu[a] / cpu[b]); d.append(wall[a] - wall[b])
        m = statistics.median(ma)
        return ([what, f"{n:,}"] + ([f"{statistics.median(d) * 1000:.1f} ms", "", ""] if how == "-" else
                                    [f"{m * 1000:.1f} ms", f"{statistics.median(rw):.2f}x", f"{statistics.median(rc):.2f}x"])
                + ([f"{m / 15 * 100:.2f} %"] if how == "share" else []) + [against])

    sizes = sorted(int(os.path.basename(f)[1:-7]) for f in glob.glob(os.path.join(w, "s*.1.json")))
    reader = [row(f"s{n}", k, "cgtop", what, n, CGTOP) for n in sizes for k, what in
              (("list", LIST), ("list-o", "`slicectl list -i 0 -o USER,CPU%`"), ("list-0", LIST + ", no NSS user"))]
    reader += [row("pass", "pass", "start", "`penalty run`, nothing to decide", users, "`slicectl --version`"),
               row("pass", "pass", "list", "`penalty run`, nothing to decide", users, LIST + ", same slices"),
               row("pass", "pass", "start", "`penalty run` less `slicectl --version`", users, "the pass's own work", "-")]
    metrics = [row(f"s{n}", k, "list", what, n, LIST, "share") for n in sizes for k, what in
               (("metrics", "`slicectl metrics`"), ("textfile", "`slicectl metrics --textfile DIR`"))]
    head = ["what", "slices", "median (wall)", "wall ratio", "CPU ratio"]
    print("\n".join(table(head + ["against"], reader, "lrrrrl") + [""] + table(
        head + ["share of the 15 s interval", "against"], metrics, "lrrrrrl") + ["", facts]))
    if load1(facts.split("load ")[1]) > 0.5 * os.cpu_count():
        print("**Not meaningful**: the load was above half the CPUs at the start.")


def interactive(argv):
    o = args(argv, ["runs"], "load-start load-end kernel peers skipped suite",
             **{k: dict(type=int, default=0) for k in ("ncpu", "busy", "quick", "hogs", "builds", "w_light",
                                                         "w_heavy", "host_ncpu")},
             warm=dict(type=float), dur=dict(type=float), kind=dict(choices=("host", "vm"), default="host"),
             facts=dict(nargs="*", default=[]), host_others=dict(nargs="*", type=float, default=[]),
             job_kib=dict(type=int, default=4096))
    VM = o.kind == "vm"
    SKIPPED = dict(x.split("=", 1) for x in o.skipped.split(";") if "=" in x)
    for f in o.facts:  # vm: configurations the guest could not run in its state
        for k, v in (line.strip().partition("=")[::2] for line in open(f)):
            if k.startswith("skipped.") and v:
                SKIPPED.setdefault(k[8:], f"{v} ({os.path.basename(f)})")
    WSHARE = o.w_light / (o.w_light + o.w_heavy)
    SH_L, SH_H = o.w_light * 1024 // 100, o.w_heavy * 1024 // 100  # what the module writes on v1
    WEIGHTED = f"light and wake-only CPUWeight={o.w_light}, heavy {o.w_heavy}"
    CONFIGS = [  # key, label, the light user's fair share (None: no heavy user), how it is placed
        ("idle-probe", "idle: the probe alone", None, "no other load"),
        ("idle", "idle: light user alone (reference)", None, "no heavy user"),
        ("flat", "no per-user cgroups, autogroup off", 0.5, "pam_permit; all users in one cgroup"),
        ("autogroup", "kernel autogroup", 0.5, "pam_permit; root task group, a session (setsid) per user")]
    if VM:
        CONFIGS += [("sd-default", "systemd's defaults (logind's user slices as shipped)", 0.5,
                     "pam_systemd: `user-UID.slice/session-N.scope`, no CPU settings"),
                    ("cgroup", "pam_cgroup", 0.5, ""), ("cgfs", "pam_cgfs", 0.5, ""),
                    ("cs-eq", "**pam_cpuslice**, equal weights", 0.5, "pam_systemd + pam_cpuslice, `* CPUWeight=100`"),
                    ("cs-w", "**pam_cpuslice**, light user weighted", WSHARE, WEIGHTED)]
    else:
        CONFIGS += [
            ("cgroup", "pam_cgroup", 0.5, "cgrules template `cg/%u`, equal cpu.shares"),
            ("cgfs", "pam_cgfs", 0.5, "`-c cpu,cpuacct`: `/user/USER/N`, equal cpu.shares"),
            ("hw-eq", "hand-written cgroups 1024:1024", 0.5, "`PARENT/hw-eq/USER`"),
            ("hw-deep", "hand-written cgroups 1024:1024, pam_cpuslice's depth", 0.5,
             "`PARENT/hw-deep/user.slice/user-USER.slice/s.scope`"),
            ("cs-eq", "**pam_cpuslice**, equal weights", 0.5, "`* CPUWeight=100`"),
            ("hw-w", f"hand-written cgroups {SH_L}:{SH_H}", WSHARE, f"`PARENT/hw-w/USER`, cpu.shares {SH_L}, {SH_H}, {SH_L}"),
            ("cs-w", "**pam_cpuslice**, light user weighted", WSHARE, WEIGHTED),
            ("hw-min", "hand-written cgroups 1024:2", 1.0, "`PARENT/hw-min/USER`, the heavy user at cpu.shares 2"),
            ("cs-idle", "**pam_cpuslice**, heavy user idle", 1.0, "`csi-heavy CPUWeight=idle` (cpu.idle 1)")]
    LABEL = {k: l.replace("**", "") for k, l, _, _ in CONFIGS}

    def pct(xs, p):
        xs = sorted(xs)
        if not xs:
            return NAN
        k = (len(xs) - 1) * p / 100
        f = int(k)
        return xs[f] + (xs[min(f + 1, len(xs) - 1)] - xs[f]) * (k - f)

    def probe(path):
        return [float(x) for x in open(path).read().split()] if os.path.exists(path) else []

    R, others = {}, []  # others: CPUs the rest of the machine used in each window
    for key, label, fair, how in CONFIGS:
        r = dict(label=label, fair=fair, how=how, lat=[], wlat=[], p99s=[], jobs=[], light=0, heavy=0, wake=0, win=0,
                 builds=0, cgs=set(), ags=set(), leads=[])
        dirs = sorted(glob.glob(os.path.join(o.runs, key + ".*")))
        for d in dirs:
            u = dict(t.partition("=")[::2] for t in open(os.path.join(d, "usage")).read().split())
            t0, t1 = int(u["t0"]), int(u["t1"])
            s = probe(os.path.join(d, "probe"))
            r["lat"] += s
            r["p99s"] += [pct(s, 99)] if s else []
            r["wlat"] += probe(os.path.join(d, "wake.probe"))
            for k in ("light", "heavy", "wake", "builds"):
                r[k] += int(u.get(k, 0))
            r["win"] += (t1 - t0) / 1000
            others.append(max(0, int(u["host"]) - sum(int(u.get(k, 0)) for k in ("light", "heavy", "wake"))) / ((t1 - t0) / 1000))
            r["cgs"].add(u["cg_light"])
            r["ags"].add((u["ag_light"], u["ag_heavy"]))
            r["leads"] += [int(u["wake_lead"])] if "wake_lead" in u else []
            if os.path.exists(os.path.join(d, "job")):
                r["jobs"] += [(b - a) / 1e9 for a, b in (map(int, l.split()) for l in open(os.path.join(d, "job")))
                              if a >= t0 and b <= t1]
        win = r["win"] or 1
        r.update(missing=not dirs, n=len(r["lat"]), wn=len(r["wlat"]), share=r["light"] / (r["light"] + r["heavy"])
                 if r["light"] + r["heavy"] else NAN, cpus_light=r["light"] / win, cpus_heavy=r["heavy"] / win,
                 cpus_wake=r["wake"] / win if r["wlat"] else NAN, job=statistics.median(r["jobs"]) if r["jobs"] else NAN,
                 builds=r["builds"] / win * 1e6, **{p + q: pct(r[f], v) for p, f in (("", "lat"), ("w", "wlat"))
                                                   for q, v in (("p50", 50), ("p99", 99), ("p999", 99.9))})
        R[key] = r
    OTHERS = sum(others) / len(others) if others else 0.0
    HOST_OTHERS = sum(o.host_others) / len(o.host_others) if o.host_others else 0.0
    NC = o.host_ncpu if VM else o.ncpu
    why = (f"load average {o.load_start.split()[0]} at the start, above 0.5 × {NC} CPUs" if o.busy == 1 else
           f"besides the VM the host used {HOST_OTHERS:.2f} CPUs, more than 0.25 × {NC}" if VM and HOST_OTHERS > 0.25 * NC else
           f"the rest of the {'guest' if VM else 'host'} used {OTHERS:.2f} CPUs during the windows, more than 0.25 × "
           f"{o.ncpu}" if OTHERS > 0.25 * o.ncpu else "")
    BUSY = bool(why)
    idle, eq, IP = R["idle"], R["cs-eq"], R["idle-probe"]["p99"]

    def us(x):
        return "–" if x != x else (f"{x:,.0f} µs" if x >= 100 else f"{x:.1f} µs")

    def ratio(x):
        return "–" if x != x else f"{x:.2f}×"

    def verdict(ok):
        return "not meaningful" if BUSY else ("**met**" if ok else "**missed**")

    def spread(v):
        return f"{us(min(v))} – {us(max(v))}" if len(v) > 1 else "–"

    mode = "quick" if o.quick else "full"
    nrounds = max(len(glob.glob(os.path.join(o.runs, k + ".*"))) for k, _, _, _ in CONFIGS)
    fk = {}
    if VM and o.facts:
        fk = dict(t.partition("=")[::2] for t in open(sorted(o.facts)[0]).readline().split() if "=" in t)
    suite = o.suite or fk.get("suite", "")
    sdpkg = fk.get("systemd_pkg", "")
    where = (f"systemd-v2 VM{', Debian ' + suite if suite else ''}: **systemd {fk.get('systemd', '?')}**"
             f"{' (' + sdpkg + ')' if sdpkg and sdpkg != '-' else ''}, pure cgroup v2, {o.ncpu} vCPUs under TCG on a "
             f"{o.host_ncpu}-CPU host (the rest of the host used {HOST_OTHERS:.2f} CPUs)" if VM else f"{o.ncpu} CPUs")
    out = [f"`bench/run {'vm-' if VM else ''}interactive{' --suite ' + o.suite if o.suite else ''}` ({mode}): {where}, "
           f"kernel {o.kernel}, load average {o.load_start} at start, {o.load_end} at end; {nrounds} round(s), each window "
           f"{o.warm:g} s warm-up + {o.dur:g} s measured. Light user: 10 ms wake-up probe + 1 CPU-bound thread + gzip -6 "
           f"of {o.job_kib // 1024} MiB; wake-only user: the probe alone; heavy user: {o.hogs} hogs + {o.builds} build "
           f"loops. Peers: {o.peers or '-'}. The rest of the {'guest' if VM else 'host'} used {OTHERS:.2f} CPUs.", ""]
    if BUSY:
        out += [f"**Not meaningful**: {why}. The figures only show the run worked; no verdict is drawn.", ""]
    rows = []
    for key, label, fair, how in CONFIGS:
        r = R[key]
        if key in SKIPPED:
            rows.append([label, "**not run**: " + SKIPPED[key]] + ["–"] * 14)
        elif not r["missing"]:
            rows.append([label + (" (not meaningful)" if BUSY else ""), how, us(r["p50"]), us(r["p99"]), spread(r["p99s"]),
                         us(r["p999"]), ratio(r["p99"] / idle["p99"]),
                         "–" if fair is None else f"{r['share'] * 100:.1f} % (fair {fair * 100:.0f} %)",
                         "–" if fair is None else ratio(r["share"] / fair),
                         f"{r['cpus_light']:.2f} / " + ("–" if fair is None else f"{r['cpus_heavy']:.2f}"),
                         "–" if key == "idle-probe" else f"{r['job']:.2f} s ({len(r['jobs'])})",
                         "–" if fair is None else ratio(r["job"] / idle["job"]),
                         "–" if fair is None else f"{r['builds']:.1f}", us(r["wp99"]), ratio(r["wp99"] / IP),
                         f"{r['cpus_wake']:.3f}" if r["wn"] else "–"])
    out += table(["configuration", "placed by", "light p50", "light p99", "p99 of each window", "p99.9", "p99 ÷ idle",
                  "light user's CPU share (of light + heavy)", "÷ fair", "light / heavy CPUs", "job (median)", "job ÷ idle",
                  "heavy builds/s", "wake-only p99", "wake-only p99 ÷ idle probe", "wake-only CPUs"], rows, "llrrrrrrrrrrrrrr")
    leads = [x for k in R for x in R[k]["leads"]]
    out += ["", f"Probe samples per configuration: {eq['n']} (wake-only {eq['wn']}). *idle* is the light user's load "
                f"alone; the *idle probe* ({us(IP)}) the probe alone. Shares are cgroup2 `usage_usec`. The wake-only "
                f"probe started at most {max(leads) / 1e6 if leads else 0:.2f} s before the light user's load (warm-up "
                f"{o.warm:g} s). Placement, checked in every window: " + "; ".join(
                    f"{LABEL[k]}: `{sorted(R[k]['cgs'])[0]}`" for k, _, _, _ in CONFIGS if R[k]["cgs"] and k != "autogroup")
            + "; autogroup: light/heavy " + ", ".join("/".join(x) for x in sorted(R["autogroup"]["ags"])) + ".", ""]
    if VM:
        out += [f"Boot facts ({os.path.basename(f)}): " + "; ".join(f"`{t}`" for t in open(f).read().splitlines() if t.strip())
                for f in sorted(o.facts)] + [""]
    goals = []
    for key, name, ref in (("cs-eq", "equal weights", "hw-deep"), ("cs-w", f"weight {o.w_light}:{o.w_heavy}", "hw-w"),
                           ("cs-idle", "heavy user CPUWeight=idle", "hw-min")):
        r = R.get(key)
        if not r or r["missing"]:
            continue
        dev = abs(r["share"] / r["fair"] - 1)
        goals += [[f"pam_cpuslice ({name}): light user's p99 ÷ idle", f"{ratio(r['p99'] / idle['p99'])} ({us(r['p99'])} / "
                   f"{us(idle['p99'])})", "≤ 2×", verdict(r["p99"] <= 2 * idle["p99"])],
                  [f"pam_cpuslice ({name}): wake-only user's p99 ÷ idle probe", f"{ratio(r['wp99'] / IP)}", "≤ 2×",
                   verdict(r["wp99"] <= 2 * IP) if r["wn"] else "–"],
                  [f"pam_cpuslice ({name}): light user's share against fair", f"{r['share'] * 100:.1f} % / "
                   f"{r['fair'] * 100:.0f} % ({dev * 100:.1f} % off)", "within 5 %", verdict(dev <= 0.05)]]
        if not VM and not R[ref]["missing"]:
            goals.append([f"{LABEL[ref]} (context: the kernel's answer)", f"p99 {ratio(R[ref]['p99'] / idle['p99'])} idle; "
                          f"share {R[ref]['share'] * 100:.1f} %", "", ""])
    out += table(["goal", "measured", "target", ""], goals, "llll") + [""]
    cmp = []
    for key in (k for k, _, f, _ in CONFIGS if f == 0.5 and not k.startswith("cs-")):
        r = R[key]
        if key in SKIPPED:
            cmp.append([LABEL[key]] + ["–"] * 5 + ["not run", "not run", "–"])
            continue
        if r["missing"]:
            continue
        x = r["p99"] / eq["p99"]
        lat = "better" if x < 0.8 else "worse" if x > 1.25 else "same"
        d = abs(r["share"] / 0.5 - 1) - abs(eq["share"] / 0.5 - 1)
        split = "better" if d < -0.05 else "worse" if d > 0.05 else "same"
        cmp.append([LABEL[key], ratio(x), ratio(r["p999"] / eq["p999"]), ratio(eq["share"] / r["share"]),
                    ratio(r["job"] / eq["job"]), ratio(r["wp99"] / eq["wp99"])]
                   + (["not meaningful"] * 3 if BUSY else [lat, split, "no" if "worse" in (lat, split) else "**yes**"]))
    out += ["pam_cpuslice (equal weights) against each alternative — ratios > 1× mean pam_cpuslice does better:", ""]
    out += table(["alternative", "p99: alt ÷ pam_cpuslice", "p99.9", "light share: pam_cpuslice ÷ alt", "job: alt ÷ "
                  "pam_cpuslice", "wake-only p99: alt ÷ pam_cpuslice", "latency", "CPU split", "as good?"], cmp, "lrrrrrlll")
    out += ["", "*latency*: p99 within 1.25× either way is the same; *CPU split*: the light user's distance from 50 % within "
                "5 points is the same; *as good*: worse on neither. What pam_cpuslice adds over any of them: weights "
                "and quotas per user, `@group` or uid range from one config line, system accounts left alone, live changes."]
    # cs-pen: the light user before the pass that capped the heavy user and after it, each against idle
    ph, note = {k: dict(lat=[], light=0, heavy=0, usec=0) for k in ("before", "after")}, []
    for d in sorted(glob.glob(os.path.join(o.runs, "cs-pen.*"))):
        t1 = int(dict(t.partition("=")[::2] for t in open(os.path.join(d, "usage")).read().split())["t1"])
        P = read_rows(os.path.join(d, "passes"))
        cap = next((p for p in P if p["decided"] and p["t"] <= t1), None)
        if not cap:
            note.append(f"{os.path.basename(d)}: no pass decided within the window")
            continue
        note.append(f"{os.path.basename(d)}: {(cap['t'] - P[0]['t']) / 1e9:.1f} s after the first pass, "
                    f"`{open(os.path.join(d, 'decision')).read().strip()}`")
        t = int(open(os.path.join(d, "probe.start")).read()) * 1000  # each sample: 10 ms + its lateness
        for x in probe(os.path.join(d, "probe")):
            ph["before" if t < cap["t"] else "after"]["lat"].append(x)
            t += 10_000_000 + int(x * 1000)
        for k, (a, b) in (("before", (P[0], cap)), ("after", (cap, [p for p in P if p["t"] <= t1][-1]))):
            for f in ("light", "heavy"):
                ph[k][f] += b[f] - a[f]
            ph[k]["usec"] += (b["t"] - a["t"]) / 1000
    if note:
        rows = [[k + " the cap" + (" (not meaningful)" if BUSY else ""), f"{v['usec'] / 1e6:.1f} s", us(pct(v["lat"], 99)),
                 ratio(pct(v["lat"], 99) / idle["p99"]), f"{v['light'] / v['usec']:.2f}",
                 ratio(v["light"] / v["usec"] / idle["cpus_light"]), f"{v['light'] / (v['light'] + v['heavy']) * 100:.1f} %",
                 f"{v['heavy'] / v['usec']:.2f}"] for k, v in ph.items() if v["usec"]]
        out += ["", "### Penalty: the heavy user capped mid-window (`cs-pen`)", "",
                "`" + open(os.path.join(o.runs, "..", "pen.conf")).read().strip().replace("\n", "`, `") + "` (`cpuslice.conf`); "
                "`slicectl penalty run` every 2 s from the window's start. *Before*: from the first pass to the one that "
                "decided; *after*: from it to the window's end. Ratios to *idle* (the light user's load alone) of this run.",
                ""] + table(["light user", "span", "p99", "p99 ÷ idle", "CPUs", "CPUs ÷ idle", "share (of light + heavy)",
                             "heavy CPUs"], rows, "llrrrrrr") + ["", "The deciding pass: " + "; ".join(note) + "."]
    print("\n".join(out))


def quota(argv):
    o = args(argv, ["runs"], "load-start load-end kernel rounds", ncpu=dict(type=int), busy=dict(type=int),
             quick=dict(type=int))

    def runs(pat):
        return sorted(glob.glob(os.path.join(o.runs, pat)))

    def pct(xs, p):
        return sorted(xs)[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else NAN

    def burst(cfg, size, hog):
        d = runs(f"burst.{cfg}.{size}.{hog}.*")
        t = [int(x) for r in d for x in open(os.path.join(r, "times")).read().split()]
        return dict(n=len(t), p50=pct(t, 50), p99=pct(t, 99), cpu=statistics.mean(int(read_kv(os.path.join(r, "usage"))["cpu"])
                                                                                 for r in d) / 1000 if d else NAN)

    out = [f"# quota: CPUBurst= and the user.slice reserve — {o.ncpu} CPUs, kernel {o.kernel}, {o.rounds} round(s)"
           + (" (quick)" if o.quick else ""), "",
           f"Load at the start {o.load_start}, at the end {o.load_end}"
           + (" — **the host was busy: not meaningful**" if o.busy else "") + ".", "",
           "## Bursts under `CPUQuota=50%`, with and without `CPUBurst=50ms`", "",
           "csq-b's job, in its PAM session: every second (after the last burst ended) THREADS threads each burn CPU_MS of "
           "CPU time; its completion time. *free*: no quota. *CPUs*: the slice's CPU time over the job's wall time.", ""]
    rows = []
    for size, hog, label in (("2x40", 0, "2 × 40 ms"), ("2x250", 0, "2 × 250 ms"), ("2x40", 1, "2 × 40 ms, a hog beside")):
        f, q, b = (burst(c, size, hog) for c in ("free", "q50", "q50b"))
        rows.append([label, q["n"], fms(f["p50"], 0) if f["n"] else "–", fms(q["p50"], 0), fms(q["p99"], 0), fms(b["p50"], 0), fms(b["p99"], 0),
                     xr(q["p50"], b["p50"]), xr(q["p99"], b["p99"]), f"{q['cpu']:.2f}", f"{b['cpu']:.2f}"])
    out += table(["bursts", "n", "free p50", "quota p50", "quota p99", "+burst p50", "+burst p99", "p50: quota ÷ +burst",
                  "p99: quota ÷ +burst", "CPUs quota", "CPUs +burst"], rows, "lrrrrrrrrrr")
    out += ["", "A ratio above 1× is how many times faster the burst finishes with `CPUBurst=`. With a hog beside it the "
                "user spends the whole quota every period, no runtime is left over to save, and `CPUBurst=` cannot help "
                "(the kernel only lends back what went unused).", "",
            f"## The reserve: `user.slice CPUQuotaShare=90%`, two users with {2 * o.ncpu} hogs each", "",
            f"The probe: {o.ncpu} hogs in a root-owned sibling of user.slice with the given `cpu.shares` (2: the "
            "lowest, as a nice'd service; 1024: an equal one). CPUs used over the window, averaged over the rounds.", ""]
    rows = []
    for pr, label in (("-", "no probe"), ("2", "probe, cpu.shares 2"), ("1024", "probe, cpu.shares 1024")):
        v = {c: [read_kv(os.path.join(r, "usage")) for r in runs(f"reserve.{c}.{pr}.*")] for c in ("none", "rsv")}
        m = {c: {k: statistics.mean(int(x[k]) for x in v[c]) / 1000 if v[c] else NAN for k in ("users", "probe")}
             for c in v}
        rows.append([label, f"{m['none']['users']:.2f}", f"{m['rsv']['users']:.2f}",
                     "–" if pr == "-" else f"{m['none']['probe']:.2f}", "–" if pr == "-" else f"{m['rsv']['probe']:.2f}",
                     "–" if pr == "-" else ("**yes**" if m["rsv"]["probe"] >= 0.1 * o.ncpu * 0.95 else "no")])
    out += table(["", "users' CPUs", "users' CPUs, reserve", "probe CPUs", "probe CPUs, reserve",
                  f"probe keeps ≥ {0.1 * o.ncpu:.1f} CPUs"], rows, "lrrrrl")
    out += ["", "*keeps*: with the reserve, at least 95 % of the reserved 10 % of the CPUs. Without a probe the reserve is "
                "its price: the users' CPUs when nothing else wants them."]
    print("\n".join(out))


if __name__ == "__main__":
    {"host": host, "fresh": fresh, "vm-fresh": vm_fresh, "interactive": interactive, "scale": scale,
     "quota": quota}[sys.argv[1]](sys.argv[2:])
