#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A syslog socket for tests: binds a datagram socket at argv[1] and appends every message to
argv[2], one per line, until killed. This machine has no /dev/log; tests bind-mount a directory
holding this socket over /dev in a private mount namespace."""
import os
import socket
import sys

sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
if os.path.exists(sys.argv[1]):
    os.unlink(sys.argv[1])
sock.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        msg = sock.recv(65536).decode("utf-8", "replace").rstrip("\n")
        out.write(msg + "\n")
