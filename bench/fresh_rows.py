# SPDX-License-Identifier: LGPL-2.1-or-later
"""What bench/report-fresh.py and bench/report-vm-fresh.py share: bench/fresh-login's raw lines
(one line of name=µs fields per login) and their medians."""
import os
import statistics


def read_rows(path):
    """The logins of one raw file; none when the file is missing (a kind that did not run)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [{k: int(v) for k, v in (kv.split("=") for kv in line.split())} for line in f if line.strip()]


def med(rows, key):
    v = [r[key] for r in rows if key in r]
    return statistics.median(v) if v else None


def p90(rows, key, min_n=1):
    """None below min_n logins, where a p90 would be one sample"""
    v = sorted(r[key] for r in rows if key in r)
    return v[min(len(v) - 1, int(0.9 * len(v)))] if v and len(v) >= min_n else None


def ms(us, digits=2):
    return "-" if us is None else "%.*f ms" % (digits, us / 1000)
