#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/guest-reboot.sh — guest half of vm-reboot-systemd-v2 (tests/vm/vm-test.sh systemd-v2
# guest-reboot.sh): a sustained-use penalty lives through a real reboot. vm-test.sh boots the
# guest twice over the same disk (tools/vm/run --disk), because of this line:
# vm-boots: 2
#   boot 1: carol hogs until a penalty (PenaltyTime=30min, long enough for any host) caps her over
#     an admin's `systemctl set-property` value; the machine powers off with the cap in force;
#   boot 2: the state in /var/lib/cpuslice/penalty is still there and alone (written atomically),
#     the samples under /run/cpuslice are gone; `slicectl penalty list` shows the penalty with its end
#     unchanged; the timer's service still runs its passes (no marker yet, a kept penalty); a new
#     login of carol gets the cap from PID 1 (CPUQuotaPerSecUSec and cpu.max), a pass keeps it,
#     and `slicectl penalty clear` lifts it: the admin's value back, the runtime drop-in gone.
set -u
S=${CPUSLICE_VM_SHARE:-/mnt/share}
. "$S/guest-lib.sh"
guest_init
cpu_hierarchy
BOOT=$(vm_boot)
STATE=/var/lib/cpuslice/penalty
DROPIN=/run/systemd/system.control/user-1003.slice.d/50-CPUQuota.conf
capped() { slicectl penalty list | grep -qE "^$1 +[0-9]+ +$2 capped"; } # capped USER LEVEL
until_of() { slicectl -J penalty list | grep -o '"until": *[0-9]*' | grep -o '[0-9]*$'; } # carol's is the only one
hold() { # hold TAG HOGS: a held su -l session of carol
        start "$1" su -l carol -c "sh $D/session.sh $1 $2"
        wait_info "$1"
        go "$1"
}
since=$(date '+%Y-%m-%d %H:%M:%S')
sect() { section "$* [$(cut -d. -f1 /proc/uptime) s since the boot]"; }

sect "facts ($ENV, boot $BOOT, $(uname -r), cgroup v$V, boot id $(cat /proc/sys/kernel/random/boot_id))"
systemd-analyze 2> /dev/null | head -n1
[ "$(cat /proc/1/comm)" = systemd ] && [ "$V" = 2 ] || { bad "this test wants systemd on the unified hierarchy"; exit 1; }

if [ "$BOOT" = 1 ]; then
        sect "boot 1: carol gets a penalty, then the machine powers off"
        install_packages || exit 1
        systemctl set-property user-1003.slice CPUQuota=70%
        conf '* CPUWeight=100' 'carol PenaltyAbove=30% PenaltyWindow=10s PenaltyQuota=20% PenaltyTime=30min'
        hold carol 2
        # passes every 2 s through the package's service, not every 30 s by its timer
        while :; do systemctl start cpuslice-penalty.service; sleep 2; done &
        passer=$!
        t0=$SECONDS
        # a window and a pass or two; the rest is for a host that starves the guest
        wait_for 300 capped carol 1
        check "carol capped at level 1 within 300 s (after $((SECONDS - t0)) s)" capped carol 1
        kill "$passer"
        wait "$passer" 2> /dev/null
        # a pass saves the state before it sends the cap: the list may be a moment ahead
        wait_for 20 cpu_max_is 1003 "20000 100000"
        wait_for 20 quota_is 1003 200ms
        got=$(cpu_max 1003)
        check "carol's cpu.max is the 20% cap (got '$got')" [ "$got" = "20000 100000" ]
        got=$(quota_of 1003)
        check "systemd's CPUQuotaPerSecUSec is 200ms, over the admin's 70% (got $got)" [ "$got" = 200ms ]
        stop carol
        check "the penalty is kept in $STATE/1003" [ -f "$STATE/1003" ]
        slicectl penalty list | sed 's/^/  /'
        until_of > "$S/until-boot1"
        cat /proc/sys/kernel/random/boot_id > "$S/boot-id-1"
        echo
        echo "$fails check(s) failed (boot $BOOT, $(cut -d. -f1 /proc/uptime) s since the boot)"
        [ "$fails" = 0 ]
        exit # the harness powers the machine off, and boots it again over the same disk
fi

sect "boot 2: the same disk, a new boot"
check "a new boot (boot 1's id was $(cat "$S/boot-id-1" 2> /dev/null))" \
        [ "$(cat /proc/sys/kernel/random/boot_id)" != "$(cat "$S/boot-id-1" 2> /dev/null)" ]
check "the packages installed in boot 1 are still there" bash -c 'dpkg-query -W libpam-cpuslice slicectl > /dev/null'
check "carol's penalty state is still a file, $STATE/1003" [ -f "$STATE/1003" ]
left=$(ls -A "$STATE" 2> /dev/null | grep -vx 1003)
check "nothing else in $STATE (a temporary file would be a write not done atomically)${left:+: $left}" [ -z "$left" ]
# a file per user under /run/cpuslice/penalty, or a section per user in /run/cpuslice/penalty-samples
check "no usage samples of boot 1 under /run/cpuslice" \
        bash -c '[ ! -e /run/cpuslice/penalty/1003 ] && ! grep -qsx "user 1003" /run/cpuslice/penalty-samples'
check "boot 1's runtime drop-in went with /run" [ ! -e "$DROPIN" ]
slicectl penalty list | sed 's/^/  /'
check "slicectl penalty list still shows carol capped at level 1" capped carol 1
u1=$(cat "$S/until-boot1" 2> /dev/null) u2=$(until_of)
check "with boot 1's end (boot 1: ${u1:-none}, now: ${u2:-none})" [ -n "$u1" -a "$u1" = "$u2" ]

sect "boot 2: the timer's passes go on for a kept penalty"
# until a login or a root slicectl reads a PenaltyAbove= line, the marker is not there after a
# boot (a timer's pass or the list above may have made it already): the kept state alone must do
rm -f /run/cpuslice/penalty-enabled
systemctl start cpuslice-penalty.service
res=$(systemctl show -p ConditionResult --value cpuslice-penalty.service)
check "cpuslice-penalty.service runs its pass with no marker (ConditionResult=$res)" [ "$res" = yes ]
check "still capped after that pass" capped carol 1

sect "boot 2: a new login gets the cap, a pass keeps it, penalty clear lifts it"
hold carol2 0
# systemd writes the kernel files right after it answers the login
wait_for 20 cpu_max_is 1003 "20000 100000"
got=$(cpu_max 1003)
check "carol's new login: cpu.max is the 20% cap (got '$got')" [ "$got" = "20000 100000" ]
got=$(quota_of 1003)
check "carol's new login: CPUQuotaPerSecUSec 200ms from PID 1, over the admin's 70% (got $got)" [ "$got" = 200ms ]
fig "$ENV after a reboot, carol's new login: cpu.max '$(cpu_max 1003)', CPUQuotaPerSecUSec=$(quota_of 1003)"
slicectl penalty run > "$D/run" 2>&1
rc=$?
check "slicectl penalty run exits 0 (status $rc: $(tr '\n' ' ' < "$D/run"))" [ "$rc" = 0 ]
check "the pass keeps carol capped at level 1" capped carol 1
u2=$(until_of)
check "with the same end (${u2:-none})" [ -n "$u1" -a "$u1" = "$u2" ]
got=$(cpu_max 1003)
check "and the cap in the kernel (got '$got')" [ "$got" = "20000 100000" ]
slicectl penalty clear carol > "$D/clear" 2>&1
rc=$?
check "slicectl penalty clear carol exits 0 (status $rc: $(tr '\n' ' ' < "$D/clear"))" [ "$rc" = 0 ]
check "no penalty listed any more" bash -c '! slicectl penalty list | grep -q "^carol "'
check "the state file is gone" [ ! -e "$STATE/1003" ]
got=$(quota_of 1003)
check "CPUQuotaPerSecUSec is the admin's 700ms again (got $got)" [ "$got" = 700ms ]
wait_for 10 cpu_max_is 1003 "70000 100000"
got=$(cpu_max 1003)
check "carol's cpu.max is the admin's 70% again (got '$got')" [ "$got" = "70000 100000" ]
check "the module's runtime CPUQuota drop-in is gone" [ ! -e "$DROPIN" ]
stop carol2

sect "the module logged no failure"
journalctl --sync # a line still on its way to the journal would pass unseen
warn=$(journalctl --no-pager -q --since "$since" | grep -E 'pam_cpuslice\(' | grep -E 'login proceeds|session denied|refused' || true)
check "no failure line${warn:+: $warn}" [ -z "$warn" ]
failed=$(systemctl list-units --failed --plain --no-legend | grep -E 'cpuslice' || true)
check "no failed unit of ours${failed:+: $failed}" [ -z "$failed" ]
echo
echo "$fails check(s) failed (boot $BOOT, $(cut -d. -f1 /proc/uptime) s since the boot)"
[ "$fails" = 0 ]
