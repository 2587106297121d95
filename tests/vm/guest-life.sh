#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/guest-life.sh — guest half of vm-life-pkg-systemd-v2-trixie (tests/vm/vm-test.sh
# pkg-systemd-v2 guest-life.sh): the packages' whole life on a systemd host, as a new admin lives
# it (issue #28's "install, remove and reinstall without surprises"):
#
#  1. install: every documented path is the package's (`dpkg -S`), the shipped config is inert
#     (`slicectl check` prints nothing, exits 0; a login gets systemd's defaults, nothing is sent);
#  2. a shared login node: rules for bob and carol, an admin's own `systemctl set-property` on
#     carol's slice, `slicectl set --runtime` live, the metrics timer enabled;
#  3. `apt remove` with bob's and carol's sessions open: the removal says what it lifted, every
#     value the module set is back to systemd's own (the admin's CPUQuota stays), no runtime
#     drop-in or record of ours is left, no unit of ours failed, the textfile is gone, and a new
#     login carries none of the module's values;
#  4. `apt purge`: no warning, nothing of ours under /etc, /run or /var/lib;
#  5. reinstall: the shipped defaults, not the old runtime override.
set -u
ENV=${CPUSLICE_VM_ENV:?not running under tools/vm/run}
S=${CPUSLICE_VM_SHARE:-/mnt/share}
[ -f "$S/params" ] && . "$S/params"
D=/tmp/vmt
. "$S/guest-lib.sh"
mkdir -m 1777 -p "$D"
install -m 644 "$S/session.sh" "$D/session.sh"
cd /tmp
V=2 CPUH=/sys/fs/cgroup
TEXTFILE_DIR=/var/lib/prometheus/node-exporter

section "facts ($ENV, $(uname -r), systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p'))"
echo "system $(timeout 60 systemctl is-system-running --wait 2>&1)"
[ "$(cat /proc/1/comm)" = systemd ] || { bad "PID 1 is not systemd"; exit 1; }

apt_() { # apt_ LOG ARGS...: apt-get, its output kept in LOG
        local log=$1; shift
        DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@" > "$log" 2>&1 || { sed 's/^/  | /' "$log"; return 1; }
}
no_warning() { ! grep -E '(^|: )(warning|error):|^[WE]: ' "$1"; }
login_values() { # login_values USER: a login that ends at once; prints the slice's values during it
        su -l "$1" -c "cat /sys/fs/cgroup/user.slice/user-\$(id -u).slice/cpu.weight; cat /sys/fs/cgroup/user.slice/user-\$(id -u).slice/cpu.max" |
                tr '\n' ' ' | sed 's/ $//'
}
sd_prop() { systemctl show -P "$2" "user-$1.slice"; }
ours_in_control() { # UID: the runtime drop-ins of user-UID.slice (systemctl set-property --runtime's dir)
        find "/run/systemd/system.control/user-$1.slice.d" -type f 2> /dev/null
}
kernel_is() { [ "$(kernel_values "$1" 2> /dev/null)" = "$2" ]; } # kernel_is UID VALUES (kernel_values' form)
failed_units() { systemctl list-units --all --plain --no-legend 'cpuslice*' | grep -E 'failed|not-found' || true; }

# ------------------------------------------------------------------------------------- install --
section "1. apt install, as shipped"
cp -a /etc/pam.d "$D/pam.d.orig"
install_packages || exit 1
# the module goes where this release's own PAM modules are (debian/rules): /usr/lib/... on trixie
# and later, /lib/... on bookworm, so that dpkg shares the directory with libpam-modules
moddir=$(dirname "$(dpkg -L libpam-modules | grep -m1 '/pam_unix\.so$')")
for p in "$moddir/pam_cpuslice.so" "$moddir/pam_cpuslice-systemd.so" \
         /usr/bin/slicectl /etc/security/cpuslice.conf /usr/share/pam-configs/cpuslice \
         /usr/lib/systemd/system/cpuslice-gc.timer /usr/lib/systemd/system/cpuslice-metrics.timer \
         /usr/share/man/man8/pam_cpuslice.8.gz /usr/share/man/man5/cpuslice.conf.5.gz /usr/share/man/man1/slicectl.1.gz; do
        check "dpkg -S $p: $(dpkg -S "$p" 2>&1 | head -n1)" dpkg -S "$p"
done
left=$(dpkg -L libpam-cpuslice slicectl | grep -E '^/(lib|bin|sbin)(/|$)' | grep -vxF -e "${moddir%/*/*}" -e "${moddir%/*}" -e "$moddir" -e "$moddir/pam_cpuslice.so" -e "$moddir/pam_cpuslice-systemd.so" || true)
check "nothing but the module ($moddir) is installed in the aliased /lib, /bin, /sbin${left:+: $left}" [ -z "$left" ]
out=$(slicectl check 2>&1); rc=$?
check "slicectl check on the shipped config prints nothing and exits 0 (status $rc${out:+: $out})" [ "$rc" = 0 -a -z "$out" ]
active=$(grep -vE '^[[:space:]]*(#|$)' /etc/security/cpuslice.conf || true)
check "the shipped config has no active line${active:+: $active}" [ -z "$active" ]
check "cpuslice-gc.timer is enabled, cpuslice-metrics.timer is not" \
        bash -c '[ "$(systemctl is-enabled cpuslice-gc.timer)" = enabled ] && [ "$(systemctl is-enabled cpuslice-metrics.timer)" = disabled ]'
got=$(login_values bob)
check "a login with the shipped config gets systemd's defaults (cpu.weight, cpu.max: $got)" [ "$got" = "100 max 100000" ]
check "nothing was sent to systemd: no record in /run/cpuslice/systemd" [ -z "$(ls -A /run/cpuslice/systemd 2> /dev/null)" ]
check "no runtime drop-in for user-1002.slice: $(ours_in_control 1002 | tr '\n' ' ')" [ -z "$(ours_in_control 1002)" ]

# --------------------------------------------------------------------------------- in service --
section "2. a shared login node: rules, an admin's set-property, slicectl set --runtime, the metrics timer"
cat > /etc/security/cpuslice.conf <<'EOF'
# pam_cpuslice VM test (guest-life.sh)
bob             CPUWeight=200 CPUQuota=30%
carol           CPUWeight=300
EOF
out=$(slicectl check 2>&1); rc=$?
check "slicectl check accepts the config (status $rc${out:+: $out})" [ "$rc" = 0 ]
systemctl set-property user-1003.slice CPUQuota=40%
start bob-life su -l bob -c "sh $D/session.sh bob-life 0"
start carol-life su -l carol -c "sh $D/session.sh carol-life 0"
wait_info bob-life carol-life
go bob-life carol-life
# systemd writes the kernel files just after it answers: wait for them before reading them
wait_for 20 kernel_is 1002 "cpu.weight=200 cpu.max=30000/100000"
wait_for 20 kernel_is 1003 "cpu.weight=300 cpu.max=40000/100000"
check "bob's slice has the config's values ($(kernel_values 1002))" [ "$(kernel_values 1002)" = "cpu.weight=200 cpu.max=30000/100000" ]
check "carol's slice has the config's weight and the admin's quota ($(kernel_values 1003))" \
        [ "$(kernel_values 1003)" = "cpu.weight=300 cpu.max=40000/100000" ]
slicectl set --runtime bob CPUWeight=500 > /dev/null
check "slicectl set --runtime wrote /run/cpuslice.d/50-slicectl.conf" [ -f /run/cpuslice.d/50-slicectl.conf ]
wait_for 20 kernel_is 1002 "cpu.weight=500 cpu.max=30000/100000"
check "slicectl set --runtime applied it live ($(kernel_values 1002))" [ "$(kernel_values 1002)" = "cpu.weight=500 cpu.max=30000/100000" ]
mkdir -p "$TEXTFILE_DIR"
systemctl enable --now cpuslice-metrics.timer 2> /dev/null
wait_for 90 test -s "$TEXTFILE_DIR/cpuslice.prom" # the timer's first run
check "the metrics timer wrote $TEXTFILE_DIR/cpuslice.prom" grep -q '^cpuslice_cpu_weight{.*user="bob"' "$TEXTFILE_DIR/cpuslice.prom"
fig "$ENV in service: bob $(kernel_values 1002); carol $(kernel_values 1003); records: $(ls /run/cpuslice/systemd | tr '\n' ' ')"

# ------------------------------------------------------------------------------------- remove --
section "3. apt remove libpam-cpuslice slicectl, with bob's and carol's sessions open"
# and with a metrics run in flight, which the removal stops: a runtime drop-in holds it open (on a
# busy host a run takes long enough to be caught by chance)
slow=/run/systemd/system/cpuslice-metrics.service.d
mkdir -p "$slow" && printf '[Service]\nExecStartPre=/bin/sleep 600\n' > "$slow/50-test-slow.conf"
systemctl daemon-reload
systemctl start --no-block cpuslice-metrics.service
wait_for 60 state_is cpuslice-metrics.service activating
st=$(systemctl show -P ActiveState cpuslice-metrics.service)
check "a metrics run is in flight ($st)" [ "$st" = activating ]
check "apt remove" apt_ "$D/remove.log" remove libpam-cpuslice slicectl
rm -rf "$slow" && systemctl daemon-reload
sed 's/^/  | /' "$D/remove.log" | grep -iE 'cpuslice|warning' || true
lifted=$(grep -o 'CPU limits lifted on [0-9]* user slice(s)' "$D/remove.log")
check "the removal said what it lifted ($lifted)" [ "$lifted" = "CPU limits lifted on 2 user slice(s)" ]
check "remove: no warning from apt or dpkg" no_warning "$D/remove.log"
check "remove: /etc/pam.d is as before the install" diff -r "$D/pam.d.orig" /etc/pam.d
# the removal's reset goes through systemd, which writes the kernel files just after it answers
wait_for 20 kernel_is 1002 "cpu.weight=100 cpu.max=max/100000"
wait_for 20 kernel_is 1003 "cpu.weight=100 cpu.max=40000/100000"
check "bob's open session: back to systemd's defaults ($(kernel_values 1002))" [ "$(kernel_values 1002)" = "cpu.weight=100 cpu.max=max/100000" ]
check "bob: systemd has no CPUWeight= or CPUQuota= ($(sd_prop 1002 CPUWeight) $(sd_prop 1002 CPUQuotaPerSecUSec))" \
        bash -c '[ "$(systemctl show -P CPUWeight user-1002.slice)" = "[not set]" ] && [ "$(systemctl show -P CPUQuotaPerSecUSec user-1002.slice)" = infinity ]'
check "carol's open session: the weight is systemd's again, the admin's CPUQuota=40% stays ($(kernel_values 1003))" \
        [ "$(kernel_values 1003)" = "cpu.weight=100 cpu.max=40000/100000" ]
check "no runtime drop-in of ours is left: $(ours_in_control 1002; ours_in_control 1003)" \
        [ -z "$(ours_in_control 1002; ours_in_control 1003)" ]
check "the admin's persistent set-property is still there" [ -f /etc/systemd/system.control/user-1003.slice.d/50-CPUQuota.conf ]
check "no record is left in /run/cpuslice/systemd: $(ls /run/cpuslice/systemd 2> /dev/null | tr '\n' ' ')" \
        [ -z "$(ls -A /run/cpuslice/systemd 2> /dev/null)" ]
check "the textfile is gone" [ ! -e "$TEXTFILE_DIR/cpuslice.prom" ]
sleep 16 # one more period of the metrics timer, had it stayed
check "no unit of ours is failed or not-found: $(failed_units)" [ -z "$(failed_units)" ]
check "no failed unit at all: $(systemctl list-units --failed --plain --no-legend)" [ -z "$(systemctl list-units --failed --plain --no-legend)" ]
check "the textfile did not come back" [ ! -e "$TEXTFILE_DIR/cpuslice.prom" ]
stop bob-life carol-life
got=$(login_values bob)
check "a new login of bob after the removal carries none of the module's values ($got)" [ "$got" = "100 max 100000" ]

# -------------------------------------------------------------------------------------- purge --
section "4. apt purge"
check "apt purge" apt_ "$D/purge.log" purge libpam-cpuslice slicectl
check "purge: no warning from apt or dpkg" no_warning "$D/purge.log"
# (cpuslice-vm*, and udev's link to the root disk labelled cpuslice-root: the VM harness's own)
left=$(find /etc /run /var/lib /usr -name '*cpuslice*' -not -name '*cpuslice-vm*' -not -path '/run/udev/*' 2> /dev/null || true)
check "purge: nothing of ours is left in /etc, /run, /var/lib, /usr${left:+: $left}" [ -z "$left" ]
check "purge: no failed unit: $(systemctl list-units --failed --plain --no-legend)" [ -z "$(systemctl list-units --failed --plain --no-legend)" ]

# ---------------------------------------------------------------------------------- reinstall --
section "5. install again"
install_packages || exit 1
check "the shipped config is back" cmp -s <(dpkg-deb --fsys-tarfile /tmp/debs/libpam-cpuslice_*.deb | tar -xOf - ./etc/security/cpuslice.conf) /etc/security/cpuslice.conf
check "no run-time override came back" [ ! -e /run/cpuslice.d/50-slicectl.conf ]
out=$(slicectl check 2>&1); rc=$?
check "slicectl check prints nothing and exits 0 (status $rc${out:+: $out})" [ "$rc" = 0 -a -z "$out" ]
got=$(login_values bob)
check "bob's login after the reinstall gets systemd's defaults ($got)" [ "$got" = "100 max 100000" ]
check "cpuslice-gc.timer is enabled again, cpuslice-metrics.timer is not" \
        bash -c '[ "$(systemctl is-enabled cpuslice-gc.timer)" = enabled ] && [ "$(systemctl is-enabled cpuslice-metrics.timer)" = disabled ]'

section "result"
echo "$fails check(s) failed in life-$ENV"
[ "$fails" = 0 ]
