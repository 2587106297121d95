#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the systemd backend sends next to the admin's own settings, against a fake systemd that
# writes runtime drop-ins as systemd does and lists them with the admin's in DropInPaths: only the
# properties the config gives; a value that leaves the config goes back to what the admin's files
# give (and its drop-in goes), at a login and at slicectl apply; an admin's persistent
# set-property holds with one log line; an admin's later set-property --runtime is left alone; a
# record that is not root's own is refused with one line and nothing is reverted on it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bus-lib.sh"

ETC=$T/etc-system # plays /etc/systemd/system
mkdir -p "$ETC/user-.slice.d" "$T/conf.d"
printf '[Slice]\nCPUQuota=70%%\n' > "$ETC/user-.slice.d/10-cap.conf"
bus_start "ok,dropins=$T/root/run/systemd/system.control,dropin-dirs=$T/root/etc/systemd/system.control:$ETC"
bus_service cs strict debug
RECORD=$T/root/run/cpuslice/systemd/user-1001.slice
alice() { : > "$LOG"; : > "$REC"; with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user alice -- true || fail "alice's login failed: $(cat "$LOG")"; }

echo "== only what the config gives is sent"
write_conf 'alice CPUWeight=300'
alice
[ "$(last_set)" = '[["CPUWeight", 300]]' ] || fail "a weight-only config sent $(last_set)"
[ ! -e "$(runtime_dropin 1001 CPUQuota)" ] || fail "a quota drop-in appeared"
grep -q '^CPUWeight 300 ' "$RECORD" || fail "no record of the weight: $(cat "$RECORD" 2>&1)"
[ "$(stat -c %a "$RECORD")" = 644 ] || fail "record mode $(stat -c %a "$RECORD")"
write_conf 'alice CPUSlice=yes'
alice
[ "$(calls SetUnitProperties)" = 1 ] || fail "the weight left the config but was not returned: $(cat "$REC")"
[ "$(last_set)" = '[["CPUWeight", 18446744073709551615]]' ] || fail "returning the weight with no admin value sent $(last_set)"
[ ! -e "$(runtime_dropin 1001 CPUWeight)" ] || fail "the reverted weight's drop-in stayed"
[ ! -e "$RECORD" ] || fail "an empty record stayed: $(cat "$RECORD")"
alice
[ "$(calls SetUnitProperties)" = 0 ] || fail "nothing to give, yet: $(cat "$REC")"
echo "weight only: [CPUWeight 300]; removed: back to unset, drop-in and record gone; nothing given: no call"

echo "== a value that leaves the config goes back to the admin's user-.slice.d/ cap"
write_conf 'alice CPUWeight=300 CPUQuota=20%'
alice
[ "$(last_set)" = '[["CPUWeight", 300], ["CPUQuotaPerSecUSec", 200000]]' ] || fail "sent $(last_set)"
write_conf 'alice CPUWeight=300'
alice
[ "$(last_set)" = '[["CPUWeight", 300], ["CPUQuotaPerSecUSec", 700000]]' ] || fail "the quota went back to $(last_set), not the 70% cap"
log_has "alice: CPUQuota= no longer in the config: back to systemd's own unit files"
[ ! -e "$(runtime_dropin 1001 CPUQuota)" ] || fail "the quota's runtime drop-in stayed"
alice
[ "$(last_set)" = '[["CPUWeight", 300]]' ] || fail "after the revert: $(last_set)"
echo "20% removed: 700000 (the cap) sent, the runtime drop-in removed"

echo "== the same through slicectl apply"
mkslice 1001
echo 3072 > "$CPU/user.slice/user-1001.slice/cpu.shares" # as systemd would write CPUWeight=300: no drift
write_conf 'alice CPUWeight=300 CPUQuota=20%'
alice
write_conf 'alice CPUWeight=300'
: > "$REC"
sc apply > "$T/out" 2> "$T/err" || fail "slicectl apply: $(cat "$T/err")"
[ "$(last_set)" = '[["CPUWeight", 300], ["CPUQuotaPerSecUSec", 700000]]' ] || fail "slicectl apply sent $(last_set)"
grep -q "alice (uid 1001): CPUQuota= no longer in the config: back to systemd's own unit files (70%)" "$T/out" ||
        fail "slicectl apply said: $(cat "$T/out" "$T/err")"
: > "$REC"
sc apply > "$T/out" 2> "$T/err" || fail "second slicectl apply: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "a second apply printed: $(cat "$T/out")"
echo "slicectl apply returned the quota; a second apply had nothing to do"

echo "== an admin's persistent set-property holds against the config, with one line"
mkdir -p "$T/root/etc/systemd/system.control/user-1001.slice.d"
printf '# created via "systemctl set-property"\n[Slice]\nCPUQuota=30%%\n' > "$T/root/etc/systemd/system.control/user-1001.slice.d/50-CPUQuota.conf"
write_conf 'alice CPUWeight=300 CPUQuota=50%'
alice
[ "$(last_set)" = '[["CPUWeight", 300]]' ] || fail "the held quota was sent: $(last_set)"
[ "$(grep -c 'alice: CPUQuota= kept as set with systemctl set-property' "$LOG")" = 1 ] || fail "not one notice: $(cat "$LOG")"
sc status alice > "$T/status" 2>&1 || true
grep -q 'held at 30% by systemctl set-property' "$T/status" || fail "slicectl status: $(cat "$T/status")"
sc explain alice > "$T/explain" 2>&1
grep -q 'held .*CPUQuota=30%' "$T/explain" || fail "slicectl explain: $(cat "$T/explain")"
rm -r "$T/root/etc/systemd/system.control/user-1001.slice.d"
echo "held: $(grep -o 'alice: CPUQuota= kept.*' "$LOG")"

echo "== an admin's set-property --runtime after the module's value is theirs"
write_conf 'alice CPUWeight=300 CPUQuota=20%'
alice
sleep 0.05 # a new mtime, as a later write by systemd would have
rm "$(runtime_dropin 1001 CPUQuota)"
printf '[Slice]\nCPUQuota=40%%\n' > "$(runtime_dropin 1001 CPUQuota)"
write_conf 'alice CPUWeight=300'
alice
[ "$(last_set)" = '[["CPUWeight", 300]]' ] || fail "the admin's runtime quota was reverted: $(last_set)"
grep -q CPUQuota "$RECORD" && fail "the record still claims the quota: $(cat "$RECORD")"
grep -qx 'CPUQuota=40%' "$(runtime_dropin 1001 CPUQuota)" || fail "the admin's runtime drop-in changed"
echo "the admin's runtime 40% is left alone and forgotten by the record"

echo "== slicectl reset: every recorded value back to the admin's files, running slice or not"
write_conf 'alice CPUWeight=300 CPUQuota=20%' 'bob CPUWeight=500'
alice
: > "$LOG"; with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user bob -- true || fail "bob's login failed"
[ -e "$T/root/run/cpuslice/systemd/user-1002.slice" ] || fail "no record for bob"
: > "$REC"
sc reset > "$T/out" 2> "$T/err" || fail "slicectl reset: $(cat "$T/err")"
grep -q '"SetUnitProperties", "args": \["user-1001.slice", 1, \[\["CPUWeight", 18446744073709551615\], \["CPUQuotaPerSecUSec", 700000\]\]' "$REC" ||
        fail "alice was not reset to the files: $(cat "$REC")"
grep -q '"SetUnitProperties", "args": \["user-1002.slice", 1, \[\["CPUWeight", 18446744073709551615\]\]' "$REC" ||
        fail "bob (no running slice) was not reset: $(cat "$REC")"
grep -q "bob (uid 1002): CPUWeight= reset: back to systemd's own unit files (unset)" "$T/out" || fail "reset said: $(cat "$T/out")"
[ -z "$(ls "$T/root/run/cpuslice/systemd/")" ] || fail "records left: $(ls "$T/root/run/cpuslice/systemd/")"
[ -z "$(find "$T/root/run/systemd/system.control" -name '50-*.conf')" ] || fail "runtime drop-ins left: $(find "$T/root/run/systemd/system.control" -name '50-*.conf')"
: > "$REC"
sc reset > "$T/out" 2> "$T/err" || fail "a second reset: $(cat "$T/err")"
[ "$(calls SetUnitProperties)" = 0 ] && [ ! -s "$T/out" ] || fail "a second reset did something: $(cat "$T/out" "$REC")"
echo "reset: $(tr '\n' ';' < "$T/out")"

echo "== CPUSlice=no: the module's values go back to the admin's, at a login and at slicectl apply"
write_conf 'alice CPUWeight=300 CPUQuota=20%'
alice
write_conf 'alice CPUSlice=no'
alice
[ "$(last_set)" = '[["CPUWeight", 18446744073709551615], ["CPUQuotaPerSecUSec", 700000]]' ] || fail "CPUSlice=no login sent $(last_set)"
[ "$(calls StartTransientUnit)" = 0 ] || fail "a user left alone was moved"
[ ! -e "$RECORD" ] || fail "the record stayed: $(cat "$RECORD")"
alice
[ "$(calls SetUnitProperties)" = 0 ] || fail "a second CPUSlice=no login sent something: $(cat "$REC")"
write_conf 'alice CPUWeight=300 CPUQuota=20%'
alice
write_conf 'alice CPUSlice=no'
: > "$REC"
sc apply > "$T/out" 2> "$T/err" || fail "slicectl apply: $(cat "$T/err")"
[ "$(last_set)" = '[["CPUWeight", 18446744073709551615], ["CPUQuotaPerSecUSec", 700000]]' ] || fail "CPUSlice=no apply sent $(last_set)"
grep -q "alice (uid 1001): CPUQuota= CPUSlice=no: back to systemd's own unit files (70%)" "$T/out" || fail "apply said: $(cat "$T/out")"
echo "CPUSlice=no: $(tr '\n' ';' < "$T/out")"

echo "== a record that is not root's own is refused, and nothing is reverted on it"
write_conf 'alice CPUWeight=300 CPUQuota=20%'
alice
chmod 666 "$RECORD"
write_conf 'alice CPUWeight=300'
alice
[ "$(last_set)" = '[["CPUWeight", 300]]' ] || fail "reverted on an untrusted record: $(last_set)"
log_has "the record of what was set"
[ "$(stat -c %a "$RECORD")" = 666 ] || fail "the untrusted record was rewritten"
echo "PASS"
