#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Races on the real hierarchy: $RACES_PROCS (64) parallel open/close loops of one user x
# $RACES_CYCLES, while `slicectl apply` re-applies the config and two `slicectl set` loops rewrite
# the drop-in the module reads at every login. Checker sessions verify where their process sits and
# what the slice holds. 0 failed sessions, 0 processes in a wrong cgroup, 0 cgroups left, no torn
# drop-in (the file is parsed after every set, and every login parsed it without a complaint).
# CI runs 64 x 50 (the default, to keep CI short); the full 64 x 1000 runs by hand:
#   RACES_CYCLES=1000 meson test -C build --suite root root-races
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hardening.sh"

P=${RACES_PROCS:-64}
N=${RACES_CYCLES:-50}
SLICECTL=${SLICECTL:-$(dirname "$PAM_RUN")/../../slicectl/slicectl}
[ -x "$SLICECTL" ] || fail "no slicectl at $SLICECTL"
mkdir -p "$T/conf.d" "$T/run.d"
write_conf '* CPUWeight=100' 'alice CPUQuota=150%'
CONFDIR=$T/conf.d svc cs strict parent=$PARENT  # strict: any backend failure is a failed session
sc() { "$SLICECTL" --conf "$T/cpuslice.conf" --confdir "$T/conf.d" --rundir "$T/run.d" --parent "$PARENT" "$@"; }
sc set alice CPUWeight=300 >/dev/null || fail "first slicectl set failed"

# set loop VALUE...: persist each value in turn; after every set the drop-in parses cleanly and
# holds exactly one alice line with a weight from the list
set_loop() {
        local id=$1 i=0 n=0 bad=0
        shift
        while [ ! -e "$T/stop" ] && [ -d "$T" ]; do
                for w in "$@"; do
                        sc set alice CPUWeight="$w" >/dev/null 2>>"$T/set.err" || bad=$((bad + 1))
                        sc check "$T/conf.d/50-slicectl.conf" >/dev/null 2>>"$T/set.err" || { bad=$((bad + 1)); cp "$T/conf.d/50-slicectl.conf" "$T/torn.$id.$i"; }
                        grep -Eqx 'alice +CPUWeight=(300|400)' "$T/conf.d/50-slicectl.conf" || { bad=$((bad + 1)); cp "$T/conf.d/50-slicectl.conf" "$T/torn.$id.$i"; }
                        n=$((n + 1)); i=$((i + 1))
                done
        done
        echo "$n $bad" > "$T/set.$id"
}
apply_loop() {
        local n=0 bad=0
        while [ ! -e "$T/stop" ] && [ -d "$T" ]; do
                sc apply >/dev/null 2>>"$T/apply.err" || bad=$((bad + 1))
                n=$((n + 1))
        done
        echo "$n $bad" > "$T/apply.count"
}
# checker: sessions whose command checks its own cgroups and the slice's values
check_loop() {
        local n=0 wrong=0 out
        while [ ! -e "$T/stop" ] && [ -d "$T" ]; do
                out=$(with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user alice -- sh -c \
                        'grep -E "^[0-9]+:(cpu|cpu,cpuacct):|^0::" /proc/self/cgroup | cut -d: -f3; cat "$1/cpu.shares" "$1/cpu.cfs_quota_us"' \
                        sh "$CPU/user.slice/user-1001.slice") || { wrong=$((wrong + 1)); continue; }
                head -2 <<< "$out" | grep -Evq "^/$PARENT/user\.slice/user-1001\.slice/session-pam-[0-9]+\.scope$" && {
                        wrong=$((wrong + 1)); echo "$out" >> "$T/wrong"; }
                [ "$(echo "$out" | sed -n 3p)" = 3072 ] || [ "$(echo "$out" | sed -n 3p)" = 4096 ] || {
                        wrong=$((wrong + 1)); echo "$out" >> "$T/wrong"; }
                [ "$(echo "$out" | sed -n 4p)" = 150000 ] || { wrong=$((wrong + 1)); echo "$out" >> "$T/wrong"; }
                n=$((n + 1))
        done
        echo "$n $wrong" > "$T/check.$1"
}

side=()
set_loop a 300 400 & side+=($!)
set_loop b 400 300 & side+=($!)
apply_loop & side+=($!)
check_loop 1 & side+=($!)
check_loop 2 & side+=($!)
start=$(date +%s.%N)
pids=()
for i in $(seq "$P"); do
        ( rc=0; with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user alice --loop "$N" > "$T/lat.$i" 2> "$T/err.$i" || rc=$?
          echo $rc > "$T/rc.$i" ) &
        pids+=($!)
done
wait "${pids[@]}"
end=$(date +%s.%N)
touch "$T/stop"
wait "${side[@]}"

failed=0
for i in $(seq "$P"); do
        rc=$(cat "$T/rc.$i")
        if [ "$rc" != 0 ]; then failed=$((failed + 1)); echo "loop $i: rc=$rc: $(head -3 "$T/err.$i")"; fi
done
done_cycles=$(cat "$T"/lat.* | wc -l)
read -r sets_a bad_a < "$T/set.a"; read -r sets_b bad_b < "$T/set.b"
read -r applies bad_apply < "$T/apply.count"
read -r checks1 wrong1 < "$T/check.1"; read -r checks2 wrong2 < "$T/check.2"
log_sync
complaints=$(grep -c "line skipped\|refused\|session denied" "$LOG" || true)
left=$(find "$CPU/user.slice" "$ACCT/user.slice" -mindepth 1 -type d 2>/dev/null | wc -l || true)
echo "$P x $N open/close cycles: $done_cycles completed, $failed failed loops, $(python3 -c "print(f'{$end-$start:.1f}')") s"
echo "interleaved: $((sets_a + sets_b)) slicectl set ($((bad_a + bad_b)) bad), $applies slicectl apply ($bad_apply failed)," \
     "$((checks1 + checks2)) checker sessions ($((wrong1 + wrong2)) in a wrong cgroup or with wrong values)"
echo "syslog: $complaints complaints from the module; cgroups left: $left"
[ "$failed" -eq 0 ] || fail "$failed loops failed"
[ "$done_cycles" -eq $((P * N)) ] || fail "only $done_cycles of $((P * N)) cycles completed"
[ $((wrong1 + wrong2)) -eq 0 ] || { head -20 "$T/wrong"; fail "checker sessions saw wrong placement or values"; }
[ $((checks1 + checks2)) -gt 0 ] || fail "no checker session ran"
[ $((bad_a + bad_b)) -eq 0 ] || { head -5 "$T/set.err"; ls "$T"/torn.* 2>/dev/null; fail "slicectl set failed or left a torn drop-in"; }
[ "$bad_apply" -eq 0 ] || { sort "$T/apply.err" | uniq -c | head; fail "slicectl apply failed $bad_apply times"; }
[ "$complaints" -eq 0 ] || { grep "line skipped\|refused\|session denied" "$LOG" | head; fail "the module complained"; }
[ "$left" -eq 0 ] || { find "$CPU/user.slice" "$ACCT/user.slice" -mindepth 1; fail "cgroups left behind"; }
no_unescaped
echo PASS
