#!/bin/bash
# tests/vm/guest-systemd.sh — guest half of vm-systemd-v2 (tests/vm/vm-test.sh): a smoke test.
#
# Runs as root in a VM with systemd as PID 1 and cgroup v2 (tools/vm/run --env systemd-v2).
# Installs the module after pam_systemd.so in common-session with default arguments
# (backend=auto, which is the systemd backend on a systemd host) and a config that gives alice a
# slice, then checks that `su -l alice` still works and lands in logind's session-*.scope, that
# the module logged no failure and never wrote the cgroup tree itself (no scope of its own), and
# shows what systemd made of alice's slice.  The systemd backend's own tests (issue 7) build on
# this environment.  Prints "CHECK ok|FAIL" and "FIGURE" lines; exits 1 on a failure.
set -u
ENV=${CPUSLICE_VM_ENV:?not running under tools/vm/run}
S=${CPUSLICE_VM_SHARE:-/mnt/share}
fails=0
ok() { echo "CHECK ok   $*"; }
bad() { echo "CHECK FAIL $*"; fails=$((fails + 1)); }
check() { # check DESCRIPTION COMMAND...
        local what=$1; shift
        if "$@"; then ok "$what"; else bad "$what"; fi
}
fig() { echo "FIGURE $*"; echo "$*" >> "$S/figures"; }
section() { echo; echo "=== $*"; }
cd /tmp

section "facts ($ENV, $(uname -r))"
state=$(timeout 60 systemctl is-system-running --wait 2>&1)
echo "PID 1: $(cat /proc/1/comm); system state: $state"
check "PID 1 is systemd" [ "$(cat /proc/1/comm)" = systemd ]
check "the system is running" [ "$state" = running ]
check "cgroup2 at /sys/fs/cgroup" [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]

section "install"
install -m 644 "$S/pam_cpuslice.so" /usr/lib/x86_64-linux-gnu/security/pam_cpuslice.so
# the systemd backend is a plugin the module loads from its own directory
[ -f "$S/pam_cpuslice-systemd.so" ] && install -m 644 "$S/pam_cpuslice-systemd.so" /usr/lib/x86_64-linux-gnu/security/
install -m 755 "$S/slicectl" /usr/local/bin/slicectl
# At the end, below pam-auth-update's block: after pam_systemd.so, as pam_cpuslice(8) says.
echo 'session required pam_cpuslice.so' >> /etc/pam.d/common-session
grep -n 'pam_systemd\|pam_cpuslice' /etc/pam.d/common-session | sed 's/^/  /'
s=$(grep -n pam_systemd.so /etc/pam.d/common-session | cut -d: -f1 | head -n1)
c=$(grep -n pam_cpuslice.so /etc/pam.d/common-session | cut -d: -f1 | tail -n1)
check "pam_cpuslice.so (line $c) comes after pam_systemd.so (line $s) in common-session" \
        [ -n "$s" -a -n "$c" ] && [ "${c:-0}" -gt "${s:-0}" ]
cat > /etc/security/cpuslice.conf <<'EOF'
# pam_cpuslice VM test
*               CPUWeight=100
@staff          CPUWeight=300 CPUQuota=50%
EOF
chmod 644 /etc/security/cpuslice.conf
sed 's/^/  /' /etc/security/cpuslice.conf
since=$(date '+%Y-%m-%d %H:%M:%S')
sleep 1

section "su -l alice"
out=$(su -l alice -c 'echo "user=$(id -un) session=${XDG_SESSION_ID:-}"; cat /proc/self/cgroup' 2>&1); rc=$?
echo "$out" | sed 's/^/  /'
check "su -l alice works (status $rc)" [ "$rc" = 0 ]
check "su -l alice runs as alice" grep -q "^user=alice " <<< "$out"
cg=$(sed -n 's/^0:://p' <<< "$out")
sid=$(sed -n 's/.* session=//p' <<< "$out")
check "su -l alice lands in logind's scope user.slice/user-1001.slice/session-$sid.scope (it is in $cg)" \
        [ -n "$sid" -a "$cg" = "/user.slice/user-1001.slice/session-$sid.scope" ]

# What systemd holds for the slice now (the user manager keeps it loaded after the logout).
d=/sys/fs/cgroup/user.slice/user-1001.slice
props=$(systemctl show -p CPUWeight -p CPUQuotaPerSecUSec user-1001.slice | tr '\n' ' ')
w=$(cat "$d/cpu.weight" 2> /dev/null || echo absent)
m=$(cat "$d/cpu.max" 2> /dev/null || echo absent)
echo "systemd: user-1001.slice ${props% }; kernel: cpu.weight=$w cpu.max='$m'"

sleep 1 # journald takes a moment
lines=$(journalctl --no-pager -q -o short --since "$since" | grep pam_cpuslice)
warn=$(journalctl --no-pager -q -o short -p warning --since "$since" | grep pam_cpuslice)
echo "the module's journal lines (none expected without debug):"
echo "${lines:-  (none)}" | sed 's/^/  /'
check "the module logged no failure or warning" [ -z "$warn" ]
own=$(find /sys/fs/cgroup -name 'session-pam-*.scope' 2> /dev/null)
check "the module made no scope of its own (it never writes cgroupfs under systemd)${own:+: $own}" [ -z "$own" ]
check "systemd holds alice's settings for user-1001.slice (${props% })" \
        grep -q 'CPUWeight=300 CPUQuotaPerSecUSec=500ms' <<< "$props"
check "slicectl list runs on the systemd host" bash -c 'slicectl list -i 0 | sed "s/^/  /"'
fig "$ENV su -l alice: $cg (logind's); systemd: ${props% }; kernel: cpu.weight=$w cpu.max='$m'"

section "result"
echo "$fails check(s) failed in $ENV"
[ "$fails" = 0 ]
