#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/guest-admin-values.sh — guest half of vm-admin-* (tests/vm/vm-test.sh systemd-v2
# guest-admin-values.sh): on a real systemd, the admin's own values and cpuslice.conf side by
# side, one check per sentence of pam_cpuslice(8)'s SYSTEMD HOSTS precedence list:
#   1. a property cpuslice.conf does not give is never sent: a `systemctl set-property` value and a
#      user-.slice.d/ cap survive the user's logins;
#   2. a value cpuslice.conf gives outranks unit files and drop-ins under /etc/systemd/system;
#   3. an admin's persistent `systemctl set-property` outranks cpuslice.conf, with one log line;
#   4. a value that leaves cpuslice.conf goes back to what systemd's own files give at
#      `slicectl apply` (and its runtime drop-in goes);
#   5. an admin's `set-property --runtime` made after the module's value is kept when the value
#      leaves cpuslice.conf, and replaced when cpuslice.conf gives one again;
#   6. daemon-reload changes none of it;
# and CPUWeight=idle: systemd's idle where it has it (252+), weight 1 with the quota kept before.
# The packages are installed as an admin does (apt, pam-auth-update's profile).
set -u
S=${CPUSLICE_VM_SHARE:-/mnt/share}
. "$S/guest-lib.sh"
guest_init
cpu_hierarchy
SDVER=$(systemctl --version | awk 'NR == 1 { print $2 }')
SDVER=${SDVER%%[!0-9]*}

section "facts ($ENV, systemd $SDVER, $(uname -r))"
state=$(timeout 60 systemctl is-system-running --wait 2>&1)
check "PID 1 is systemd, system $state" [ "$(cat /proc/1/comm)" = systemd ]
[ "$V" = 2 ] || { bad "this test wants the unified hierarchy"; exit 1; }

section "install (apt, pam-auth-update)"
since=$(date '+%Y-%m-%d %H:%M:%S')
install_packages || exit 1
check "pam-auth-update put the module in common-session" grep -q pam_cpuslice.so /etc/pam.d/common-session

runtime_dropin() { echo "/run/systemd/system.control/user-$1.slice.d/50-$2.conf"; }
# systemd realizes properties in the kernel right after it answers: wait for the file
wait_cpu_max() { wait_is "$2" cpu_max "$1"; } # UID WANT
expect() { # expect TEXT UID QUOTA-PER-SEC CPU.MAX [WEIGHT]: systemd's view and the kernel's
        local what=$1 uid=$2 q=$3 max=$4 w=${5:-} got
        got=$(quota_of "$uid")
        check "$what: CPUQuotaPerSecUSec=$q (got $got)" [ "$got" = "$q" ]
        got=$(wait_cpu_max "$uid" "$max")
        check "$what: cpu.max '$max' (got '$got')" [ "$got" = "$max" ]
        if [ -n "$w" ]; then
                got=$(weight_of "$uid")
                check "$what: CPUWeight=$w (got $got)" [ "$got" = "$w" ]
        fi
        fig "$ENV systemd $SDVER $what: user-$uid.slice CPUQuotaPerSecUSec=$(quota_of "$uid") CPUWeight=$(weight_of "$uid") cpu.max=$(cpu_max "$uid")"
}

section "the admin's values before any login"
mkdir -p /etc/systemd/system/user-.slice.d
printf '[Slice]\nCPUQuota=70%%\n' > /etc/systemd/system/user-.slice.d/10-cap.conf
systemctl daemon-reload
systemctl set-property user-1002.slice CPUQuota=30%
conf '* CPUWeight=100' 'bob CPUWeight=200'
slicectl check > "$D/check" 2>&1; rc=$?
check "slicectl check accepts a weight-only config (status $rc)" [ $rc = 0 ]

section "1. what cpuslice.conf does not give survives logins"
held_login s1-bob bob
held_login s1-alice alice
expect "bob, admin's set-property CPUQuota=30%" 1002 300ms "30000 100000" 200
expect "alice, user-.slice.d/10-cap.conf CPUQuota=70%" 1001 700ms "70000 100000" 100
check "no runtime CPUQuota drop-in of the module for bob" [ ! -e "$(runtime_dropin 1002 CPUQuota)" ]
check "the module's runtime CPUWeight drop-in for bob" grep -qx 'CPUWeight=200' "$(runtime_dropin 1002 CPUWeight)"
stop s1-bob s1-alice
held_login s1b-bob bob
expect "bob's second login" 1002 300ms "30000 100000" 200
stop s1b-bob

section "2. cpuslice.conf outranks the user-.slice.d/ cap"
conf '* CPUWeight=100' 'bob CPUWeight=200' 'carol CPUQuota=20%'
held_login s2-carol carol
expect "carol CPUQuota=20% over the 70% cap" 1003 200ms "20000 100000" 100

section "3. an admin's persistent set-property outranks cpuslice.conf"
conf '* CPUWeight=100' 'bob CPUWeight=200 CPUQuota=50%' 'carol CPUQuota=20%'
mark=$(date '+%Y-%m-%d %H:%M:%S')
held_login s3-bob bob
expect "bob: the config asks 50%, set-property holds 30%" 1002 300ms "30000 100000" 200
journalctl --sync # journald stores what the login logged asynchronously: read it once stored
kept=$(journalctl --no-pager -q --since "$mark" | grep -c 'bob: CPUQuota= kept as set with systemctl set-property' || true)
check "one log line says bob's CPUQuota= is kept (got $kept)" [ "$kept" -ge 1 ]
slicectl status bob > "$D/status-bob" 2>&1
sed 's/^/  /' "$D/status-bob"
check "slicectl status shows bob's quota held by set-property" grep -q 'held at 30% by systemctl set-property' "$D/status-bob"
check "slicectl status calls none of it drift" bash -c '! grep -q DRIFT "$1"' - "$D/status-bob"
slicectl explain bob > "$D/explain-bob" 2>&1
check "slicectl explain says the line is held" grep -q 'held .*CPUQuota=30%' "$D/explain-bob"
stop s3-bob

section "4. a value that leaves cpuslice.conf goes back to systemd's files at slicectl apply"
conf '* CPUWeight=100' 'bob CPUWeight=200'
slicectl apply > "$D/apply4" 2>&1; rc=$?
sed 's/^/  /' "$D/apply4"
check "slicectl apply exits 0 (status $rc)" [ $rc = 0 ]
check "slicectl apply says carol's quota went back to the unit files" grep -q "carol (uid 1003): CPUQuota= no longer in the config: back to systemd's own unit files (70%)" "$D/apply4"
expect "carol after her line left the config" 1003 700ms "70000 100000"
check "carol's runtime CPUQuota drop-in is gone" [ ! -e "$(runtime_dropin 1003 CPUQuota)" ]
slicectl apply > "$D/apply4b" 2>&1
check "a second apply has nothing to do ($(tr '\n' ' ' < "$D/apply4b"))" bash -c '! grep -q carol "$1"' - "$D/apply4b"

section "5. an admin's set-property --runtime after the module's value"
conf '* CPUWeight=100' 'bob CPUWeight=200' 'carol CPUQuota=20%'
slicectl apply > /dev/null 2>&1
expect "carol at the config's 20% again" 1003 200ms "20000 100000"
systemctl set-property --runtime user-1003.slice CPUQuota=40%
conf '* CPUWeight=100' 'bob CPUWeight=200'
slicectl apply > "$D/apply5" 2>&1
expect "carol: the admin's runtime 40% is kept when the config drops her line" 1003 400ms "40000 100000"
conf '* CPUWeight=100' 'bob CPUWeight=200' 'carol CPUQuota=20%'
slicectl apply > /dev/null 2>&1
expect "carol: the config gives a value again and replaces the runtime one" 1003 200ms "20000 100000"
stop s2-carol

section "6. daemon-reload changes none of it"
held_login s6-bob bob
held_login s6-carol carol
systemctl daemon-reload
expect "bob after daemon-reload" 1002 300ms "30000 100000" 200
expect "carol after daemon-reload" 1003 200ms "20000 100000" 100
stop s6-bob s6-carol

section "CPUWeight=idle with a quota"
conf '* CPUWeight=100' 'dave CPUWeight=idle CPUQuota=80%'
mark=$(date '+%Y-%m-%d %H:%M:%S')
held_login idle-dave dave
if [ "$SDVER" -ge 252 ]; then
        # systemd writes cpu.idle right after it answers, as it does cpu.max
        got=$(wait_is 1 cat "$CPUH/user.slice/user-1500.slice/cpu.idle")
        check "systemd $SDVER: dave's slice is idle (cpu.idle=$got)" [ "$got" = 1 ]
        expect "dave idle, quota 80% (over the 70% cap)" 1500 800ms "80000 100000"
else
        expect "dave: systemd $SDVER has no idle, weight 1 and the quota kept" 1500 800ms "80000 100000" 1
        journalctl --sync
        check "one log line says CPUWeight=idle is not supported" bash -c \
                'journalctl --no-pager -q --since "$1" | grep -q "dave: this systemd does not support CPUWeight=idle"' - "$mark"
fi
stop idle-dave

section "the module logged no failure"
journalctl --sync # a line still on its way to the journal would pass unseen
warn=$(journalctl --no-pager -q --since "$since" | grep -E 'pam_cpuslice\(' | grep -E 'login proceeds|session denied|refused' || true)
check "no failure line${warn:+: $warn}" [ -z "$warn" ]
failed=$(systemctl list-units --failed --plain --no-legend | grep -E 'cpuslice' || true)
check "no failed unit of ours${failed:+: $failed}" [ -z "$failed" ]

echo
echo "$fails check(s) failed"
[ "$fails" = 0 ]
