#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# scdoc-man.sh SCDOC PAGE.scd: the man page on stdout. A page with a table gets the preprocessor
# line '\" t first, which man(1) needs to run tbl; scdoc before 1.11.3 does not write it, and
# groff then prints the table as raw macros (trixie's lintian: groff-message).
set -e
out=$("$1" < "$2")
case "$out" in
*"
.TS"*) printf "'\\\\\" t\n" ;;
esac
printf '%s\n' "$out"
