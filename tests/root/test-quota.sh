#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# CPUQuota=50% caps a user with a hog on every CPU at half of one CPU. Beside carol's session, in
# the same window and under the same scratch parent, a hand-written cgroup at the module's depth
# (ref.slice/ref-q.slice/s.scope, cpu.cfs_quota_us 50000 per cpu.cfs_period_us 100000: what the
# module writes for 50%) runs as many hogs. Judged two ways, neither of which a neighbour loading
# the machine can fail:
#  - carol's use, over a window measured from before its first reading to after its last, is at
#    most 55% of one CPU (a neighbour can only lower it);
#  - carol's use is within 15% of the reference's in the same window (a neighbour takes from both
#    alike: the two sit side by side at the same depth with the same cpu.shares).
# A missing or too large quota fails the first wherever the machine lets carol above 55%, a too
# small one the second.
. "$(dirname "$0")/lib.sh"

SECS=${QUOTA_SECS:-4}
write_conf '* CPUWeight=100' 'carol CPUQuota=50%'
service cs

REF=$CPU/ref.slice/ref-q.slice/s.scope
REF_ACCT=$ACCT/ref.slice/ref-q.slice/s.scope
mkdir -p "$REF" "$REF_ACCT"
echo 100000 > "$CPU/ref.slice/ref-q.slice/cpu.cfs_period_us"
echo 50000 > "$CPU/ref.slice/ref-q.slice/cpu.cfs_quota_us"

STOP=$T/stop
spin() { spin_pinned $((SECS + 60)) "$STOP"; }
# snap: "T_BEFORE T_AFTER CAROL_USEC REF_USEC", the clock read on both sides of the readings
snap() {
        python3 - "$ACCT/user.slice/user-1003.slice/cpu.stat" "$REF_ACCT/cpu.stat" <<'EOF'
import sys, time
def usage(p):
    for line in open(p):
        k, v = line.split()
        if k == "usage_usec":
            return int(v)
t0 = time.monotonic()
u = [usage(p) for p in sys.argv[1:]]
print(t0, time.monotonic(), *u)
EOF
}

login carol -- sh -c "$(spin)" &
c=$!
sh -c 'echo $$ > "$1/cgroup.procs" && echo $$ > "$2/cgroup.procs" && exec sh -c "$3"' ref "$REF" "$REF_ACCT" "$(spin)" &
r=$!
# carol placed, then both saturated
missing=$(wait_placed 1003) ||
        { touch "$STOP"; wait $c $r; fail "no session slice for carol ($missing) after 30 s; the module logged: $(cat "$LOG")"; }
sleep 1
read -r t0a _ c0 r0 <<< "$(snap)"
sleep "$SECS"
read -r _ t1b c1 r1 <<< "$(snap)"
stat=$(tr '\n' ' ' < "$CPU/user.slice/user-1003.slice/cpu.stat")
cq=$(cat "$CPU/user.slice/user-1003.slice/cpu.cfs_quota_us")
rstat=$(tr '\n' ' ' < "$CPU/ref.slice/ref-q.slice/cpu.stat")
touch "$STOP"
wait $c $r

read -r pct rpct ratio < <(python3 -c "
w = $t1b - $t0a
print(f'{($c1 - $c0) / (w * 1e6) * 100:.1f} {($r1 - $r0) / (w * 1e6) * 100:.1f} {($c1 - $c0) / max($r1 - $r0, 1):.3f}')")
echo "carol (CPUQuota=50%, cfs_quota_us=$cq): used $pct% of one CPU over ${SECS}s with a hog on each of CPUs $(allowed_cpus) (cpu.stat: $stat)"
echo "hand-written cfs_quota_us=50000: $rpct% (cpu.stat: $rstat); carol/hand-written $ratio (want 1 +/- 15%)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ $rstat =~ nr_throttled\ 0\  ]] &&
        echo "note: the hand-written quota never throttled in this window (the machine is busy): the quota" \
             "did not bind, so only its upper bound was put to the test"
python3 -c "import sys; sys.exit(0 if $pct <= 55 else 1)" || fail "carol used $pct% of one CPU, over the 50% quota"
python3 -c "import sys; sys.exit(0 if 0.85 <= $ratio <= 1.15 else 1)" ||
        fail "carol's use is not within 15% of the hand-written quota's in the same window"
echo PASS
