#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# 32 parallel open/close loops of one user x 200: no failed session, no process stranded in a
# scope, nothing left behind.
. "$(dirname "$0")/lib.sh"

P=${CONCURRENCY_PROCS:-32}
N=${CONCURRENCY_CYCLES:-200}
write_conf '* CPUWeight=100' 'alice CPUWeight=200 CPUQuota=150%'
service cs strict  # strict: any backend failure shows up as a failed session
start=$(date +%s.%N)
pids=()
for i in $(seq "$P"); do
        ( login alice --loop "$N" > "$T/lat.$i" 2> "$T/err.$i"; echo $? > "$T/rc.$i" ) &
        pids+=($!)
done
wait "${pids[@]}"
end=$(date +%s.%N)
failed=0
for i in $(seq "$P"); do
        rc=$(cat "$T/rc.$i")
        if [ "$rc" != 0 ]; then failed=$((failed + 1)); echo "loop $i: rc=$rc: $(head -3 "$T/err.$i")"; fi
done
done_cycles=$(cat "$T"/lat.* | wc -l)
left=$(find "$CPU/user.slice" "$ACCT/user.slice" -mindepth 1 -type d 2>/dev/null | wc -l)
echo "$P x $N open/close cycles: $done_cycles completed, $failed failed loops, $left cgroups left, $(python3 -c "print(f'{$end-$start:.1f}')") s"
[ "$failed" -eq 0 ] || fail "$failed loops failed"
[ "$done_cycles" -eq $((P * N)) ] || fail "only $done_cycles of $((P * N)) cycles completed"
[ "$left" -eq 0 ] || { find "$CPU/user.slice" "$ACCT/user.slice" -mindepth 1; fail "cgroups left behind"; }
echo PASS
