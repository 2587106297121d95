#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd backend when systemd says no (tests/helpers/fake-bus.py answering with errors): every
# error reply is a failure with systemd's error name and text in one escaped log line; fail-open
# lets the login in, strict denies it; a systemd before 252 that refuses CPUWeight=idle gets
# weight 1 and the quota in a second call; a leftover scope name gets a retry under a new name;
# slicectl set and apply exit non-zero and say what systemd answered.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bus-lib.sh"

write_conf '* CPUWeight=100' 'alice CPUWeight=300 CPUQuota=50%'
bus_service fo
bus_service st strict
failure_lines() { grep -c 'login proceeds without a CPU slice' "$LOG" || true; }

echo "== error replies: one log line and the login proceeds; strict denies"
for spec in SetUnitProperties:org.freedesktop.DBus.Error.InvalidArgs \
            SetUnitProperties:org.freedesktop.DBus.Error.AccessDenied \
            SetUnitProperties:org.freedesktop.systemd1.NoSuchUnit \
            StartTransientUnit:org.freedesktop.DBus.Error.AccessDenied; do
        bus_start "error=$spec,evilmsg"
        : > "$LOG"
        with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service fo --user alice -- true || fail "$spec: fail-open login denied"
        [ "$(failure_lines)" = 1 ] || fail "$spec: not one failure line: $(cat "$LOG")"
        log_has "(${spec#*:})"
        # systemd's text is bytes from outside: escaped, never a raw escape or newline in the log
        log_has 'red\x0aline2'
        if grep -q $'\x1b' "$LOG"; then fail "$spec: a raw escape byte reached the log"; fi
        if login alice --service st -- true 2> /dev/null; then fail "$spec: strict login allowed"; fi
        [ "${spec%%:*}" = StartTransientUnit ] || [ "$(calls StartTransientUnit)" = 0 ] ||
                fail "$spec: the session was moved after the settings were refused: $(cat "$REC")"
        echo "$spec: $(grep -o 'alice: .*' "$LOG" | head -n1)"
done

echo "== the scope job fails"
bus_start job-failed
: > "$LOG"
with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service fo --user alice -- true || fail "job-failed: fail-open login denied"
log_has "ended with 'failed'"
if login alice --service st -- true 2> /dev/null; then fail "job-failed: strict login allowed"; fi

echo "== CPUWeight=idle on a systemd before 252: weight 1, and the quota is not lost"
write_conf 'alice CPUWeight=idle CPUQuota=50%'
bus_start sd247
: > "$LOG"
with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service st --user alice -- true || fail "sd247: the idle fallback login failed: $(cat "$LOG")"
[ "$(calls SetUnitProperties)" = 2 ] || fail "sd247: not two SetUnitProperties: $(cat "$REC")"
grep '"SetUnitProperties"' "$REC" | head -n1 | grep -q '\["CPUWeight", 0\], \["CPUQuotaPerSecUSec", 500000\]' ||
        fail "sd247: the first call was not idle + quota: $(cat "$REC")"
[ "$(last_set)" = '[["CPUWeight", 1], ["CPUQuotaPerSecUSec", 500000]]' ] || fail "sd247: the retry sent $(last_set)"
[ "$(grep -c 'does not support CPUWeight=idle' "$LOG")" = 1 ] || fail "sd247: not one warning: $(cat "$LOG")"
[ "$(failure_lines)" = 0 ] || fail "sd247: a failure was logged: $(cat "$LOG")"
echo "systemd 247: CPUWeight=idle refused, $(last_set) sent again; one warning"

echo "== a leftover unit of the scope's name: one retry under another"
write_conf 'alice CPUWeight=300'
bus_start exists-once
: > "$LOG"
with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service st --user alice -- true || fail "exists-once: login failed: $(cat "$LOG")"
names=$(grep '"StartTransientUnit"' "$REC" | sed 's/.*"args": \["\([^"]*\)".*/\1/' | sort -u | wc -l)
[ "$(calls StartTransientUnit)" = 2 ] && [ "$names" = 2 ] || fail "exists-once: not two calls with two names: $(cat "$REC")"
bus_start exists-always
if login alice --service st -- true 2> /dev/null; then fail "exists-always: strict login allowed"; fi
[ "$(calls StartTransientUnit)" = 2 ] || fail "exists-always: not exactly one retry: $(cat "$REC")"
echo "UnitExists: retried once under a new name ($(grep '"StartTransientUnit"' "$REC" | sed 's/.*"args": \["\([^"]*\)".*/\1/' | tr '\n' ' '))"

echo "== slicectl set and apply say what systemd answered and exit non-zero"
mkslice 1001
mkdir -p "$T/conf.d"
write_conf 'alice CPUWeight=300'
bus_start error=SetUnitProperties:org.freedesktop.DBus.Error.AccessDenied
rc=0; sc apply > "$T/out" 2> "$T/err" || rc=$?
[ $rc != 0 ] || fail "slicectl apply exited 0 on a refusal"
grep -q 'Access denied (org.freedesktop.DBus.Error.AccessDenied)' "$T/err" || fail "slicectl apply: $(cat "$T/err")"
if grep -q alice "$T/out"; then fail "slicectl apply printed a change that did not happen: $(cat "$T/out")"; fi
rc=0; sc set alice CPUWeight=400 > "$T/out" 2> "$T/err" || rc=$?
[ $rc != 0 ] || fail "slicectl set exited 0 on a refusal"
grep -q 'Access denied (org.freedesktop.DBus.Error.AccessDenied)' "$T/err" || fail "slicectl set: $(cat "$T/err")"
echo "slicectl apply/set: exit $rc, '$(head -n1 "$T/err")'"
bus_start ok
sc apply > "$T/out" 2> "$T/err" || fail "slicectl apply on a bus that agrees: $(cat "$T/err")"
grep -q 'alice (uid 1001): CPUWeight= 100 -> 400' "$T/out" || fail "slicectl apply: $(cat "$T/out")"
echo "PASS"
