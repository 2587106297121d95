#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/guest-package.sh — guest half of vm-pkg-systemd-v2, vm-pkg-systemd-v1 and vm-pkg-nosd-v2
# (tests/vm/vm-test.sh): the Debian packages as an admin uses them, and the logins the other
# guest halves do not make.
#
#  - `apt install` of the built libpam-cpuslice and slicectl: pam-auth-update puts the module after
#    pam_systemd.so in common-session and into common-session-noninteractive, and changes nothing
#    else in /etc/pam.d (the diff is printed and kept as a figure);
#  - sshd (OpenSSH, public key, `ssh -o BatchMode=yes alice@localhost`): alice (CPUWeight=300),
#    bob (100) and dave at once, each in user-UID.slice with the configured values, alice:bob
#    within 10 % of 3:1;
#  - cron: carol's crontab entry records /proc/self/cgroup and burns CPU: in user-1003.slice, her
#    50 % quota holds;
#  - systemd guests: user@UID.service starts with the module in its stack (systemd-user includes
#    common-session-noninteractive), and a `systemd-run --user` job lands in the user's slice;
#  - nothing is left after the last logout;
#  - systemd-v2 only: reinstall, and an upgrade while a session is open (the session ends cleanly,
#    /etc/pam.d is unchanged, a new login works). Remove, purge and reinstall: guest-life.sh.
# nosd-v2 has no init system: sshd and cron are started here.
set -u
ENV=${CPUSLICE_VM_ENV:?not running under tools/vm/run}
S=${CPUSLICE_VM_SHARE:-/mnt/share}
[ -f "$S/params" ] && . "$S/params"
NPROC=$(nproc)
HOGS=${HOGS:-$((2 * NPROC))}
FAIR_SECS=${FAIR_SECS:-8}
QUOTA_SECS=${QUOTA_SECS:-4}
D=/tmp/vmt
if [ -n "${TRACE:-}" ]; then
        exec 7> "$S/trace"; BASH_XTRACEFD=7; PS4='+ ${EPOCHREALTIME} ${FUNCNAME[0]:-}: '; set -x
fi
. "$S/guest-lib.sh"
mkdir -m 1777 -p "$D"
install -m 644 "$S/session.sh" "$D/session.sh"
cd /tmp

section "facts ($ENV, $(uname -r), $NPROC CPUs)"
SD=no
[ "$(cat /proc/1/comm)" = systemd ] && SD=yes
[ $SD = yes ] && echo "system $(timeout 60 systemctl is-system-running --wait 2>&1)"
case "$ENV" in
*-v2) V=2; CPUH=/sys/fs/cgroup ;;
*-v1) V=1; CPUH=$(readlink -f /sys/fs/cgroup/cpu) ;;
esac
echo "PID 1 $(cat /proc/1/comm), cpu hierarchy $CPUH (v$V)"

# ----------------------------------------------------------------------------------- apt install --
section "apt install ./libpam-cpuslice_*.deb ./slicectl_*.deb"
cp -a /etc/pam.d "$D/pam.d.orig"
pamd_diff() { # pamd_diff NAME REFERENCE: /etc/pam.d against REFERENCE, kept in the share as NAME.diff
        diff -ru "$2" /etc/pam.d > "$S/pamd-$1.diff"
        sed 's/^/  | /' "$S/pamd-$1.diff"
        ! [ -s "$S/pamd-$1.diff" ]
}
install_packages || exit 1
check "both packages are installed (0.1.0)" bash -c \
        '[ "$(dpkg-query -W -f="\${Status} \${Version}" libpam-cpuslice slicectl)" = "install ok installed 0.1.0install ok installed 0.1.0" ]'
pamd_diff install "$D/pam.d.orig"
changed=$(diff -rq "$D/pam.d.orig" /etc/pam.d | awk '{ print $4 }' | xargs -rn1 basename | sort | tr '\n' ' ')
check "apt install changed exactly common-session and common-session-noninteractive ($changed)" \
        [ "$changed" = "common-session common-session-noninteractive " ]
line_of() { grep -n "^session.*[[:space:]]$2" "/etc/pam.d/$1" | head -n1 | cut -d: -f1; }
ls_=$(line_of common-session pam_systemd.so) lc=$(line_of common-session pam_cpuslice.so)
le=$(grep -n '^# end of pam-auth-update config' /etc/pam.d/common-session | cut -d: -f1)
check "common-session: pam_systemd.so (line $ls_) < pam_cpuslice.so (line $lc) < end of pam-auth-update's block ($le)" \
        is_true "${ls_:-0} > 0 && ${lc:-0} > ${ls_:-0} && ${le:-0} > ${lc:-0}"
lu=$(line_of common-session-noninteractive pam_unix.so) ln=$(line_of common-session-noninteractive pam_cpuslice.so)
check "common-session-noninteractive: pam_unix.so (line $lu) < pam_cpuslice.so (line $ln)" \
        is_true "${lu:-0} > 0 && ${ln:-0} > ${lu:-0}"
fig "$ENV apt install: /etc/pam.d lines added: $(grep '^+[^+]' "$S/pamd-install.diff" | tr -s '\t ' ' ' | tr '\n' ';')"
cp -a /etc/pam.d "$D/pam.d.installed"
check "slicectl from the package is /usr/bin/slicectl" [ "$(command -v slicectl)" = /usr/bin/slicectl ]

cat > /etc/security/cpuslice.conf <<'EOF'
# pam_cpuslice VM test (guest-package.sh)
:999            CPUSlice=no
*               CPUWeight=100
@staff          CPUWeight=300
carol           CPUWeight=200 CPUQuota=50%
dave            CPUWeight=50 CPUQuota=150% CPUQuotaPeriodSec=50ms
EOF
slicectl check && ok "slicectl check accepts the config" || bad "slicectl check accepts the config"
declare -A W=([1001]=300 [1002]=100 [1003]=200 [1500]=50)
declare -A Q=([1001]=max [1002]=max [1003]=50000 [1500]=75000)
declare -A P=([1001]=100000 [1002]=100000 [1003]=100000 [1500]=50000)

cgroup_of() { # INFO-FILE -> the session's cgroup: v2's, or on v1 systemd's own name=systemd tree (the
        # cpu hierarchy holds the process in the slice itself: systemd realizes cpu down to the slice)
        if [ $V = 2 ]; then sed -n 's/^cgroup=0:://p' "$1"; else sed -n 's/^cgroup=[0-9]*:name=systemd://p' "$1"; fi | head -n1
}
check_landed() { # check_landed INFO-FILE UID ENTRY: placement and values while the session runs
        local cg got want
        cg=$(cgroup_of "$1")
        check "$3: in a scope or service of user.slice/user-$2.slice (it is in $cg)" \
                grep -qE "^/user\.slice/user-$2\.slice/.+\.(scope|service)$" <<< "$cg"
        want=$(want_values "$2")
        got=$(wait_is "$want" kernel_values "$2")
        check "$3: user-$2.slice has $want ($got)" [ "$got" = "$want" ]
        if [ $SD = yes ]; then
                check "$3: systemd has CPUWeight=${W[$2]} on user-$2.slice" \
                        [ "$(systemctl show -P CPUWeight "user-$2.slice")" = "${W[$2]}" ]
        fi
        fig "$ENV $3: $cg; $got"
}
check_gone() { # check_gone UID...: the slices go after the last logout (systemd: user@ stops ~10 s later)
        local uid
        for uid in "$@"; do
                # and user@'s stop may take 15 s more
                wait_for 90 test ! -e "$(slice_dir "$uid")"
                check "user-$uid.slice is gone after the last logout" [ ! -e "$(slice_dir "$uid")" ]
        done
}

# ---------------------------------------------------------------------------------- sshd, cron --
section "sshd and cron"
if [ $SD = no ]; then # the test is the init system here
        ssh-keygen -A
        mkdir -p /run/sshd && /usr/sbin/sshd && ok "sshd started" || bad "sshd started"
        /usr/sbin/cron && ok "cron started" || bad "cron started"
else
        check "ssh.service and cron.service are active" systemctl -q is-active ssh.service cron.service
fi
mkdir -p -m 700 /root/.ssh
ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519
printf 'Host localhost\n\tStrictHostKeyChecking accept-new\n' > /root/.ssh/config
for u in alice bob carol dave; do
        install -d -m 700 -o "$u" -g "$u" "/home/$u/.ssh"
        install -m 600 -o "$u" -g "$u" /root/.ssh/id_ed25519.pub "/home/$u/.ssh/authorized_keys"
done
wait_for 30 ssh -o BatchMode=yes bob@localhost true 2> /dev/null
check "public-key login: ssh -o BatchMode=yes bob@localhost true" ssh -o BatchMode=yes bob@localhost true

# cron runs carol's entry at the next full minute: set it now, so that the wait overlaps the ssh
# part; the job waits on go-cron-carol before it burns CPU (and a later run does nothing)
fifos cron-carol
echo "* * * * * [ -e $D/cron-carol.info ] || sh $D/session.sh cron-carol 1 > /dev/null 2>&1" | crontab -u carol -
cron_set=$SECONDS

section "ssh: alice (300), bob (100) and dave at once; $HOGS hogs each for alice and bob"
start alice-ssh ssh -o BatchMode=yes alice@localhost "sh $D/session.sh alice-ssh $HOGS"
start bob-ssh ssh -o BatchMode=yes bob@localhost "sh $D/session.sh bob-ssh $HOGS"
start dave-ssh ssh -o BatchMode=yes dave@localhost "sh $D/session.sh dave-ssh 0"
wait_info alice-ssh bob-ssh dave-ssh
check_landed "$D/alice-ssh.info" 1001 "ssh alice"
check_landed "$D/bob-ssh.info" 1002 "ssh bob"
check_landed "$D/dave-ssh.info" 1500 "ssh dave"
go alice-ssh bob-ssh dave-ssh
sleep 2
if split_windows "ssh split: alice (300) : bob (100)" 1001 1002 3; then
        ok "ssh: alice:bob is within 10 % of 3:1 in one of three windows (got$RATIOS)"
else
        bad "ssh: alice:bob is within 10 % of 3:1 in one of three windows (got$RATIOS)"
fi
stop alice-ssh bob-ssh

if [ $SD = yes ]; then
        section "systemd's user manager: user@1500.service and systemd-run --user (dave's ssh session is open)"
        su_stack=/etc/pam.d/systemd-user
        [ -f $su_stack ] || su_stack=/usr/lib/pam.d/systemd-user # systemd's vendor copy
        check "$su_stack includes common-session-noninteractive, which has the module" bash -c \
                'grep -q "^@include common-session-noninteractive" "$1" &&
                 grep -q pam_cpuslice.so /etc/pam.d/common-session-noninteractive' - "$su_stack"
        check "user@1500.service is running ($(systemctl show -P ActiveState,SubState,Result user@1500.service | tr '\n' ' '))" \
                [ "$(systemctl show -P ActiveState user@1500.service)" = active ]
        mp=$(systemctl show -P MainPID user@1500.service)
        check "the user manager (pid $mp) stays in user@1500.service: $(grep -E '^0::|name=systemd' "/proc/$mp/cgroup" | tr '\n' ' ')" \
                grep -qE '^[0-9]+:(name=systemd)?:/user\.slice/user-1500\.slice/user@1500\.service/' "/proc/$mp/cgroup"
        # it may still be starting on a slow guest: --wait until it is up
        st=$(ssh -o BatchMode=yes dave@localhost timeout 90 systemctl --user is-system-running --wait)
        check "dave's user manager is running (it is ${st:-not answering})" [ "$st" = running ]
        ssh -o BatchMode=yes dave@localhost systemd-run --user -q --unit=cpuslice-vmtest sh "$D/session.sh" user-dave 0
        wait_info user-dave
        check_landed "$D/user-dave.info" 1500 "systemd-run --user (dave)"
        touch "$D/stop-user-dave"
        check "no unit failed" [ -z "$(systemctl list-units --failed --plain --no-legend)" ]
fi
stop dave-ssh

section "cron: carol's crontab entry (CPUWeight=200, CPUQuota=50%)"
wait_for 90 test -f "$D/cron-carol.info"
check "the cron job started ($((SECONDS - cron_set)) s after the crontab was set)" [ -f "$D/cron-carol.info" ]
if [ -f "$D/cron-carol.info" ]; then
        crontab -r -u carol
        sed 's/^/  | /' "$D/cron-carol.info"
        check_landed "$D/cron-carol.info" 1003 "cron carol"
        go cron-carol
        sleep 1
        u0=$(usage_us 1003) t0=$(date +%s%N); sleep "$QUOTA_SECS"; u1=$(usage_us 1003) t1=$(date +%s%N)
        pct=$(calc "($u1 - $u0) * 100000 / ($t1 - $t0)" 1)
        fig "$ENV cron: carol's job (1 hog) in user-1003.slice used $pct % of one CPU (CPUQuota=50%)"
        check "cron: the job is charged to carol's slice and her 50 % quota holds ($pct %)" is_true "$pct >= 25 && $pct <= 55"
        poke "$D/stop-cron-carol"
fi
check_gone 1001 1002 1003 1500
left=$(find "$CPUH/user.slice" -mindepth 1 -maxdepth 1 -type d 2> /dev/null)
check "nothing left below user.slice after the last logout${left:+ (found: $left)}" [ -z "$left" ]
if [ $SD = yes ]; then
        journalctl --sync # a line still on its way to the journal would pass unseen
        errs=$(journalctl -b -q --no-pager | grep 'pam_cpuslice(' | head -n5)
        check "the journal has no line from the module${errs:+: $errs}" [ -z "$errs" ]
fi

# ------------------------------------------------------------------------------------ lifecycle --
# pam-auth-update does the same with or without systemd: the lifecycle runs in systemd-v2 only,
# where an upgrade also swaps the systemd plugin that an open session loads again at its close.
# Without systemd the removal lifts what the cgroupfs backend wrote (slicectl reset in the prerm):
# carol's session stays open across it and her slice gets the kernel's defaults.
if [ "$ENV" = nosd-v2 ]; then
        section "apt remove with carol's session open (cgroupfs backend)"
        start carol-remove su -l carol -c "sh $D/session.sh carol-remove 0"
        wait_info carol-remove
        go carol-remove
        check "carol's slice has her values before the removal ($(kernel_values 1003))" \
                [ "$(kernel_values 1003)" = "$(want_values 1003)" ]
        DEBIAN_FRONTEND=noninteractive apt-get -y -q remove libpam-cpuslice slicectl > "$D/remove.log" 2>&1
        check "apt remove ($(grep -o 'CPU limits lifted on [0-9]* user slice(s)' "$D/remove.log"))" \
                grep -q 'CPU limits lifted on 1 user slice(s)' "$D/remove.log"
        check "carol's open session: back to the kernel's defaults ($(kernel_values 1003))" \
                [ "$(kernel_values 1003)" = "cpu.weight=100 cpu.max=max/100000" ]
        stop carol-remove
fi
if [ "$ENV" != systemd-v2 ]; then
        section "result"
        echo "$fails check(s) failed in pkg-$ENV"
        [ "$fails" = 0 ]
        exit
fi
section "reinstall, and an upgrade while bob's ssh session is open"
apt_() { DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@" > /tmp/debs/apt.log 2>&1 || { sed 's/^/  | /' /tmp/debs/apt.log; return 1; }; }
check "apt install --reinstall" apt_ install --reinstall /tmp/debs/libpam-cpuslice_*.deb
check "reinstall: /etc/pam.d unchanged" pamd_diff reinstall "$D/pam.d.installed"
start bob-upgrade ssh -o BatchMode=yes bob@localhost "sh $D/session.sh bob-upgrade 1"
wait_info bob-upgrade
check_landed "$D/bob-upgrade.info" 1002 "ssh bob before the upgrade"
go bob-upgrade
rm -rf /tmp/debs/new && dpkg-deb -R /tmp/debs/libpam-cpuslice_*.deb /tmp/debs/new
sed -i 's/^Version: .*/Version: 0.1.0+vmtest1/' /tmp/debs/new/DEBIAN/control
dpkg-deb -b /tmp/debs/new /tmp/debs/upgrade.deb > /dev/null
check "apt install of 0.1.0+vmtest1 (an upgrade)" apt_ install /tmp/debs/upgrade.deb
check "the upgrade is installed" [ "$(dpkg-query -W -f='${Version}' libpam-cpuslice)" = 0.1.0+vmtest1 ]
check "upgrade: /etc/pam.d unchanged" pamd_diff upgrade "$D/pam.d.installed"
check "a new login after the upgrade: ssh alice lands in user-1001.slice" bash -c \
        "ssh -o BatchMode=yes alice@localhost cat /proc/self/cgroup | grep -q '/user.slice/user-1001.slice/'"
check_landed "$D/bob-upgrade.info" 1002 "ssh bob, open across the upgrade"
stop bob-upgrade
check_gone 1001 1002

section "result"
echo "$fails check(s) failed in pkg-$ENV"
[ "$fails" = 0 ]
