#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/report-fresh.py RAWDIR ...: the "fresh logins" section of bench/run as markdown.

Reads RAWDIR/fresh-{floor,permit,cpuslice,phases,cgroup,cgfs}, one line of name=µs fields per
login, and prints medians (and p90) per module, pam_cpuslice's own share of an open above the
floor that does the same kernel work after the same idle time, and its steps."""
import argparse
import os
import sys

from fresh_rows import med, ms, p90, read_rows

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
    a = ap.parse_args()
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


if __name__ == "__main__":
    sys.exit(main())
