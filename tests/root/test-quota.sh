#!/usr/bin/env bash
# CPUQuota=50% caps a user with nproc hogs at ~half of one CPU.
. "$(dirname "$0")/lib.sh"

N=$(nproc)
SECS=${QUOTA_SECS:-4}
write_conf '* CPUWeight=100' 'carol CPUQuota=50%'
service cs
login carol -- sh -c "$(hogs "$N" $((SECS + 2)))" &
c=$!
sleep 1
u0=$(usage_usec 1003)
sleep "$SECS"
u1=$(usage_usec 1003)
stat=$(cat "$CPU/user.slice/user-1003.slice/cpu.stat" | tr '\n' ' ')
wait $c
pct=$(python3 -c "print(f'{($u1-$u0)/($SECS*1e6)*100:.1f}')")
echo "carol CPUQuota=50%: used $pct% of one CPU over ${SECS}s with $N hogs (cpu.stat: $stat)"
python3 -c "import sys; sys.exit(0 if 35 <= $pct <= 55 else 1)" || fail "quota use $pct% is not within 35..55%"
echo PASS
