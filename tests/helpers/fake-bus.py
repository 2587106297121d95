#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""fake-bus.py SOCKET RECORD MODE — a D-Bus peer on a unix socket that plays the bus daemon and
systemd's manager just far enough for pam_cpuslice's systemd backend (and busctl), and misbehaves
on demand.

Each method call it gets is appended to RECORD as one JSON line {member, args} (variants as their
bare value, booleans as 0/1); calls on org.freedesktop.DBus.Properties also carry "path".

MODE is one directive or a comma-separated list of them, e.g. `ok`, `slow=200,job-failed`,
`error=StartTransientUnit:org.freedesktop.DBus.Error.AccessDenied:2,evilmsg`:
  ok          answers the bus's Hello, AddMatch, RemoveMatch, GetNameOwner, NameHasOwner, GetId,
              Peer.Ping, and systemd's SetUnitProperties, StartTransientUnit (+ JobRemoved
              "done"), LoadUnit, GetUnit, Properties.Get (see the model below)
  slow=MS     the same, each answer MS milliseconds late
  hang-accept accepts the connection and never reads from it
  hang-auth   authenticates and answers Hello, then never answers anything
  flood       authenticates and answers Hello, then sends signals without pause and answers nothing
  no-job      answers StartTransientUnit but never sends its JobRemoved
  job-failed  sends the JobRemoved of StartTransientUnit with result "failed" instead of "done"
  error=MEMBER:ERROR[:N]
              MEMBER (any method, e.g. SetUnitProperties, StartTransientUnit, LoadUnit, Get) is
              answered with the D-Bus error ERROR; with N only the first N such calls (counted over
              all connections), later ones get their normal answer. A failed SetUnitProperties
              changes nothing. The message is systemd's for that error (table ERROR_TEXT below,
              e.g. AccessDenied "Access denied", systemd1.NoSuchUnit "Unit user-1001.slice not
              found.", systemd1.UnitExists "Unit cpuslice-1001-77.scope already exists.",
              InvalidArgs on SetUnitProperties "Value specified in CPUWeight is out of range").
  msg=TEXT    the message of every injected error (error=) instead of the table's
  msg=ERROR:TEXT  the same for the error named ERROR only. In TEXT, {unit} is the call's first
              string argument and %XX is a byte in hex (%2C for a comma, %1B for ESC, %0A newline).
  evilmsg     every error message this fake sends (injected or not) gets " \\x1b[31mred\\nline2"
              appended: an escape sequence and a newline, for the client's escaping
  sd247       SetUnitProperties as systemd 247 (before CPUWeight=idle, 252): a CPUWeight of 0 is
              refused with InvalidArgs "Value specified in CPUWeight is out of range" and nothing
              of that call is applied (the call is recorded all the same); drop-ins get 247's
              CPUQuota= (whole percent, truncated: 125000 is CPUQuota=12%)
  exists=GLOB the first StartTransientUnit whose unit name matches the shell pattern GLOB gets
              org.freedesktop.systemd1.UnitExists "Unit NAME already exists."; that name then
              exists for good (asking for it again fails again), any other name succeeds
  exists-once the same as exists=*: the first StartTransientUnit fails, a retry with another name
              succeeds
  exists-always  every StartTransientUnit gets UnitExists
  dropins=DIR SetUnitProperties with runtime=true writes each property it sets as systemd does
              into /run/systemd/system.control: DIR/UNIT.d/50-CPUWeight.conf (CPUWeight=300,
              CPUWeight=idle for 0, CPUWeight= for UINT64_MAX), 50-CPUQuota.conf (CPUQuota=50%,
              12.50% when not a whole percent, CPUQuota= for infinity), 50-CPUQuotaPeriodSec.conf
              (CPUQuotaPeriodSec=100ms as format_timespan(v, 1): 1s, 50ms, 1.500000s;
              CPUQuotaPeriodSec= for infinity),
              each under systemd's two comment lines and [Slice] (the unit type's section)
  quota-2dp   drop-ins write CPUQuota= always with two decimals (50.00%), as current systemd
              does (dbus-cgroup.c: value / 10000 "." (value % 10000) / 100, so truncated). The
              default (50%, 12.50%) is neither systemd's: older ones (247 among them) write the
              whole percent truncated (12%, as sd247 does), current ones always two decimals
  dropin-dirs=D1:D2:...
              the unit search path for DropInPaths, highest priority first; DIR of dropins= is
              searched first unless it is in this list, where its place gives its priority
An unknown or malformed directive makes the fake exit at once with a message (status 1).

The model: the last SetUnitProperties that succeeded for a unit sets its CPUWeight,
CPUQuotaPerSecUSec and CPUQuotaPeriodUSec (uint64 as sent, UINT64_MAX unset and the value of a
unit never set); other properties are refused as systemd does (PropertyReadOnly), as are values
systemd refuses (CPUWeight outside 1..10000 save 0 and UINT64_MAX; CPUQuotaPerSecUSec 0) and a
variant that is not "t". LoadUnit(s) and GetUnit(s) answer /org/freedesktop/systemd1/unit/ESCAPED
(sd_bus_path_encode: every byte but [A-Za-z0-9], and a leading digit, becomes _XX).
Properties.Get(ss) on such a path answers Unit.ActiveState "active", Unit.FragmentPath "",
Unit.DropInPaths (as) and
Slice.CPUWeight, Slice.CPUQuotaPerSecUSec, Slice.CPUQuotaPeriodUSec (t; the Scope and Service
interfaces too); anything else is UnknownProperty, another path UnknownObject, another member
UnknownMethod. DropInPaths: for each directory D of the search path, D/UNIT.d then the drop-in
directories of UNIT's dash prefixes (user-1001.slice: D/user-.slice.d), then for each D the unit
type's D/slice.d; of the *.conf files found, one per basename, the first found (the highest
priority), sorted by basename — as systemd lists them after a daemon-reload.

Runs until killed. Written for the tests only: little-endian, the types the backend uses.
"""
import fnmatch
import json
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse

SOCK, RECORD, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
GUID = "0123456789abcdef0123456789abcdef"
UINT64_MAX = (1 << 64) - 1
SD_DEST, SD_PATH = "org.freedesktop.systemd1", "/org/freedesktop/systemd1"
SD_MANAGER = "org.freedesktop.systemd1.Manager"
UNIT_PREFIX = "/org/freedesktop/systemd1/unit/"
EVIL = " \x1b[31mred\nline2"
lock = threading.Lock()


def record(member, args, path=None):
    entry = {"member": member, "args": args}
    if path is not None:
        entry["path"] = path
    with lock, open(RECORD, "a") as f:
        f.write(json.dumps(entry, default=lambda v: v.value) + "\n")


class Variant:
    """a variant as read: its signature is kept for checks, the record shows the bare value"""

    def __init__(self, sig, value):
        self.sig, self.value = sig, value


# ---------------------------------------------------------------------------------------- MODE

class Config:
    def __init__(self, mode):
        self.flags = set()
        self.delay = 0
        self.errors = []          # [member, error name, count left or None]
        self.msgs = {}            # error name or None (every one) -> text
        self.exists_globs = []    # [glob, fired]
        self.existing = set()     # unit names that exist (answered UnitExists once)
        self.dropins = None
        self.dropin_dirs = []
        for d in filter(None, mode.split(",")):
            key, _, val = d.partition("=")
            if key in ("ok", "hang-accept", "hang-auth", "flood", "no-job", "job-failed", "sd247", "evilmsg",
                       "exists-always", "quota-2dp") and not val:
                self.flags.add(key)
            elif key == "slow":
                self.delay = int(val) / 1000
            elif key == "error":
                parts = val.split(":")
                if len(parts) not in (2, 3) or not parts[0] or "." not in parts[1]:
                    sys.exit(f"fake-bus: bad directive {d!r}: error=MEMBER:ERROR[:N]")
                self.errors.append([parts[0], parts[1], int(parts[2]) if len(parts) == 3 else None])
            elif key == "msg":
                name, sep, text = val.partition(":")
                if sep and "." in name and " " not in name:
                    self.msgs[name] = urllib.parse.unquote(text)
                else:
                    self.msgs[None] = urllib.parse.unquote(val)
            elif key == "exists":
                self.exists_globs.append([val, False])
            elif key == "exists-once" and not val:
                self.exists_globs.append(["*", False])
            elif key == "dropins":
                self.dropins = val
            elif key == "dropin-dirs":
                self.dropin_dirs = [x for x in val.split(":") if x]
            else:
                sys.exit(f"fake-bus: unknown directive {d!r} in {mode!r}")

    def injected(self, member):
        """the error name to answer MEMBER with, if an error= directive still applies"""
        with lock:
            for e in self.errors:
                if e[0] == member and (e[2] is None or e[2] > 0):
                    if e[2] is not None:
                        e[2] -= 1
                    return e[1]
        return None

    def unit_exists(self, unit):
        if "exists-always" in self.flags:
            return True
        with lock:
            if unit in self.existing:
                return True
            for g in self.exists_globs:
                if not g[1] and fnmatch.fnmatchcase(unit, g[0]):
                    g[1] = True
                    self.existing.add(unit)
                    return True
        return False


CFG = Config(MODE)

# systemd's texts for the errors it sends ({unit}: the call's first string argument)
ERROR_TEXT = {
    "org.freedesktop.DBus.Error.AccessDenied": "Access denied",
    "org.freedesktop.DBus.Error.InvalidArgs": "Invalid argument",
    "org.freedesktop.DBus.Error.PropertyReadOnly": "Cannot set property {prop}, or unknown property.",
    "org.freedesktop.DBus.Error.NoReply": "Connection timed out",
    "org.freedesktop.DBus.Error.TimedOut": "Connection timed out",
    "org.freedesktop.DBus.Error.NoMemory": "Cannot allocate memory",
    "org.freedesktop.DBus.Error.ServiceUnknown":
        "The name org.freedesktop.systemd1 was not provided by any .service files",
    "org.freedesktop.DBus.Error.Disconnected": "Connection reset by peer",
    "org.freedesktop.DBus.Error.Failed": "Operation failed",
    "org.freedesktop.systemd1.NoSuchUnit": "Unit {unit} not found.",
    "org.freedesktop.systemd1.UnitExists": "Unit {unit} already exists.",
    "org.freedesktop.systemd1.UnitMasked": "Unit {unit} is masked.",
    "org.freedesktop.systemd1.LoadFailed": "Unit {unit} failed to load properly, please adjust/correct and reload "
                                           "service manager: Invalid argument",
    "org.freedesktop.systemd1.TransactionIsDestructive":
        "Transaction for {unit}/start is destructive ({unit} has 'stop' job queued, but 'start' is included in "
        "transaction).",
    "org.freedesktop.systemd1.ShuttingDown": "Refusing to start units, system is shutting down.",
}
ERROR_TEXT_FOR = {  # (error, member) where systemd says something more precise
    ("org.freedesktop.DBus.Error.InvalidArgs", "SetUnitProperties"): "Value specified in {prop} is out of range",
    ("org.freedesktop.systemd1.NoSuchUnit", "GetUnit"): "Unit {unit} not loaded.",
}


def error_text(name, member, body, injected):
    unit = body[0] if body and isinstance(body[0], str) else ""
    prop = "CPUWeight"
    if member == "SetUnitProperties" and len(body) > 2 and body[2]:
        prop = body[2][0][0]
    if injected and (name in CFG.msgs or None in CFG.msgs):
        text = CFG.msgs.get(name, CFG.msgs.get(None))
    else:
        text = ERROR_TEXT_FOR.get((name, member)) or ERROR_TEXT.get(name) or "Operation failed"
    return text.replace("{unit}", unit).replace("{prop}", prop)


# ------------------------------------------------------------------------------------ wire format

def align_of(sig):
    return {"y": 1, "g": 1, "v": 1, "n": 2, "q": 2, "t": 8, "x": 8, "d": 8, "(": 8, "{": 8}.get(sig[0], 4)


class Writer:
    def __init__(self):
        self.b = bytearray()

    def align(self, n):
        self.b += b"\0" * (-len(self.b) % n)

    def put(self, sig, v):
        c = sig[0]
        if c == "y":
            self.b += struct.pack("<B", v)
        elif c in "ub":
            self.align(4)
            self.b += struct.pack("<I", int(v))
        elif c == "i":
            self.align(4)
            self.b += struct.pack("<i", v)
        elif c in "tx":
            self.align(8)
            self.b += struct.pack("<Q" if c == "t" else "<q", v)
        elif c in "so":
            self.align(4)
            e = v.encode()
            self.b += struct.pack("<I", len(e)) + e + b"\0"
        elif c == "g":
            e = v.encode()
            self.b += struct.pack("<B", len(e)) + e + b"\0"
        elif c == "v":
            self.put("g", v[0])
            self.put(v[0], v[1])
        elif c == "a":
            inner = sig[1:sig_end(sig, 1)]
            self.align(4)
            at = len(self.b)
            self.b += b"\0\0\0\0"
            self.align(align_of(inner))
            start = len(self.b)
            for x in v:
                self.put(inner, x)
            struct.pack_into("<I", self.b, at, len(self.b) - start)
        elif c in "({":
            self.align(8)
            for s, x in zip(sig_split(sig[1:-1]), v):
                self.put(s, x)
        else:
            raise ValueError(sig)


def message(mtype, serial, fields, sig="", body=()):
    w = Writer()
    for s, v in zip(sig_split(sig), body):
        w.put(s, v)
    hdr = Writer()
    hdr.b += struct.pack("<BBBBII", ord("l"), mtype, 1, 1, len(w.b), serial)
    arr = Writer()
    for code, (s, v) in fields.items():
        arr.align(8)
        arr.put("y", code)
        arr.put("v", (s, v))
    hdr.b += struct.pack("<I", len(arr.b))
    hdr.align(8)
    hdr.b += arr.b
    hdr.align(8)
    return bytes(hdr.b + w.b)


def sig_split(sig):
    out, i = [], 0
    while i < len(sig):
        j = sig_end(sig, i)
        out.append(sig[i:j])
        i = j
    return out


def sig_end(sig, i):
    c = sig[i]
    if c == "a":
        return sig_end(sig, i + 1)
    if c in "({":
        close = ")" if c == "(" else "}"
        i += 1
        while sig[i] != close:
            i = sig_end(sig, i)
        return i + 1
    return i + 1


class Reader:
    def __init__(self, b, pos=0):
        self.b, self.p = b, pos

    def align(self, n):
        self.p += -self.p % n

    def get(self, sig, typed=False):
        c = sig[0]
        if c == "y":
            self.p += 1
            return self.b[self.p - 1]
        if c in "nq":
            self.align(2)
            self.p += 2
            return struct.unpack_from("<h" if c == "n" else "<H", self.b, self.p - 2)[0]
        if c in "ubih":
            self.align(4)
            self.p += 4
            return struct.unpack_from("<i" if c == "i" else "<I", self.b, self.p - 4)[0]
        if c in "txd":
            self.align(8)
            self.p += 8
            return struct.unpack_from({"x": "<q", "t": "<Q", "d": "<d"}[c], self.b, self.p - 8)[0]
        if c in "so":
            self.align(4)
            n = struct.unpack_from("<I", self.b, self.p)[0]
            self.p += 4 + n + 1
            return self.b[self.p - n - 1:self.p - 1].decode("utf-8", "replace")
        if c == "g":
            n = self.b[self.p]
            self.p += 1 + n + 1
            return self.b[self.p - n - 1:self.p - 1].decode()
        if c == "v":
            s = self.get("g")
            v = self.get(s, typed)
            return Variant(s, v) if typed else v
        if c == "a":
            self.align(4)
            n = struct.unpack_from("<I", self.b, self.p)[0]
            self.p += 4
            inner = sig[1:sig_end(sig, 1)]
            self.align(align_of(inner))
            end, out = self.p + n, []
            while self.p < end:
                out.append(self.get(inner, typed))
            return out
        if c in "({":
            self.align(8)
            return [self.get(s, typed) for s in sig_split(sig[1:-1])]
        raise ValueError(sig)


def read_exact(conn, n):
    b = b""
    while len(b) < n:
        k = conn.recv(n - len(b))
        if not k:
            raise EOFError
        b += k
    return b


def read_message(conn, with_type=False):
    fixed = read_exact(conn, 16)
    body_len, serial, arr_len = struct.unpack_from("<III", fixed, 4)
    rest = read_exact(conn, arr_len + (-(16 + arr_len) % 8) + body_len)
    b = fixed + rest
    r = Reader(b, 12)
    fields = dict(r.get("a(yv)"))
    r.align(8)
    sig = fields.get(8, "")
    body = [r.get(s, typed=True) for s in sig_split(sig)]
    return (fixed[1], serial, fields, body) if with_type else (serial, fields, body)


def authenticate(conn):
    buf = b""
    while True:
        while b"\r\n" not in buf:
            k = conn.recv(4096)
            if not k:
                raise EOFError
            buf += k
        line, buf = buf.split(b"\r\n", 1)
        line = line.lstrip(b"\0")
        if line == b"AUTH EXTERNAL":
            conn.sendall(b"DATA\r\n")
        elif line.startswith(b"AUTH EXTERNAL ") or line.startswith(b"DATA"):
            conn.sendall(b"OK " + GUID.encode() + b"\r\n")
        elif line == b"NEGOTIATE_UNIX_FD":
            conn.sendall(b"AGREE_UNIX_FD\r\n")
        elif line == b"BEGIN":
            return buf
        else:
            conn.sendall(b"ERROR\r\n")


class Conn:
    def __init__(self, conn):
        self.conn, self.serial = conn, 1000

    def send(self, mtype, fields, sig="", body=()):
        self.serial += 1
        self.conn.sendall(message(mtype, self.serial, fields, sig, body))

    def reply(self, serial, sender, sig="", body=()):
        f = {5: ("u", serial), 6: ("s", ":1.1"), 7: ("s", sender)}
        if sig:
            f[8] = ("g", sig)
        self.send(2, f, sig, body)

    def error(self, serial, sender, name, text):
        if "evilmsg" in CFG.flags:
            text += EVIL
        self.send(3, {4: ("s", name), 5: ("u", serial), 6: ("s", ":1.1"), 7: ("s", sender), 8: ("g", "s")}, "s",
                  (text,))


# ----------------------------------------------------------------------------------------- model

CPU_PROPS = ("CPUWeight", "CPUQuotaPerSecUSec", "CPUQuotaPeriodUSec")
units = {}  # unit name -> {property: uint64}


def bus_path_escape(s):
    """sd_bus_path_encode()'s label: every byte but [A-Za-z0-9] (and a leading digit) as _XX"""
    if not s:
        return "_"
    out = []
    for i, ch in enumerate(s.encode()):
        c = chr(ch)
        if (c.isascii() and c.isalpha()) or (i > 0 and c.isascii() and c.isdigit()):
            out.append(c)
        else:
            out.append("_%02x" % ch)
    return "".join(out)


def bus_path_unescape(label):
    if label == "_":
        return ""
    out, i = bytearray(), 0
    while i < len(label):
        if label[i] == "_":
            out.append(int(label[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(ord(label[i]))
            i += 1
    return out.decode("utf-8", "replace")


def unit_path(unit):
    return UNIT_PREFIX + bus_path_escape(unit)


def weight_ok(v):
    return v == UINT64_MAX or 1 <= v <= 10000 or (v == 0 and "sd247" not in CFG.flags)


def check_properties(props):
    """(error name, property) for what systemd would refuse in SetUnitProperties, else None"""
    for name, value in props:
        if name not in CPU_PROPS:
            return "org.freedesktop.DBus.Error.PropertyReadOnly", name
        if not isinstance(value, Variant) or value.sig != "t":
            return "org.freedesktop.DBus.Error.InvalidArgs", name
        v = value.value
        if name == "CPUWeight" and not weight_ok(v) or name == "CPUQuotaPerSecUSec" and v == 0:
            return "org.freedesktop.DBus.Error.InvalidArgs", name
    return None


def format_timespan(t):
    """systemd's format_timespan(t, accuracy 1)"""
    if t == UINT64_MAX:
        return "infinity"
    if t == 0:
        return "0"
    table = [("y", 31557600000000), ("month", 2629800000000), ("w", 604800000000), ("d", 86400000000),
             ("h", 3600000000), ("min", 60000000), ("s", 1000000), ("ms", 1000), ("us", 1)]
    parts = []
    for suffix, usec in table:
        if t <= 0:
            break
        if t < usec:
            continue
        a, b = divmod(t, usec)
        if t < 60000000 and b > 0:  # below a minute: the rest as decimals of this unit
            j = len(str(usec)) - 1
            parts.append("%d.%0*d%s" % (a, j, b, suffix))
            t = 0
            break
        parts.append("%d%s" % (a, suffix))
        t = b
    return " ".join(parts)


def setting_line(name, v):
    """(drop-in name, line) as systemd's bus_cgroup_set_property writes them"""
    if name == "CPUWeight":
        return "CPUWeight", "CPUWeight=" + ("" if v == UINT64_MAX else "idle" if v == 0 else str(v))
    if name == "CPUQuotaPerSecUSec":
        if v == UINT64_MAX:
            return "CPUQuota", "CPUQuota="
        whole, rest = divmod(v, 10000)
        if "sd247" in CFG.flags:  # "CPUQuota=%0.f%%" of the integer division: truncated
            return "CPUQuota", "CPUQuota=%d%%" % whole
        if rest == 0 and "quota-2dp" not in CFG.flags:
            return "CPUQuota", "CPUQuota=%d%%" % whole
        return "CPUQuota", "CPUQuota=%d.%02d%%" % (whole, rest // 100)  # truncated, as systemd does
    return "CPUQuotaPeriodSec", "CPUQuotaPeriodSec=" + ("" if v == UINT64_MAX else format_timespan(v))


UNIT_SECTIONS = {"slice": "Slice", "scope": "Scope", "service": "Service", "socket": "Socket", "mount": "Mount",
                 "swap": "Swap"}


def write_dropin(unit, name, v):
    key, line = setting_line(name, v)
    d = os.path.join(CFG.dropins, unit + ".d")
    os.makedirs(d, exist_ok=True)
    section = UNIT_SECTIONS.get(unit.rpartition(".")[2], "Unit")
    text = ('# This is a drop-in unit file extension, created via "systemctl set-property"\n'
            "# or an equivalent operation. Do not edit.\n"
            f"[{section}]\n{line}\n")
    tmp = os.path.join(d, f".#50-{key}.conf")
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, os.path.join(d, f"50-{key}.conf"))


def set_properties(unit, runtime, props):
    with lock:
        state = units.setdefault(unit, {})
        for name, value in props:
            state[name] = value.value
            if CFG.dropins and runtime:
                try:
                    write_dropin(unit, name, value.value)
                except OSError as e:  # systemd does not fail the call either
                    print(f"fake-bus: writing the drop-in for {unit} {name}: {e}", file=sys.stderr)


def prefix_names(unit):
    """the dash prefixes systemd also reads drop-ins for: a-b-c.slice -> a-b-.slice, a-.slice"""
    stem, dot, utype = unit.rpartition(".")
    if not dot or "@" in stem:
        return []
    out, prefix, chopped = [], stem, False
    while True:
        dash = prefix.rfind("-")
        if dash <= 0:
            return out
        if dash + 1 < len(prefix) or chopped:
            prefix = prefix[:dash + 1]
            out.append(prefix + "." + utype)
            chopped = False
            # the next level starts from "a-b-": its trailing dash is chopped once
        else:
            prefix, chopped = prefix[:dash], True


def dropin_paths(unit):
    search = list(CFG.dropin_dirs)
    if CFG.dropins and CFG.dropins not in search:
        search.insert(0, CFG.dropins)
    names = [unit] + prefix_names(unit)
    dirs = [os.path.join(d, n + ".d") for d in search for n in names]
    dirs += [os.path.join(d, unit.rpartition(".")[2] + ".d") for d in search]
    found = {}
    for d in dirs:
        try:
            entries = sorted(os.listdir(d))
        except OSError:
            continue
        for e in entries:
            p = os.path.join(d, e)
            if e.endswith(".conf") and not e.startswith(".") and e not in found and os.path.isfile(p):
                found[e] = p
    return [found[e] for e in sorted(found)]


def get_property(path, iface, prop):
    """(signature, value) or (error name, text)"""
    if not path.startswith(UNIT_PREFIX) or path == UNIT_PREFIX:
        return None, ("org.freedesktop.DBus.Error.UnknownObject", f"Unknown object '{path}'.")
    unit = bus_path_unescape(path[len(UNIT_PREFIX):])
    if iface == "org.freedesktop.systemd1.Unit" and prop == "ActiveState":
        return ("s", "active"), None
    if iface == "org.freedesktop.systemd1.Unit" and prop == "DropInPaths":
        return ("as", dropin_paths(unit)), None
    if iface == "org.freedesktop.systemd1.Unit" and prop == "FragmentPath":
        return ("s", ""), None  # a unit with no file of its own, as systemd says for a transient one
    if iface in ("org.freedesktop.systemd1.Slice", "org.freedesktop.systemd1.Scope",
                 "org.freedesktop.systemd1.Service") and prop in CPU_PROPS:
        with lock:
            return ("t", units.get(unit, {}).get(prop, UINT64_MAX)), None
    return None, ("org.freedesktop.DBus.Error.UnknownProperty", f"Unknown interface {iface} or property {prop}.")


# ----------------------------------------------------------------------------------------- serve

def serve(conn):
    c = Conn(conn)
    if "hang-accept" in CFG.flags:
        time.sleep(3600)
    pending = authenticate(conn)
    assert not pending
    hello_done = False
    while True:
        if "flood" in CFG.flags and hello_done:
            conn.setblocking(False)
            while True:
                try:
                    c.send(4, {1: ("o", SD_PATH), 2: ("s", SD_MANAGER),
                               3: ("s", "UnitNew"), 7: ("s", SD_DEST), 8: ("g", "so")},
                           "so", ("x.scope", "/org/freedesktop/systemd1/unit/x"))
                except BlockingIOError:
                    time.sleep(0.001)
        mtype, serial, fields, body = read_message(conn, with_type=True)
        if mtype != 1:
            continue  # a reply, an error or a signal: not a call, nothing to answer or record
        member, iface, path = fields.get(3, ""), fields.get(2, ""), fields.get(1, "")
        record(member, body, path if iface == "org.freedesktop.DBus.Properties" else None)
        if member == "Hello":
            c.reply(serial, "org.freedesktop.DBus", "s", (":1.1",))
            hello_done = True
            continue
        if "hang-auth" in CFG.flags or "flood" in CFG.flags:
            continue
        time.sleep(CFG.delay)
        answer(c, serial, member, iface, path, fields, body)


def plain(v):
    return v.value if isinstance(v, Variant) else v


def answer(c, serial, member, iface, path, fields, body):
    dest = fields.get(6, SD_DEST)
    sender = "org.freedesktop.DBus" if dest == "org.freedesktop.DBus" else SD_DEST
    injected = CFG.injected(member)
    if injected:
        c.error(serial, sender, injected, error_text(injected, member, body, True))
        return
    if member in ("AddMatch", "RemoveMatch"):
        c.reply(serial, "org.freedesktop.DBus")
    elif member == "GetNameOwner" and dest == "org.freedesktop.DBus":  # systemd's unique name
        c.reply(serial, "org.freedesktop.DBus", "s", (":1.0",))
    elif member == "NameHasOwner" and dest == "org.freedesktop.DBus":
        c.reply(serial, "org.freedesktop.DBus", "b", (1,))
    elif member == "GetId" and dest == "org.freedesktop.DBus":
        c.reply(serial, "org.freedesktop.DBus", "s", (GUID,))
    elif member in ("Ping", "GetMachineId") and iface in ("org.freedesktop.DBus.Peer", ""):
        if member == "Ping":
            c.reply(serial, sender)
        else:
            c.reply(serial, sender, "s", (GUID,))
    elif member == "SetUnitProperties":
        unit, runtime, props = body[0], plain(body[1]), body[2]
        bad = check_properties(props)
        if bad:
            name, prop = bad
            text = (f"Cannot set property {prop}, or unknown property." if name.endswith("PropertyReadOnly")
                    else "CPUQuotaPerSecUSec= value out of range" if prop == "CPUQuotaPerSecUSec"
                    else f"Value specified in {prop} is out of range")
            c.error(serial, SD_DEST, name, text)
            return
        set_properties(unit, runtime, props)
        c.reply(serial, SD_DEST)
    elif member == "StartTransientUnit":
        unit = body[0]
        if CFG.unit_exists(unit):
            c.error(serial, SD_DEST, "org.freedesktop.systemd1.UnitExists", f"Unit {unit} already exists.")
            return
        with lock:
            units.setdefault(unit, {})
        job = "/org/freedesktop/systemd1/job/42"
        c.reply(serial, SD_DEST, "o", (job,))
        if "no-job" not in CFG.flags:
            result = "failed" if "job-failed" in CFG.flags else "done"
            c.send(4, {1: ("o", SD_PATH), 2: ("s", SD_MANAGER),
                       3: ("s", "JobRemoved"), 7: ("s", SD_DEST), 8: ("g", "uoss")},
                   "uoss", (42, job, unit, result))
    elif member in ("LoadUnit", "GetUnit") and body and isinstance(body[0], str):
        c.reply(serial, SD_DEST, "o", (unit_path(body[0]),))
    elif member == "Get" and iface == "org.freedesktop.DBus.Properties" and len(body) == 2:
        value, err = get_property(path, body[0], body[1])
        if err:
            c.error(serial, SD_DEST, *err)
        else:
            c.reply(serial, SD_DEST, "v", (value,))
    else:
        c.error(serial, sender, "org.freedesktop.DBus.Error.UnknownMethod", "unknown method " + member)


def main():
    # listening before the name appears: a client that finds the socket must not be refused
    tmp = SOCK + ".new"
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(tmp)
    os.chmod(tmp, 0o666)
    s.listen(16)
    os.rename(tmp, SOCK)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=run, args=(conn,), daemon=True).start()


def run(conn):
    try:
        serve(conn)
    except (EOFError, ConnectionError, OSError):
        pass
    finally:
        conn.close()


if __name__ == "__main__":
    main()
