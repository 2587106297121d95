#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""fake-bus-selftest.py [FAKE_BUS] — checks tests/helpers/fake-bus.py against busctl (systemd's
own sd-bus client) and a raw client for what busctl cannot show (signals, exact error bytes).
Not registered in meson: run it by hand after changing the fake. Prints one line per check."""
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "fake-bus.py")
BUSCTL = shutil.which("busctl")
MAX = (1 << 64) - 1
SLICE_PATH = "/org/freedesktop/systemd1/unit/user_2d1001_2eslice"
MGR = ("org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager")

# the fake's own codec for the raw client (its module code reads argv at import: give it a mode)
_argv, sys.argv = sys.argv, ["fake-bus.py", "", "", "ok"]
spec = importlib.util.spec_from_file_location("fakebus", FAKE)
fb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fb)
sys.argv = _argv

T = tempfile.mkdtemp(prefix="fake-bus-selftest.")
failures = 0
started = []  # every fake, stopped at the end whatever happens


def check(ok, what, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail}"))
    if not ok:
        failures += 1


class Bus:
    def __init__(self, mode):
        self.sock, self.rec = os.path.join(T, "bus"), os.path.join(T, "record")
        for p in (self.sock, self.rec):
            if os.path.exists(p):
                os.unlink(p)
        open(self.rec, "w").close()
        self.p = subprocess.Popen([sys.executable, FAKE, self.sock, self.rec, mode], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        started.append(self)
        for _ in range(100):
            if os.path.exists(self.sock) or self.p.poll() is not None:
                break
            time.sleep(0.05)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        self.p.wait()

    def busctl(self, *args, timeout="2"):
        r = subprocess.run([BUSCTL, f"--address=unix:path={self.sock}", f"--timeout={timeout}", *args],
                           capture_output=True, text=True, timeout=30)
        return r.returncode, r.stdout + r.stderr

    def call(self, member, sig, *args, **kw):
        return self.busctl("call", *MGR, member, sig, *map(str, args), **kw)

    def get(self, iface, *props, path=SLICE_PATH):
        return self.busctl("get-property", "org.freedesktop.systemd1", path, iface, *props)

    def records(self):
        with open(self.rec) as f:
            return [json.loads(x) for x in f]

    def record_text(self):
        with open(self.rec) as f:
            return f.read()


class Raw:
    """a client speaking the wire format itself: sees errors byte for byte and signals"""

    def __init__(self, sock, timeout=2.0):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect(sock)
        self.s.sendall(b"\0AUTH EXTERNAL 30\r\nBEGIN\r\n")
        buf = b""
        while b"\r\n" not in buf:
            buf += self.s.recv(1)
        self.serial = 0
        self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")
        self.wait_reply()

    def call(self, dest, path, iface, member, sig="", body=()):
        self.serial += 1
        f = {1: ("o", path), 2: ("s", iface), 3: ("s", member), 6: ("s", dest)}
        if sig:
            f[8] = ("g", sig)
        self.s.sendall(fb.message(1, self.serial, f, sig, body))
        return self.serial

    def next(self):
        _, fields, body = fb.read_message(self.s)
        return fields, [x.value if isinstance(x, fb.Variant) else x for x in body]

    def wait_reply(self):
        while True:
            fields, body = self.next()
            if fields.get(5) == self.serial:
                return fields.get(4), body  # error name (None for a return), body

    def start_scope(self, name):
        self.call(*MGR, "StartTransientUnit", "ssa(sv)a(sa(sv))",
                  (name, "fail", [["Slice", ("s", "user-1001.slice")], ["PIDs", ("au", [77])]], []))
        return self.wait_reply()

    def job_removed(self):
        while True:
            fields, body = self.next()
            if fields.get(3) == "JobRemoved":
                return body


def set_props(bus, *pairs, unit="user-1001.slice", runtime="true"):
    args = []
    for name, v in pairs:
        args += [name, "t", v]
    return bus.call("SetUnitProperties", "sba(sv)", unit, runtime, len(pairs), *args)


def dropin(d, unit, key):
    with open(os.path.join(d, unit + ".d", f"50-{key}.conf")) as f:
        return f.read()


HEADER = ('# This is a drop-in unit file extension, created via "systemctl set-property"\n'
          "# or an equivalent operation. Do not edit.\n")


def main():
    if not BUSCTL:
        print("SKIP: busctl is needed")
        return 77

    # ------------------------------------------------------------------ ok and the record format
    b = Bus("ok")
    rc, out = set_props(b, ("CPUWeight", 300), ("CPUQuotaPerSecUSec", 500000), ("CPUQuotaPeriodUSec", MAX))
    check(rc == 0, "ok: SetUnitProperties answered", out)
    check('"SetUnitProperties", "args": ["user-1001.slice", 1, [["CPUWeight", 300], ["CPUQuotaPerSecUSec", 500000]'
          in b.record_text(), "ok: record line as test-bus.sh greps it", b.record_text())
    r = Raw(b.sock)
    err, body = r.start_scope("cpuslice-1001-77.scope")
    jr = r.job_removed()
    check(err is None and jr == [42, body[0], "cpuslice-1001-77.scope", "done"],
          "ok: StartTransientUnit + JobRemoved done",
          (err, body, jr))
    check(any(x["member"] == "StartTransientUnit" and x["args"][:2] == ["cpuslice-1001-77.scope", "fail"]
              and x["args"][2] == [["Slice", "user-1001.slice"], ["PIDs", [77]]] for x in b.records()),
          "ok: StartTransientUnit record", b.record_text())
    rc, out = b.call("LoadUnit", "s", "user-1001.slice")
    check(rc == 0 and SLICE_PATH in out, "LoadUnit: escaped path", out)
    rc, out = b.call("GetUnit", "s", "cpuslice-1001-77.scope")
    check(rc == 0 and "/org/freedesktop/systemd1/unit/cpuslice_2d1001_2d77_2escope" in out, "GetUnit: escaped path",
          out)
    rc, out = b.call("GetUnit", "s", "1x.slice")
    check(rc == 0 and "/unit/_31x_2eslice" in out, "GetUnit: a leading digit escaped as sd_bus_path_encode does", out)
    rc, out = b.get("org.freedesktop.systemd1.Slice", "CPUWeight", "CPUQuotaPerSecUSec", "CPUQuotaPeriodUSec")
    check(rc == 0 and out.split("\n")[:3] == ["t 300", "t 500000", f"t {MAX}"], "Get: the model's values", out)
    rc, out = b.get("org.freedesktop.systemd1.Unit", "ActiveState")
    check(rc == 0 and out.strip() == 's "active"', "Get: ActiveState", out)
    rc, out = b.get("org.freedesktop.systemd1.Unit", "DropInPaths")
    check(rc == 0 and out.strip() == "as 0", "Get: DropInPaths empty without drop-in directories", out)
    rc, out = b.get("org.freedesktop.systemd1.Slice", "CPUWeight",
                    path="/org/freedesktop/systemd1/unit/user_2d2_2eslice")
    check(rc == 0 and out.strip() == f"t {MAX}", "Get: a unit never set reads UINT64_MAX", out)
    rc, out = b.get("org.freedesktop.systemd1.Slice", "MemoryMax")
    check(rc != 0 and "Unknown interface org.freedesktop.systemd1.Slice or property MemoryMax" in out,
          "Get: unknown property refused", out)
    check(any(x["member"] == "Get" and x.get("path") == SLICE_PATH and x["args"] == ["org.freedesktop.systemd1.Slice",
              "MemoryMax"] for x in b.records()), "Get recorded with its path", b.record_text())
    rc, out = b.call("Frobnicate", "")
    check(rc != 0 and "unknown method Frobnicate" in out, "unknown member: UnknownMethod", out)
    rc, out = set_props(b, ("CPUWeight", 10001))
    check(rc != 0 and "Value specified in CPUWeight is out of range" in out, "ok: CPUWeight=10001 refused", out)
    rc, out = set_props(b, ("CPUQuotaPerSecUSec", 0))
    check(rc != 0 and "CPUQuotaPerSecUSec= value out of range" in out, "ok: CPUQuotaPerSecUSec=0 refused", out)
    rc, out = b.call("SetUnitProperties", "sba(sv)", "user-1001.slice", "true", 1, "MemoryMax", "t", 1)
    check(rc != 0 and "Cannot set property MemoryMax, or unknown property." in out, "ok: unknown property refused", out)
    rc, out = b.call("SetUnitProperties", "sba(sv)", "user-1001.slice", "true", 1, "CPUWeight", "u", 5)
    check(rc != 0 and "out of range" in out, "ok: CPUWeight as u refused", out)
    rc, out = b.get("org.freedesktop.systemd1.Slice", "CPUWeight")
    check(out.strip() == "t 300", "refused calls changed nothing", out)
    rc, out = set_props(b, ("CPUWeight", 0))
    rc2, out2 = b.get("org.freedesktop.systemd1.Slice", "CPUWeight")
    check(rc == 0 and out2.strip() == "t 0", "ok: CPUWeight=idle (0) accepted as systemd 252", out + out2)
    b.stop()

    # ------------------------------------------------------------------------ error injection
    b = Bus("error=SetUnitProperties:org.freedesktop.DBus.Error.InvalidArgs")
    rc, out = set_props(b, ("CPUWeight", 300))
    check(rc != 0 and "Value specified in CPUWeight is out of range" in out, "error=SetUnitProperties:InvalidArgs", out)
    rc, out = b.get("org.freedesktop.systemd1.Slice", "CPUWeight")
    check(out.strip() == f"t {MAX}", "error=: the failed call applied nothing", out)
    check(len([x for x in b.records() if x["member"] == "SetUnitProperties"]) == 1, "error=: the call is recorded")
    b.stop()

    b = Bus("error=StartTransientUnit:org.freedesktop.DBus.Error.AccessDenied:2")
    r = Raw(b.sock)
    res = [r.start_scope(f"cpuslice-1001-{i}.scope") for i in range(3)]
    check([x[0] for x in res] == ["org.freedesktop.DBus.Error.AccessDenied"] * 2 + [None]
          and res[0][1] == ["Access denied"], "error=StartTransientUnit:AccessDenied:2: two fail, the third works", res)
    r2 = Raw(b.sock)
    check(r2.start_scope("cpuslice-1001-9.scope")[0] is None, "error=...:N counts over all connections")
    b.stop()

    b = Bus("error=SetUnitProperties:org.freedesktop.systemd1.NoSuchUnit,"
            "error=GetUnit:org.freedesktop.systemd1.NoSuchUnit")
    rc, out = set_props(b, ("CPUWeight", 300))
    check(rc != 0 and "Unit user-1001.slice not found." in out, "error=SetUnitProperties:NoSuchUnit", out)
    rc, out = b.call("GetUnit", "s", "user-1001.slice")
    check(rc != 0 and "Unit user-1001.slice not loaded." in out, "error=GetUnit:NoSuchUnit (systemd's GetUnit text)",
          out)
    b.stop()

    b = Bus("error=SetUnitProperties:org.freedesktop.DBus.Error.AccessDenied,"
            "msg=org.freedesktop.DBus.Error.AccessDenied:Permission denied for {unit}%2C by policy,"
            "error=LoadUnit:org.freedesktop.DBus.Error.Failed,msg=everything else")
    r = Raw(b.sock)  # busctl shows its own "Access denied" for AccessDenied, whatever the text
    r.call(*MGR, "SetUnitProperties", "sba(sv)", ("user-1001.slice", 1, [["CPUWeight", ("t", 300)]]))
    err, body = r.wait_reply()
    check(body == ["Permission denied for user-1001.slice, by policy"], "msg=ERROR:TEXT with {unit} and %2C", body)
    rc, out = b.call("LoadUnit", "s", "user-1001.slice")
    check(rc != 0 and "everything else" in out, "msg=TEXT for the other injected errors", out)
    b.stop()

    b = Bus("evilmsg,error=SetUnitProperties:org.freedesktop.DBus.Error.AccessDenied")
    r = Raw(b.sock)
    r.call(*MGR, "SetUnitProperties", "sba(sv)", ("user-1001.slice", 1, [["CPUWeight", ("t", 300)]]))
    err, body = r.wait_reply()
    check(err == "org.freedesktop.DBus.Error.AccessDenied" and body == ["Access denied \x1b[31mred\nline2"],
          "evilmsg: injected error text", body)
    r.call(*MGR, "Frobnicate")
    err, body = r.wait_reply()
    check(body[0].endswith("\x1b[31mred\nline2"), "evilmsg: any error text", body)
    rc, out = b.get("org.freedesktop.systemd1.Slice", "MemoryMax")
    check(rc != 0 and "or property MemoryMax. \x1b[31mred\nline2" in out,
          "evilmsg: sd-bus (busctl) accepts and shows it", repr(out))
    b.stop()

    # ------------------------------------------------------------------------------- sd247
    b = Bus("sd247")
    rc, out = set_props(b, ("CPUQuotaPerSecUSec", 500000), ("CPUWeight", 0))
    check(rc != 0 and "Value specified in CPUWeight is out of range" in out, "sd247: CPUWeight=0 refused", out)
    rc, out = b.get("org.freedesktop.systemd1.Slice", "CPUWeight", "CPUQuotaPerSecUSec")
    check(out.split("\n")[:2] == [f"t {MAX}", f"t {MAX}"], "sd247: nothing of the call applied", out)
    check(len([x for x in b.records() if x["member"] == "SetUnitProperties"]) == 1, "sd247: the call recorded")
    r = Raw(b.sock)
    r.call(*MGR, "SetUnitProperties", "sba(sv)", ("user-1001.slice", 1, [["CPUWeight", ("t", 0)]]))
    check(r.wait_reply()[0] == "org.freedesktop.DBus.Error.InvalidArgs", "sd247: the error is InvalidArgs")
    rc, out = set_props(b, ("CPUWeight", 1), ("CPUQuotaPerSecUSec", 500000))
    rc2, out2 = b.get("org.freedesktop.systemd1.Slice", "CPUWeight")
    check(rc == 0 and out2.strip() == "t 1", "sd247: CPUWeight=1 (the fallback) applied", out + out2)
    b.stop()

    # ----------------------------------------------------------------------- jobs and exists
    for mode, result in (("job-failed", "failed"), ("slow=10,job-failed", "failed")):
        b = Bus(mode)
        r = Raw(b.sock)
        err, _ = r.start_scope("cpuslice-1001-77.scope")
        jr = r.job_removed()
        check(err is None and jr[3] == result, f"{mode}: JobRemoved result {result}", jr)
        b.stop()

    b = Bus("exists-once")
    r = Raw(b.sock)
    res = [r.start_scope("cpuslice-1001-77.scope"), r.start_scope("cpuslice-1001-77-1.scope")]
    check(res[0] == ("org.freedesktop.systemd1.UnitExists", ["Unit cpuslice-1001-77.scope already exists."])
          and res[1][0] is None, "exists-once: first UnitExists, a retry with another name works", res)
    check(r.job_removed()[2] == "cpuslice-1001-77-1.scope", "exists-once: the retry's JobRemoved")
    b.stop()

    b = Bus("exists=cpuslice-*-77.scope")
    r = Raw(b.sock)
    res = [r.start_scope(n)[0] for n in ("cpuslice-1001-5.scope", "cpuslice-1001-77.scope", "cpuslice-1001-77.scope",
                                         "cpuslice-1001-78.scope")]
    check(res == [None, "org.freedesktop.systemd1.UnitExists", "org.freedesktop.systemd1.UnitExists", None],
          "exists=GLOB: only matching, then that name stays taken", res)
    b.stop()

    b = Bus("exists-always")
    r = Raw(b.sock)
    res = [r.start_scope(f"cpuslice-1001-{i}.scope")[0] for i in range(3)]
    check(res == ["org.freedesktop.systemd1.UnitExists"] * 3, "exists-always", res)
    b.stop()

    # ------------------------------------------------------------------------------- drop-ins
    run, etc, usr = (os.path.join(T, d) for d in ("run", "etc", "usr"))
    b = Bus(f"dropins={run}")
    cases = [((300, 500000, 100000), ("CPUWeight=300", "CPUQuota=50%", "CPUQuotaPeriodSec=100ms")),
             ((0, 125000, 1000000), ("CPUWeight=idle", "CPUQuota=12.50%", "CPUQuotaPeriodSec=1s")),
             ((MAX, MAX, MAX), ("CPUWeight=", "CPUQuota=", "CPUQuotaPeriodSec=")),
             ((10000, 2000000, 50000), ("CPUWeight=10000", "CPUQuota=200%", "CPUQuotaPeriodSec=50ms"))]
    for (w, q, p), lines in cases:
        rc, out = set_props(b, ("CPUWeight", w), ("CPUQuotaPerSecUSec", q), ("CPUQuotaPeriodUSec", p))
        got = [dropin(run, "user-1001.slice", k) for k in ("CPUWeight", "CPUQuota", "CPUQuotaPeriodSec")]
        want = [HEADER + "[Slice]\n" + ln + "\n" for ln in lines]
        check(rc == 0 and got == want, f"dropins: {w},{q},{p} -> {' '.join(lines)}", got)
    rc, out = set_props(b, ("CPUQuotaPerSecUSec", 126666))
    check(dropin(run, "user-1001.slice", "CPUQuota").endswith("CPUQuota=12.66%\n"), "dropins: hundredths truncated")
    rc, out = set_props(b, ("CPUWeight", 7), unit="user-1002.slice", runtime="false")
    check(not os.path.exists(os.path.join(run, "user-1002.slice.d")), "dropins: runtime=false writes nothing here")
    rc, out = set_props(b, ("CPUWeight", 7), ("CPUWeight", 10001), unit="user-1003.slice")
    check(not os.path.exists(os.path.join(run, "user-1003.slice.d")), "dropins: a refused call writes nothing")
    b.stop()
    for mode, lines in (("quota-2dp", ("CPUQuota=50.00%", "CPUQuota=12.50%")),
                        ("sd247", ("CPUQuota=50%", "CPUQuota=12%"))):
        b = Bus(f"dropins={run},{mode}")
        got = []
        for q in (500000, 125000):
            set_props(b, ("CPUQuotaPerSecUSec", q))
            got.append(dropin(run, "user-1001.slice", "CPUQuota").splitlines()[-1])
        check(tuple(got) == lines, f"dropins,{mode}: {' '.join(lines)}", got)
        b.stop()
    # format_timespan against systemd's own (systemd-analyze timespan)
    sa = shutil.which("systemd-analyze")
    if sa:
        vals = [1, 999, 1000, 1234, 12500, 50000, 100000, 999999, 1000000, 1500000, 59999999, 60000000, 90000000,
                3723000001, 86400000000 * 9]
        r = subprocess.run([sa, "timespan"] + [f"{v}us" for v in vals], capture_output=True, text=True)
        human = [ln.split(":", 1)[1].strip() for ln in r.stdout.splitlines() if ln.strip().startswith("Human:")]
        mine = [fb.format_timespan(v) for v in vals]
        check(human == mine, "CPUQuotaPeriodSec timespans as systemd-analyze prints them", list(zip(vals, human, mine)))

    # DropInPaths: etc > run (DIR placed by dropin-dirs) > usr; basename once; sorted by basename
    def put(path, text="[Slice]\n"):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    put(f"{etc}/user-1001.slice.d/50-CPUWeight.conf")        # overrides run's
    put(f"{etc}/user-.slice.d/20-etc-prefix.conf")
    put(f"{usr}/user-.slice.d/10-defaults.conf")             # systemd's own user-.slice.d
    put(f"{usr}/user-.slice.d/20-etc-prefix.conf")           # hidden by etc's
    put(f"{usr}/slice.d/05-all-slices.conf")
    put(f"{usr}/user-1002.slice.d/99-other-user.conf")       # another unit: not listed
    put(f"{usr}/user-1001.slice.d/not-a-conf.txt")
    b = Bus(f"dropins={run},dropin-dirs={etc}:{run}:{usr}")
    rc, out = b.get("org.freedesktop.systemd1.Unit", "DropInPaths")
    want = [f"{usr}/slice.d/05-all-slices.conf", f"{usr}/user-.slice.d/10-defaults.conf",
            f"{etc}/user-.slice.d/20-etc-prefix.conf", f"{run}/user-1001.slice.d/50-CPUQuota.conf",
            f"{run}/user-1001.slice.d/50-CPUQuotaPeriodSec.conf", f"{etc}/user-1001.slice.d/50-CPUWeight.conf"]
    check(rc == 0 and out.strip() == "as 6 " + " ".join(f'"{w}"' for w in want), "DropInPaths: priority and order",
          out)
    b.stop()
    b = Bus(f"dropins={run},dropin-dirs={etc}:{usr}")  # DIR not listed: searched first
    rc, out = b.get("org.freedesktop.systemd1.Unit", "DropInPaths")
    check(f"{run}/user-1001.slice.d/50-CPUWeight.conf" in out
          and f"{etc}/user-1001.slice.d/50-CPUWeight.conf" not in out,
          "DropInPaths: DIR first when not in dropin-dirs", out)
    b.stop()

    # --------------------------------------------------------------------- the older modes
    b = Bus("hang-accept")  # busctl's --timeout does not bound the authentication: the raw client
    try:
        Raw(b.sock, timeout=0.5)
        hung = False
    except socket.timeout:
        hung = True
    check(hung, "hang-accept: no answer to the authentication")
    b.stop()
    b = Bus("hang-auth")
    rc, out = b.call("LoadUnit", "s", "user-1001.slice", timeout="1")
    check(rc != 0 and [x["member"] for x in b.records()] == ["Hello", "LoadUnit"], "hang-auth: Hello only answered",
          out + b.record_text())
    b.stop()
    b = Bus("flood")
    r = Raw(b.sock)
    r.call(*MGR, "LoadUnit", "s", ("user-1001.slice",))
    n = 0
    for _ in range(200):
        fields, _ = r.next()
        n += fields.get(3) == "UnitNew"
    check(n == 200, "flood: signals without pause")
    b.stop()
    b = Bus("no-job")
    r = Raw(b.sock, timeout=0.5)
    err, _ = r.start_scope("cpuslice-1001-77.scope")
    try:
        r.job_removed()
        got = True
    except socket.timeout:
        got = False
    check(err is None and not got, "no-job: answered, no JobRemoved")
    b.stop()
    b = Bus("slow=300")
    t0 = time.monotonic()
    rc, out = set_props(b, ("CPUWeight", 300))
    check(rc == 0 and time.monotonic() - t0 >= 0.3, "slow=300: answered late", out)
    b.stop()
    b = Bus("ok,bogus")
    check(b.p.wait() != 0 and b"unknown directive 'bogus'" in b.p.stdout.read(), "an unknown directive is refused")
    b = Bus("error=SetUnitProperties")
    check(b.p.wait() != 0, "error= without an error name is refused")

    print("PASS" if not failures else f"{failures} FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        for bus in started:
            bus.stop()
        shutil.rmtree(T, ignore_errors=True)
    sys.exit(rc)
