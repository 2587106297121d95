#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/guest-interactive.sh: the guest half of `bench/run vm-interactive` (bench/README.md), one
# round per boot (tools/vm/run --env systemd-v2), its windows bench/lib.sh's. Writes
# runs/CONFIG.ROUND/ and facts.ROUND to the share. The order matters: flat and autogroup before any
# login turns cpu on at the root (skipped, with the reason in facts, if it is on as booted).
set -eEuo pipefail
# a failure under set -e says where, instead of ending the boot without a word
trap 'say "failed at line $LINENO (status $?): $BASH_COMMAND"' ERR
S=${CPUSLICE_VM_SHARE:-/mnt/share}
. "$S/params"
CG=/sys/fs/cgroup
AG=/proc/sys/kernel/sched_autogroup_enabled
D=/tmp/csi
PIDS=()
say() { echo "guest-interactive: $*" >&2; }
. "$S/guest-lib.sh"
. "$S/lib.sh"

cleanup() {
        local rc=$? k
        set +e
        trap - ERR
        for k in $CG/csi-*/*/cgroup.kill $CG/user.slice/user-6400[123].slice/cgroup.kill; do [ -e "$k" ] && echo 1 > "$k"; done
        for p in "${PIDS[@]}"; do wait "$p" 2> /dev/null; done
        exit $rc
}
trap cleanup EXIT

# --- setup (forks are fine here) ---------------------------------------------------------------
state=$(timeout 120 systemctl is-system-running --wait 2>&1 || true)
[ "$(cat /proc/1/comm)" = systemd ] || { say "PID 1 is not systemd"; exit 1; }
grep -q '^0::/' /proc/self/cgroup && [ -f $CG/cgroup.subtree_control ] || { say "not pure cgroup v2"; exit 1; }
mkdir -p "$D/pam.d" "$D/runs" "$S/runs"
install -m 755 "$S/pam-run" "$S/driver" "$S/interactive-load.sh" "$D/"
cp "$S/job.in" "$S/small.in" "$D/"
# our own stacks below: the profile pam-auth-update enabled goes again
install_packages --own-stack || { say "apt-get install of the .debs failed"; exit 1; }
for u in light heavy wake; do useradd -M -d /tmp -s /bin/sh -u "${UIDS[$u]}" -U "csi-$u"; done
LINGER=0
linger() { # each user's slice and user@UID.service start once, before the first pam_systemd window
        [ $LINGER = 1 ] && return 0
        loginctl enable-linger csi-light csi-heavy csi-wake
        for _ in $(seq 300); do [ "$(systemctl is-active user@{64001,64002,64003}.service | sort -u)" = active ] && break; sleep 0.2; done
        LINGER=1
}

printf '%s\n' '* CPUWeight=100' > "$D/eq.conf"
# the wake-only user is weighted like the light user: both are the interactive side
printf '%s\n' '* CPUWeight=100' "csi-light CPUWeight=$W_LIGHT" "csi-heavy CPUWeight=$W_HEAVY" \
        "csi-wake CPUWeight=$W_LIGHT" > "$D/w.conf"
chmod 644 "$D"/*.conf
echo "session required pam_permit.so" > "$D/pam.d/permit"
echo "session required pam_systemd.so" > "$D/pam.d/sd"
for c in eq w; do
        printf '%s\n' "session required pam_systemd.so" \
                "session required pam_cpuslice.so conf=$D/$c.conf confdir= rundir= strict" > "$D/pam.d/cs-$c"
done
AG_BOOT=$(cat $AG)

export DRIVER=$D/driver WARM DUR JOB_IN=$D/job.in NHOGS NBUILD BUILD_IN=$D/small.in
PAM_RUN=$D/pam-run PAM_D=$D/pam.d LOAD=(bash "$D/interactive-load.sh") CHECK_CTL= V2=$CG RUNS=$D/runs

# ctl_to VAR DIR: VAR=cpu when the cpu controller is in DIR's cgroup.subtree_control, else -
# (an empty file is a failed read: no controller)
ctl_to() { local __c=; read -r __c < "$2/cgroup.subtree_control" || true; [[ " $__c " == *" cpu "* ]] && printf -v "$1" cpu || printf -v "$1" -; }
ctl_to CPU_BOOT $CG # as booted, before any login: "-" on bookworm (memory pids)
{
        echo "state=$state kernel=$(uname -r) nproc=$(nproc) systemd=$(systemctl --version | head -n1 | cut -d' ' -f2)" \
                "systemd_pkg=$(dpkg-query -W -f='${Version}' systemd 2> /dev/null || echo -)" \
                "suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-?}")"
        echo "autogroup_boot=$AG_BOOT"
        echo "root_subtree=$(cat $CG/cgroup.subtree_control | tr ' ' ,)"
        echo "user_slice_subtree=$(cat $CG/user.slice/cgroup.subtree_control | tr ' ' ,)"
        echo "users_logged_in=$(loginctl list-users --no-legend | wc -l)"
        # DefaultCPUAccounting may be gone in a later systemd: then nothing is printed
        { systemctl show -p DefaultCPUAccounting || true; } | tr '\n' ' '
        systemctl show -p CPUAccounting,CPUWeight user.slice | tr '\n' ' '
        echo
} > "$S/facts.$ROUND"
say "facts: $(tr '\n' ' ' < "$S/facts.$ROUND")"

place() { # CONFIG: its service and placement, for lib.sh's window; flat and autogroup before any login
        acct=$CG/user.slice/user-UID.slice re='^/user\.slice/user-UID\.slice/session-[0-9a-z]+\.scope$'
        case $1 in
        idle-probe) svc=sd heavy=0 mode=probe ;;
        idle) svc=sd heavy=0 ;;
        flat) svc=permit join=$CG/csi-flat/USER acct=$join re='^/csi-flat/USER$' ;;
        autogroup) svc=permit ag=1 join=$CG/csi-ag/USER acct=$join re='^/csi-ag/USER$' ;;
        sd-default) svc=sd ag=$AG_BOOT ;;
        cs-eq|cs-w) svc=$1 ;;
        *) say "unknown configuration $1"; exit 1 ;;
        esac
        [ $svc = permit ] || { linger; return 0; }
        local c0; ctl_to c0 $CG
        if [ "$c0" != - ] && [ "$CPU_BOOT" != - ]; then
                echo "skipped.$1=cpu was in the root's cgroup.subtree_control as booted, before any login (systemd $(systemctl --version | head -n1 | cut -d' ' -f2)): no root task group for the users' work" >> "$S/facts.$ROUND"
                say "$1: skipped: cpu is on in / as booted"
                return 1
        fi
        [ "$c0" = - ] || { say "$1: the cpu controller is already on in /: it must run before any login"; exit 1; }
}
window_done() {
        cp -a "$R" "$S/runs/"
        say "$cfg.$ROUND: light $(( (u1l - u0l) / 1000 )) ms, heavy $(( (u1h - u0h) / 1000 )) ms," \
                "wake $(( (u1w - u0w) / 1000 )) ms, light in $where, wake in $wwhere"
}

for c in $ORDER; do
        say "round $ROUND: $c (load $(cut -d' ' -f1-3 /proc/loadavg))"
        window "$c" "$ROUND"
done
{
        echo "root_subtree_end=$(cat $CG/cgroup.subtree_control | tr ' ' ,)"
        echo "user_slice_subtree_end=$(cat $CG/user.slice/cgroup.subtree_control | tr ' ' ,)"
        echo "user_at_service_delegates=$(systemctl show -p DelegateControllers --value user@64001.service | tr ' ' ,)"
        echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"
} >> "$S/facts.$ROUND"
say "done"
