#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/guest-penalty.sh — guest half of vm-penalty-* (tests/vm/vm-test.sh ENV guest-penalty.sh):
# sustained-use penalties on a real kernel with the packages installed as an admin does.
#   systemd-v2, systemd-v1: the package's timer runs the passes (once a rule sets PenaltyAbove=),
#     the cap goes to user-UID.slice through PID 1, over an admin's own `systemctl set-property`
#     value, which comes back at the end; the user is told on their terminal (login on a pty); a
#     new login and daemon-reload keep the cap. The kernel's side is read where the layout keeps
#     it: cpu.max on v2, cpu.cfs_quota_us and cpu.cfs_period_us in systemd's hybrid layout's
#     cpu,cpuacct hierarchy on v1;
#   nosd-v2: passes run by hand (the cron line's command) against the cgroupfs backend, the cap in
#     cpu.max.
set -u
S=${CPUSLICE_VM_SHARE:-/mnt/share}
. "$S/guest-lib.sh"
guest_init
cpu_hierarchy
SYSTEMD=
[ "$(cat /proc/1/comm)" = systemd ] && SYSTEMD=1
KF=cpu.max
[ "$V" = 1 ] && KF=cpu.cfs_quota_us/cpu.cfs_period_us

section "facts ($ENV, $(uname -r)${SYSTEMD:+, systemd $(systemctl --version | awk 'NR == 1 { print $2 }')}, cgroup v$V, cpu in $CPUH)"
[ "$V" = 1 ] && [ -z "$SYSTEMD" ] && { bad "v1 is tested with systemd's hybrid layout only"; exit 1; }
since=$(date '+%Y-%m-%d %H:%M:%S')
install_packages || exit 1
# the passes: the package's timer where systemd runs, the cron line's command by hand elsewhere
PASSER=
passes() { # [--now]: by hand every 2 s (without systemd; with --now, the timer's service started)
        [ -n "$SYSTEMD" ] && [ "${1:-}" != --now ] && return
        if [ -n "$SYSTEMD" ]; then
                while :; do systemctl start cpuslice-penalty.service; sleep 2; done &
        else
                while :; do slicectl penalty run >> "$D/passes" 2>&1; sleep 2; done &
        fi
        PASSER=$!
}
capped() { slicectl penalty list | grep -qE "^$1 +[0-9]+ +$2 capped"; } # capped USER LEVEL (no python3 in the guest)
not_capped() { ! slicectl penalty list | grep -q ' capped '; }

section "nothing runs before a rule asks for it"
conf '* CPUWeight=100'
slicectl check > /dev/null 2>&1
check "no marker without a PenaltyAbove= line" [ ! -e /run/cpuslice/penalty-enabled ]
if [ -n "$SYSTEMD" ]; then
        check "the package enabled cpuslice-penalty.timer" systemctl is-enabled --quiet cpuslice-penalty.timer
        check "the timer is active" systemctl is-active --quiet cpuslice-penalty.timer
        systemctl start cpuslice-penalty.service
        res=$(systemctl show -p ConditionResult --value cpuslice-penalty.service)
        check "its service skips its pass (ConditionResult=$res)" [ "$res" = no ]
fi

section "carol hogs: capped after a whole window"
[ -n "$SYSTEMD" ] && systemctl set-property user-1003.slice CPUQuota=70%
conf '* CPUWeight=100' 'carol PenaltyAbove=30% PenaltyWindow=10s PenaltyQuota=20% PenaltyTime=150s PenaltyExempt=cc1'
slicectl check > "$D/check" 2>&1; rc=$?
check "slicectl check accepts the penalty keys (status $rc: $(tr '\n' ' ' < "$D/check"))" [ "$rc" = 0 ]
check "a root slicectl that read the rule made the marker" [ -e /run/cpuslice/penalty-enabled ]
start_login carol carol 2
wait_info carol
go carol
passes
t0=$(date +%s)
wait_for 150 capped carol 1
check "carol capped at level 1 within 150 s${SYSTEMD:+ by the timer} (after $(( $(date +%s) - t0 )) s)" capped carol 1
[ -n "$SYSTEMD" ] && passes --now # from here on, passes every 2 s: the rest does not wait for the timer
# a pass saves the state before it sends the cap (and the lift): the list may be a moment ahead
wait_for 20 cpu_max_is 1003 "20000 100000"
[ -n "$SYSTEMD" ] && wait_for 20 quota_is 1003 200ms
got=$(cpu_max 1003)
check "carol's $KF is the 20% cap (got '$got')" [ "$got" = "20000 100000" ]
fig "$ENV carol capped: $CPUH/user.slice/user-1003.slice $KF '$got'${SYSTEMD:+, CPUQuotaPerSecUSec=$(quota_of 1003)}"
if [ -n "$SYSTEMD" ]; then
        got=$(quota_of 1003)
        check "systemd's CPUQuotaPerSecUSec is 200ms, over the admin's 70% (got $got)" [ "$got" = 200ms ]
        # the pass logged its decision before it saved the state; journald stores it asynchronously
        journalctl --sync
        check "one journal line for the decision" bash -c \
                'journalctl --no-pager -q --since "$1" | grep -q "carol (uid 1003): penalty started: level 1, CPUQuota=20%"' - "$since"
fi
wait_for 10 grep -q 'pam_cpuslice: your processes used' "$D/carol.out"
check "carol was told on her terminal" grep -q 'pam_cpuslice: your processes used .* limited to 20%' "$D/carol.out"
slicectl status carol > "$D/status" 2>&1
su carol -c "slicectl status carol" > "$D/status-own" 2>&1
check "carol sees her penalty in her own status" grep -q '^Penalty:    level 1 since' "$D/status-own" ||
        sed 's/^/  | /' "$D/status-own"

section "a new login, apply and daemon-reload keep the cap"
start_login carol2 carol 0
wait_info carol2
go carol2
got=$(cpu_max 1003)
check "after a second login (got '$got')" [ "$got" = "20000 100000" ]
slicectl apply > /dev/null 2>&1
check "after slicectl apply (got '$(cpu_max 1003)')" [ "$(cpu_max 1003)" = "20000 100000" ]
if [ -n "$SYSTEMD" ]; then
        systemctl daemon-reload
        # a reload may give the admin's persistent value back for a moment; the next pass restores the cap
        wait_for 20 cpu_max_is 1003 "20000 100000"
        check "after daemon-reload, by the next pass at the latest (got '$(cpu_max 1003)')" [ "$(cpu_max 1003)" = "20000 100000" ]
fi

section "the end: the cap lifts, the admin's value comes back"
# the hogs stop; the second login (no hogs) keeps the slice, so the lift is seen in the kernel
stop carol
wait_for 200 not_capped
check "lifted within 200 s" not_capped
if [ -n "$SYSTEMD" ]; then
        wait_for 20 quota_is 1003 700ms
        got=$(quota_of 1003)
        check "systemd's CPUQuotaPerSecUSec is the admin's 700ms again (got $got)" [ "$got" = 700ms ]
        wait_for 10 cpu_max_is 1003 "70000 100000"
        got=$(cpu_max 1003)
        check "carol's $KF is the admin's 70% again (got '${got:-no slice}')" [ "$got" = "70000 100000" ]
        check "the module's runtime CPUQuota drop-in is gone" \
                [ ! -e /run/systemd/system.control/user-1003.slice.d/50-CPUQuota.conf ]
else
        wait_for 20 cpu_max_is 1003 "max 100000"
        got=$(cpu_max 1003)
        check "carol's cpu.max is unlimited again (got '${got:-no slice}')" [ "$got" = "max 100000" ]
fi
stop carol2
[ -n "$PASSER" ] && kill "$PASSER" 2> /dev/null
wait "$PASSER" 2> /dev/null

section "the module logged no failure"
[ -n "$SYSTEMD" ] && journalctl --sync # a line still on its way to the journal would pass unseen
warn=$(journalctl --no-pager -q --since "$since" 2> /dev/null | grep -E 'pam_cpuslice\(' | grep -E 'login proceeds|session denied|refused' || true)
check "no failure line${warn:+: $warn}" [ -z "$warn" ]
[ -s "$D/passes" ] && sed 's/^/  pass: /' "$D/passes"
echo
echo "$fails check(s) failed"
[ "$fails" = 0 ]
