#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""fake-bus.py SOCKET RECORD MODE — a D-Bus peer on a unix socket that plays the bus daemon and
systemd's manager just far enough for pam_cpuslice's systemd backend, and misbehaves on demand.

Each method call it gets is appended to RECORD as one JSON line {member, args}. MODE:
  ok          answers Hello, AddMatch, SetUnitProperties, StartTransientUnit (+ JobRemoved "done")
  slow=MS     the same, each answer MS milliseconds late
  hang-accept accepts the connection and never reads from it
  hang-auth   authenticates and answers Hello, then never answers anything
  flood       authenticates and answers Hello, then sends signals without pause and answers nothing
  no-job      answers StartTransientUnit but never sends its JobRemoved
Runs until killed. Written for the tests only: little-endian, the types the backend uses.
"""
import json
import os
import socket
import struct
import sys
import threading
import time

SOCK, RECORD, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
GUID = "0123456789abcdef0123456789abcdef"
lock = threading.Lock()


def record(member, args):
    with lock, open(RECORD, "a") as f:
        f.write(json.dumps({"member": member, "args": args}) + "\n")


class Writer:
    def __init__(self):
        self.b = bytearray()

    def align(self, n):
        self.b += b"\0" * (-len(self.b) % n)

    def put(self, sig, v):
        if sig == "y":
            self.b += struct.pack("<B", v)
        elif sig in "ub":
            self.align(4)
            self.b += struct.pack("<I", int(v))
        elif sig in "so":
            self.align(4)
            e = v.encode()
            self.b += struct.pack("<I", len(e)) + e + b"\0"
        elif sig == "g":
            e = v.encode()
            self.b += struct.pack("<B", len(e)) + e + b"\0"
        elif sig == "v":
            self.put("g", v[0])
            self.put(v[0], v[1])
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
    if c == "(":
        i += 1
        while sig[i] != ")":
            i = sig_end(sig, i)
        return i + 1
    return i + 1


class Reader:
    def __init__(self, b, pos=0):
        self.b, self.p = b, pos

    def align(self, n):
        self.p += -self.p % n

    def get(self, sig):
        c = sig[0]
        if c == "y":
            self.p += 1
            return self.b[self.p - 1]
        if c in "ubi":
            self.align(4)
            self.p += 4
            return struct.unpack_from("<i" if c == "i" else "<I", self.b, self.p - 4)[0]
        if c in "tx":
            self.align(8)
            self.p += 8
            return struct.unpack_from("<q" if c == "x" else "<Q", self.b, self.p - 8)[0]
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
            return self.get(s)
        if c == "a":
            self.align(4)
            n = struct.unpack_from("<I", self.b, self.p)[0]
            self.p += 4
            inner = sig[1:sig_end(sig, 1)]
            self.align(8 if inner[0] in "(tx{" else 1)
            end, out = self.p + n, []
            while self.p < end:
                out.append(self.get(inner))
            return out
        if c == "(":
            self.align(8)
            return [self.get(s) for s in sig_split(sig[1:-1])]
        raise ValueError(sig)


def read_exact(conn, n):
    b = b""
    while len(b) < n:
        k = conn.recv(n - len(b))
        if not k:
            raise EOFError
        b += k
    return b


def read_message(conn):
    fixed = read_exact(conn, 16)
    body_len, serial, arr_len = struct.unpack_from("<III", fixed, 4)
    rest = read_exact(conn, arr_len + (-(16 + arr_len) % 8) + body_len)
    b = fixed + rest
    r = Reader(b, 12)
    fields = dict(r.get("a(yv)"))
    r.align(8)
    sig = fields.get(8, "")
    body = [r.get(s) for s in sig_split(sig)]
    return serial, fields, body


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


def serve(conn):
    c = Conn(conn)
    if MODE == "hang-accept":
        time.sleep(3600)
    pending = authenticate(conn)
    assert not pending
    delay = int(MODE.split("=")[1]) / 1000 if MODE.startswith("slow=") else 0
    hello_done = False
    while True:
        if MODE == "flood" and hello_done:
            conn.setblocking(False)
            while True:
                try:
                    c.send(4, {1: ("o", "/org/freedesktop/systemd1"), 2: ("s", "org.freedesktop.systemd1.Manager"),
                               3: ("s", "UnitNew"), 7: ("s", "org.freedesktop.systemd1"), 8: ("g", "so")},
                           "so", ("x.scope", "/org/freedesktop/systemd1/unit/x"))
                except BlockingIOError:
                    time.sleep(0.001)
        serial, fields, body = read_message(conn)
        member = fields.get(3, "")
        record(member, body)
        if member == "Hello":
            c.reply(serial, "org.freedesktop.DBus", "s", (":1.1",))
            hello_done = True
            continue
        if MODE in ("hang-auth", "flood"):
            continue
        time.sleep(delay)
        if member == "AddMatch":
            c.reply(serial, "org.freedesktop.DBus")
        elif member == "SetUnitProperties":
            c.reply(serial, "org.freedesktop.systemd1")
        elif member == "StartTransientUnit":
            job = "/org/freedesktop/systemd1/job/42"
            c.reply(serial, "org.freedesktop.systemd1", "o", (job,))
            if MODE != "no-job":
                c.send(4, {1: ("o", "/org/freedesktop/systemd1"), 2: ("s", "org.freedesktop.systemd1.Manager"),
                           3: ("s", "JobRemoved"), 7: ("s", "org.freedesktop.systemd1"), 8: ("g", "uoss")},
                       "uoss", (42, job, body[0], "done"))
        else:
            c.send(3, {4: ("s", "org.freedesktop.DBus.Error.UnknownMethod"), 5: ("u", serial),
                       7: ("s", "org.freedesktop.systemd1"), 8: ("g", "s")}, "s", ("unknown method " + member,))


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
        threading.Thread(target=lambda: run(conn), daemon=True).start()


def run(conn):
    try:
        serve(conn)
    except (EOFError, ConnectionError, OSError):
        pass
    finally:
        conn.close()


if __name__ == "__main__":
    main()
