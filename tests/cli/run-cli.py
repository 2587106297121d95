#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""slicectl against scratch trees laid out like cgroupfs (v1, v2, hybrid).

    run-cli.py SLICECTL CASE

Each CASE builds its tree under mkdtemp, runs slicectl with --cgroup-root/--conf/--confdir/
--rundir pointing into it, and checks stdout (against tests/cli/expected/ or field by field for
--json), stderr and the exit status. Users come from nss_wrapper (tests/data). SLICECTL_TEST_WRAPPER
(e.g. "valgrind --error-exitcode=99 --leak-check=full") is put in front of every slicectl run.
"""
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SLICECTL = sys.argv[1]
CASE = sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def child_env():
    env = dict(os.environ)
    preload = [p for p in env.get("LD_PRELOAD", "").split(":") if p and "vgpreload" not in p]
    env["LD_PRELOAD"] = ":".join(preload)
    env.pop("SUDO_USER", None)
    return env


# `meson test --wrap=valgrind` wraps this runner (or, with a pyenv shim, only the shim), never the
# slicectl it starts: SLICECTL_TEST_WRAPPER="valgrind --error-exitcode=99 --leak-check=full" runs
# each slicectl under valgrind instead.
WRAPPER = os.environ.get("SLICECTL_TEST_WRAPPER", "").split()


class Tree:
    def __init__(self, layout):
        self.root = tempfile.mkdtemp(prefix="slicectl-cli-")
        os.chmod(self.root, 0o755)
        self.layout = layout
        self.conf = os.path.join(self.root, "cpuslice.conf")
        self.confdir = os.path.join(self.root, "cpuslice.d")
        self.rundir = os.path.join(self.root, "run.d")
        self.cpu = {"unified": "", "legacy": "cpu", "hybrid": "cpu"}[layout]
        self.acct = {"unified": None, "legacy": "cpuacct", "hybrid": "unified"}[layout]
        os.makedirs(os.path.join(self.root, self.cpu, "user.slice"), exist_ok=True)
        if self.acct:
            os.makedirs(os.path.join(self.root, self.acct, "user.slice"), exist_ok=True)
        os.makedirs(self.confdir)
        os.chmod(self.confdir, 0o755)

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def write(self, rel, text, mode=0o644):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", errors="surrogateescape") as f:
            f.write(text)
        os.chmod(p, mode)

    def read(self, rel):
        with open(self.path(rel)) as f:
            return f.read()

    def config(self, text, name=None, mode=0o644):
        self.write(os.path.relpath(os.path.join(self.confdir, name), self.root) if name else "cpuslice.conf", text, mode)

    def slice_dir(self, uid, hierarchy=None):
        h = self.cpu if hierarchy is None else hierarchy
        return os.path.join(h, "user.slice", "user-%d.slice" % uid)

    def add_slice(self, uid, weight=100, quota=None, period=100000, stat=None, usage_usec=None, pressure=None,
                  scopes=(), idle=False):
        d = self.slice_dir(uid)
        os.makedirs(self.path(d), exist_ok=True)
        if self.layout == "unified":
            self.write(d + "/cpu.weight", "%d\n" % weight)
            self.write(d + "/cpu.idle", "1\n" if idle else "0\n")
            self.write(d + "/cpu.max", "%s %d\n" % ("max" if quota is None else quota, period))
            st = "usage_usec %d\nuser_usec %d\nsystem_usec %d\n" % ((usage_usec or 0,) * 3) if usage_usec is not None else ""
            if stat:
                st += "nr_periods %d\nnr_throttled %d\nthrottled_usec %d\n" % stat
            self.write(d + "/cpu.stat", st)
            if pressure is not None:
                self.write(d + "/cpu.pressure", "some avg10=%.2f avg60=0.00 avg300=0.00 total=0\n"
                           "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" % pressure)
        else:
            self.write(d + "/cpu.shares", "%d\n" % weight)
            self.write(d + "/cpu.cfs_quota_us", "%d\n" % (-1 if quota is None else quota))
            self.write(d + "/cpu.cfs_period_us", "%d\n" % period)
            if stat:
                self.write(d + "/cpu.stat", "nr_periods %d\nnr_throttled %d\nthrottled_time %d\n"
                           % (stat[0], stat[1], stat[2] * 1000))
            a = self.slice_dir(uid, self.acct)
            os.makedirs(self.path(a), exist_ok=True)
            if usage_usec is not None and self.layout == "legacy":
                self.write(a + "/cpuacct.usage", "%d\n" % (usage_usec * 1000))
            if usage_usec is not None and self.layout == "hybrid":
                self.write(a + "/cpu.stat", "usage_usec %d\nuser_usec 0\nsystem_usec 0\n" % usage_usec)
            if pressure is not None and self.layout == "hybrid":
                self.write(a + "/cpu.pressure", "some avg10=%.2f avg60=0.00 avg300=0.00 total=0\n" % pressure)
        for s in scopes:
            self.write(d + "/session-%s.scope/cgroup.procs" % s, "")
        return d

    def args(self):
        return ["--cgroup-root=" + self.root, "--cgroup-layout=" + self.layout, "--conf=" + self.conf,
                "--confdir=" + self.confdir, "--rundir=" + self.rundir, "--state-root=" + self.root + "/state"]


def run(tree, *args, rc=0, stdin=None, user=None, raw_args=False, timeout=60, env=None, text=True):
    cmd = [SLICECTL] + ([] if raw_args or tree is None else tree.args()) + list(args)
    cmd = WRAPPER + cmd
    if user is not None:
        cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=text, env=dict(child_env(), **(env or {})), input=stdin,
                       timeout=timeout)
    check(p.returncode == rc, "%s: exit %d, wanted %d\nstdout: %s\nstderr: %s"
          % (" ".join(args), p.returncode, rc, p.stdout, p.stderr))
    return p


def one_line_error(p, contains):
    lines = p.stderr.splitlines()
    check(len(lines) == 1 and lines[0].startswith("slicectl: ") and contains in lines[0],
          "wanted one error line containing %r, got %r" % (contains, p.stderr))
    check(p.stdout == "", "stdout must be empty on error, got %r" % p.stdout)


def expect_file(name, text, tree=None):
    if tree:
        text = text.replace(tree.root, "ROOT")
    if os.environ.get("SLICECTL_UPDATE_EXPECTED"):
        with open(os.path.join(EXPECTED, name), "w") as f:
            f.write(text)
    with open(os.path.join(EXPECTED, name)) as f:
        want = f.read()
    check(text == want, "output differs from expected/%s:\n--- got\n%s--- wanted\n%s" % (name, text, want))


def slices_json(p, want_skipped=0):
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        check(False, "bad JSON (%s): %r" % (e, p.stdout))
        return {}
    check(list(doc.keys()) == ["slices", "skipped"], "top-level keys: %r" % list(doc.keys()))
    check(doc.get("skipped") == want_skipped, "skipped: %r, wanted %r" % (doc.get("skipped"), want_skipped))
    return {s["user"]: s for s in doc["slices"]}


JSON_KEYS = ["user", "uid", "sessions", "weight", "quota_percent", "period_usec", "cpu_percent", "cpu_usec",
             "nr_periods", "nr_throttled", "throttled_usec", "pressure_some_avg10"]


def fields(got, want):
    for k, v in want.items():
        g = got.get(k, "<missing>")
        ok = abs(g - v) < 0.011 if isinstance(v, float) and isinstance(g, (int, float)) else g == v and type(g) == type(v)
        check(ok, "%s: %s = %r, wanted %r" % (got.get("user"), k, g, v))


def standard_tree(layout):
    t = Tree(layout)
    t.config("# test config\n"
             "* CPUWeight=100\n"
             "alice CPUWeight=400 CPUQuota=50%\n"
             "@students CPUWeight=idle\n"
             "1500:1999 CPUQuota=150% CPUQuotaPeriodSec=50ms\n")
    t.add_slice(1001, weight=400 if layout == "unified" else 4096, quota=50000, stat=(200, 15, 1200000),
                usage_usec=12300000, pressure=3.25, scopes=("3", "12"))
    t.add_slice(1002, weight=100 if layout == "unified" else 2, idle=layout == "unified", stat=(0, 0, 0),
                usage_usec=500)
    t.add_slice(1500, weight=100 if layout == "unified" else 1024, quota=75000, period=50000,
                stat=(1000, 900, 45000000), usage_usec=3723000000, pressure=0.0, scopes=("c1",))
    return t


# ---- cases

def case_list(layout):
    t = standard_tree(layout)
    try:
        p = run(t, "list", "--interval=10ms")
        expect_file("list-%s.txt" % layout, p.stdout)
        check(p.stderr == "", "list: stderr %r" % p.stderr)

        got = slices_json(run(t, "list", "--json", "--interval=1ms"))
        check(sorted(got) == ["alice", "bob", "dave"], "users: %r" % sorted(got))
        for s in got.values():
            check(list(s.keys()) == JSON_KEYS, "%s keys: %r" % (s.get("user"), list(s.keys())))
        psi = layout != "legacy"
        fields(got["alice"], {"uid": 1001, "sessions": 2, "weight": 400, "quota_percent": 50.0,
                              "period_usec": 100000, "cpu_percent": 0.0, "cpu_usec": 12300000, "nr_periods": 200,
                              "nr_throttled": 15, "throttled_usec": 1200000})
        check(got["alice"]["pressure_some_avg10"] == (3.25 if psi else None), "alice pressure")
        # bob is a student (CPUWeight=idle); on v1 that is 2 shares, which is shown as the idle it stands for
        fields(got["bob"], {"uid": 1002, "sessions": 0, "weight": "idle",
                            "period_usec": 100000, "cpu_usec": 500})
        check(got["bob"]["quota_percent"] is None, "no quota is null")
        fields(got["dave"], {"uid": 1500, "sessions": 1, "weight": 100, "quota_percent": 150.0,
                             "period_usec": 50000, "cpu_usec": 3723000000, "nr_throttled": 900,
                             "throttled_usec": 45000000})

        # util-linux options
        p = run(t, "list", "-n", "-r", "-o", "USER,uid,WEIGHT", "--sort=UID", "-i", "0")
        check(p.stdout == "alice 1001 400\nbob 1002 idle\ndave 1500 100\n",
              "raw: %r" % p.stdout)
        p = run(t, "list", "-o", "+PERIOD", "--sort=user", "--noheadings", "-i", "0")
        check([l.split()[0] for l in p.stdout.splitlines()] == ["alice", "bob", "dave"], "sort by user: %r" % p.stdout)
        check(p.stdout.splitlines()[2].rstrip().endswith("50 ms"), "+PERIOD appended: %r" % p.stdout)
        p = run(t, "list", "--sort=TIME", "-r", "-n", "-o", "USER", "-i", "0")
        check(p.stdout == "dave\nalice\nbob\n", "sort by TIME, biggest first: %r" % p.stdout)
        got = slices_json(run(t, "list", "--json", "-o", "user,THROTTLED", "-i", "0"))
        fields(got["dave"], {"throttled_percent": 90.0})
        p = run(t, "-H")
        check("pressure_some_avg10" in p.stdout and "CPU%" in p.stdout, "--list-columns")
        # the pressure is a percentage, and says so in the table; raw and JSON keep plain numbers
        if psi:
            p = run(t, "list", "-i", "0", "-o", "USER,PRESSURE%", "--sort=pressure")
            check(p.stdout.splitlines()[:3] == ["USER     PRESSURE%", "alice       3.25 %", "dave        0.00 %"],
                  "pressure in percent: %r" % p.stdout)
            # the name from before the unit, and a unit left out, still select it
            for name in ("PRESSURE", "pressure%", "pressure_some_avg10"):
                p = run(t, "list", "-i", "0", "-r", "-n", "-o", "USER," + name, "--sort=" + name)
                check(p.stdout == "alice 3.25\ndave 0.00\nbob -\n", "-o %s: %r" % (name, p.stdout))
            check(run(t, "list", "-i", "0", "-r", "-n", "-o", "CPU").stdout == "0.00\n0.00\n0.00\n", "-o CPU")
            p = run(t, "status", "alice")
            check("\nPressure:   3.25 % of the last 10 s a task waited for a CPU (cpu.pressure some avg10)\n"
                  in p.stdout, "status pressure: %s" % p.stdout)
            doc = json.loads(run(t, "--json", "status", "alice").stdout)
            check(doc["cpu"]["pressure_some_avg10"] == 3.25, "status --json pressure: %r" % doc["cpu"])
        one_line_error(run(t, "list", "--sort=bogus", rc=1), "unknown sort column 'bogus'")
        one_line_error(run(t, "list", "-o", "USER,NOPE", rc=1), "unknown column 'NOPE'")
    finally:
        t.cleanup()


def case_list_legacy():
    case_list("legacy")


def case_list_hybrid():
    case_list("hybrid")


def case_list_unified():
    case_list("unified")


def case_weight_v1_lossy():
    # CPUWeight=33 becomes 337 shares, which maps back to 32: the configured value is shown
    t = Tree("legacy")
    try:
        t.config("alice CPUWeight=33\n")
        t.add_slice(1001, weight=337)
        t.add_slice(1002, weight=337)
        got = slices_json(run(t, "list", "--json", "-i", "0"))
        fields(got["alice"], {"weight": 33})
        fields(got["bob"], {"weight": 32})
        check(got["alice"]["cpu_usec"] is None, "no cpuacct.usage: null")
    finally:
        t.cleanup()


def case_parent():
    t = Tree("hybrid")
    try:
        for h in ("cpu", "unified"):
            os.makedirs(t.path(h, "a", "b", "user.slice", "user-1001.slice"))
        t.write("cpu/a/b/user.slice/user-1001.slice/cpu.shares", "1024\n")
        t.add_slice(1002)  # directly below the root: not under --parent
        got = slices_json(run(t, "--parent=a/b", "list", "--json", "-i", "0"))
        check(sorted(got) == ["alice"], "--parent: %r" % sorted(got))
        one_line_error(run(t, "--parent=../x", "list", rc=1), "bad cgroup parent")
    finally:
        t.cleanup()


def case_slice_root():
    """--slice-root /: the slices at the hierarchy's top, beside cgroups that are not ours"""
    t = Tree("hybrid")
    try:
        for h in ("cpu", "unified"):
            os.makedirs(t.path(h, "user-1001.slice", "session-1.scope"))
            os.makedirs(t.path(h, "user-1003.slice"))
            os.makedirs(t.path(h, "system.slice", "cron.service"))
            os.makedirs(t.path(h, "user-1003.slice.bak"))
        t.write("cpu/user-1001.slice/cpu.shares", "2048\n")
        t.write("cpu/user-1001.slice/session-1.scope/cgroup.procs", "123\n")
        t.add_slice(1002)  # below user.slice: the default place, not this one
        got = slices_json(run(t, "--slice-root", "/", "list", "--json", "-i", "0"))
        check(sorted(got) == ["alice", "carol"], "--slice-root /: %r" % sorted(got))
        fields(got["alice"], {"weight": 200, "sessions": 1})
        p = run(t, "--slice-root", "/", "gc")
        check(p.stdout == "Removed user-1003.slice\n", "gc at the root: %r" % p.stdout)
        for keep in ("cpu/user-1001.slice/session-1.scope", "cpu/system.slice/cron.service", "cpu/user-1003.slice.bak",
                     "unified/system.slice/cron.service", "cpu/user.slice/user-1002.slice"):
            check(os.path.isdir(t.path(keep)), "gc left %s alone" % keep)
        check(not os.path.exists(t.path("unified/user-1003.slice")), "the mirror's empty slice removed")
        got = slices_json(run(t, "--slice-root", "//a//", "list", "--json", "-i", "0"))
        check(got == {}, "a slice root that does not exist: no slices, %r" % got)
        one_line_error(run(t, "--slice-root", "/", "--parent", "a", "list", rc=1),
                       "parent and slice root both given; give one")
        one_line_error(run(t, "--slice-root", "a/../..", "list", rc=1), "bad cgroup path 'a/../..' for the user slices")
    finally:
        t.cleanup()


class ReadWatch:
    """inotify IN_CLOSE_NOWRITE on path: wait() returns once some process that read it closed it.
    Made before slicectl starts, so that its first read cannot come before the watch."""

    def __init__(self, path):
        import ctypes
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_CLOEXEC)
        check(self.fd >= 0, "inotify_init1")
        check(self.libc.inotify_add_watch(self.fd, path.encode(), 0x10) >= 0, "inotify watch on %s" % path)

    def wait(self, timeout=60.0):
        r, _, _ = select.select([self.fd], [], [], timeout)
        check(bool(r), "never read")
        os.close(self.fd)


def case_cpu_percent():
    """usage grows by 1 s of CPU between the two samples of a 2 s interval: 50 %"""
    t = Tree("hybrid")
    try:
        t.add_slice(1001, usage_usec=1000000)
        stat = t.slice_dir(1001, "unified") + "/cpu.stat"
        watch = ReadWatch(t.path(stat))

        def bump():
            # after the first sample, whenever that is (start-up under ASan or valgrind on a loaded
            # machine can outlast any fixed delay), and well before the second
            watch.wait()
            t.write(stat, "usage_usec 2000000\nuser_usec 0\nsystem_usec 0\n")

        th = threading.Thread(target=bump)
        th.start()
        p = run(t, "list", "--json", "--interval=2s", timeout=120)
        th.join()
        got = slices_json(p)
        cpu = got.get("alice", {}).get("cpu_percent")
        # the interval is measured, and on a loaded machine outlasts 2 s (up to 4 s passes here):
        # never less than 2 s
        check(isinstance(cpu, float) and 25.0 <= cpu <= 50.5, "cpu_percent %r, wanted ~50" % cpu)
        fields(got["alice"], {"cpu_usec": 2000000})
    finally:
        t.cleanup()


def case_top():
    t = standard_tree("hybrid")
    try:
        p = run(t, "top", "--batch", "--iterations=2", "--delay=50ms", "-i", "10ms", "-o", "USER,UID")
        table = "USER        UID\nalice      1001\nbob        1002\ndave       1500\n\n3 user slices listed.\n"
        # each refresh starts with the time it was taken, as top -b
        stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}\n"
        check(re.fullmatch(stamp + re.escape(table) + "\n" + stamp + re.escape(table), p.stdout) is not None,
              "top batch: %r" % p.stdout)
        p = run(t, "top", "-b", "-N", "1", "--json", "-i", "10ms")
        check(sorted(slices_json(p)) == ["alice", "bob", "dave"], "top json")
        # not a terminal: batch behaviour even without --batch; q on stdin is not read then
        p = run(t, "top", "-N", "1", "-i", "0", "-n", "-o", "UID", stdin="q")
        check(p.stdout == "  1001\n  1002\n  1500\n", "top without a tty: %r" % p.stdout)
        one_line_error(run(t, "top", "--iterations=0", rc=1), "bad --iterations")
        one_line_error(run(t, "top", "--delay=fast", rc=1), "bad --delay")
    finally:
        t.cleanup()


def case_top_tty():
    """interactive top in a pseudo-terminal: q quits and the terminal settings come back exactly"""
    import termios
    t = standard_tree("hybrid")
    master, slave = os.openpty()
    try:
        # the parent keeps the slave open, so its settings can be read after top has exited
        before = termios.tcgetattr(slave)
        proc = subprocess.Popen([SLICECTL] + t.args() + ["top", "--delay=100ms", "-i", "10ms"], stdin=slave,
                                stdout=slave, stderr=slave, env=child_env(), start_new_session=True)
        out = b""
        raw_seen = False
        deadline = time.time() + 20
        while b"dave" not in out and time.time() < deadline:  # the last row: the whole screen is there
            r, _, _ = select.select([master], [], [], 0.5)
            if r:
                out += os.read(master, 4096)
        during = termios.tcgetattr(slave)
        raw_seen = not (during[3] & termios.ICANON) and not (during[3] & termios.ECHO)
        os.write(master, b"q")
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        check(rc == 0, "top did not quit on q (exit %r)" % (rc,))
        check(b"alice" in out and b"q quits" in out, "top screen: %r" % out[:300])
        check(raw_seen, "top did not put the terminal into raw mode: the check below would prove nothing")
        after = termios.tcgetattr(slave)
        check(after == before, "terminal not restored:\nbefore %r\nafter  %r" % (before, after))
    finally:
        os.close(master)
        os.close(slave)
        t.cleanup()


def case_status():
    t = standard_tree("legacy")
    try:
        p = run(t, "status", "alice", "-i", "0")
        expect_file("status-alice.txt", p.stdout, t)
        # drift: someone wrote the cgroup by hand
        t.write(t.slice_dir(1001) + "/cpu.cfs_quota_us", "80000\n")
        p = run(t, "status", "1001")
        check("CPUQuota=            50%        80%        ROOT/cpuslice.conf:3  <- DRIFT"
              in p.stdout.replace(t.root, "ROOT"), "drift marker: %s" % p.stdout)
        check("Warning: the live values differ from the config (drift): CPUQuota= is 80% in the cgroup, "
              "the config says 50%;" in p.stdout, "drift warning: %s" % p.stdout)
        # the v1 shares round trip is lossy, and that is not drift
        t.config("bob CPUWeight=33\n", "10-bob.conf")
        t.write(t.slice_dir(1002) + "/cpu.shares", "337\n")
        p = run(t, "status", "bob")
        check("DRIFT" not in p.stdout and "CPUWeight=           33         33" in p.stdout, "lossy: %s" % p.stdout)
        # no slice: exit 3, like systemctl status of an inactive unit
        p = run(t, "status", "carol", rc=3)
        check("(no running slice)" in p.stdout and "ROOT/cpuslice.conf:4" in p.stdout.replace(t.root, "ROOT"),
              "carol: %s" % p.stdout)
        one_line_error(run(t, "status", "nosuchuser", rc=1), "unknown user 'nosuchuser'")
        one_line_error(run(t, "status", rc=1), "takes one USER")
        # a slice whose uid NSS does not know
        t.add_slice(4242)
        p = run(t, "status", "4242")
        check(p.stdout.startswith("4242 (uid 4242): user-4242.slice"), "unknown uid: %s" % p.stdout)
    finally:
        t.cleanup()


def fake_systemd(t):
    """tests/helpers/fake-bus.py on a socket in t, as systemd; returns (process, slicectl's
    options to use it, the root of its control dirs and record) once it listens."""
    if os.environ.get("CPUSLICE_BUILD_TREE_PLUGIN") != "1":
        print("SKIP: slicectl built with -Dbuild_tree_plugin=false loads only the installed systemd plugin")
        sys.exit(77)
    root, sock = t.path("sd"), t.path("bus")
    bus = subprocess.Popen([sys.executable, os.environ["FAKE_BUS"], sock, t.path("bus-record"),
                            "ok,dropins=%s/run/systemd/system.control" % root], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60  # a python start-up on a loaded host, under no time bound of ours
    while not os.path.exists(sock) and time.monotonic() < deadline and bus.poll() is None:
        time.sleep(0.05)
    check(os.path.exists(sock), "the fake bus never listened (exit %r)" % bus.poll())
    return bus, ["--backend=systemd", "--bus-socket=" + sock, "--bus-root=" + root], root


def case_status_systemd():
    """On a systemd host an admin's own systemctl set-property, persistent or --runtime,
    is neither drift nor something to undo with slicectl apply; a stale value of the module's own is"""
    t = standard_tree("unified")
    bus, sd, root = fake_systemd(t)
    runtime = root + "/run/systemd/system.control/user-1001.slice.d/50-CPUQuota.conf"
    persistent = root + "/etc/systemd/system.control/user-1001.slice.d/50-CPUQuota.conf"
    cpu_max = t.slice_dir(1001) + "/cpu.max"

    def status(user=None):
        p = run(t, *sd, "status", "alice", user=user)
        quota = [l for l in p.stdout.splitlines() if l.startswith("CPUQuota=")]
        doc = json.loads(run(t, *sd, "--json", "status", "alice", user=user).stdout)
        drift = {x["setting"]: x["drift"] for x in doc["settings"]}
        return p.stdout, quota[0] if quota else "", drift["CPUQuota"]

    try:
        # the module's own value (set sends it through the fake systemd, which writes its runtime
        # drop-in; the record notes that file), not yet in the cgroup: drift, and apply is the answer
        run(t, *sd, "set", "alice", "CPUQuota=40%")
        check(os.path.exists(runtime), "the fake systemd wrote no runtime drop-in")
        out, line, drift = status()
        check(line.endswith("50-slicectl.conf:2  <- DRIFT") and drift and "'slicectl apply alice'" in out,
              "the module's own stale value is drift: %s" % out)
        t.write(cpu_max, "40000 100000\n")  # as systemd would have written it
        out, line, drift = status()
        check("DRIFT" not in out and not drift and "slicectl apply" not in out, "applied: %s" % out)

        # systemctl set-property --runtime user-1001.slice CPUQuota=30%: systemd replaces the file
        os.unlink(runtime)
        t.write(os.path.relpath(runtime, t.root), "# created via systemctl set-property\n[Slice]\nCPUQuota=30%\n")
        t.write(cpu_max, "30000 100000\n")
        for user in (None, 65534):  # root, and a user reading root's record
            out, line, drift = status(user)
            check(line == "CPUQuota=            40%%        30%%        %s/50-slicectl.conf:2 (set to 30%% by systemctl "
                  "set-property --runtime in %s, until the next login)" % (t.confdir, runtime)
                  and not drift and "DRIFT" not in out and "drift" not in out and "slicectl apply" not in out,
                  "runtime set-property (uid %r): %s" % (user, out))
        check("held" not in run(t, *sd, "explain", "alice").stdout, "explain: a runtime value holds nothing")

        # systemctl set-property user-1001.slice CPUQuota=20%: holds against the config
        t.write(os.path.relpath(persistent, t.root), "# created via systemctl set-property\n[Slice]\nCPUQuota=20%\n")
        t.write(cpu_max, "20000 100000\n")
        out, line, drift = status()
        check(line.endswith("(held at 20%% by systemctl set-property in %s)" % persistent)
              and not drift and "DRIFT" not in out and "drift" not in out and "slicectl apply" not in out,
              "persistent set-property: %s" % out)
        check("held        systemctl set-property keeps CPUQuota=20%" in run(t, *sd, "explain", "alice").stdout,
              "explain: the persistent value holds")
    finally:
        bus.kill()
        bus.wait()
        t.cleanup()


def case_explain():
    t = Tree("legacy")
    try:
        t.config("* CPUWeight=10 CPUQuota=300%\n"
                 "alice CPUWeight=400\n"
                 "@staff CPUWeight=200 CPUQuotaPeriodSec=20ms\n"
                 "1000:1999 CPUWeight=300\n"
                 "* CPUQuota=250%\n")
        t.config("1001 CPUWeight=450\n@students CPUSlice=no\n", "20-more.conf")
        t.write("run.d/90-runtime.conf", "1000:1999 CPUQuota=5%\n")
        p = run(t, "explain", "alice")
        expect_file("explain-alice.txt", p.stdout, t)
        p = run(t, "explain", "carol")  # a student, no slice, no session
        expect_file("explain-carol.txt", p.stdout, t)
        p = run(t, "explain", "0")
        check(p.stdout.startswith("root (uid 0)\nroot gets a slice only through lines that name it"), p.stdout)
        check("CPUWeight=100\n  default" in p.stdout, "root: default weight: %s" % p.stdout)
        one_line_error(run(t, "explain", "nosuchuser", rc=1), "unknown user")
    finally:
        t.cleanup()


def case_check():
    t = Tree("legacy")
    try:
        t.config("alice CPUWeight=400\n@staff CPUQuota=50%\n")
        p = run(t, "check")
        check(p.stdout == "" and p.stderr == "", "clean check is silent: %r %r" % (p.stdout, p.stderr))
        t.config("alice CPUWeight=0\nbob CPUQuota=50\nnobodyhere CPUWeight=5\n@nogroup2 CPUWeight=5\n"
                 "carol Weight=5\n@staff CPUWieght=300 CPUQuota=50%\n", "30-bad.conf")
        p = run(t, "check", rc=1)
        bad = os.path.join(t.confdir, "30-bad.conf")
        want = [bad + ":1: error: bad CPUWeight= value '0' (allowed: 1..10000 or idle); line skipped",
                bad + ":2: error: bad CPUQuota= value '50' (allowed:",
                bad + ":5: error: unknown setting 'Weight=' (allowed: CPUSlice=, CPUWeight=, CPUQuota=, "
                "CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=, PenaltyAbove=, PenaltyWindow=, PenaltyQuota=, PenaltyTime=, PenaltyForget=, PenaltyExempt=); line skipped",
                # a typo costs only itself, the rest of the line applies
                bad + ":6: error: unknown setting 'CPUWieght=' (allowed: CPUSlice=, CPUWeight=, CPUQuota=, "
                "CPUQuotaShare=, CPUQuotaPeriodSec=, CPUBurst=, PenaltyAbove=, PenaltyWindow=, PenaltyQuota=, PenaltyTime=, PenaltyForget=, PenaltyExempt=); setting skipped",
                bad + ":3: warning: unknown user 'nobodyhere'",
                bad + ":4: warning: unknown group 'nogroup2'"]
        lines = p.stderr.splitlines()
        check(len(lines) == len(want) and all(l.startswith(w) for l, w in zip(lines, want)),
              "check messages:\n%s" % p.stderr)
        check(p.stdout == "", "check writes diagnostics to stderr only")
        # ... and the line's CPUQuota= still decides for a member of @staff
        doc = json.loads(run(t, "--json", "explain", "alice").stdout)
        q = doc["settings"][2]
        check(q["value"] == "50%" and q["source"]["line"] == 6 and q["source"]["rule"] == "@staff CPUQuota=50%",
              "explain names the line, without its skipped setting: %r" % q)
        # warnings only (a misspelled group or user) is status 2, apart from clean and errors
        t.config("nobodyhere CPUWeight=5\n@nogroup2 CPUWeight=5\n", "30-bad.conf")
        p = run(t, "check", rc=2)
        check(p.stdout == "" and p.stderr.splitlines() == [bad + ":1: warning: unknown user 'nobodyhere'",
                                                            bad + ":2: warning: unknown group 'nogroup2'"],
              "warnings only: %r" % p.stderr)
        doc = json.loads(run(t, "check", "--json", rc=2).stdout)
        check(doc["errors"] == 0 and doc["warnings"] == 2 and len(doc["diagnostics"]) == 2,
              "check --json, warnings only: %r" % doc)
        # a PenaltyAbove= with no caps or times anywhere near it: said once, here
        t.config("alice PenaltyAbove=150%\n* PenaltyTime=1h\n@staff PenaltyQuota=50%\n"
                 "@staff PenaltyAbove=off\nbob PenaltyAbove=90% PenaltyQuota=50% PenaltyWindow=5s\n", "30-bad.conf")
        p = run(t, "check", rc=1)
        check(p.stderr.splitlines() == [
            bad + ":5: error: bad PenaltyWindow= value '5s' (allowed: a time of 10s to 24h (s, min, h)); setting "
            "skipped",
            bad + ":1: warning: PenaltyAbove= without PenaltyQuota= on this line, a line for the same domain or a "
            "'*' line: its users get no penalty unless another line that matches them gives it"],
              "penalty checks: %r" % p.stderr)
        # explain: each Penalty*= key with the line that gave it, as the config spells it
        t.config("* PenaltyAbove=200% PenaltyQuota=100%,50% PenaltyTime=30min,90s PenaltyExempt=make cc1\n"
                 "alice PenaltyAbove=150%\n", "30-bad.conf")
        doc = json.loads(run(t, "--json", "explain", "alice").stdout)
        got = [(x["setting"], x["value"], x["source"]["line"]) for x in doc["penalty"]]
        check(got == [("PenaltyAbove", "150%", 2), ("PenaltyQuota", "100%,50%", 1), ("PenaltyTime", "30min,90s", 1),
                      ("PenaltyExempt", "make cc1", 1)], "explain --json penalty: %r" % got)
        text = run(t, "explain", "alice").stdout
        check("PenaltyAbove=150%\n  wins        " + bad + ":2: alice PenaltyAbove=150%\n  overridden  " + bad
              + ":1: * PenaltyAbove=200%" in text, "explain penalty text: %r" % text)
        os.unlink(bad)
        # a git checkout: named files' ownership and mode only warn
        t.write("checkout.conf", "alice CPUWeight=5\n", 0o666)
        p = run(t, "check", t.path("checkout.conf"), rc=2)
        check("checkout.conf: warning: file is writable by others (mode 0666) (the module would refuse it)"
              in p.stderr, "named file: %r" % p.stderr)
        # installed files: the module refuses them, so it is an error
        os.chmod(t.conf, 0o666)
        p = run(t, "check", rc=1)
        check("cpuslice.conf: error: file is writable by others (mode 0666); refused" in p.stderr, p.stderr)
        # a file that is no config (check may run as root through sudo) is named, never quoted
        t.write("shadow", "root:$6$Zx9Salt$HashOfRoot:19000:0:99999:7:::\nalice:$y$j9T$SecretHash:19000::::::\n"
                "alice hunter2\n", 0o600)
        p = run(t, "check", t.path("shadow"), rc=1)
        check(p.stdout == "" and len(p.stderr.splitlines()) == 3 and "shadow:1: error: bad uid range" in p.stderr
              and "shadow:3: error: expected SETTING=VALUE after the domain" in p.stderr
              and not any(x in p.stderr for x in ("Zx9", "Hash", "j9T", "hunter2", "'")),
              "check of a non-config quotes it: %r" % p.stderr)
        p = run(t, "check", t.path("missing.conf"), rc=1)
        check("missing.conf: error: no such file" in p.stderr, p.stderr)
        # --json: what CI pipelines read
        os.chmod(t.conf, 0o644)
        t.config("alice CPUWeight=0\nnobodyhere CPUWeight=5\n", "30-bad.conf")
        p = run(t, "check", "--json", rc=1)
        check(p.stderr == "", "check --json: stderr %r" % p.stderr)
        doc = json.loads(p.stdout)
        check(list(doc) == ["diagnostics", "errors", "warnings"], "keys: %r" % list(doc))
        check(doc["errors"] == 1 and doc["warnings"] == 1, "counts: %r" % doc)
        check(doc["diagnostics"] == [
            {"file": bad, "line": 1, "severity": "error",
             "message": "bad CPUWeight= value '0' (allowed: 1..10000 or idle); line skipped"},
            {"file": bad, "line": 3 - 1, "severity": "warning", "message": "unknown user 'nobodyhere'"}],
            "check --json: %r" % doc)
        os.unlink(bad)
        p = run(t, "check", "--json")
        check(json.loads(p.stdout) == {"diagnostics": [], "errors": 0, "warnings": 0}, "clean: %r" % p.stdout)
        os.chmod(t.conf, 0o666)
        doc = json.loads(run(t, "check", "--json", rc=1).stdout)
        check(doc["diagnostics"][0]["line"] is None and doc["diagnostics"][0]["severity"] == "error",
              "a whole-file error has line null: %r" % doc)
        os.chmod(t.conf, 0o644)
    finally:
        t.cleanup()


def case_shipped_conf():
    """The shipped conf/cpuslice.conf is inert: on a host with only it, check prints nothing
    and exits 0, and no login gets a slice; each example in it, uncommented, is a valid line"""
    with open(os.path.join(HERE, "..", "..", "conf", "cpuslice.conf")) as f:
        shipped = f.read()
    t = Tree("unified")
    try:
        t.config(shipped)
        p = run(t, "check")
        check(p.stdout == "" and p.stderr == "", "shipped config: %r %r" % (p.stdout, p.stderr))
        p = run(t, "check", t.conf)
        check(p.stdout == "" and p.stderr == "", "shipped config as a named file: %r %r" % (p.stdout, p.stderr))
        doc = json.loads(run(t, "check", "--json").stdout)
        check(doc == {"diagnostics": [], "errors": 0, "warnings": 0}, "shipped config, --json: %r" % doc)
        for user in ("alice", "bob", "root"):
            doc = json.loads(run(t, "--json", "explain", user).stdout)
            check(doc["gets_slice"] is False and all(x["source"] is None for x in doc["settings"]),
                  "%s: the shipped config gives nothing: %r" % (user, doc))
        examples = re.findall(r"^#(\S+\s+[A-Za-z]+=.*)$", shipped, re.M)
        check(len(examples) >= 4, "examples in the shipped config: %r" % examples)
        t.config("\n".join(examples) + "\n")
        p = run(t, "check", rc=2)
        check(p.stdout == "" and ": error:" not in p.stderr and p.stderr.count(": warning: unknown ") >= 1,
              "the examples uncommented are valid, their names only examples: %r" % p.stderr)
    finally:
        t.cleanup()


def case_json_status_explain():
    """Explain and status answer in JSON too, the same answer as their text"""
    t = standard_tree("legacy")
    try:
        doc = json.loads(run(t, "--json", "explain", "alice").stdout)
        w = doc["settings"][1]
        check(doc["user"] == "alice" and doc["uid"] == 1001 and doc["gets_slice"] is True and doc["reason"] is None
              and w["setting"] == "CPUWeight" and w["value"] == "400"
              and w["source"]["rule"] == "alice CPUWeight=400 CPUQuota=50%" and w["source"]["domain"] == "user"
              and [o["rule"] for o in w["overridden"]] == ["* CPUWeight=100"], "explain --json: %r" % doc)
        doc = json.loads(run(t, "--json", "explain", "root").stdout)
        check(doc["gets_slice"] is False and doc["reason"] == "no config line matches", "root: %r" % doc)
        doc = json.loads(run(t, "--json", "status", "alice").stdout)
        st = {x["setting"]: x for x in doc["settings"]}
        check(doc["running"] is True and st["CPUWeight"]["config"] == "400" and st["CPUWeight"]["live"] == "400"
              and st["CPUWeight"]["drift"] is False and st["CPUQuota"]["config"] == "50%"
              and st["CPUQuota"]["line"] == 3 and doc["cpu"]["nr_throttled"] == 15
              and sorted(x["scope"] for x in doc["sessions"]) == ["session-12.scope", "session-3.scope"],
              "status --json: %r" % doc)
        p = run(t, "--json", "status", "carol", rc=3)
        check(json.loads(p.stdout)["running"] is False, "carol: %r" % p.stdout)
    finally:
        t.cleanup()


def case_set():
    t = standard_tree("legacy")
    try:
        dropin = os.path.join(t.confdir, "50-slicectl.conf")
        header = "# Written by slicectl(1): change it with 'slicectl set' and 'slicectl unset'.\n"
        p = run(t, "set", "alice", "CPUWeight=800", "CPUQuota=25%")
        # one line per change: the file, then each running slice, as systemctl reports what it did
        check(p.stdout == "Set alice CPUWeight=800 CPUQuota=25%% in %s\n"
                          "alice (uid 1001): CPUWeight= 400 -> 800, CPUQuota= 50%% -> 25%%\n" % dropin,
              "set says what it did: %r" % p.stdout)
        check(p.stderr == "", "set: %r" % p.stderr)
        check(t.read(os.path.relpath(dropin, t.root)) == header + "alice CPUWeight=800 CPUQuota=25%\n", "drop-in")
        st = os.stat(dropin)
        check(st.st_mode & 0o7777 == 0o644 and st.st_uid == 0, "mode %o uid %d" % (st.st_mode, st.st_uid))
        # applied live
        check(t.read(t.slice_dir(1001) + "/cpu.shares") == "8192\n", "shares applied")
        check(t.read(t.slice_dir(1001) + "/cpu.cfs_quota_us") == "25000\n", "quota applied")
        # other slices untouched
        check(t.read(t.slice_dir(1500) + "/cpu.cfs_quota_us") == "75000\n", "dave untouched")

        # a group: only running slices of members change; no slice is created for carol
        run(t, "set", "@students", "CPUQuota=10%")
        check(t.read(t.slice_dir(1002) + "/cpu.cfs_quota_us") == "10000\n", "bob got the group quota")
        check(not os.path.exists(t.path(t.slice_dir(1003))), "no slice created for carol")

        # bad input: one line, nothing written
        before = t.read(os.path.relpath(dropin, t.root))
        one_line_error(run(t, "set", "alice", "CPUWeight=0", rc=1), "bad CPUWeight= value '0'")
        one_line_error(run(t, "set", "alice", "CPUQuota=50", rc=1), "bad CPUQuota= value")
        one_line_error(run(t, "set", "alice", "Bogus=1", rc=1), "unknown setting 'Bogus='")
        one_line_error(run(t, "set", "2000:1000", "CPUWeight=5", rc=1), "uid range is empty")
        one_line_error(run(t, "set", "alice", rc=1), "takes DOMAIN SETTING=VALUE")
        check(t.read(os.path.relpath(dropin, t.root)) == before, "nothing written on failure")
        check(sorted(os.listdir(t.confdir)) == [".50-slicectl.conf.lock", "50-slicectl.conf"],
              "no temp files: %r" % os.listdir(t.confdir))
        # an unknown name: what check says of the same line, a warning; the line is written
        for dom, kind in (("nosuchuser", "user"), ("@nosuchgroup", "group")):
            p = run(t, "set", dom, "CPUWeight=5")
            check(p.stderr == "slicectl: warning: unknown %s '%s': the line matches no one until it exists\n"
                  % (kind, dom.lstrip("@")), "unknown %s: %r" % (kind, p.stderr))
            check(p.stdout.startswith("Set %s CPUWeight=5 in" % dom), p.stdout)
            check("%s CPUWeight=5\n" % dom in t.read(os.path.relpath(dropin, t.root)), "written")
            run(t, "unset", dom)
            check(("slicectl: warning: %s:" % dropin) not in run(t, "check").stderr, "check agrees")
        check(t.read(os.path.relpath(dropin, t.root)) == before, "unset took them out again")

        # shadowed: a later file is as specific for alice
        t.config("alice CPUQuota=70%\n", "90-admin.conf")
        p = run(t, "set", "alice", "CPUQuota=30%")
        check(("slicectl: warning: alice: CPUQuota= still comes from %s/90-admin.conf:1 (alice CPUQuota=70%%): "
               "read later, as specific\n" % t.confdir) == p.stderr, "shadow warning: %r" % p.stderr)
        # and a more specific line shadows a range
        p = run(t, "set", "1000:1999", "CPUQuota=99%")
        check("alice: CPUQuota= still comes from %s/90-admin.conf:1 (alice CPUQuota=70%%): a more specific line"
              % t.confdir in p.stderr, "more specific: %r" % p.stderr)
        os.unlink(os.path.join(t.confdir, "90-admin.conf"))

        # --runtime: the runtime directory, created on demand
        run(t, "--runtime", "set", "1500", "CPUWeight=50")
        check(t.read("run.d/50-slicectl.conf") == header + "1500 CPUWeight=50\n", "runtime drop-in")
        check(t.read(t.slice_dir(1500) + "/cpu.shares") == "512\n", "runtime applied")

        # unset: back to the main config's values, live too
        p = run(t, "--runtime", "unset", "1500")
        check(p.stdout == "Unset 1500 in %s/50-slicectl.conf\ndave (uid 1500): CPUWeight= 50 -> 100\n" % t.rundir,
              "unset says what it did: %r" % p.stdout)
        # the last line gone: no header-only file and no lock file are left behind
        check(os.listdir(t.rundir) == [], "runtime unset leaves nothing: %r" % os.listdir(t.rundir))
        check(t.read(t.slice_dir(1500) + "/cpu.shares") == "1024\n", "unset applied")
        run(t, "unset", "alice", "CPUQuota")
        check(t.read(os.path.relpath(dropin, t.root)) ==
              header + "alice CPUWeight=800\n@students CPUQuota=10%\n1000:1999 CPUQuota=99%\n", "unset one")
        check(os.path.exists(t.path(t.slice_dir(1003))) is False, "still no slice for carol")
        # the main config's alice line (a user line) beats the drop-in's range
        check(t.read(t.slice_dir(1001) + "/cpu.cfs_quota_us") == "50000\n", "alice back to 50%")
        p = run(t, "unset", "carol")
        check("sets nothing of that for carol; nothing changed" in p.stderr, "unset nothing: %r" % p.stderr)
        one_line_error(run(t, "unset", "alice", "Nope", rc=1), "unknown setting 'Nope'")
        one_line_error(run(t, "unset", "@students", "CPUQuota=70%", rc=1),
                       "'unset' takes setting names, not values: 'CPUQuota=70%' (e.g. 'CPUQuota')")
        run(t, "unset", "@students", "CPUQuota=")  # a trailing '=' is still a name
        # as another user: a plain "needs root"
        os.chmod(t.root, 0o755)
        one_line_error(run(t, "set", "alice", "CPUWeight=5", rc=1, user=65534), "'set' needs root")
        one_line_error(run(t, "apply", rc=1, user=65534), "'apply' needs root")
        one_line_error(run(t, "gc", rc=1, user=65534), "'gc' needs root")
        # but the read-only views work
        p = run(t, "list", "-i", "0", "-r", "-n", "-o", "USER", "--sort=UID", user=65534)
        check(p.stdout == "alice\nbob\ndave\n", "list as nobody: %r" % p.stdout)
    finally:
        t.cleanup()


def case_unset_nothing():
    """An unset with nothing to take out changes nothing: no directory, drop-in or lock file is
    made (slicectl(1), FILES: the lock file goes with the drop-in), and neither does a failed set"""
    t = standard_tree("legacy")
    try:
        lock = os.path.join(t.confdir, ".50-slicectl.conf.lock")
        before = snapshot(t.root)
        p = run(t, "--runtime", "unset", "alice")
        check(p.stdout == "" and p.stderr == "slicectl: warning: %s/50-slicectl.conf does not exist: nothing to "
              "unset for alice; nothing changed\n" % t.rundir, "runtime unset, no drop-in: %r %r" % (p.stdout, p.stderr))
        check(not os.path.exists(t.rundir), "a no-op unset made the runtime directory")
        p = run(t, "unset", "alice", "CPUQuota")
        check("does not exist: nothing to unset for alice" in p.stderr, p.stderr)
        one_line_error(run(t, "set", "alice", "CPUWeight=0", rc=1), "bad CPUWeight= value '0'")
        check(snapshot(t.root) == before, "no-op unsets and a failed set changed the tree")

        run(t, "set", "alice", "CPUWeight=800")
        check(sorted(os.listdir(t.confdir)) == [".50-slicectl.conf.lock", "50-slicectl.conf"], os.listdir(t.confdir))
        # the drop-in stays, and its lock file with it
        p = run(t, "unset", "bob")
        check("sets nothing of that for bob; nothing changed" in p.stderr and p.stdout == "", p.stderr)
        check(os.path.exists(lock), "the lock file of a drop-in that stays")
        run(t, "unset", "alice")
        check(os.listdir(t.confdir) == [], "the last unset leaves nothing: %r" % os.listdir(t.confdir))
    finally:
        t.cleanup()


def case_set_unified():
    t = standard_tree("unified")
    try:
        run(t, "set", "bob", "CPUWeight=250", "CPUQuota=12.5%", "CPUQuotaPeriodSec=200ms")
        d = t.slice_dir(1002)
        check(t.read(d + "/cpu.weight") == "250\n", "weight")
        check(t.read(d + "/cpu.idle") == "0\n", "not idle any more")
        check(t.read(d + "/cpu.max") == "25000 200000\n", "cpu.max %r" % t.read(d + "/cpu.max"))
        run(t, "set", "alice", "CPUWeight=idle")
        check(t.read(t.slice_dir(1001) + "/cpu.idle") == "1\n", "idle")
    finally:
        t.cleanup()


def case_quota_share():
    """CPUQuotaShare= resolves against the CPUs of the slices' cpuset: set, explain, status, JSON."""
    t = standard_tree("unified")
    try:
        # the cgroup that holds the slices runs on 64 CPUs (cgroup v2 cpuset)
        t.write("user.slice/cpuset.cpus.effective", "0-31,64-95\n")
        p = run(t, "set", "bob", "CPUQuota=50%")
        run(t, "set", "bob", "CPUQuotaShare=25%")
        dropin = t.read(os.path.relpath(os.path.join(t.confdir, "50-slicectl.conf"), t.root))
        check(dropin.endswith("\nbob CPUQuotaShare=25%\n"), "one spelling replaces the other: %r" % dropin)
        check(t.read(t.slice_dir(1002) + "/cpu.max") == "1600000 100000\n", "16 CPUs: %r" % t.read(t.slice_dir(1002) + "/cpu.max"))
        p = run(t, "explain", "bob")
        check("\nCPUQuota=1600% (CPUQuotaShare=25% of 64 CPUs)\n  wins        " in p.stdout, "explain: %r" % p.stdout)
        j = json.loads(run(t, "explain", "bob", "--json").stdout)
        q = [x for x in j["settings"] if x["setting"] == "CPUQuota"]
        check(len(q) == 1 and q[0]["value"] == "1600%" and q[0]["share"] == "25%" and q[0]["cpus"] == 64 and
              q[0]["source"]["rule"] == "bob CPUQuotaShare=25%", "explain --json: %r" % q)
        check(not [x for x in j["settings"] if x["setting"] == "CPUQuotaShare"], "one entry for the quota")
        p = run(t, "status", "bob")
        check(re.search(r"\nCPUQuota= +1600% +1600% +\S+50-slicectl.conf:\d+ \(CPUQuotaShare=25% of 64 CPUs\)\n",
                        p.stdout), "status: %r" % p.stdout)
        # the CPUs change (a hotplug, a new cpuset): apply resolves the share again
        t.write("user.slice/cpuset.cpus.effective", "0-7\n")
        run(t, "apply", "bob")
        check(t.read(t.slice_dir(1002) + "/cpu.max") == "200000 100000\n", "8 CPUs: %r" % t.read(t.slice_dir(1002) + "/cpu.max"))
        one_line_error(run(t, "set", "bob", "CPUQuotaShare=150%", rc=1), "bad CPUQuotaShare= value '150%'")
        one_line_error(run(t, "set", "bob", "CPUQuota=10%", "CPUQuotaShare=10%", rc=1), "one quota per line")
        run(t, "unset", "bob", "CPUQuotaShare")
        check(t.read(t.slice_dir(1002) + "/cpu.max").startswith("max "), "unset: %r" % t.read(t.slice_dir(1002) + "/cpu.max"))
    finally:
        t.cleanup()


def case_burst():
    """CPUBurst=: written under a quota, shown by explain and status, refused by check above its line's quota."""
    t = standard_tree("legacy")
    try:
        d = t.slice_dir(1500)  # dave: CPUQuota=150% per 50 ms from 1500:1999
        t.write(d + "/cpu.cfs_burst_us", "0\n")
        p = run(t, "set", "dave", "CPUBurst=20ms")
        check("CPUBurst= 0s -> 20ms" in p.stdout, "set says what changed: %r" % p.stdout)
        check(t.read(d + "/cpu.cfs_burst_us") == "20000\n", "burst: %r" % t.read(d + "/cpu.cfs_burst_us"))
        p = run(t, "explain", "dave")
        check("\nCPUBurst=20ms\n  wins        " in p.stdout, "explain: %r" % p.stdout)
        p = run(t, "status", "dave")
        check(re.search(r"\nCPUBurst= +20ms +20ms +\S+50-slicectl.conf:\d+\n", p.stdout), "status: %r" % p.stdout)
        # alice (50 % per 100 ms) cannot burst 60 ms: left out, and said
        run(t, "set", "alice", "CPUBurst=60ms")
        p = run(t, "status", "alice")
        check(re.search(r"\nCPUBurst= +0s .*left out: more than the quota per period", p.stdout), "status: %r" % p.stdout)
        t.config("carol CPUQuota=10% CPUBurst=11ms\n", "40-burst.conf")
        p = run(t, "check", rc=1)
        check(os.path.join(t.confdir, "40-burst.conf") + ":1: error: CPUBurst=11ms is more than this line's quota "
              "per period (10ms): the kernel refuses it, a login leaves it out" in p.stderr + p.stdout,
              "check: %r %r" % (p.stdout, p.stderr))
    finally:
        t.cleanup()


def case_burst_systemd():
    """systemd has no CPUBurst= property: slicectl writes the slice's file beside SetUnitProperties."""
    t = standard_tree("unified")
    bus, sd, root = fake_systemd(t)
    burst = t.slice_dir(1500) + "/cpu.max.burst"
    try:
        # dave's period is 50 ms: CPUQuota=20% is 10 ms per period, below this burst, lowered first
        t.write(burst, "60000\n")
        run(t, *sd, "set", "dave", "CPUQuota=20%", "CPUBurst=5ms")
        check(t.read(burst) == "5000\n", "burst beside systemd: %r" % t.read(burst))
        record = open(t.path("bus-record")).read()
        check("CPUBurst" not in record, "no CPUBurst= property sent to systemd: %r" % record)
        run(t, *sd, "set", "dave", "CPUBurst=8ms")
        check(t.read(burst) == "8000\n", "raised after: %r" % t.read(burst))
        run(t, *sd, "set", "dave", "CPUBurst=15ms")  # above the quota per period: left out
        check(t.read(burst) == "0\n", "left out: %r" % t.read(burst))
    finally:
        bus.kill()
        bus.wait()
        t.cleanup()


def case_slices_line():
    """A user.slice line sets the cgroup that holds every user slice: a reserve for the system."""
    t = standard_tree("unified")
    try:
        t.write("user.slice/cpuset.cpus.effective", "0-3\n")
        p = run(t, "set", "user.slice", "CPUQuotaShare=90%", "CPUWeight=50")
        check(t.read("user.slice/cpu.max") == "360000 100000\n", "user.slice cpu.max %r" % t.read("user.slice/cpu.max"))
        check(t.read("user.slice/cpu.weight") == "50\n", "user.slice cpu.weight %r" % t.read("user.slice/cpu.weight"))
        check("user.slice: CPUWeight=50 CPUQuota=360% CPUQuotaShare=90% of 4 CPUs" in p.stdout, "set: %r" % p.stdout)
        # never a user's: alice's own slice is as before
        check(t.read(t.slice_dir(1001) + "/cpu.max") == "50000 100000\n", "alice: %r" % t.read(t.slice_dir(1001) + "/cpu.max"))
        run(t, "apply")
        check(t.read("user.slice/cpu.max") == "360000 100000\n", "apply keeps it")
        t.config("user.slice CPUSlice=no PenaltyAbove=100% CPUWeight=20\n", "60-slices.conf")
        p = run(t, "check", rc=1)
        for key in ("CPUSlice", "PenaltyAbove"):
            check("60-slices.conf:1: error: %s= makes no sense on a user.slice line" % key in p.stdout + p.stderr,
                  "check %s: %r" % (key, p.stdout + p.stderr))
        run(t, "apply")
        check(t.read("user.slice/cpu.weight") == "20\n", "the later line's weight: %r" % t.read("user.slice/cpu.weight"))
        p = run(t, "explain", "user.slice")
        check("\nCPUWeight=20\n  wins        %s:1: user.slice CPUWeight=20\n  overridden  %s:" % (
              os.path.join(t.confdir, "60-slices.conf"), os.path.join(t.confdir, "50-slicectl.conf")) in p.stdout and
              "\nCPUQuota=360% (CPUQuotaShare=90% of 4 CPUs)\n  wins" in p.stdout, "explain user.slice: %r" % p.stdout)
    finally:
        t.cleanup()


def case_explain_slices_json():
    """explain --json user.slice: the user.slice lines per setting, as explain --json USER gives a user's."""
    t = standard_tree("unified")
    try:
        t.write("user.slice/cpuset.cpus.effective", "0-5\n")
        t.config("user.slice CPUQuotaShare=50% CPUWeight=50\n", "50-slices.conf")
        t.config("user.slice CPUWeight=20\nalice CPUWeight=300\n", "60-slices.conf")
        first, later = (os.path.join(t.confdir, f) for f in ("50-slices.conf", "60-slices.conf"))
        p = run(t, "--json", "explain", "user.slice")
        check(p.stderr == "", "stderr: %r" % p.stderr)
        doc = json.loads(p.stdout)
        check(doc["slice"] == "user.slice" and "user" not in doc and "penalty" not in doc, "keys: %r" % doc)
        got = {x["setting"]: x for x in doc["settings"]}
        check(sorted(got) == ["CPUBurst", "CPUQuota", "CPUQuotaPeriodSec", "CPUWeight"], "settings: %r" % sorted(got))
        w = got["CPUWeight"]
        check(w["value"] == "20" and w["source"] == {"file": later, "line": 1, "rule": "user.slice CPUWeight=20",
                                                     "domain": "user.slice"} and
              [(o["file"], o["line"], o["rule"]) for o in w["overridden"]] ==
              [(first, 1, "user.slice CPUQuotaShare=50% CPUWeight=50")], "CPUWeight: %r" % w)
        q = got["CPUQuota"]
        check(q["value"] == "300%" and q["share"] == "50%" and q["cpus"] == 6 and q["source"]["file"] == first and
              q["source"]["rule"] == "user.slice CPUQuotaShare=50% CPUWeight=50" and q["overridden"] == [],
              "CPUQuota: %r" % q)
        check(got["CPUBurst"]["source"] is None and got["CPUBurst"]["overridden"] == [], "default: %r" % got["CPUBurst"])
        # a user's explain --json keeps its own shape beside it
        doc = json.loads(run(t, "--json", "explain", "alice").stdout)
        check(doc["user"] == "alice" and "slice" not in doc, "explain alice --json: %r" % doc)
        one_line_error(run(t, "--json", "explain", "user.slice", "alice", rc=1), "takes one USER or UID")
    finally:
        t.cleanup()


def case_slices_line_systemd():
    """On systemd the user.slice line goes to user.slice through SetUnitProperties, and back when gone."""
    t = standard_tree("unified")
    bus, sd, root = fake_systemd(t)
    try:
        run(t, *sd, "set", "user.slice", "CPUQuota=300%")
        calls = [json.loads(l) for l in open(t.path("bus-record")) if "SetUnitProperties" in l]
        check(any(c["args"][0] == "user.slice" and ["CPUQuotaPerSecUSec", 3000000] in c["args"][2] for c in calls),
              "SetUnitProperties(user.slice): %r" % calls)
        check(os.path.exists(root + "/run/cpuslice/systemd/user.slice"), "the record of what was set on user.slice")
        open(t.path("bus-record"), "w").close()
        run(t, *sd, "unset", "user.slice")
        calls = [json.loads(l) for l in open(t.path("bus-record")) if "SetUnitProperties" in l]
        check(any(c["args"][0] == "user.slice" for c in calls), "unset reverts user.slice: %r" % calls)
        # reset finds user.slice's record and reverts what is left of it
        run(t, *sd, "set", "user.slice", "CPUWeight=30")
        open(t.path("bus-record"), "w").close()
        p = run(t, *sd, "reset")
        calls = [json.loads(l) for l in open(t.path("bus-record")) if "SetUnitProperties" in l]
        check(any(c["args"][0] == "user.slice" for c in calls) and "user.slice" in p.stdout,
              "reset reverts user.slice: %r %r" % (calls, p.stdout))
    finally:
        bus.kill()
        bus.wait()
        t.cleanup()


def case_apply():
    t = standard_tree("hybrid")
    try:
        p = run(t, "apply")
        # bob's shares say weight 1 where the config says idle: both 2 shares, no change
        check(p.stdout == "", "nothing to apply: %r" % p.stdout)
        t.config("* CPUWeight=100\nalice CPUWeight=200 CPUQuota=50%\n1500 CPUQuotaPeriodSec=20ms CPUQuota=150%\n")
        p = run(t, "apply")
        check(p.stdout == "alice (uid 1001): CPUWeight= 400 -> 200\n"
                          "bob (uid 1002): CPUWeight= 1 -> 100\n"
                          "dave (uid 1500): CPUQuotaPeriodSec= 50ms -> 20ms\n", "apply: %r" % p.stdout)
        check(t.read(t.slice_dir(1001) + "/cpu.shares") == "2048\n", "applied")
        check(t.read(t.slice_dir(1500) + "/cpu.cfs_quota_us") == "30000\n", "dave quota per period")
        p = run(t, "apply")
        check(p.stdout == "", "second apply changes nothing: %r" % p.stdout)
        t.write(t.slice_dir(1001) + "/cpu.shares", "1024\n")
        t.write(t.slice_dir(1500) + "/cpu.shares", "1\n")
        p = run(t, "apply", "alice", "carol")
        check(p.stdout == "alice (uid 1001): CPUWeight= 100 -> 200\n", "apply USER: %r" % p.stdout)
        check("carol has no running slice; nothing to apply" in p.stderr, p.stderr)
        check(not os.path.exists(t.path(t.slice_dir(1003))), "apply never creates a slice")
        check(t.read(t.slice_dir(1500) + "/cpu.shares") == "1\n", "dave not named: untouched")
        one_line_error(run(t, "apply", "nosuchuser", rc=1), "unknown user 'nosuchuser'")
    finally:
        t.cleanup()


def case_gc():
    t = Tree("hybrid")
    try:
        for h in ("cpu", "unified"):
            os.makedirs(t.path(h, "user.slice", "user-1001.slice", "session-1.scope"))
            os.makedirs(t.path(h, "user.slice", "user-1002.slice", "session-2.scope"))
        t.write("cpu/user.slice/user-1002.slice/session-2.scope/cgroup.procs", "123\n")
        for h in ("cpu", "unified"):
            os.makedirs(t.path(h, "user.slice", "user-1002.slice", "session-3.scope"))
            # made a minute ago: an empty scope younger than 5 s may be a login's about to be joined
            for d in ("user-1001.slice/session-1.scope", "user-1002.slice/session-3.scope"):
                then = time.time() - 60
                os.utime(t.path(h, "user.slice", d), (then, then))
        # a login of user 1003's is between its mkdir and its move: too young to go. Made new again
        # before each run, so that a slow run (valgrind, a loaded host) cannot age it past the grace
        young = t.path("cpu", "user.slice", "user-1003.slice", "session-4.scope")
        os.makedirs(young)
        p = run(t, "gc")
        # one line per removal, as systemctl names what it removed
        check(p.stdout == "Removed user-1001.slice\nRemoved user-1002.slice/session-3.scope\n",
              "gc says what it removed: %r" % p.stdout)
        os.utime(young, None)
        check(run(t, "gc").stdout == "", "nothing left to remove: nothing said")
        check(os.path.isdir(t.path("cpu/user.slice/user-1003.slice/session-4.scope")), "a new empty scope kept")
        # the packages' cron.d line: nothing to do is exit 0 and no output (cron would mail it), and
        # so is a removed (not purged) slicectl
        with open(os.path.join(HERE, "..", "..", "conf", "cron", "cpuslice-gc.in")) as f:
            line = [l for l in f.read().splitlines() if l.startswith("17 * * * * root ")][0]
        command = line[len("17 * * * * root "):]
        bindir = t.path("bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "slicectl"), "w") as f:
            f.write("#!/bin/sh\nexec %s %s \"$@\"\n" % (" ".join(WRAPPER + [SLICECTL]), " ".join(t.args())))
        os.chmod(os.path.join(bindir, "slicectl"), 0o755)
        for state in ("there", "gone"):
            p = subprocess.run(["sh", "-c", command.replace("@bindir@", bindir)], capture_output=True, text=True,
                               env=child_env())
            check(p.returncode == 0 and p.stdout == "" and p.stderr == "",
                  "cron line, slicectl %s: rc %d, %r %r" % (state, p.returncode, p.stdout, p.stderr))
            if state == "there":
                os.unlink(os.path.join(bindir, "slicectl"))
        check(not os.path.exists(t.path("cpu/user.slice/user-1001.slice")), "empty slice removed")
        check(not os.path.exists(t.path("unified/user.slice/user-1001.slice")), "mirror removed")
        check(os.path.exists(t.path("cpu/user.slice/user-1002.slice/session-2.scope")), "busy scope kept")
        one_line_error(run(t, "gc", "x", rc=1), "takes no arguments")
    finally:
        t.cleanup()


def case_skipped():
    """A slice a reader may not trust or cannot read is named on stderr and left out;
    the verbs go on with the rest and exit 0. gc and apply never touch a slice that is not root's."""
    t = standard_tree("hybrid")
    try:
        # delegated (Delegate=yes, a container runtime): shown, never written or removed
        d = t.add_slice(1003, weight=1024, scopes=("9",))
        for h in ("cpu", "unified"):
            os.chown(t.path(h, "user.slice", "user-1003.slice"), 1003, 1003)
        # not directories: a file and a symlink with a slice's name
        t.write("cpu/user.slice/user-1234.slice", "planted\n")
        os.symlink("user-1001.slice", t.path("cpu/user.slice/user-1235.slice"))
        warn = ["slicectl: warning: skipped user-1234.slice: not a directory (a file or symlink with a slice's name)",
                "slicectl: warning: skipped user-1235.slice: not a directory (a file or symlink with a slice's name)"]

        def skipped_lines(p, what, extra=()):
            check(sorted(p.stderr.splitlines()) == sorted(warn + list(extra)), "%s: stderr %r" % (what, p.stderr))

        p = run(t, "list", "-i", "0", "-r", "-n", "-o", "USER,UID", "--sort=UID")
        check(p.stdout == "alice 1001\nbob 1002\ncarol 1003\ndave 1500\n", "list: %r" % p.stdout)
        skipped_lines(p, "list")
        p = run(t, "list", "--json", "-i", "0")
        check(sorted(slices_json(p, 2)) == ["alice", "bob", "carol", "dave"], "list --json: %r" % p.stdout)
        p = run(t, "top", "-b", "-N", "1", "-i", "0", "-r", "-n", "-o", "UID", "--sort=UID")
        check(p.stdout == "1001\n1002\n1003\n1500\n", "top: %r" % p.stdout)
        skipped_lines(p, "top")
        p = run(t, "metrics")
        check("\ncpuslice_slices 4\n" in p.stdout and "\ncpuslice_slices_skipped 2\n" in p.stdout,
              "metrics: %r" % p.stdout)
        skipped_lines(p, "metrics")
        p = run(t, "status", "carol")
        check("carol (uid 1003): user-1003.slice\n" in p.stdout and "Sessions:   1" in p.stdout, "status: %r" % p.stdout)
        p = run(t, "status", "1234", rc=3)
        check(p.stdout.startswith("1234 (uid 1234): user-1234.slice (skipped: not readable)\n"), p.stdout)
        check(p.stderr == warn[0] + "\n", "status: %r" % p.stderr)
        doc = json.loads(run(t, "--json", "status", "1234", rc=3).stdout)
        check(doc["running"] is False and "not a directory" in doc["skipped"], "status --json: %r" % doc)
        check(json.loads(run(t, "--json", "status", "alice").stdout)["skipped"] is None, "status --json: alice")

        # apply: the delegated slice is named and left as it is; the others are written
        t.config("* CPUWeight=200\n")
        before = t.read(d + "/cpu.shares")
        p = run(t, "apply")
        check("carol (uid 1003)" not in p.stdout and "alice (uid 1001): CPUWeight= 400 -> 200" in p.stdout,
              "apply: %r" % p.stdout)
        check(t.read(d + "/cpu.shares") == before, "apply wrote into the delegated slice")
        skipped_lines(p, "apply", ["slicectl: warning: skipped user-1003.slice: owned by uid 1003, not root "
                                   "(delegated, or a container runtime's); apply leaves it alone"])
        # gc: empty scopes and slices go, except in the delegated slice
        for h in ("cpu", "unified"):
            os.makedirs(t.path(h, "user.slice", "user-1003.slice", "session-10.scope"), exist_ok=True)
            os.makedirs(t.path(h, "user.slice", "user-1600.slice"), exist_ok=True)
        p = run(t, "gc")
        check(p.stdout == "Removed user-1600.slice\n", "gc: %r" % p.stdout)
        skipped_lines(p, "gc", ["slicectl: warning: skipped user-1003.slice: owned by uid 1003, not root "
                                "(delegated, or a container runtime's); gc leaves it alone"])
        for h in ("cpu", "unified"):
            check(os.path.isdir(t.path(h, "user.slice", "user-1003.slice", "session-10.scope")),
                  "gc removed a scope of the delegated slice in %s" % h)
        check(os.path.isfile(t.path("cpu/user.slice/user-1234.slice")) and
              os.path.islink(t.path("cpu/user.slice/user-1235.slice")), "gc touched the planted entries")
    finally:
        t.cleanup()


def snapshot(root):
    """Every file under root, byte for byte, with its mode and owner."""
    snap = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            data = None
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    data = f.read()
            snap[p] = (st.st_mode, st.st_uid, data)
    return snap


def refused(p, what):
    lines = p.stderr.splitlines()
    check(len(lines) >= 2 and all(l.startswith("slicectl: ") for l in lines), "%s: error lines %r" % (what, p.stderr))
    check(any(what in l and "refused" in l for l in lines), "%s: names the refused file: %r" % (what, p.stderr))
    check("pam_cpuslice gives no login a slice" in lines[-1], "%s: says what it means: %r" % (what, p.stderr))
    check(p.stdout == "", "%s: nothing on stdout: %r" % (what, p.stdout))


def case_refused():
    """A config the module refuses stops every verb that acts on or shows it"""
    t = standard_tree("hybrid")
    try:
        t.config("* CPUWeight=100\nalice CPUWeight=200 CPUQuota=50%\n", "20-x.conf")
        for how in ("mode", "owner", "dir", "not-a-file"):
            if how == "mode":
                os.chmod(t.conf, 0o666)
                what = "cpuslice.conf: file is writable by others"
            elif how == "owner":
                os.chown(t.conf, 1001, 1001)
                what = "cpuslice.conf: file is owned by uid 1001"
            elif how == "dir":
                os.chmod(t.confdir, 0o775)
                what = "cpuslice.d: directory is writable by its group"
            else:
                os.mkdir(os.path.join(t.confdir, "30-dir.conf"))
                what = "30-dir.conf: not a regular file"
            before = snapshot(t.root)
            refused(run(t, "apply", rc=1), what)
            refused(run(t, "apply", "alice", rc=1), what)
            refused(run(t, "set", "alice", "CPUWeight=300", rc=1), what)
            refused(run(t, "unset", "alice", rc=1), what)
            refused(run(t, "status", "alice", rc=1), what)
            refused(run(t, "explain", "alice", rc=1), what)
            check(snapshot(t.root) == before, "%s: the tree changed" % how)
            check(run(t, "check", rc=1).stderr.count("refused") >= 1, "%s: check reports it" % how)
            # put it back
            os.chmod(t.conf, 0o644)
            os.chown(t.conf, 0, 0)
            os.chmod(t.confdir, 0o755)
            if how == "not-a-file":
                os.rmdir(os.path.join(t.confdir, "30-dir.conf"))
        p = run(t, "apply")
        check("alice (uid 1001): CPUWeight= 400 -> 200" in p.stdout, "accepted again: %r" % p.stdout)
    finally:
        t.cleanup()


def case_set_refuses_unsafe_dropin():
    """Set/unset leave a 50-slicectl.conf (or directory) alone that the module would refuse"""
    t = standard_tree("legacy")
    try:
        dropin = os.path.join(t.confdir, "50-slicectl.conf")
        run(t, "--runtime", "set", "alice", "CPUWeight=300")
        rundrop = os.path.join(t.rundir, "50-slicectl.conf")
        for path, mode, uid, opts in ((rundrop, 0o666, 0, ["--runtime"]), (rundrop, 0o644, 1001, ["--runtime"]),
                                      (t.rundir, 0o777, 0, ["--runtime"]), (t.confdir, 0o755, 1001, [])):
            os.chmod(path, mode)
            os.chown(path, uid, 0)
            before = snapshot(t.root)
            for args in (["set", "alice", "CPUWeight=500"], ["unset", "alice"]):
                p = run(t, *(opts + args), rc=1)
                check("refused" in p.stderr and p.stdout == "", "%s %o uid %d: %r" % (path, mode, uid, p.stderr))
            check(snapshot(t.root) == before, "%s %o uid %d: changed" % (path, mode, uid))
            os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)
            os.chown(path, 0, 0)
        check(not os.path.exists(dropin), "no drop-in written")
        check(t.read(t.slice_dir(1001) + "/cpu.shares") == "3072\n", "live value from the runtime drop-in only")
    finally:
        t.cleanup()


def case_login_decision():
    """Explain, status and apply say what a login does: no line, CPUSlice=no, root"""
    t = standard_tree("legacy")
    try:
        t.config("alice CPUWeight=400 CPUQuota=50%\n@students CPUSlice=no\n* CPUQuotaPeriodSec=50ms\n")
        t.add_slice(0, weight=1024)
        t.write(t.slice_dir(1500) + "/cpu.shares", "4096\n")  # dave: matched only by *
        t.config("1500 CPUSlice=no\n", "10-dave.conf")
        # root: only lines naming it; the * line does not
        p = run(t, "explain", "root")
        check("\nCPUSlice=no\n  no line     no config line matches this user\n" in p.stdout, "root: %s" % p.stdout)
        check("no config line matches: a login of this user gets no slice" in p.stdout, "root: %s" % p.stdout)
        p = run(t, "status", "root")
        check("CPUSlice=            no         yes        (no config line matches)" in p.stdout, p.stdout)
        check("CPUWeight=           -          100        -\n" in p.stdout and "DRIFT" not in p.stdout, p.stdout)
        check("pam_cpuslice leaves logins of root alone (no config line matches)" in p.stdout, p.stdout)
        # CPUSlice=no
        p = run(t, "explain", "bob")
        check("\nCPUSlice=no\n  wins" in p.stdout and "CPUSlice=no: a login of this user gets no slice" in p.stdout,
              p.stdout)
        # apply leaves all of them alone, with a word why
        before = snapshot(t.root)
        p = run(t, "apply")
        check(p.stdout == "alice (uid 1001): CPUQuotaPeriodSec= 100ms -> 50ms\n", "apply: %r" % p.stdout)
        for who in ("root: no config line matches", "bob: CPUSlice=no", "dave: CPUSlice=no"):
            check("slicectl: warning: %s, so pam_cpuslice gives logins no slice" % who in p.stderr, p.stderr)
        after = snapshot(t.root)
        changed = sorted(os.path.relpath(k, t.root) for k in after if after[k] != before.get(k))
        check(changed == ["cpu/user.slice/user-1001.slice/cpu.cfs_period_us",
                          "cpu/user.slice/user-1001.slice/cpu.cfs_quota_us"], "changed: %r" % changed)
        # a config without * : nobody else matches
        t.config("alice CPUWeight=400\n")
        p = run(t, "explain", "carol")
        check("\nCPUSlice=no\n  no line" in p.stdout, p.stdout)
    finally:
        t.cleanup()


def case_login_agrees():
    """slicectl explain answers what a real login through the module does, user by user"""
    pam_run, module = os.environ.get("PAM_RUN"), os.environ.get("PAM_CPUSLICE_MODULE")
    check(pam_run and module, "PAM_RUN and PAM_CPUSLICE_MODULE must be set")
    t = Tree("legacy")
    try:
        t.config("alice CPUWeight=400\n@students CPUSlice=no\ncarol CPUSlice=yes CPUWeight=50\n"
                 "1500 CPUWeight=200\n")
        t.config("1500 CPUSlice=no\n", "10-dave.conf")
        os.makedirs(t.path("cpu"), exist_ok=True)
        os.makedirs(t.path("pam.d"))
        with open(t.path("pam.d", "cs"), "w") as f:
            f.write("session required %s conf=%s confdir=%s rundir=%s cgroup_root=%s cgroup_layout=legacy "
                    "allow_plain_tree\nsession required pam_permit.so\n" % (module, t.conf, t.confdir, t.rundir, t.root))
        for user, uid in (("root", 0), ("alice", 1001), ("bob", 1002), ("carol", 1003), ("dave", 1500),
                          ("erin", 2500)):
            slice_dir = t.path(t.slice_dir(uid))
            p = subprocess.run([pam_run, "--confdir", t.path("pam.d"), "--service", "cs", "--user", user, "--",
                                "test", "-d", slice_dir], env=child_env(), capture_output=True, text=True)
            check(p.returncode in (0, 1), "%s: pam-run failed: %s" % (user, p.stderr))
            login_slice = p.returncode == 0
            e = run(t, "explain", user)
            explain_slice = "a login of this user gets no slice" not in e.stdout
            check(login_slice == explain_slice, "%s: a login %s a slice, explain says %s:\n%s"
                  % (user, "gets" if login_slice else "gets no", "it does" if explain_slice else "it does not",
                     e.stdout))
    finally:
        t.cleanup()


def case_status_period():
    """The configured period and its line, and what the kernel keeps without a quota"""
    t = standard_tree("legacy")
    try:
        t.config("* CPUWeight=100\nalice CPUQuotaPeriodSec=50ms\n")
        t.write(t.slice_dir(1001) + "/cpu.cfs_quota_us", "-1\n")
        t.write(t.slice_dir(1001) + "/cpu.shares", "1024\n")
        p = run(t, "status", "alice")
        out = p.stdout.replace(t.root, "ROOT")
        check("CPUQuotaPeriodSec=   50ms       100ms      ROOT/cpuslice.conf:2 (the kernel gets 100ms: without a quota "
              "the period is the default)\n" in out, out)
        check("DRIFT" not in out, out)
        p = run(t, "explain", "alice")
        check("CPUQuotaPeriodSec=50ms\n" in p.stdout, p.stdout)
    finally:
        t.cleanup()


# A name from NSS, a process name, a cgroup name, a config file name and config text, each with a
# terminal control sequence, a newline, quotes, a backslash and bytes that are not UTF-8.
EVIL = "\x1b[2J\"\\\udcff"                  # str with surrogateescape: ESC [ 2 J " \ 0xff
EVIL_ESC = "\\x1b[2J\"\\\\\\xff"             # what escape_dup makes of it: printable ASCII only


def clean_bytes(data, what):
    """No control byte but the newline, nothing outside ASCII: nothing a terminal would act on."""
    bad = sorted({b for b in data if (b < 0x20 and b != 0x0a) or b >= 0x7f})
    check(not bad, "%s: raw bytes %r in %r" % (what, [hex(b) for b in bad], data[:400]))
    return data.decode("ascii", "replace")


def evil_tree():
    t = Tree("legacy")
    passwd = t.path("passwd")
    with open(os.path.join(HERE, "..", "data", "passwd"), "rb") as f:
        base = f.read()
    with open(passwd, "wb") as f:
        f.write(base + b"u" + os.fsencode(EVIL) + b":x:4000:4000:Evil:/home/evil:/bin/sh\n")
    t.config("4000 CPUWeight=300\n")
    # a drop-in whose name holds the sequence and a newline: it shows up as a source
    t.config("4000 CPUQuota=20%\n", "10-" + EVIL + "\n.conf")
    # the process: its own comm, set the only way a process can (from inside)
    proc = subprocess.Popen([sys.executable, "-c",
                             "import sys, time\n"
                             "open('/proc/self/comm', 'wb').write(b'\\x1b[2J\"\\\\\\xff')\n"
                             "print('ready', flush=True)\n"
                             "time.sleep(120)\n"], stdout=subprocess.PIPE)
    proc.stdout.readline()
    t.add_slice(4000, weight=3072, quota=20000, scopes=(EVIL + "\n",))
    t.write(t.slice_dir(4000) + "/session-" + EVIL + "\n.scope/cgroup.procs", "%d\n" % proc.pid)
    return t, {"NSS_WRAPPER_PASSWD": passwd}, proc


def case_escape():
    t, env, proc = evil_tree()
    try:
        user_esc = "u" + EVIL_ESC
        p = run(t, "list", "-i", "0", env=env, text=False)
        out = clean_bytes(p.stdout, "list")
        # tables: libsmartcols' own \xNN encoding (it leaves a lone backslash as it is)
        check("u\\x1b[2J\"\\\\xff " in out, "list shows the encoded name: %r" % out)
        p = run(t, "list", "-r", "-i", "0", env=env, text=False)
        clean_bytes(p.stdout, "list --raw")
        p = run(t, "list", "--json", "-i", "0", env=env, text=False)
        got = slices_json(type(p)(p.args, p.returncode, clean_bytes(p.stdout, "list --json"), p.stderr))
        check(user_esc in got, "JSON holds the escaped name: %r" % list(got))

        p = run(t, "status", "4000", "-i", "0", env=env, text=False)
        out = clean_bytes(p.stdout, "status") + clean_bytes(p.stderr, "status stderr")
        check("session-" + EVIL_ESC + "\\x0a.scope" in out, "scope name escaped: %r" % out)
        check("  " + EVIL_ESC.replace("\\x1b", "\\x1b", 1) in out, "comm escaped: %r" % out)
        check("10-" + EVIL_ESC + "\\x0a.conf:1" in out, "drop-in name escaped: %r" % out)
        check(out.startswith(user_esc + " (uid 4000)"), "status header: %r" % out)

        p = run(t, "explain", "4000", env=env, text=False)
        out = clean_bytes(p.stdout, "explain")
        check(out.startswith(user_esc + " (uid 4000)") and "10-" + EVIL_ESC + "\\x0a.conf:1" in out,
              "explain: %r" % out)

        # config text reaches stderr through check's diagnostics and slicectl's errors
        t.config("4000 CPUWeight=" + EVIL + "\n", "20-bad.conf")
        p = run(t, "check", rc=1, env=env, text=False)
        err = clean_bytes(p.stderr, "check")
        check("bad CPUWeight= value '" + EVIL_ESC + "'" in err, "check escapes the value: %r" % err)
        p = run(t, "status", "u" + EVIL, rc=1, text=False)  # without the evil passwd: unknown
        err = clean_bytes(p.stderr, "unknown user")
        check(err == "slicectl: unknown user '" + user_esc + "'\n", "error line: %r" % err)
    finally:
        proc.kill()
        proc.wait()
        t.cleanup()


def case_demo_report():
    """The demo explains bob's 75 % by his own quota, not by outside load"""
    d = tempfile.mkdtemp(prefix="slicectl-cli-")
    try:
        def report(slices, ncpu):
            path = os.path.join(d, "list.json")
            with open(path, "w") as f:
                json.dump({"slices": slices}, f)
            return subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "tools", "demo-report.py"), path,
                                   str(ncpu)], capture_output=True, text=True, check=True).stdout

        bob = {"user": "bob", "weight": 100, "quota_percent": 150.0, "cpu_percent": 149.2}
        out = report([bob], 2)
        check("their CPUQuota= allows 150% of one CPU, 1.5 of the 2 CPUs" in out and "competing" not in out, out)
        out = report([dict(bob, cpu_percent=60.0)], 2)
        check("other work is competing" in out, out)
        out = report([dict(bob, quota_percent=None, cpu_percent=199.0)], 2)
        check("(" not in out.splitlines()[-1], "a full machine needs no note: %r" % out)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def complete(*words):
    """What the bash completion offers for the last word of `slicectl WORDS...`"""
    script = os.path.join(HERE, "..", "..", "slicectl", "slicectl.bash-completion")
    line = " ".join(("slicectl",) + words)
    sh = ('source "$1"; COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE=%s; COMP_POINT=${#COMP_LINE}; '
          '_slicectl; printf "%%s\\n" "${COMPREPLY[@]}"'
          % (" ".join("'%s'" % w for w in ("slicectl",) + words), len(words), "'%s'" % line))
    return subprocess.run(["bash", "-c", sh, "bash", script], capture_output=True, text=True).stdout.split()


def case_completion():
    """Bash completion knows every long option of --help, and --backend's values"""
    check(complete("--back") == ["--backend"], "--back: %r" % complete("--back"))
    check(complete("--backend", "") == ["auto", "cgroupfs", "systemd"], "--backend: %r" % complete("--backend", ""))
    check("status" in complete("--backend", "systemd", "st"), "the verb after --backend VALUE")
    helptext = run(None, "--help", raw_args=True).stdout
    longs = set(re.findall(r"(--[a-z-]+)", helptext))
    offered = set(complete("--"))
    check(longs <= offered, "options in --help but not completed: %r" % sorted(longs - offered))


def case_man():
    """slicectl(1) names every option and command of --help, and no command means list"""
    with open(os.path.join(HERE, "..", "..", "man", "slicectl.1.scd")) as f:
        man = f.read()
    helptext = run(None, "--help", raw_args=True).stdout
    for opt in sorted(set(re.findall(r"(--[a-z-]+)", helptext))):
        check("*%s*" % opt in man, "slicectl(1) lacks %s" % opt)
    verbs = re.findall(r"^  ([a-z]+) ", helptext.split("Commands:\n")[1].split("\n\n")[0], re.M)
    for verb in verbs + ["help"]:
        check("*slicectl* [_OPTIONS_] *%s*" % verb in man or "*slicectl* *%s*" % verb in man,
              "slicectl(1) SYNOPSIS lacks %s" % verb)
    check("Without a command, *slicectl* runs *list*." in man, "no verb means list")
    check("*rundir=*" in man, "the module's rundir= argument")


# Which commands take which of the options that are not for all, as the code has it:
# list and top build their tables in rows_print (TableControl), top alone refreshes, status, explain
# and check have a JSON writer each, set and unset edit a drop-in, metrics writes a textfile.
OPTIONS_BY_VERB = {
    "--json": {"list", "top", "status", "explain", "check", "penalty"},
    "--raw": {"list", "top"}, "--noheadings": {"list", "top"}, "--output": {"list", "top"},
    "--list-columns": {"list", "top"}, "--sort": {"list", "top"}, "--interval": {"list", "top"},
    "--delay": {"top"}, "--iterations": {"top"}, "--batch": {"top"},
    "--runtime": {"set", "unset"}, "--textfile": {"metrics"}, "--dry-run": {"penalty"},
}
VERBS = ["list", "status", "top", "explain", "check", "set", "unset", "apply", "gc", "reset", "metrics", "penalty"]


def case_options_by_verb():
    """#28: --help, slicectl(1) and the bash completion say which commands take which options, and
    say it truly: the JSON ones answer in JSON, the others not"""
    helptext = run(None, "--help", raw_args=True).stdout
    section = helptext.split("Options of some commands, named first:\n")[1].split("\n\n")[0]
    said, shorts = {}, {}
    for line in section.splitlines():
        m = re.match(r"^  (?:(-[A-Za-z]), |    )(--[a-z-]+)(?: [A-Z]+)? +([a-z]+(?:, [a-z]+)*): ", line)
        check(m is not None, "--help: an option line without its commands: %r" % line)
        if m:
            said[m.group(2)] = set(m.group(3).split(", "))
            shorts[m.group(2)] = m.group(1)
    check(said == OPTIONS_BY_VERB, "--help says %r" % said)

    with open(os.path.join(HERE, "..", "..", "man", "slicectl.1.scd")) as f:
        man = f.read().split("\n# OPTIONS\n")[1].split("\n# ")[0]
    for opt, verbs in OPTIONS_BY_VERB.items():
        m = re.search(r"^(?:\*-[A-Za-z]\*, )?\*%s\*[^\n]*\n\t((?:\*[a-z]+\*(?:, | and )?)+): " % re.escape(opt), man,
                      re.M)
        got = set(re.findall(r"\*([a-z]+)\*", m.group(1))) if m else None
        check(got == verbs, "slicectl(1) says %s is for %r, not %r" % (opt, got, sorted(verbs)))

    for verb in VERBS:
        offered = set(complete(verb, "-"))
        for opt, verbs in OPTIONS_BY_VERB.items():
            for o in filter(None, (opt, shorts.get(opt))):
                check((o in offered) == (verb in verbs), "completion after %s %s %s" % (
                    verb, "lacks" if verb in verbs else "offers", o))
        check("--help" in offered and "--version" in offered, "completion after %s: %r" % (verb, offered))
    # the values of options with one do not count as the command
    check("--textfile" in complete("--textfile", "/tmp", "metrics", "--t"), "metrics after --textfile DIR")
    check(complete("--bus-root", "/tmp", "top", "--bat") == ["--batch"], "top after --bus-root DIR")

    t = standard_tree("legacy")
    try:
        for args, rc in ((["list", "-i", "0"], 0), (["top", "-b", "-N", "1", "-i", "0"], 0),
                         (["status", "alice"], 0), (["explain", "alice"], 0), (["check"], 0)):
            p = run(t, "--json", *args, rc=rc)
            try:
                json.loads(p.stdout)
            except ValueError:
                check(False, "%s --json is no JSON: %r" % (args[0], p.stdout[:200]))
        p = run(t, "--json", "metrics")
        check(p.stdout.startswith("# HELP "), "metrics takes no --json: %r" % p.stdout[:100])
    finally:
        t.cleanup()


def case_module_args():
    """pam_cpuslice(8) OPTIONS names every argument the module parses, and no other"""
    root = os.path.join(HERE, "..", "..")
    with open(os.path.join(root, "pam", "pam-args.c")) as f:
        src = f.read()
    with open(os.path.join(root, "man", "pam_cpuslice.8.scd")) as f:
        man = f.read()
    options = man.split("\n# OPTIONS\n")[1].split("\n# ")[0]
    parsed = set(re.findall(r'value_of\(arg, "([a-z_]+)"\)', src))
    parsed |= set(re.findall(r'\{ "([a-z_]+)", offsetof\(ModuleArgs', src))  # the path_args table
    flags = set(re.findall(r'strcmp\(arg, "([a-z_]+)"\)', src))
    documented = set(re.findall(r"^\*([a-z_]+)=", options, re.M))
    documented_flags = set(re.findall(r"^\*([a-z_]+)\*$", options, re.M))
    check("max_scopes" in parsed, "max_scopes= is parsed: %r" % sorted(parsed))
    check(parsed == documented, "key=value arguments: parsed %r, documented %r"
          % (sorted(parsed - documented), sorted(documented - parsed)))
    check(flags == documented_flags, "flags: parsed %r, documented %r"
          % (sorted(flags - documented_flags), sorted(documented_flags - flags)))


def case_errors():
    t = Tree("legacy")
    try:
        one_line_error(run(t, "frobnicate", rc=1), "unknown command 'frobnicate'")
        one_line_error(run(t, "--bogus", "list", rc=1), "unknown option '--bogus'")
        one_line_error(run(t, "list", "--output", rc=1), "needs a value")
        one_line_error(run(t, "--cgroup-layout=v3", "list", rc=1), "unknown --cgroup-layout 'v3'")
        one_line_error(run(t, "--json", "--raw", "list", rc=1), "do not go together")
        one_line_error(run(t, "list", "--interval=soon", rc=1), "bad --interval")
        one_line_error(run(None, "--cgroup-root=/nonexistent", "--cgroup-layout=legacy", "list", rc=1,
                           raw_args=True), "/nonexistent")
        p = run(t, "--version")
        check(p.stdout.startswith("slicectl "), "version")
        p = run(t, "--help")
        check("Usage: slicectl" in p.stdout, "help")
    finally:
        t.cleanup()


def case_no_slices():
    """No user slices is said, not silence: the header and a count, as systemctl closes its
    tables; -n prints nothing, --json an empty array in the usual object; top and metrics too"""
    for how in ("no user.slice", "an empty user.slice"):
        t = Tree("hybrid")
        try:
            if how == "no user.slice":
                shutil.rmtree(t.path("cpu", "user.slice"))
            header = "USER UID SESSIONS WEIGHT QUOTA CPU% TIME THROTTLED THROTTLED-TIME PRESSURE%\n"
            p = run(t, "list", "-i", "0")
            check(p.stdout == header + "\n0 user slices listed.\n" and p.stderr == "",
                  "%s: list %r %r" % (how, p.stdout, p.stderr))
            p = run(t, "list", "-i", "0", "-o", "USER,UID")
            check(p.stdout == "USER UID\n\n0 user slices listed.\n", "%s: -o: %r" % (how, p.stdout))
            check(run(t, "list", "-i", "0", "-n").stdout == "", "%s: -n prints nothing" % how)
            check(run(t, "list", "-i", "0", "-n", "-r").stdout == "", "%s: -n -r prints nothing" % how)
            # raw is for scripts: the header line (unless -n), no count
            check(run(t, "list", "-i", "0", "-r").stdout == header, "%s: -r" % how)
            p = run(t, "list", "--json", "-i", "0")
            check(json.loads(p.stdout) == {"slices": [], "skipped": 0}, "%s: json %r" % (how, p.stdout))
            check(slices_json(p) == {}, "%s: json keys" % how)
            stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}\n"
            one = stamp + re.escape("USER UID\n\n0 user slices listed.\n")
            p = run(t, "top", "-b", "-N", "2", "-d", "10ms", "-i", "0", "-o", "USER,UID")
            check(re.fullmatch(one + "\n" + one, p.stdout) is not None, "%s: top -b: %r" % (how, p.stdout))
            p = run(t, "top", "-b", "-N", "1", "-i", "0", "--json")
            check(json.loads(p.stdout) == {"slices": [], "skipped": 0}, "%s: top --json %r" % (how, p.stdout))
            p = run(t, "metrics")
            check("\ncpuslice_slices 0\n" in p.stdout and "{" not in p.stdout and p.stderr == "",
                  "%s: metrics, the host gauges and no slice samples: %r" % (how, p.stdout))
        finally:
            t.cleanup()
    # one that is skipped: the count says so
    t = Tree("hybrid")
    try:
        t.write("cpu/user.slice/user-1234.slice", "planted\n")
        p = run(t, "list", "-i", "0", "-o", "UID")
        check(p.stdout == "UID\n\n0 user slices listed; 1 skipped (see the warnings).\n", "skipped: %r" % p.stdout)
    finally:
        t.cleanup()


CASES = {name[5:]: f for name, f in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    if CASE not in CASES:
        print("unknown case %s (%s)" % (CASE, ", ".join(sorted(CASES))), file=sys.stderr)
        sys.exit(2)
    CASES[CASE]()
    if failures:
        print("%d check(s) failed in %s" % (len(failures), CASE), file=sys.stderr)
        sys.exit(1)
    print("ok", CASE)
