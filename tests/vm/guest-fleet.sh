#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/guest-fleet.sh — guest half of vm-fleet-* (tests/vm/vm-test.sh systemd-v2|systemd-v1
# guest-fleet.sh): the settings for one config across a fleet, on a real systemd (#27), on v2 or
# on systemd's hybrid layout (v1: the cpu controller in cpu,cpuacct, the quota in
# cpu.cfs_quota_us/cpu.cfs_period_us, read as v2's cpu.max form by guest-lib.sh's cpu_max):
#   - CPUQuotaShare= becomes the absolute CPUQuota= of this VM's CPUs, and (v2 only: systemd has
#     no AllowedCPUs= on v1) follows a change of user.slice's cpuset at slicectl apply;
#   - CPUBurst=, which systemd has no property for, lands in the slice's cpu.max.burst (v1:
#     cpu.cfs_burst_us) beside SetUnitProperties, and what systemd does to it on daemon-reload
#     and on a restart of the slice is measured and printed as figures;
#   - a user.slice line reaches user.slice through SetUnitProperties, and goes back to systemd's
#     own files when the line is gone.
set -u
S=${CPUSLICE_VM_SHARE:-/mnt/share}
. "$S/guest-lib.sh"
guest_init
cpu_hierarchy
SDVER=$(systemctl --version | awk 'NR == 1 { print $2 }')
SDVER=${SDVER%%[!0-9]*}
NCPU=$(getconf _NPROCESSORS_ONLN)

section "facts ($ENV, systemd $SDVER, $(uname -r), $NCPU CPUs, cgroup v$V, cpu in $CPUH)"
state=$(timeout 60 systemctl is-system-running --wait 2>&1)
check "PID 1 is systemd, system $state" [ "$(cat /proc/1/comm)" = systemd ]

section "install (apt, pam-auth-update)"
install_packages || exit 1
prop() { systemctl show -p "$2" --value "$1"; } # prop UNIT PROPERTY
B=$CPUH/user.slice/user-1003.slice
KB=cpu.max.burst
[ "$V" = 1 ] && KB=cpu.cfs_burst_us

section "CPUQuotaShare=: a share of this VM's $NCPU CPUs"
conf '* CPUWeight=100' "carol CPUQuotaShare=50% CPUBurst=20ms"
held_login f1 carol
got=$(wait_is "$((NCPU * 50000)) 100000" cpu_max 1003)
check "CPUQuotaShare=50% of $NCPU CPUs: cpu.max $((NCPU * 50000)) 100000 (got '$got')" [ "$got" = "$((NCPU * 50000)) 100000" ]
slicectl explain carol > "$D/explain" 2>&1
check "explain shows both forms" grep -q "^CPUQuota=$((NCPU * 50))% (CPUQuotaShare=50% of $NCPU CPU" "$D/explain"
if [ "$NCPU" -ge 2 ] && [ "$V" = 2 ]; then
        # users confined to one CPU (user.slice's cpuset): the share follows at slicectl apply
        systemctl set-property --runtime user.slice AllowedCPUs=0
        got=$(wait_is 0 cat "$CPUH/user.slice/cpuset.cpus.effective")
        check "user.slice runs on CPU 0 alone (cpuset.cpus.effective '$got')" [ "$got" = 0 ]
        slicectl apply > "$D/apply-cpuset" 2>&1
        got=$(wait_is "50000 100000" cpu_max 1003)
        check "after slicectl apply: 50% of 1 CPU, cpu.max 50000 100000 (got '$got')" [ "$got" = "50000 100000" ]
        systemctl set-property --runtime user.slice AllowedCPUs=
        slicectl apply > "$D/apply-cpuset2" 2>&1
        got=$(wait_is "$((NCPU * 50000)) 100000" cpu_max 1003)
        check "all CPUs again after apply (got '$got')" [ "$got" = "$((NCPU * 50000)) 100000" ]
fi

section "CPUBurst=: the slice's file, beside systemd"
check "the kernel has $KB (Linux 5.14+)" [ -f "$B/$KB" ]
got=$(wait_is 20000 cat "$B/$KB")
check "$KB 20000 after the login (got '$got')" [ "$got" = 20000 ]
check "systemd got no CPUBurst property" bash -c '! grep -rqs CPUBurst /run/systemd/system.control/user-1003.slice.d'
systemctl daemon-reload
sleep 1
after_reload=$(cat "$B/$KB")
fig "$ENV systemd $SDVER: $KB after daemon-reload: $after_reload (was 20000)"
systemctl set-property --runtime user-1003.slice CPUWeight=150
sleep 1
after_setprop=$(cat "$B/$KB")
fig "$ENV systemd $SDVER: $KB after a set-property of the slice: $after_setprop (was 20000)"
slicectl apply > "$D/apply" 2>&1
got=$(cat "$B/$KB")
check "slicectl apply gives the burst again whatever systemd did (got '$got')" [ "$got" = 20000 ]
stop f1
systemctl stop user-1003.slice 2> /dev/null
held_login f2 carol
got=$(wait_is 20000 cat "$B/$KB")
check "a new login after the slice was stopped writes the burst again (got '$got')" [ "$got" = 20000 ]
stop f2

section "the user.slice line: the reserve for the system"
conf '* CPUWeight=100' 'user.slice CPUQuotaShare=90% CPUWeight=80'
held_login f3 carol
got=$(wait_is "$((NCPU * 90000)) 100000" cpu_max_at "$CPUH/user.slice")
check "user.slice cpu.max $((NCPU * 90000)) 100000 (got '$got')" [ "$got" = "$((NCPU * 90000)) 100000" ]
got=$(prop user.slice CPUWeight)
check "user.slice CPUWeight=80 (got $got)" [ "$got" = 80 ]
check "the module's runtime drop-in for user.slice" [ -e /run/systemd/system.control/user.slice.d/50-CPUQuota.conf ]
slicectl explain user.slice > "$D/explain-us" 2>&1
check "explain user.slice names the line" grep -q 'wins .*user.slice CPUQuotaShare=90% CPUWeight=80' "$D/explain-us"
stop f3
conf '* CPUWeight=100'
slicectl apply > "$D/apply-us" 2>&1
sed 's/^/  /' "$D/apply-us"
got=$(prop user.slice CPUQuotaPerSecUSec)
check "the line gone, user.slice has no quota again (got '$got')" [ "$got" = infinity ]
check "and the module's runtime drop-in is gone" [ ! -e /run/systemd/system.control/user.slice.d/50-CPUQuota.conf ]

echo
echo "$fails check(s) failed"
[ "$fails" = 0 ]
