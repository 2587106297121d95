#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd backend against tests/helpers/fake-bus.py (a D-Bus peer playing the bus and systemd,
# reached only through the module argument bus_socket=): what is sent, a caller's hostile
# environment (nothing of it is read: getenv-trace.so records every getenv the module, its plugin
# and libsystemd make), one deadline for the whole login whatever the bus does (never answers,
# floods signals, drops the job), EINTR from signals, and two instances in one stack.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/bus-lib.sh"

write_conf '* CPUWeight=100' 'alice CPUWeight=300 CPUQuota=50%'

echo "== values, the move, and a caller's hostile environment"
bus_service cs debug strict
bus_start ok
rm -f "$T/pwned" "$T/trace"
# what a su caller could set: a bus that runs a program, sd-bus's own knobs, systemd's log and notify
hostile=(DBUS_SYSTEM_BUS_ADDRESS="unixexec:path=/bin/touch,argv1=$T/pwned"
         DBUS_SESSION_BUS_ADDRESS="unixexec:path=/bin/touch,argv1=$T/pwned"
         SYSTEMD_BUS_TIMEOUT=1us SYSTEMD_LOG_LEVEL=debug SYSTEMD_LOG_TARGET=console
         NOTIFY_SOCKET="$T/notify" XDG_RUNTIME_DIR="$T" SYSTEMD_MEMPOOL=0)
with_syslog env "${hostile[@]}" GETENV_TRACE_FILE="$T/trace" LD_PRELOAD="$GETENV_TRACE:$NSS_WRAPPER_LIB" \
        "$PAM_RUN" --confdir "$T/pam.d" --service cs --user alice -- true || fail "login on the fake bus failed"
[ ! -e "$T/pwned" ] || fail "a program named by the caller's environment ran"
[ ! -e "$T/notify" ] || fail "NOTIFY_SOCKET was used"
grep -q '"SetUnitProperties", "args": \["user-1001.slice", 1, \[\["CPUWeight", 300\], \["CPUQuotaPerSecUSec", 500000\]' "$REC" ||
        fail "SetUnitProperties not as configured: $(cat "$REC")"
grep -q '"StartTransientUnit", "args": \["cpuslice-1001-[0-9]*-[0-9a-f]\{8\}.scope", "fail", \[\["Slice", "user-1001.slice"\], \["PIDs", \[[0-9]*\]\]' "$REC" ||
        fail "no StartTransientUnit into user-1001.slice: $(cat "$REC")"
log_has "alice: settings given to systemd for user-1001.slice; moved into cpuslice-1001-"
# libsystemd may use secure_getenv (empty in setuid programs, where the environment is the
# caller's); a plain getenv is allowed only for these names, none of which picks a bus, a path,
# a program or a log target:
allowed_getenv='^$'
touch "$T/trace"
if grep -E 'pam_cpuslice' "$T/trace"; then fail "the module or its plugin read the environment"; fi
bad=$(grep -E '^getenv [^ ]+ .*libsystemd' "$T/trace" | awk '{ print $2 }' | grep -vE "$allowed_getenv" || true)
[ -z "$bad" ] || fail "libsystemd read with getenv: $bad"
echo "alice: CPUWeight=300, CPUQuota=50% sent, moved into her slice; hostile environment unused" \
     "(libsystemd asked: $(awk '/libsystemd/ { print $1 "(" $2 ")" }' "$T/trace" | sort -u | tr '\n' ' '))"

echo "== target_user=no: settings only"
bus_service off target_user=no
: > "$REC"
login alice --service off -- true || fail "target_user=no login failed"
[ "$(calls SetUnitProperties)" = 1 ] && [ "$(calls StartTransientUnit)" = 0 ] || fail "target_user=no: $(cat "$REC")"

echo "== two instances in one stack (runuser-l includes runuser): one placement"
cat > "$T/pam.d/twice" << EOT
session required $PAM_CPUSLICE_MODULE conf=$T/cpuslice.conf confdir=$T/none rundir=$T/none backend=systemd bus_socket=$BUS bus_root=$T/root
session include $T/pam.d/cs
EOT
: > "$REC"
SERVICE=twice login alice -- true || fail "two-instance login failed"
[ "$(calls SetUnitProperties)" = 1 ] && [ "$(calls StartTransientUnit)" = 1 ] || fail "two instances acted twice: $(cat "$REC")"

echo "== two sessions in one PAM handle: the second open acts again"
: > "$REC"
SERVICE=twice login alice --sessions 2 -- true || fail "two sessions in one handle failed"
[ "$(calls SetUnitProperties)" = 2 ] && [ "$(calls StartTransientUnit)" = 2 ] ||
        fail "the mark of the first session outlived its close: $(cat "$REC")"

echo "== one deadline: timeout=500ms bounds the whole login whatever the bus does"
# A login's wall time also counts pam-run's start-up, which ASan or a busy neighbour stretches by
# hundreds of ms: what is judged is the time beyond the same login on an answering bus, measured
# just before, and the best of 3 tries. A login that waits past its deadline (a timeout per call,
# or none) is over the bound on every try.
bus_service fo timeout=500ms
bus_service st timeout=500ms strict
# fastest SERVICE ok|denied: BEST, the lowest wall ms of up to 3 logins of alice through SERVICE
# (3 without REF_MS; with it, until one is less than 900 ms over it), each ending as said
fastest() {
        local ms t0 rc
        BEST=
        for _ in 1 2 3; do
                : > "$LOG"
                t0=$(date +%s%N)
                rc=0
                with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service "$1" --user alice -- true 2> /dev/null || rc=$?
                ms=$(ms_since "$t0")
                if [ "$2" = ok ]; then
                        [ "$rc" = 0 ] || fail "$mode: the $1 login was denied"
                else
                        [ "$rc" != 0 ] || fail "$mode: the $1 login was allowed"
                fi
                { [ -z "$BEST" ] || [ "$ms" -lt "$BEST" ]; } && BEST=$ms
                [ -n "$REF_MS" ] && [ $((BEST - REF_MS)) -lt 900 ] && break
        done
        return 0
}
for mode in hang-accept hang-auth flood no-job; do
        bus_start ok
        REF_MS=
        fastest fo ok
        REF_MS=$BEST
        bus_start "$mode"
        fastest fo ok
        ms=$BEST
        [ $((ms - REF_MS)) -lt 900 ] || fail "$mode: the login waited $ms ms with timeout=500ms, $REF_MS ms on an answering bus"
        log_has "alice: "
        [ "$(grep -c 'login proceeds without a CPU slice' "$LOG")" = 1 ] || fail "$mode: not one log line: $(cat "$LOG")"
        line=$(grep -o 'alice: .*' "$LOG" | head -n1)
        fastest st denied
        [ $((BEST - REF_MS)) -lt 900 ] || fail "$mode: the strict login waited $BEST ms, $REF_MS ms on an answering bus"
        echo "$mode: fail-open login in $ms ms, strict denied in $BEST ms ($REF_MS ms on an answering bus): $line"
done

echo "== EINTR: SIGALRM every 5 ms while each answer takes 200 ms"
bus_start slow=200
bus_service eintr timeout=3s strict
t0=$(date +%s%N)
: > "$LOG"
with_syslog "$PAM_RUN" --signal-every 5 --confdir "$T/pam.d" --service eintr --user alice -- true ||
        fail "interrupted waits failed the login: $(cat "$LOG")"
ms=$(ms_since "$t0")
[ "$(calls SetUnitProperties)" = 1 ] && [ "$(calls StartTransientUnit)" = 1 ] || fail "EINTR: $(cat "$REC")"
[ "$ms" -ge 400 ] || fail "EINTR: answered in $ms ms, so the waits were not exercised"
echo "slow bus under a signal every 5 ms: login completed in $ms ms, settings and move done"
echo "== CPUBurst=: no systemd property; the module writes the slice's file beside SetUnitProperties"
if [ -f "$CG/cpu/cpu.cfs_burst_us" ]; then
        write_conf '* CPUWeight=100' 'alice CPUQuota=50% CPUBurst=20ms'
        bus_service burst parent=$PARENT target_user=no
        bus_start ok
        mkslice 1001
        echo 45000 > "$CPU/user.slice/user-1001.slice/cpu.cfs_quota_us" # as systemd had it
        echo 40000 > "$CPU/user.slice/user-1001.slice/cpu.cfs_burst_us"
        login alice --service burst -- true || fail "burst login failed"
        [ "$(cat "$CPU/user.slice/user-1001.slice/cpu.cfs_burst_us")" = 20000 ] ||
                fail "burst beside systemd: $(cat "$CPU/user.slice/user-1001.slice/cpu.cfs_burst_us")"
        ! grep -q CPUBurst "$REC" || fail "a CPUBurst property went to systemd: $(cat "$REC")"
        echo "alice: cpu.cfs_burst_us 40000 -> 20000 written by the module, nothing of it sent to systemd"
fi
echo "PASS"
