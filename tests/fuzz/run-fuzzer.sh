#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-fuzzer.sh FUZZER SEED_DIR WORK_DIR: runs one libFuzzer target for $CPUSLICE_FUZZ_SECONDS
# (default 10) from its seed corpus. New inputs go to WORK_DIR/corpus (the seeds in the source tree
# are never written), a crash to WORK_DIR/crash-*. Prints "FUZZ <target> <executions> execs <secs> s".
set -euo pipefail
fuzzer=$1 seeds=$2 work=$3
secs=${CPUSLICE_FUZZ_SECONDS:-10}
name=$(basename "$fuzzer")
mkdir -p "$work/corpus"
dict=()
[ -f "$seeds.dict" ] && dict=(-dict="$seeds.dict")
# leaks are real findings here too; abort_on_error makes a sanitizer report a crash libFuzzer keeps
export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-}:print_stacktrace=1:halt_on_error=1
rc=0
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$work/" "${dict[@]}" "$work/corpus" "$seeds" > "$work/log" 2>&1 || rc=$?
execs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$work/log" | tail -1)
echo "FUZZ $name ${execs:-0} execs ${secs} s (corpus $(ls "$work/corpus" | wc -l) new inputs)"
if [ "$rc" -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
        echo "FAIL: $name found a problem (exit $rc):"
        tail -60 "$work/log"
        ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null || true
        exit 1
fi
