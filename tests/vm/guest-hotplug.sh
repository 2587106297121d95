#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/guest-hotplug.sh — guest half of vm-hotplug-* (tests/vm/vm-test.sh systemd-v2|nosd-v2
# guest-hotplug.sh): a CPU going off- and online again re-resolves a CPUQuotaShare= in a held
# login through what the packages ship (issue #27), never a slicectl apply run by hand:
#   - the uevents the kernel sends for it, as udevadm monitor sees them, and the command the rule
#     gives them: the unit's start with systemd, slicectl apply itself without (nosd-v2: udevd
#     started as a sysvinit host's /etc/init.d/udev does, the cgroupfs backend);
#   - without a share, the rule's apply runs (systemd: seen in the journal), prints nothing and
#     changes nothing;
#   - with carol CPUQuotaShare=50%, cpu.max follows cpu1 off (the 1-CPU quota) and on again.
set -u
S=${CPUSLICE_VM_SHARE:-/mnt/share}
. "$S/guest-lib.sh"
guest_init
cpu_hierarchy
NCPU=$(getconf _NPROCESSORS_ONLN)
CPU1=/sys/devices/system/cpu/cpu1/online

SYSTEMD=
[ "$(cat /proc/1/comm)" = systemd ] && SYSTEMD=1

section "facts ($ENV, ${SYSTEMD:+$(systemctl --version | head -n1), }$(uname -r), $NCPU CPUs, cgroup v$V)"
if [ "${ENV%%-*}" = systemd ]; then
        state=$(timeout 60 systemctl is-system-running --wait 2>&1)
        check "PID 1 is systemd, system $state" [ -n "$SYSTEMD" ]
else
        check "PID 1 is not systemd" [ -z "$SYSTEMD" ]
        /lib/systemd/systemd-udevd --daemon
        check "udevd runs without systemd" wait_for 10 udevadm control --ping
fi
check "two CPUs or more" [ "$NCPU" -ge 2 ]
check "cpu1 can go offline ($CPU1)" [ -w "$CPU1" ]
[ "$fails" = 0 ] || exit 1

section "install (apt, pam-auth-update)"
install_packages || exit 1
check "the package ships the udev rule" [ -f /usr/lib/udev/rules.d/60-cpuslice-hotplug.rules ]
[ -n "$SYSTEMD" ] && check "and the unit it starts" systemctl cat cpuslice-apply.service
run=/usr/bin/slicectl\ apply
[ -n "$SYSTEMD" ] && run="/bin/systemctl --no-block restart cpuslice-apply.service"
udevadm test --action=offline /sys/devices/system/cpu/cpu1 > "$D/udev-test" 2>&1
check "for cpu1 offline the rule runs '$run'" grep -qF "$run" "$D/udev-test"
online_is() { [ "$(getconf _NPROCESSORS_ONLN)" = "$1" ]; }
cpu1() { # cpu1 0|1: the CPU off or on, and until the kernel counts it
        echo "$1" > "$CPU1"
        check "cpu1/online $1: $((NCPU - 1 + $1)) CPUs online" wait_for 10 online_is $((NCPU - 1 + $1))
}
quota_after() { # quota_after 0|1 WANT WHAT: cpu1 off or on, then until carol's cpu.max is WANT
        local t=$SECONDS got
        cpu1 "$1"
        wait_for 30 cpu_max_is 1003 "$2"
        got=$(cpu_max 1003)
        check "$3: cpu.max $2 (got '$got')" [ "$got" = "$2" ]
        fig "$ENV: cpu1/online $1 to that quota in carol's cpu.max: $((SECONDS - t)) s"
}
said() { journalctl -b -q -o cat -u cpuslice-apply.service | grep -c "^$1 "; } # said Starting|Finished
starts() { said Starting; }
applied() { [ "$(said Finished)" -ge "$1" ]; } # applied N: the rule's unit ran N times to success in all

section "the uevents of cpu1 going off- and online"
udevadm monitor --kernel --udev --subsystem-match=cpu > "$D/monitor" 2>&1 &
mon=$!
sleep 1
conf '* CPUWeight=100'
held_login h1 carol
before=$(cpu_max 1003)
if [ -n "$SYSTEMD" ]; then
        n0=$(said Finished)
        t=$SECONDS
        cpu1 0
        check "without a share: the rule runs cpuslice-apply.service to success" wait_for 30 applied $((n0 + 1))
        fig "$ENV: offline to the end of the rule's apply: $((SECONDS - t)) s (no CPUQuotaShare= line)"
        cpu1 1
        check "and again when cpu1 comes back" wait_for 30 applied $((n0 + 2))
        journalctl -b -q -o cat -u systemd-udevd.service | grep 60-cpuslice > "$D/udevd-said"
        check "udevd read the rule without a complaint ($(wc -l < "$D/udevd-said") lines)" [ ! -s "$D/udevd-said" ]
else
        cpu1 0
        cpu1 1
        udevadm settle
fi
# neither settle nor the unit's runs wait for the monitor beside udevd to print what it got: wait
# for the last line the checks below look for (the kernel sends offline before online)
wait_for 20 grep -q '^KERNEL.*online .*/devices/system/cpu/cpu1 (cpu)' "$D/monitor"
kill "$mon"
sed 's/^/  | /' "$D/monitor"
check "the kernel sent 'offline' for cpu1" grep -q '^KERNEL.*offline .*/devices/system/cpu/cpu1 (cpu)' "$D/monitor"
check "and 'online'" grep -q '^KERNEL.*online .*/devices/system/cpu/cpu1 (cpu)' "$D/monitor"
if [ -n "$SYSTEMD" ]; then
        journalctl -b -q -o cat -u cpuslice-apply.service | sed 's/^/  | /'
        # slicectl's own lines (its stdout, stderr and syslog), not PID 1's about the unit
        journalctl -b -q -o cat _SYSTEMD_UNIT=cpuslice-apply.service + SYSLOG_IDENTIFIER=slicectl > "$D/said-noshare"
        check "apply with nothing to change said nothing ($(wc -l < "$D/said-noshare") lines)" [ ! -s "$D/said-noshare" ]
fi
check "carol's quota as before ('$(cpu_max 1003)', was '$before')" [ "$(cpu_max 1003)" = "$before" ]
stop h1

section "CPUQuotaShare=50%: cpu1 off and on again in a held login"
conf '* CPUWeight=100' 'carol CPUQuotaShare=50%'
held_login h2 carol
all="$((NCPU * 50000)) 100000" less="$(((NCPU - 1) * 50000)) 100000"
check "50% of $NCPU CPUs: cpu.max $all" wait_for 10 cpu_max_is 1003 "$all"
[ -n "$SYSTEMD" ] && n0=$(starts)
quota_after 0 "$less" "cpu1 offline: 50% of $((NCPU - 1)) CPUs"
[ -n "$SYSTEMD" ] && check "through the rule's unit" [ "$(starts)" -gt "$n0" ]
check "explain says $((NCPU - 1)) CPU(s)" bash -c 'slicectl explain carol | grep -q "(CPUQuotaShare=50% of $1 CPU"' - "$((NCPU - 1))"
quota_after 1 "$all" "cpu1 online again: 50% of $NCPU CPUs"
[ -n "$SYSTEMD" ] && journalctl -b -q -o cat _SYSTEMD_UNIT=cpuslice-apply.service + SYSLOG_IDENTIFIER=slicectl | sed 's/^/  | /'
stop h2

echo
echo "$fails check(s) failed"
[ "$fails" = 0 ]
