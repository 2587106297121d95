#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""slicectl metrics on scratch trees, checked with the real promtool (Debian package prometheus).

    test-metrics.py SLICECTL CASE

Uses run-cli.py's scratch trees (Tree) and runner (run). Every exposition is fed to
`promtool check metrics` and parsed here, and its values are compared with `slicectl list --json`
(the same readers). Without promtool the test skips (77), or fails under CPUSLICE_REQUIRE_ALL=1.
"""
import importlib.util
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location("run_cli", os.path.join(HERE, "run-cli.py"))
cli = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cli)
check, run, Tree, standard_tree, slices_json = cli.check, cli.run, cli.Tree, cli.standard_tree, cli.slices_json

CASE = sys.argv[2]
PROMTOOL = shutil.which("promtool")

SLICE_FAMILIES = {
    "cpuslice_cpu_usage_seconds_total": "counter",
    "cpuslice_cpu_user_seconds_total": "counter",
    "cpuslice_cpu_system_seconds_total": "counter",
    "cpuslice_cpu_throttled_seconds_total": "counter",
    "cpuslice_cpu_periods_total": "counter",
    "cpuslice_cpu_throttled_periods_total": "counter",
    "cpuslice_cpu_pressure_some_seconds_total": "counter",
    "cpuslice_cpu_weight": "gauge",
    "cpuslice_cpu_quota_cpus": "gauge",
    "cpuslice_cpu_burst_seconds": "gauge",
    "cpuslice_cpu_quota_share": "gauge",
    "cpuslice_sessions": "gauge",
    "cpuslice_penalty_level": "gauge",
    "cpuslice_penalty_until_seconds": "gauge",
}
HOST_FAMILIES = {
    "cpuslice_config_errors": "gauge",
    "cpuslice_slices": "gauge",
    "cpuslice_slices_skipped": "gauge",
    "cpuslice_penalty_states_refused": "gauge",
    "cpuslice_metrics_timestamp_seconds": "gauge",
}
FAMILIES = dict(SLICE_FAMILIES, **HOST_FAMILIES)


def skip(why):
    if os.environ.get("CPUSLICE_REQUIRE_ALL", "0") not in ("", "0"):
        print("FAIL (would skip, but CPUSLICE_REQUIRE_ALL is set):", why, file=sys.stderr)
        sys.exit(1)
    print("SKIP:", why)
    sys.exit(77)


def promtool_ok(text, what):
    p = subprocess.run([PROMTOOL, "check", "metrics"], input=text.encode(), capture_output=True)
    check(p.returncode == 0, "%s: promtool check metrics exit %d: %s%s"
          % (what, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")))


def unescape(v):
    out, i = [], 0
    while i < len(v):
        if v[i] == "\\":
            out.append({"\\": "\\", '"': '"', "n": "\n"}[v[i + 1]])
            i += 2
        else:
            out.append(v[i])
            i += 1
    return "".join(out)


LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def parse(text):
    """{family: {"help", "type", "samples": {(labels...): value}}}; checks the layout on the way."""
    fams, order, cur = {}, [], None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            check(name not in fams, "%s: HELP twice" % name)
            fams[name] = {"help": line.split(" ", 3)[3], "samples": {}}
            order.append(name)
            cur = name
            continue
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ")
            check(name == cur and "type" not in fams[name], "%s: TYPE not right after its HELP" % name)
            fams[name]["type"] = typ
            continue
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$", line)
        check(m is not None, "unparsable line %r" % line)
        if not m:
            continue
        name, labels, value = m.groups()
        check(name == cur, "%s: sample outside its family (in %s)" % (name, cur))
        lab = ()
        if labels:
            pairs = LABEL.findall(labels)
            check("".join('%s="%s",' % p for p in pairs).rstrip(",") == labels, "labels %r" % labels)
            lab = tuple((k, unescape(v)) for k, v in pairs)
        fams.setdefault(name, {"samples": {}})["samples"][lab] = float(value)
    return fams, order


def by_user(fam):
    return {dict(k)["user"]: v for k, v in fam["samples"].items()}


def metrics(tree, *args, stderr="", **kw):
    """stderr: what it must print there (a regular expression) when it succeeds."""
    p = run(tree, "metrics", *args, **kw)
    if kw.get("rc", 0) == 0:
        check(re.fullmatch(stderr, p.stderr), "metrics: stderr %r" % p.stderr)
    return p


# ---- cases

def penalty_state(t, uid, text):
    d = os.path.join(t.root, "state", "var", "lib", "cpuslice", "penalty")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, str(uid)), "w") as f:
        f.write(text)


def case_layouts():
    """v1, v2 and hybrid: promtool passes, every family has HELP and TYPE, values are list's."""
    for layout in ("legacy", "hybrid", "unified"):
        t = standard_tree(layout)
        try:
            penalty_state(t, 1001, "level 2\nactive 1\nsince 1800000000000000\nuntil 1800003600000000\n"
                          "clean_since 0\ncause 3000000\n")
            penalty_state(t, 1500, "level 1\nactive 0\nsince 1700000000000000\nuntil 1700003600000000\n"
                          "clean_since 1700003600000000\ncause 2000000\n")
            penalty_state(t, 1002, "level 1\nactive 1\n")  # truncated: refused, not level 0
            t.config("bob CPUQuotaShare=12.5%\n", name="20-share.conf")
            p = metrics(t, stderr=r"slicectl: warning: uid 1002: the penalty state \S+/1002 is refused \(does "
                                  r"not parse as a penalty state\); its level is left out\n")
            promtool_ok(p.stdout, layout)
            fams, order = parse(p.stdout)
            check(order == list(FAMILIES), "%s: families %r" % (layout, order))
            for name, typ in FAMILIES.items():
                f = fams.get(name, {})
                check(f.get("type") == typ and f.get("help"), "%s: %s has HELP and TYPE %s" % (layout, name, typ))
            lst = slices_json(run(t, "list", "--json", "-i", "0"))
            for name in SLICE_FAMILIES:
                for labels in fams[name]["samples"]:
                    d = dict(labels)
                    check(list(d) == ["user", "uid"] and int(d["uid"]) == lst[d["user"]]["uid"],
                          "%s: %s labels %r" % (layout, name, labels))
            usage = by_user(fams["cpuslice_cpu_usage_seconds_total"])
            check(usage == {u: s["cpu_usec"] / 1e6 for u, s in lst.items()}, "%s: usage %r" % (layout, usage))
            for fam, key in (("cpuslice_cpu_periods_total", "nr_periods"),
                             ("cpuslice_cpu_throttled_periods_total", "nr_throttled"),
                             ("cpuslice_cpu_throttled_seconds_total", "throttled_usec"),
                             ("cpuslice_sessions", "sessions")):
                got = by_user(fams[fam])
                want = {u: s[key] / (1e6 if fam.endswith("seconds_total") else 1) for u, s in lst.items()
                        if s[key] is not None}
                check(got == want, "%s: %s %r, list says %r" % (layout, fam, got, want))
            level = by_user(fams["cpuslice_penalty_level"])
            check(level == {"alice": 2, "dave": 1}, "%s: penalty levels, none for refused bob %r" % (layout, level))
            until = by_user(fams["cpuslice_penalty_until_seconds"])
            check(until == {"alice": 1800003600}, "%s: only alice's capped penalty has an end %r" % (layout, until))
            weight = by_user(fams["cpuslice_cpu_weight"])
            check(weight == {"alice": 400, "bob": 0, "dave": 100}, "%s: weight (idle is 0) %r" % (layout, weight))
            quota = by_user(fams["cpuslice_cpu_quota_cpus"])
            check(quota == {"alice": 0.5, "dave": 1.5}, "%s: quota, none for unlimited bob: %r" % (layout, quota))
            share = by_user(fams["cpuslice_cpu_quota_share"])
            check(share == {"bob": 0.125}, "%s: the config's share, bob's alone: %r" % (layout, share))
            psi = by_user(fams["cpuslice_cpu_pressure_some_seconds_total"])
            if layout == "legacy":
                check(psi == {}, "legacy: no PSI, no pressure samples: %r" % psi)
            else:
                check(set(psi) == {"alice", "dave"}, "%s: pressure where cpu.pressure exists: %r" % (layout, psi))
            if layout == "unified":
                user = by_user(fams["cpuslice_cpu_user_seconds_total"])
                check(user["alice"] == 12.3, "user seconds %r" % user)
            host = {n: fams[n]["samples"].get(()) for n in HOST_FAMILIES}
            check(host["cpuslice_slices"] == 3 and host["cpuslice_config_errors"] == 0 and
                  host["cpuslice_penalty_states_refused"] == 1, "%s: host %r" % (layout, host))
        finally:
            t.cleanup()


def case_config_errors():
    """cpuslice_config_errors counts what `slicectl check` reports as errors, warnings not."""
    t = standard_tree("hybrid")
    try:
        t.config("* CPUWeight=100\nalice CPUWeight=lots\n@students CPUQuota=-5%\nnosuchuser CPUWeight=10\n")
        t.config("bob Frobnicate=1\n", name="10-x.conf")
        c = run(t, "check", rc=1)
        errors = sum(1 for l in c.stderr.splitlines() if ": error: " in l or l.startswith("error: "))
        check(errors == 3 and "warning" in c.stderr, "check reports 3 errors and a warning: %r" % c.stderr)
        fams, _ = parse(metrics(t).stdout)
        check(fams["cpuslice_config_errors"]["samples"][()] == errors,
              "config_errors %r, check says %d" % (fams["cpuslice_config_errors"]["samples"], errors))
    finally:
        t.cleanup()


HOSTILE = {
    5001: 'q"uote',
    5002: "back\\slash",
    5003: "x\\n",                 # a literal backslash-n, not a newline
    5004: "tab\there",
    5005: "cr\rname",
    5006: "esc\x1b[31mred",
    5007: "bad\xffutf8",          # written as the raw byte 0xff
    5008: "jos\u00e9",
}
FFFD = "\ufffd"
SANITIZED = {5004: "tab" + FFFD + "here", 5005: "cr" + FFFD + "name", 5006: "esc" + FFFD + "[31mred",
             5007: "bad" + FFFD + "utf8"}


def case_hostile_names():
    """User names with quotes, backslashes and control bytes come out valid and escaped.
    (A newline cannot be in an nss_wrapper passwd line; test-prom-text covers it.)"""
    t = Tree("unified")
    pw = os.path.join(t.root, "passwd")
    try:
        with open(pw, "wb") as f:
            f.write(open(os.path.join(TOP, "tests", "data", "passwd"), "rb").read())
            for uid, name in HOSTILE.items():
                f.write(name.encode("latin-1" if uid == 5007 else "utf-8") + b":x:%d:%d::/:/bin/sh\n" % (uid, uid))
        for uid in HOSTILE:
            t.add_slice(uid, usage_usec=uid)
        os.environ["NSS_WRAPPER_PASSWD"] = pw
        p = subprocess.run([cli.SLICECTL] + t.args() + ["metrics"], capture_output=True, env=cli.child_env())
        check(p.returncode == 0 and p.stderr == b"", "metrics: %d %r" % (p.returncode, p.stderr))
        raw = p.stdout
        check(not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", raw), "a raw control byte in the output")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            check(False, "output is not UTF-8: %s" % e)
            return
        promtool_ok(text, "hostile names")
        fams, _ = parse(text)
        got = {int(dict(k)["uid"]): dict(k)["user"] for k in fams["cpuslice_cpu_usage_seconds_total"]["samples"]}
        for uid, name in HOSTILE.items():
            check(got.get(uid) == SANITIZED.get(uid, name), "uid %d: user label %r, wanted %r"
                  % (uid, got.get(uid), SANITIZED.get(uid, name)))
        check('user="q\\"uote"' in text and 'user="back\\\\slash"' in text and 'user="x\\\\n"' in text,
              "escapes as the format writes them")
    finally:
        t.cleanup()


def textfile(t, d, umask=0o077):
    old = os.umask(umask)  # the file is 0644 whatever the umask
    try:
        p = metrics(t, "--textfile", d)
    finally:
        os.umask(old)
    check(p.stdout == "", "--textfile prints nothing: %r" % p.stdout)
    path = os.path.join(d, "cpuslice.prom")
    st = os.lstat(path)
    check(stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o644, "mode %o" % st.st_mode)
    check(sorted(os.listdir(d)) == ["cpuslice.prom"], "no temporary file left: %r" % os.listdir(d))
    with open(path) as f:
        text = f.read()
    promtool_ok(text, "textfile")
    return text, st.st_ino


def textfile_refusals(t):
    """A textfile directory that is a symlink, someone else's, or writable by others is
    refused with one error line, and nothing is written there."""
    base = tempfile.mkdtemp(prefix="slicectl-textfile-dirs-")
    os.chmod(base, 0o755)
    try:
        good = os.path.join(base, "good")
        os.mkdir(good, 0o755)
        link = os.path.join(base, "link")
        os.symlink(good, link)
        cli.one_line_error(run(t, "metrics", "--textfile", link, rc=1),
                           "the textfile directory %s is a symlink or not a directory; refused" % link)
        cli.one_line_error(run(t, "metrics", "--textfile", link + "/", rc=1), "refused")
        for mode, why in ((0o775, "writable by its group or others (mode 0775)"),
                          (0o757, "writable by its group or others (mode 0757)"),
                          (0o1777, "writable by its group or others (mode 1777)")):
            os.chmod(good, mode)
            cli.one_line_error(run(t, "metrics", "--textfile", good, rc=1),
                               "the textfile directory %s is %s; refused" % (good, why))
        os.chmod(good, 0o755)
        if os.geteuid() == 0:
            # root: only a directory of root's own
            os.chown(good, 1001, 1001)
            cli.one_line_error(run(t, "metrics", "--textfile", good, rc=1),
                               "the textfile directory %s is owned by uid 1001, not root; refused" % good)
            # a user: root's directory or the user's own (tests run as a user own their tree)
            p = run(t, "metrics", "--textfile", good, user=1001)
            check(p.stdout == "" and os.path.exists(os.path.join(good, "cpuslice.prom")),
                  "a user's own directory: %r" % p.stderr)
            os.chown(good, 1002, 1002)
            cli.one_line_error(run(t, "metrics", "--textfile", good, user=1001, rc=1),
                               "is owned by uid 1002, not root; refused")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def case_textfile():
    """Atomic textfile; counters monotonic across runs; a removed slice disappears."""
    t = standard_tree("unified")
    d = tempfile.mkdtemp(prefix="slicectl-textfile-")
    try:
        first, ino1 = textfile(t, d)
        a, _ = parse(first)
        # the kernel's counters go on: more usage, more periods; and dave logs out for good
        t.add_slice(1001, weight=400, quota=50000, stat=(260, 40, 3400000), usage_usec=15000000, pressure=1.0,
                    scopes=("3",))
        with open(t.path(t.slice_dir(1001), "cpu.pressure"), "w") as f:
            f.write("some avg10=1.00 avg60=0.00 avg300=0.00 total=777\n")
        shutil.rmtree(t.path(t.slice_dir(1001), "session-12.scope"))
        shutil.rmtree(t.path(t.slice_dir(1500)))
        second, ino2 = textfile(t, d)
        b, _ = parse(second)
        check(ino1 != ino2, "the file is replaced (a new inode), not rewritten in place")
        for name, typ in SLICE_FAMILIES.items():
            if typ != "counter":
                continue
            for labels, v in a[name]["samples"].items():
                if dict(labels)["user"] == "dave":
                    continue
                check(b[name]["samples"].get(labels, -1) >= v, "%s %r went back: %r -> %r"
                      % (name, labels, v, b[name]["samples"].get(labels)))
        check(b["cpuslice_cpu_usage_seconds_total"]["samples"][(("user", "alice"), ("uid", "1001"))] == 15.0,
              "alice's usage moved on")
        for name in SLICE_FAMILIES:
            users = {dict(k)["user"] for k in b[name]["samples"]}
            check("dave" not in users, "%s: the removed slice is gone: %r" % (name, users))
        check(b["cpuslice_slices"]["samples"][()] == 2 and b["cpuslice_sessions"]["samples"][
            (("user", "alice"), ("uid", "1001"))] == 1, "slices and sessions follow")
        check(b["cpuslice_metrics_timestamp_seconds"]["samples"][()] >=
              a["cpuslice_metrics_timestamp_seconds"]["samples"][()], "timestamp")

        # a failed replace (here: the target is a directory, so rename fails even for root) is one
        # error line and leaves no temporary file
        f = tempfile.mkdtemp(prefix="slicectl-textfile-fail-")
        os.mkdir(os.path.join(f, "cpuslice.prom"))
        p = run(t, "metrics", "--textfile", f, rc=1)
        cli.one_line_error(p, "cannot write %s/cpuslice.prom" % f)
        check(os.listdir(f) == ["cpuslice.prom"], "nothing left behind: %r" % os.listdir(f))
        shutil.rmtree(f)
        cli.one_line_error(run(t, "metrics", "--textfile", os.path.join(d, "nope"), rc=1),
                           "cannot open the textfile directory")
        textfile_refusals(t)
        cli.one_line_error(run(t, "metrics", "extra", rc=1), "takes no arguments")
        cli.one_line_error(run(t, "metrics", "--textfile", rc=1), "needs a value")
        # no user.slice at all: the host gauges, no slice samples
        e = Tree("legacy")
        shutil.rmtree(e.path("cpu", "user.slice"))
        try:
            out = metrics(e).stdout
            promtool_ok(out, "no slices")
            fams, order = parse(out)
            check(order == list(FAMILIES), "every family has HELP and TYPE, even without samples: %r" % order)
            check(fams["cpuslice_slices"]["samples"] == {(): 0.0}
                  and all(not fams[n]["samples"] for n in SLICE_FAMILIES), "empty host")
        finally:
            e.cleanup()
    finally:
        shutil.rmtree(d, ignore_errors=True)
        t.cleanup()


# ---- the shipped Prometheus rules and Grafana dashboard

RULES = os.path.join(TOP, "conf", "prometheus", "cpuslice.rules.yml")
RULES_TEST = os.path.join(HERE, "metrics-rules.test.yml")
DASHBOARD = os.path.join(TOP, "conf", "grafana", "cpuslice.json")

PROMQL_WORDS = {
    "sum", "min", "max", "avg", "count", "topk", "bottomk", "by", "without", "on", "ignoring", "group_left",
    "group_right", "and", "or", "unless", "rate", "irate", "increase", "clamp_min", "clamp_max", "label_replace",
    "time", "vector", "scalar", "bool", "offset", "sort_desc", "max_over_time", "avg_over_time", "delta",
    "deriv", "absent", "changes", "resets", "timestamp", "group", "stddev", "quantile", "count_values",
}


def metric_names(expr):
    """The series an expression reads: identifiers left after dropping strings, label matchers,
    ranges, grouping clauses, numbers, functions and keywords."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)
    e = re.sub(r"\{[^}]*\}", "", e)
    e = re.sub(r"\[[^\]]*\]", "", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", e)
    e = re.sub(r"\$\{?\w+\}?", "", e)  # Grafana variables ($__rate_interval, $user)
    return {w for w in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", e) if w not in PROMQL_WORDS
            and not re.fullmatch(r"\d+[smhdwy]?|e\d+|Inf|NaN", w)}


def rules_file():
    with open(RULES) as f:
        text = f.read()
    records = re.findall(r"^\s*- record:\s*(\S+)\s*$", text, re.M)
    exprs = re.findall(r"^\s*expr:\s*(.+)$", text, re.M)
    return records, exprs


def case_rules():
    """promtool check rules; promtool test rules (the alerts fire when they should, not before)."""
    p = subprocess.run([PROMTOOL, "check", "rules", RULES], capture_output=True, text=True)
    check(p.returncode == 0, "promtool check rules: %s%s" % (p.stdout, p.stderr))
    p = subprocess.run([PROMTOOL, "test", "rules", os.path.basename(RULES_TEST)], capture_output=True, text=True,
                       cwd=HERE)
    check(p.returncode == 0, "promtool test rules: %s%s" % (p.stdout, p.stderr))
    records, exprs = rules_file()
    check(len(records) >= 2 and len(exprs) > len(records), "records %r" % records)
    for e in exprs:
        unknown = metric_names(e) - set(FAMILIES) - set(records)
        check(not unknown, "rules: %r reads unknown series %r" % (e, unknown))


def case_dashboard():
    """Every query of the dashboard reads only series the exposition or the rules provide."""
    import json
    with open(DASHBOARD) as f:
        dash = json.load(f)
    records, _ = rules_file()
    known = set(FAMILIES) | set(records)
    panels, exprs = [], []
    stack = list(dash.get("panels", []))
    while stack:
        pnl = stack.pop()
        stack.extend(pnl.get("panels", []))
        if pnl.get("type") == "row":
            continue
        panels.append(pnl.get("title", ""))
        for tg in pnl.get("targets", []):
            exprs.append(tg.get("expr", ""))
            check(tg.get("expr"), "panel %r: a target without expr" % pnl.get("title"))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v.get("query")
            exprs.append(q.get("query", "") if isinstance(q, dict) else q)
    check(len(exprs) >= 4, "queries: %r" % exprs)
    used = set()
    for e in exprs:
        e = re.sub(r"^label_values\((.*)\)$", lambda m: m.group(1).rsplit(",", 1)[0], e.strip())
        names = metric_names(e)
        check(names, "query %r reads no series" % e)
        check(names <= known, "query %r reads unknown series %r" % (e, names - known))
        used |= names
    for topic in ("cpu", "throttl", "pressure", "top"):
        check(any(topic in p.lower() for p in panels), "a panel about %s: %r" % (topic, panels))
    check(any("pressure" in n for n in used) and any("throttl" in n for n in used), "used %r" % used)


def case_units():
    """The shipped service and timer pass systemd-analyze verify, and the sandbox scores SAFE (< 1.5)."""
    sa = shutil.which("systemd-analyze")
    if not sa:
        skip("systemd-analyze is not installed")
    build_conf = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(cli.SLICECTL))), "conf")
    d = tempfile.mkdtemp(prefix="slicectl-units-")
    try:
        with open(os.path.join(build_conf, "cpuslice-metrics.service")) as f:
            svc = f.read()
        m = re.search(r"^ExecStart=(\S+) metrics --textfile (\S+)$", svc, re.M)
        check(m is not None and m.group(2) == "/var/lib/prometheus/node-exporter", "ExecStart: %r" % svc)
        for want in ("Type=oneshot", "ProtectSystem=strict", "ReadWritePaths=/var/lib/prometheus/node-exporter",
                     "NoNewPrivileges=yes", "PrivateNetwork=yes", "ProtectHome=yes", "RestrictAddressFamilies=AF_UNIX",
                     "CapabilityBoundingSet=\n"):
            check(want in svc, "service has %r" % want)
        # verify wants ExecStart's binary to exist: point it at the built one
        with open(os.path.join(d, "cpuslice-metrics.service"), "w") as f:
            f.write(svc.replace(m.group(1), os.path.abspath(cli.SLICECTL)) if m else svc)
        shutil.copy(os.path.join(TOP, "conf", "systemd", "cpuslice-metrics.timer"), d)
        with open(os.path.join(d, "cpuslice-metrics.timer")) as f:
            timer = f.read()
        check("OnUnitActiveSec=15s" in timer and "WantedBy=timers.target" in timer, "timer: %r" % timer)
        units = [os.path.join(d, u) for u in ("cpuslice-metrics.service", "cpuslice-metrics.timer")]
        p = subprocess.run([sa, "verify", "--man=no"] + units, capture_output=True, text=True)
        check(p.returncode == 0 and "cpuslice" not in p.stderr, "verify: %d %s" % (p.returncode, p.stderr))
        p = subprocess.run([sa, "security", "--offline=true", "--threshold=15", "--no-pager", units[0]],
                           capture_output=True, text=True)
        score = re.search(r"Overall exposure level for cpuslice-metrics.service: ([0-9.]+)", p.stdout)
        check(p.returncode == 0 and score and float(score.group(1)) < 1.5,
              "security: %d %s" % (p.returncode, p.stdout[-300:] + p.stderr))
        print("systemd-analyze security: exposure", score.group(1) if score else "?")
    finally:
        shutil.rmtree(d, ignore_errors=True)


CASES = {name[5:]: f for name, f in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    if CASE not in CASES:
        print("unknown case %s (%s)" % (CASE, ", ".join(sorted(CASES))), file=sys.stderr)
        sys.exit(2)
    if not PROMTOOL and CASE not in ("dashboard", "units"):
        skip("promtool is not installed (Debian package prometheus; tools/install-deps test)")
    CASES[CASE]()
    if cli.failures:
        print("%d check(s) failed in metrics-%s" % (len(cli.failures), CASE), file=sys.stderr)
        sys.exit(1)
    print("ok metrics-%s" % CASE)
