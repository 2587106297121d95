#!/usr/bin/env bash
# Weights divide contended CPU: alice (300) and bob (100), each with nproc hogs, nothing pinned,
# measured from usage_usec in the accounting mirror. Expect 3:1 within 15 %.
# Processes outside the test compete from the root cgroup and skew the split; a window in which
# the two users together got under 80 % of the machine is reported and measured again (3 tries).
. "$(dirname "$0")/lib.sh"

N=$(nproc)
SECS=${FAIRNESS_SECS:-5}
write_conf '* CPUWeight=100' 'alice CPUWeight=300'
service cs

measure() {
        login alice -- sh -c "$(hogs "$N" $((SECS + 3)))" &
        local a=$!
        login bob -- sh -c "$(hogs "$N" $((SECS + 3)))" &
        local b=$!
        sleep 1.5 # both slices exist and are saturated
        local a0 b0 a1 b1
        a0=$(usage_usec 1001); b0=$(usage_usec 1002)
        sleep "$SECS"
        a1=$(usage_usec 1001); b1=$(usage_usec 1002)
        wait $a $b
        ratio=$(python3 -c "print(f'{($a1-$a0)/max($b1-$b0,1):.3f}')")
        busy=$(python3 -c "print(f'{(($a1-$a0)+($b1-$b0))/($N*$SECS*1e6)*100:.0f}')")
        echo "alice CPUWeight=300: $(( (a1 - a0) / 1000 )) ms, bob CPUWeight=100: $(( (b1 - b0) / 1000 )) ms" \
             "over ${SECS}s with $N hogs each: ratio $ratio (want 3 +/- 15%); the two got $busy% of the machine"
}

for try in 1 2 3; do
        measure
        [ "$busy" -ge 80 ] && break
        echo "the machine is busy with other work (load: $(cut -d' ' -f1-3 /proc/loadavg)); measuring again"
done
[ "$busy" -ge 80 ] || fail "could not get an uncontended window in 3 tries"
python3 -c "import sys; sys.exit(0 if 2.55 <= $ratio <= 3.45 else 1)" || fail "split $ratio is not within 15% of 3:1"
[ ! -e "$CPU/user.slice/user-1001.slice" ] && [ ! -e "$CPU/user.slice/user-1002.slice" ] || fail "slices left behind"
echo PASS
