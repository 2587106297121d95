#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Weights divide contended CPU: alice (CPUWeight=300) and bob (100) through the module, each with
# a hog on every CPU; at the same time and under the same scratch parent, a reference of
# hand-written cgroups at the module's depth (ref.slice/ref-{a,b}.slice/s.scope, cpu.shares 3072
# and 1024: what the module writes for 300 and 100) with as many hogs each. Judged as a ratio of
# ratios, as bench/ does: (alice/bob) / (ref-a/ref-b) within 15 % of 1.
# A neighbour loading the machine takes CPU from both sides of the same parent alike, so it moves
# the two ratios together instead of failing the run; the window only grows (up to
# FAIRNESS_MAX_SECS) until each side's lighter group has had enough CPU to measure. Wrong weights
# still fail: 100:100 on the module's side gives about 1/3, 200:100 about 2/3 (the config alone
# changed: the write_conf line).
. "$(dirname "$0")/lib.sh"

N=$(nproc)
SECS=${FAIRNESS_SECS:-5}          # the shortest window
MAX_SECS=${FAIRNESS_MAX_SECS:-30} # the longest, on a machine busy with other work
FLOOR_MS=${FAIRNESS_FLOOR_MS:-600} # CPU each lighter group must have had in the window
WA=300 WB=100 # the weights, in the module's config and (x 1024 / 100) in the hand-written groups
write_conf "* CPUWeight=$WB" "alice CPUWeight=$WA"
service cs

REF=ref.slice
for g in a b; do
        mkdir -p "$CPU/$REF/ref-$g.slice/s.scope" "$ACCT/$REF/ref-$g.slice/s.scope"
done
echo $((WA * 1024 / 100)) > "$CPU/$REF/ref-a.slice/cpu.shares"
echo $((WB * 1024 / 100)) > "$CPU/$REF/ref-b.slice/cpu.shares"

STOP=$T/stop
spin() { spin_pinned $((MAX_SECS + 30)) "$STOP"; }
# in_ref GROUP CMD: CMD in the hand-written group (cpu, and the cgroup2 twin for accounting)
in_ref() {
        sh -c 'echo $$ > "$1/cgroup.procs" && echo $$ > "$2/cgroup.procs" && exec sh -c "$3"' in_ref \
                "$CPU/$REF/ref-$1.slice/s.scope" "$ACCT/$REF/ref-$1.slice/s.scope" "$2"
}
ref_usec() { awk '/^usage_usec/ {print $2}' "$ACCT/$REF/ref-$1.slice/cpu.stat"; }
all_usec() { echo "$(usage_usec 1001) $(usage_usec 1002) $(ref_usec a) $(ref_usec b)"; }

login alice -- sh -c "$(spin)" &
pa=$!
login bob -- sh -c "$(spin)" &
pb=$!
in_ref a "$(spin)" &
ra=$!
in_ref b "$(spin)" &
rb=$!
# both logins placed, then all four groups saturated
w0=$(date +%s%N)
missing=$(wait_placed 1001 1002) ||
        { touch "$STOP"; wait $pa $pb $ra $rb; fail "no session slice ($missing) after 30 s; the module logged: $(cat "$LOG")"; }
echo "both logins placed after $(( ($(date +%s%N) - w0) / 1000000 )) ms"
sleep 1
sa=$(cat "$CPU/user.slice/user-1001.slice/cpu.shares"); sb=$(cat "$CPU/user.slice/user-1002.slice/cpu.shares")
read -r a0 b0 ra0 rb0 <<< "$(all_usec)"
t0=$(date +%s.%N)
sleep "$SECS"
while :; do
        read -r a1 b1 ra1 rb1 <<< "$(all_usec)"
        t1=$(date +%s.%N)
        el=$(python3 -c "print(int($t1 - $t0))")
        [ $(( (b1 - b0) / 1000 )) -ge "$FLOOR_MS" ] && [ $(( (rb1 - rb0) / 1000 )) -ge "$FLOOR_MS" ] && break
        [ "$el" -ge "$MAX_SECS" ] && break
        sleep 2
done
touch "$STOP"
wait $pa $pb $ra $rb

read -r mod ref rr busy < <(python3 -c "
a, b, ra, rb = $a1 - $a0, $b1 - $b0, $ra1 - $ra0, $rb1 - $rb0
mod, ref = a / max(b, 1), ra / max(rb, 1)
print(f'{mod:.3f} {ref:.3f} {mod / ref:.3f} {(a + b + ra + rb) / ($N * ($t1 - $t0) * 1e6) * 100:.0f}')")
echo "module: alice (cpu.shares=$sa) $(( (a1 - a0) / 1000 )) ms, bob (cpu.shares=$sb) $(( (b1 - b0) / 1000 )) ms: $mod"
echo "hand-written: ref-a cpu.shares=$(cat "$CPU/$REF/ref-a.slice/cpu.shares") $(( (ra1 - ra0) / 1000 )) ms," \
     "ref-b cpu.shares=$(cat "$CPU/$REF/ref-b.slice/cpu.shares") $(( (rb1 - rb0) / 1000 )) ms: $ref"
echo "over ${el}s with $N hogs each, the four got $busy% of the machine (load: $(cut -d' ' -f1-3 /proc/loadavg));" \
     "ratio of ratios $rr (want 1 +/- 15%)"
python3 -c "import sys; sys.exit(0 if 0.85 <= $rr <= 1.15 else 1)" ||
        fail "the module's split $mod is not within 15% of the hand-written groups' $ref in the same window"
[ ! -e "$CPU/user.slice/user-1001.slice" ] && [ ! -e "$CPU/user.slice/user-1002.slice" ] || fail "slices left behind"
echo PASS
