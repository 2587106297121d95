#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sustained-use penalties on the real v1 tree with the cgroupfs backend, 10 s windows, passes of
# `slicectl penalty run` every second as the timer's would be:
#  - carol hogs every CPU: after a whole window she is capped (cpu.cfs_quota_us), her measured use
#    holds under the cap, a new login and `slicectl apply` keep it, `penalty list` and a non-root
#    `status` show it; at its end it lifts, hogging again earns level 2 (a lower cap), and after
#    she stops the level is forgotten one step per PenaltyForget=; `penalty clear` lifts at once;
#  - dave's hogs named like his exempt tool (cc1) are not counted; his hog with another name is.
# The line (15 % of one CPU) sits far below what a hog on every CPU gets even on a machine loaded
# several times over, and above the caps (10 %, 5 %): a neighbour can delay a decision by a pass,
# not change it.
. "$(dirname "$0")/lib.sh"
: "${SLICECTL:?}"

write_conf '* CPUWeight=100' \
        'carol PenaltyAbove=15% PenaltyWindow=10s PenaltyQuota=10%,5% PenaltyTime=20s,12s PenaltyForget=15s' \
        'dave PenaltyAbove=15% PenaltyWindow=10s PenaltyQuota=10% PenaltyTime=1h PenaltyExempt=cc1'
service cs "state_root=$T/state"
sc() { with_syslog "$SLICECTL" --backend cgroupfs --parent "$PARENT" --conf "$T/cpuslice.conf" --confdir "$T/none" \
        --rundir "$T/none" --state-root "$T/state" "$@"; }
quota() { cat "$CPU/user.slice/user-$1.slice/cpu.cfs_quota_us"; }
cp "$(command -v dash || command -v sh)" "$T/cc1"
cp "$(command -v dash || command -v sh)" "$T/hog"
STOP=$T/stop DAVE_STOP=$T/dave-stop
fail() { touch "$STOP" "$DAVE_STOP"; echo "FAIL: $*"; exit 1; } # the hogs end with the test
spin_as() { # NAME STOPFILE: a hog per CPU named NAME, until STOPFILE exists (120 s at most)
        local c
        for c in $(allowed_cpus); do
                printf "timeout 120 %s -c 'while [ ! -e %s ]; do i=0; while [ \$i -lt 2000 ]; do i=\$((i+1)); done; done' & " \
                        "$T/$1" "$2"
        done
        echo wait
}
# the admin's hook: its arguments and its stdin (the busiest processes) kept for the checks
mkdir -p "$T/state/etc/cpuslice"
printf '#!/bin/sh\necho "$*" >> %s/hook.args\ncat >> %s/hook.stdin\n' "$T" "$T" > "$T/state/etc/cpuslice/penalty-hook"
chmod 0755 "$T/state/etc/cpuslice/penalty-hook"
ln -s /proc/self/fd "$T/dev/fd" # the private /dev of with_syslog: a script run by its fd needs it
PASSES=$T/passes
: > "$PASSES"
# pass_until PATTERN SECS [COUNT]: passes every second until PATTERN has been printed COUNT times
# (default 1) since the test began (all output kept: a pass run for another wait may see it first)
pass_until() {
        local i out
        for i in $(seq "$2"); do
                out=$(sc penalty run 2>&1) || fail "penalty run failed: $out"
                [ -n "$out" ] && echo "$out" | sed "s/^/  [$(date +%T)] /" | tee -a "$PASSES"
                [ "$(grep -cF -- "$1" "$PASSES")" -ge "${3:-1}" ] && return 0
                sleep 1
        done
        fail "no pass said '$1' (${3:-1} times) within $2 s; passes so far: $(cat "$PASSES")"
}
JOBS=()
finish() { touch "$STOP" "$DAVE_STOP"; wait "${JOBS[@]}"; JOBS=(); }

login carol -- sh -c "$(spin_as hog "$STOP")" &
JOBS+=($!)
login dave -- sh -c "$(spin_as cc1 "$DAVE_STOP")" &
JOBS+=($!)
wait_placed 1003 1500 >/dev/null || { finish; fail "no slices after 30 s: $(cat "$LOG")"; }
[ "$(quota 1003)" = -1 ] || fail "carol starts capped: $(quota 1003)"

# 1. a whole window of hogging: capped at 20 %, and the cap holds in the measured use
t0=$(date +%s)
pass_until "carol (uid 1003): penalty started: level 1, CPUQuota=10%" 40
t1=$(date +%s)
[ $((t1 - t0)) -ge 9 ] || fail "capped after $((t1 - t0)) s, before a whole 10 s window"
[ "$(quota 1003)" = 10000 ] || fail "carol's cfs_quota_us is $(quota 1003), want 10000"
grep -qE '^start carol 1003 1 10% [0-9]{10}$' "$T/hook.args" || fail "the hook's arguments: $(cat "$T/hook.args")"
grep -qE '^[0-9]+ hog [0-9.]+$' "$T/hook.stdin" || fail "the hook's stdin lacks carol's hogs: $(cat "$T/hook.stdin")"
sleep 1
u0=$(usage_usec 1003) s0=$(date +%s%N)
sleep 3
u1=$(usage_usec 1003) s1=$(date +%s%N)
pct=$(( (u1 - u0) * 100000 / ((s1 - s0) / 1000) / 1000 ))
echo "carol capped: $pct% of one CPU over 3 s (cap 10%)"
[ "$pct" -le 13 ] || fail "carol used $pct% of one CPU under a 10% cap"

# 2. it survives a new login, apply, and shows in list and in a non-root status
login carol -- true
[ "$(quota 1003)" = 10000 ] || fail "a new login of carol lifted the cap: $(quota 1003)"
sc apply >/dev/null
[ "$(quota 1003)" = 10000 ] || fail "slicectl apply lifted the cap: $(quota 1003)"
list=$(sc penalty list)
echo "$list"
grep -qE '^carol +1003 +1 capped +10%' <<< "$list" || fail "penalty list lacks carol at level 1"
sc --json penalty list | python3 -c '
import json, sys
p = {x["user"]: x for x in json.load(sys.stdin)["penalties"]}
assert p["carol"]["level"] == 1 and p["carol"]["active"] and p["carol"]["cap"] == "10%", p' ||
        fail "penalty list --json"
chmod 0755 "$T"
st=$(setpriv --reuid 1003 --regid 1003 --clear-groups "$SLICECTL" --backend cgroupfs --parent "$PARENT" \
        --conf "$T/cpuslice.conf" --confdir "$T/none" --rundir "$T/none" --state-root "$T/state" status carol) ||
        fail "status as carol: $st"
grep -q '^Penalty:    level 1 since .*CPUQuota=10% until' <<< "$st" || fail "carol's own status lacks her penalty: $st"
echo "  carol's own status: $(grep '^Penalty' <<< "$st")"
setpriv --reuid 1003 --regid 1003 --clear-groups "$SLICECTL" --state-root "$T/state" penalty clear carol 2>/dev/null &&
        fail "carol lifted her own penalty"
[ "$(quota 1003)" = 10000 ] || fail "carol's own clear changed the cap"

# 3. still over the line at its end (under the cap she is not): lifted; then level 2 at 10 %
pass_until "carol (uid 1003): penalty lifted" 20
[ "$(quota 1003)" = -1 ] || fail "lifted, but cfs_quota_us is $(quota 1003)"
pass_until "carol (uid 1003): penalty started: level 2, CPUQuota=5%" 30
[ "$(quota 1003)" = 5000 ] || fail "level 2, but cfs_quota_us is $(quota 1003)"
touch "$STOP" # carol stops under her level 2: it ends, and nothing starts a level 3

# 4. dave: only exempt hogs so far (as long as carol's whole story): never penalized; then a hog
# with another name is
grep -q 'dave' "$PASSES" && fail "dave's exempt cc1 hogs were counted"
touch "$DAVE_STOP"
sleep 0.5
rm -f "$DAVE_STOP"
login dave -- sh -c "$(spin_as hog "$DAVE_STOP")" &
JOBS+=($!)
pass_until "dave (uid 1500): penalty started: level 1, CPUQuota=10%" 40

# 5. carol stopped: her level 2 ends, and the levels are forgotten one per 15 s
pass_until "carol (uid 1003): penalty lifted" 20 2
pass_until "carol (uid 1003): penalty level down to 1" 25
pass_until "carol (uid 1003): penalty level down to 0" 25
[ ! -e "$T/state/var/lib/cpuslice/penalty/1003" ] || fail "carol's state is still there at level 0"

# 6. clear lifts dave's hour at once, and his next login is not capped
out=$(sc penalty clear dave)
echo "$out"
grep -qF 'dave (uid 1500): penalty cleared (was level 1, capped)' <<< "$out" || fail "clear: $out"
[ "$(quota 1500)" = -1 ] || fail "cleared, but dave's cfs_quota_us is $(quota 1500)"
login dave -- true
[ "$(quota 1500)" = -1 ] || fail "dave's next login is capped: $(quota 1500)"
finish

# passes are serialized: one waits for the lock another holds
flock "$T/state/run/cpuslice/penalty.lock" sleep 3 &
sleep 0.5
s0=$(date +%s%N)
sc penalty run > /dev/null
waited=$(( ($(date +%s%N) - s0) / 1000000 ))
wait $!
echo "a pass waited $waited ms for the lock held 3 s"
[ "$waited" -ge 2000 ] || fail "a pass ran beside another ($waited ms)"

# 7. a state file that cannot be trusted is refused with one line, not taken for "no penalty"
mkdir -p "$T/state/var/lib/cpuslice/penalty"
printf 'level 1\n' > "$T/state/var/lib/cpuslice/penalty/1003"
out=$(sc penalty run 2>&1) && fail "a corrupt state passed: $out"
grep -qF "carol (uid 1003): the penalty state /var/lib/cpuslice/penalty/1003 is refused (does not parse" <<< "$out" ||
        fail "corrupt state: $out"
chown 1003 "$T/state/var/lib/cpuslice/penalty/1003"
out=$(sc penalty list 2>&1)
grep -qE '^carol +1003 +- refused: owned by uid 1003' <<< "$out" || fail "list of a state carol owns: $out"
with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user carol -- true || fail "carol's login failed"
log_has "carol: penalty state /var/lib/cpuslice/penalty/1003 owned by uid 1003"
# one that is not a file at all is listed and refused too, not passed over
rm "$T/state/var/lib/cpuslice/penalty/1003" && mkdir "$T/state/var/lib/cpuslice/penalty/1003"
out=$(sc penalty run 2>&1) && fail "a pass took a directory for a state: $out"
grep -qF "carol (uid 1003): the penalty state /var/lib/cpuslice/penalty/1003 is refused (not a regular file)" <<< "$out" ||
        fail "a directory as a state: $out"
out=$(sc penalty list 2>&1)
grep -qE '^carol +1003 +- refused: not a regular file' <<< "$out" || fail "list of a directory as a state: $out"
rmdir "$T/state/var/lib/cpuslice/penalty/1003"

# every decision was one syslog line
for d in "carol (uid 1003): penalty started: level 1" "carol (uid 1003): penalty started: level 2" \
        "dave (uid 1500): penalty started: level 1" "carol (uid 1003): penalty level down to 0" \
        "cleared the penalty of dave (uid 1500)"; do
        log_has "$d"
done
echo PASS
