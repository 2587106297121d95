#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Real v1 cpu hierarchy: values land in cpu.shares / cpu.cfs_*; the session's process is really in
# the scope (in the cpu tree and in the accounting mirror); close removes scope and slice; the
# module's syslog lines carry file:line for a bad config line.
. "$(dirname "$0")/lib.sh"

write_conf '* CPUWeight=100' '@staff CPUWeight=300 CPUQuota=50%' 'alice CPUQuota=bogus' 'bob CPUQuota=0.5%'
service cs debug
out=$(with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user alice --env XDG_SESSION_ID=42 -- \
        sh -c "cat /proc/self/cgroup; cat $CPU/user.slice/user-1001.slice/cpu.shares \
               $CPU/user.slice/user-1001.slice/cpu.cfs_quota_us $CPU/user.slice/user-1001.slice/cpu.cfs_period_us")
echo "$out"
grep -qx "[0-9]*:cpu:/$PARENT/user.slice/user-1001.slice/session-42.scope" <<< "$out" || fail "not in the cpu scope"
grep -qx "0::/$PARENT/user.slice/user-1001.slice/session-42.scope" <<< "$out" || fail "not in the accounting mirror"
[ "$(echo "$out" | tail -3 | tr '\n' ' ')" = "3072 50000 100000 " ] || fail "values: $(echo "$out" | tail -3 | tr '\n' ' ')"
[ ! -e "$CPU/user.slice/user-1001.slice" ] || fail "slice left behind in the cpu tree after close"
[ ! -e "$ACCT/user.slice/user-1001.slice" ] || fail "slice left behind in the mirror after close"
log_has "cpuslice.conf:3: bad CPUQuota= value 'bogus'"
log_has "alice: CPUWeight= from $T/cpuslice.conf:2"
echo "alice: cpu.shares=3072 cfs_quota_us=50000 cfs_period_us=100000 in session-42.scope; cleaned up"

# systemd's period adjustment lands in the kernel as such
out=$(login bob -- cat "$CPU/user.slice/user-1002.slice/cpu.cfs_quota_us" "$CPU/user.slice/user-1002.slice/cpu.cfs_period_us" \
        "$CPU/user.slice/user-1002.slice/cpu.shares")
[ "$(echo $out)" = "1000 200000 1024" ] || fail "bob: $out"
echo "bob: CPUQuota=0.5% -> cfs_quota_us=1000 cfs_period_us=200000"

# CPUQuotaShare= is of the CPUs users can run on: on this hybrid tree (no v2 cpuset) the online ones
write_conf '* CPUWeight=100' 'bob CPUQuotaShare=50%'
cpus=$(getconf _NPROCESSORS_ONLN)
out=$(login bob -- cat "$CPU/user.slice/user-1002.slice/cpu.cfs_quota_us" "$CPU/user.slice/user-1002.slice/cpu.cfs_period_us")
[ "$(echo $out)" = "$((cpus * 50000)) 100000" ] || fail "bob: CPUQuotaShare=50% of $cpus CPUs gave $out"
echo "bob: CPUQuotaShare=50% of $cpus CPUs -> cfs_quota_us=$((cpus * 50000))"

# a user.slice line sets the cgroup that holds every user slice (the reserve for the system)
write_conf '* CPUWeight=100' 'user.slice CPUQuotaShare=50% CPUWeight=50'
login bob -- true || fail "bob: login with a user.slice line failed"
[ "$(cat "$CPU/user.slice/cpu.cfs_quota_us") $(cat "$CPU/user.slice/cpu.shares")" = "$((cpus * 50000)) 512" ] ||
        fail "user.slice: $(cat "$CPU/user.slice/cpu.cfs_quota_us") $(cat "$CPU/user.slice/cpu.shares")"
echo "user.slice: CPUQuotaShare=50% CPUWeight=50 -> cfs_quota_us=$((cpus * 50000)) shares=512"
echo -1 > "$CPU/user.slice/cpu.cfs_quota_us" && echo 1024 > "$CPU/user.slice/cpu.shares"

# CPUBurst= lands in cpu.cfs_burst_us (Linux 5.14+), which the kernel keeps at most the quota per
# period: going from 50%/40ms to 10%/5ms works only if the burst is lowered before the quota
if [ -f "$CG/cpu/cpu.cfs_burst_us" ]; then
        D=$CPU/user.slice/user-1500.slice
        write_conf '* CPUWeight=100' 'dave CPUQuota=50% CPUBurst=40ms'
        login dave --env XDG_SESSION_ID=b1 -- sh -c 'sleep 60 >/dev/null 2>&1 & echo $! > '"$T/burst.pid"
        [ "$(cat "$D/cpu.cfs_quota_us") $(cat "$D/cpu.cfs_burst_us")" = "50000 40000" ] ||
                fail "dave burst: $(cat "$D/cpu.cfs_quota_us") $(cat "$D/cpu.cfs_burst_us")"
        write_conf '* CPUWeight=100' 'dave CPUQuota=10% CPUBurst=5ms'
        login dave --env XDG_SESSION_ID=b2 -- true || fail "dave: a lower quota and burst: login failed"
        [ "$(cat "$D/cpu.cfs_quota_us") $(cat "$D/cpu.cfs_burst_us")" = "10000 5000" ] ||
                fail "dave lower: $(cat "$D/cpu.cfs_quota_us") $(cat "$D/cpu.cfs_burst_us")"
        write_conf '* CPUWeight=100' 'dave CPUQuota=80% CPUBurst=70ms'
        login dave --env XDG_SESSION_ID=b3 -- true || fail "dave: a higher quota and burst: login failed"
        [ "$(cat "$D/cpu.cfs_quota_us") $(cat "$D/cpu.cfs_burst_us")" = "80000 70000" ] ||
                fail "dave higher: $(cat "$D/cpu.cfs_quota_us") $(cat "$D/cpu.cfs_burst_us")"
        write_conf '* CPUWeight=100' 'dave CPUQuota=10% CPUBurst=50ms'
        with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user dave -- true || fail "dave: burst over quota"
        log_has "dave: CPUBurst=50ms left out: more than the quota per period"
        [ "$(cat "$D/cpu.cfs_quota_us") $(cat "$D/cpu.cfs_burst_us")" = "10000 0" ] ||
                fail "dave over: $(cat "$D/cpu.cfs_quota_us") $(cat "$D/cpu.cfs_burst_us")"
        kill "$(cat "$T/burst.pid")" 2> /dev/null || true
        echo "dave: CPUBurst= in cpu.cfs_burst_us, lowered before a lower quota, left out above the quota"
fi

# a background job that outlives the session keeps its scope; nothing else is touched
login carol --env XDG_SESSION_ID=bg -- sh -c 'sleep 60 >/dev/null 2>&1 & echo $! > '"$T/bg.pid"
[ -d "$CPU/user.slice/user-1003.slice/session-bg.scope" ] || fail "populated scope was removed"
grep -qx "$(cat "$T/bg.pid")" "$CPU/user.slice/user-1003.slice/session-bg.scope/cgroup.procs" || fail "job not in scope"
kill "$(cat "$T/bg.pid")" 2> /dev/null || true
echo "carol: populated scope left in place after close"

# CPUWeight=idle on v1 is cpu.idle (Linux 5.15+), and back to a weight: the kernel refuses
# cpu.shares while a group is idle, so the module must turn idle off first
if [ -f "$CG/cpu/cpu.idle" ]; then
        D=$CPU/user.slice/user-1500.slice
        write_conf '* CPUWeight=100' 'dave CPUWeight=idle'
        login dave --env XDG_SESSION_ID=i1 -- sh -c 'sleep 60 >/dev/null 2>&1 & echo $! > '"$T/idle.pid"
        [ "$(cat "$D/cpu.idle")" = 1 ] || fail "dave idle: cpu.idle $(cat "$D/cpu.idle")"
        out=$("$SLICECTL" --parent "$PARENT" --conf "$T/cpuslice.conf" --confdir '' --rundir '' list --json -i 0)
        echo "$out" | python3 -c 'import json, sys
d = {s["user"]: s for s in json.load(sys.stdin)["slices"]}
sys.exit(d["dave"]["weight"] != "idle")' || fail "slicectl list does not show dave idle: $out"
        write_conf '* CPUWeight=100' 'dave CPUWeight=300'
        login dave --env XDG_SESSION_ID=i2 -- true || fail "dave back to a weight: login failed"
        [ "$(cat "$D/cpu.idle") $(cat "$D/cpu.shares")" = "0 3072" ] ||
                fail "dave back: cpu.idle $(cat "$D/cpu.idle") cpu.shares $(cat "$D/cpu.shares")"
        kill "$(cat "$T/idle.pid")" 2>/dev/null || true
        echo "dave: CPUWeight=idle -> cpu.idle=1 (slicectl shows idle); CPUWeight=300 -> cpu.idle=0, cpu.shares=3072"
else
        echo "note: this v1 kernel has no cpu.idle (before 5.15); CPUWeight=idle is cpu.shares=2 there"
fi

# slice_root=: the slices in a cgroup of the admin's naming, no user.slice between
cat > "$T/pam.d/flat" <<EOT
session required $PAM_CPUSLICE_MODULE conf=$T/cpuslice.conf confdir=$T/none rundir=$T/none slice_root=$PARENT/flat
EOT
out=$(SERVICE=flat login alice --env XDG_SESSION_ID=f1 -- cat /proc/self/cgroup)
grep -qx "[0-9]*:cpu:/$PARENT/flat/user-1001.slice/session-f1.scope" <<< "$out" || fail "slice_root: $out"
grep -qx "0::/$PARENT/flat/user-1001.slice/session-f1.scope" <<< "$out" || fail "slice_root mirror: $out"
[ ! -e "$CPU/flat/user-1001.slice" ] && [ -d "$CPU/flat" ] || fail "slice_root: slice left behind, or its root removed"
echo "alice with slice_root=$PARENT/flat: in /$PARENT/flat/user-1001.slice/session-f1.scope; cleaned up"

# a real-time process cannot join a new v1 group without an RT budget: logged, login proceeds
if chrt -f 1 true 2>/dev/null; then
        with_syslog chrt -f 1 "$PAM_RUN" --confdir "$T/pam.d" --service cs --user erin -- true || fail "RT login denied"
        log_has "has a real-time scheduling policy"
        echo "erin (SCHED_FIFO): login proceeded, logged the RT group scheduling limit"
        service strict strict
        if with_syslog chrt -f 1 "$PAM_RUN" --confdir "$T/pam.d" --service strict --user erin -- true 2>/dev/null; then
                fail "strict RT login was not denied"
        fi
        [ ! -e "$CPU/user.slice/user-2500.slice" ] || fail "a refused RT login left its slice behind"
        echo "erin (SCHED_FIFO) with strict: session denied, nothing left behind"
else
        echo "note: chrt -f refused here; RT case not exercised"
        [ -z "${CPUSLICE_REQUIRE_ALL:-}" ] || fail "cannot run the RT case"
fi

# slicectl's audit line names the real uid and the kernel's login uid (set here as
# pam_loginuid would, where this kernel lets root set it), never SUDO_USER from the environment
mkdir -p "$CPU/user.slice/user-4242.slice" "$ACCT/user.slice/user-4242.slice"
: > "$LOG"
with_syslog sh -c 'echo 1001 > /proc/self/loginuid 2>/dev/null; exec env SUDO_USER="mallory (sudo from root)" "$@"' \
        sh "$SLICECTL" --parent "$PARENT" --conf "$T/cpuslice.conf" --confdir '' --rundir '' gc > /dev/null ||
        fail "slicectl gc failed"
log_has "gc removed user-4242.slice"
! grep -q mallory "$LOG" || fail "the audit line took SUDO_USER from the environment: $(cat "$LOG")"
if [ "$(sh -c 'echo 1001 > /proc/self/loginuid 2>/dev/null; cat /proc/self/loginuid')" = 1001 ]; then
        log_has "uid 0 (login uid 1001): gc removed user-4242.slice"
else
        log_has "uid 0: gc removed user-4242.slice"
fi
echo "slicectl gc: audit line with uid and login uid, SUDO_USER ignored"
echo PASS
