#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""meson-summary-test.py TOOL — tools/meson-summary counts what CI reads and repeats the failures
where CI shows them: checked on testlog.json files written here, one of them missing."""
import json
import os
import subprocess
import sys
import tempfile

TOOL = sys.argv[1]
failures = 0

def check(what, ok):
    global failures
    print(("ok    " if ok else "FAIL  ") + what)
    failures += not ok

def run(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, check=True).stdout

with tempfile.TemporaryDirectory() as d:
    log = os.path.join(d, "testlog.json")
    rows = [
        {"name": "passes", "result": "OK", "duration": 1.0, "stdout": "fine\n"},
        {"name": "xfails", "result": "EXPECTEDFAIL", "duration": 1.0, "stdout": ""},
        {"name": "skips", "result": "SKIP", "duration": 0.1, "stdout": "no root\n"},
        {"name": "hangs", "result": "TIMEOUT", "duration": 600.4, "stdout": "waiting\n"},
        {"name": "fails", "result": "FAIL", "duration": 2.0,
         "stdout": "".join(f"line {i}\n" for i in range(100))},
    ]
    with open(log, "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rows))
    missing = os.path.join(d, "never-written.json")

    check("counts: 2 passed, 3 failed (one a missing log), 1 skipped",
          run(log, missing) == "2 3 1\n")
    check("--list-skips names the skipped test", run("--list-skips", log) == f"{log}: skips\n")
    listed = run("--list-failures", log, missing)
    check("--list-failures names the timeout with its time", f"{log}: hangs TIMEOUT after 600 s" in listed)
    check("--list-failures names the failure", f"{log}: fails FAIL after 2 s" in listed)
    check("--list-failures keeps the tail of the output", "    line 99\n" in listed and "    line 75\n" in listed)
    check("--list-failures keeps only the tail", "line 74\n" not in listed)
    check("--list-failures names the missing log", f"{missing}: missing" in listed)
    check("--list-failures lists no passing or skipped test", "passes" not in listed and "skips" not in listed)

print(f"{failures} checks failed" if failures else "all checks passed")
sys.exit(1 if failures else 0)
