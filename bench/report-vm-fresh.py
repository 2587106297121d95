#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/report-vm-fresh.py DIR [--suite SUITE] --envs ENV...: bench/vm-fresh's report as markdown.

Reads DIR/ENV/raw/ENV-PHASE-KIND (one line of name=µs fields per login, bench/fresh-login),
DIR/ENV/raw/ENV-meta (the guest's loads and mounts) and DIR/ENV/host-meta. Every figure is a
median (p90 from 10 logins on) or a difference or ratio of medians taken in the same VM run.
A table whose host or guest was busy when it started says so instead of giving numbers."""
import argparse
import os
import sys

import fresh_rows
from fresh_rows import med

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


def read_kv(path):
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                out[k] = v
    return out


def load_rows(raw, env, phase, kind):
    return fresh_rows.read_rows(os.path.join(raw, "%s-%s-%s" % (env, phase, kind)))


def p90(rows, key):
    return fresh_rows.p90(rows, key, P90_FROM)


def ms(us):
    return fresh_rows.ms(us, 1)


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
    ap.add_argument("--suite", default="", help="the guests' Debian suite (bench/vm-fresh --suite), for the title")
    a = ap.parse_args()
    envs = [Env(a.dir, name) for name in a.envs]
    suite = a.suite or next((e.meta.get("suite") for e in envs if e.meta.get("suite")), "")
    sds = sorted({e.meta["systemd"] for e in envs if "systemd" in e.meta})
    out = ["## Fresh logins in the VMs (bench/vm-fresh%s)%s" % (
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


if __name__ == "__main__":
    sys.exit(main())
