#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Guest half of tests/vm/harness-smoke.sh: runs as root inside the VM (from
# /mnt/share) and checks that the environment named by $CPUSLICE_VM_ENV looks
# the way the harness promises.  Prints the raw facts, then one
# "CHECK ok|FAIL <what>" line per check; exits 1 if any check failed.
set -u
ENV=${CPUSLICE_VM_ENV:?not running under tools/vm/run}
fails=0
ok() { echo "CHECK ok   $*"; }
bad() { echo "CHECK FAIL $*"; fails=$((fails + 1)); }
check() { # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}
section() { echo; echo "=== $*"; }

section "facts ($ENV)"
pid1=$(cat /proc/1/comm)
echo "/proc/1/comm: $pid1"
echo "kernel: $(uname -r)   hostname: $(hostname)"
echo "cgroup mounts:"
grep cgroup /proc/self/mountinfo | awk '{ print "  " $5, $(NF-2), $NF }'
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    echo "cgroup.controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
elif [ -f /sys/fs/cgroup/unified/cgroup.controllers ]; then
    echo "unified/cgroup.controllers: '$(cat /sys/fs/cgroup/unified/cgroup.controllers)'"
fi
echo "own cgroup: $(tr '\n' ' ' < /proc/self/cgroup)"
echo "id alice: $(id alice)"
echo "id -nG bob: $(id -nG bob)"
echo "id carol: $(id carol)"
echo "id dave: $(id dave)"

section "checks"
# ---- users and groups (all envs)
check "alice is uid 1001, in supplementary group staff" \
    bash -c '[ "$(id -u alice)" = 1001 ] && id -nG alice | grep -qw staff && [ "$(id -gn alice)" = alice ]'
check "bob is uid 1002, in students" bash -c '[ "$(id -u bob)" = 1002 ] && id -nG bob | grep -qw students'
check "carol is uid 1003, in students" bash -c '[ "$(id -u carol)" = 1003 ] && id -nG carol | grep -qw students'
check "dave is uid 1500, no extra groups" bash -c '[ "$(id -u dave)" = 1500 ] && [ "$(id -nG dave)" = dave ]'
check "alice has passwordless sudo" runuser -u alice -- sudo -n true
check "pam_systemd.so in /etc/pam.d/common-session" grep -q pam_systemd.so /etc/pam.d/common-session
check "share is mounted read-write at /mnt/share" bash -c 'grep -q " /mnt/share 9p " /proc/mounts && touch /mnt/share/.rw-test && rm /mnt/share/.rw-test'
check "/dev/pts is mounted" mountpoint -q /dev/pts

# ---- init system
case "$ENV" in
systemd-*)
    check "PID 1 is systemd" [ "$pid1" = systemd ]
    state=$(timeout 60 systemctl is-system-running --wait 2>&1)
    echo "systemctl is-system-running --wait: $state"
    check "system state is running" [ "$state" = running ]
    [ "$state" = running ] || systemctl --failed --no-pager
    check "loginctl works (systemd-logind reachable)" bash -c 'loginctl --version >/dev/null && loginctl list-sessions --no-pager >/dev/null'
    ;;
nosd-*)
    check "PID 1 is not systemd" [ "$pid1" != systemd ]
    check "no systemd running" bash -c '! pgrep -x systemd >/dev/null'
    ;;
esac

# ---- cgroup layout
mnt_type() { awk -v m="$1" '$5 == m { print $(NF-2); exit }' /proc/self/mountinfo; }
case "$ENV" in
*-v2)
    check "cgroup2 mounted at /sys/fs/cgroup" [ "$(mnt_type /sys/fs/cgroup)" = cgroup2 ]
    check "cpu in /sys/fs/cgroup/cgroup.controllers" grep -qw cpu /sys/fs/cgroup/cgroup.controllers
    check "no v1 hierarchies mounted" bash -c '! grep -q " - cgroup " /proc/self/mountinfo'
    ;;
*-v1)
    check "tmpfs at /sys/fs/cgroup" [ "$(mnt_type /sys/fs/cgroup)" = tmpfs ]
    check "cpu,cpuacct v1 hierarchy at /sys/fs/cgroup/cpu,cpuacct" \
        bash -c "grep -qE ' /sys/fs/cgroup/cpu,cpuacct .* - cgroup cgroup .*cpu,cpuacct' /proc/self/mountinfo"
    check "cpu and cpuacct symlinks" bash -c '[ "$(readlink /sys/fs/cgroup/cpu)" = cpu,cpuacct ] && [ "$(readlink /sys/fs/cgroup/cpuacct)" = cpu,cpuacct ]'
    check "cpu.cfs_quota_us present" [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]
    ;;
esac
case "$ENV" in
systemd-v1)
    check "name=systemd v1 hierarchy (legacy/hybrid layout)" [ -d /sys/fs/cgroup/systemd/system.slice ]
    ;;
nosd-v1)
    check "no cgroup2 mounted anywhere" bash -c '! grep -q " - cgroup2 " /proc/self/mountinfo'
    ;;
esac

# ---- logins: su, runuser, login on a pty
section "logins"
out=$(su -l alice -c 'echo "user=$(id -un) home=$HOME"; cat /proc/self/cgroup' 2>&1); rc=$?
echo "su -l alice: rc=$rc"; echo "$out" | sed 's/^/  /'
check "su -l alice works" eval '[ $rc = 0 ] && grep -q "user=alice home=/home/alice" <<< "$out"' 
case "$ENV" in
systemd-v2)
    check "su -l alice lands in a logind session scope under user-1001.slice" \
        grep -qE '^0::/user\.slice/user-1001\.slice/session-[^/]+\.scope$' <<< "$out" ;;
systemd-v1)
    check "su -l alice lands in a logind session scope under user-1001.slice" \
        grep -qE '^[0-9]+:name=systemd:/user\.slice/user-1001\.slice/session-[^/]+\.scope$' <<< "$out" ;;
esac

out=$(runuser -l bob -c 'echo "user=$(id -un) groups=$(id -nG)"' 2>&1); rc=$?
echo "runuser -l bob: rc=$rc: $out"
check "runuser -l bob works" eval '[ $rc = 0 ] && grep -q "user=bob groups=bob students" <<< "$out"' 

# login(1) on a pty through script(1).  The input is fed only once carol's
# shell runs: login flushes the tty before starting it, whenever a slow guest
# gets there (carol has no other process here).  With stdin at EOF an
# interactive shell under script(1) would wait forever.
out=$( (for _ in $(seq 300); do pgrep -u carol -x bash > /dev/null && break; sleep 0.2; done
        pgrep -u carol -x bash > /dev/null || echo "no login shell of carol within 60 s; typing all the same" >&2
        sleep 1; echo 'echo "LOGIN_OK=$(id -un) LOGINUID=$(cat /proc/self/loginuid) TTY=$(tty)"'; sleep 2; echo exit) \
       | timeout 120 script -qec 'exec login -f carol' /dev/null 2>&1 | tr -d '\r'); rc=$?
echo "script -qec 'login -f carol': rc=$rc"
grep -a 'LOGIN_OK=carol' <<< "$out" | sed 's/^/  /'
check "login -f carol on a pty via script(1)" grep -aqE 'LOGIN_OK=carol LOGINUID=1003 TTY=/dev/pts/' <<< "$out"

# ---- 9p read throughput (host-built binaries are read from the share)
if [ -f /mnt/share/blob ]; then
    section "9p"
    start=$(date +%s%N)
    bytes=$(cat /mnt/share/blob | wc -c)
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "read $((bytes / 1048576)) MiB from /mnt/share in ${ms} ms ($(( bytes / 1024 * 1000 / 1024 / (ms > 0 ? ms : 1) )) MiB/s)"
    check "9p read of the 32 MiB blob is complete" [ "$bytes" = $((32 * 1048576)) ]
fi

section "result"
echo "$fails check(s) failed in $ENV"
[ "$fails" = 0 ]
