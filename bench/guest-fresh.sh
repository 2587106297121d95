#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/guest-fresh.sh: the guest half of `bench/run vm-fresh` (bench/README.md), on systemd-v2 or
# nosd-v2. One line of name=µs fields per login (bench/driver.c) to /mnt/share/raw/ENV-PHASE-KIND,
# loads and mount options to ENV-meta. Params: ROUNDS, FIRST_ROUNDS, FDM_ROUNDS, GAP, HOLD_MS.
set -euo pipefail
ENV=${CPUSLICE_VM_ENV:?not running under tools/vm/run}
S=${CPUSLICE_VM_SHARE:-/mnt/share}
. "$S/params"
D=/tmp/fresh
RAW=$S/raw
CG=/sys/fs/cgroup
NPROC=$(nproc)
WEIGHT=200 # the module's CPUWeight= (cpuslice.conf below)
. "$S/guest-lib.sh"
. "$S/lib.sh"
HOLDER=
cleanup() {
        [ -n "$HOLDER" ] && kill "$HOLDER" 2> /dev/null
        return 0
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] || { echo "guest-fresh: needs root"; exit 1; }
mkdir -p "$D/pam.d" "$RAW"
meta() { echo "$1=$2" >> "$RAW/$ENV-meta"; }
cg_mount() { # the cgroup2 mount's per-mount and superblock options, one line
        awk '$5 == "/sys/fs/cgroup" { for (i = 7; $i != "-"; i++); print $6 " " $(i + 3) }' /proc/self/mountinfo
}

section "facts ($ENV, $(uname -r), $NPROC CPUs)"
case "$ENV" in
systemd-v2) SYSTEMD=1
        echo "system: $(timeout 120 systemctl is-system-running --wait 2>&1 || true)"
        meta systemd "$(systemctl --version | head -n1)" ;;
nosd-v2) SYSTEMD=0 ;;
*) echo "guest-fresh: $ENV is not measured (systemd-v2, nosd-v2)"; exit 1 ;;
esac
[ -f $CG/cgroup.controllers ] || { echo "guest-fresh: no cgroup2 at $CG"; exit 1; }
printf '%s\n' "kernel=$(uname -r)" "suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-?}")" "nproc=$NPROC" \
        "systemd_pkg=$(dpkg-query -W -f='${Version}' systemd 2> /dev/null || echo -)" "mount=$(cg_mount)" >> "$RAW/$ENV-meta"
echo "cgroup2 mount: $(cg_mount)"

section "install"
install_packages --own-stack || exit 1
install -m 755 "$S/driver" /usr/local/bin/bench-driver
# one user who stays logged in (uid 3000), and users who never logged in before, one per login
useradd -M -N -u 3000 -s /bin/sh fresh
FIRST_KINDS=(sd sdcs)
for i in $(seq $((SYSTEMD * FIRST_ROUNDS * ${#FIRST_KINDS[@]}))); do useradd -M -N -u $((3000 + i)) -s /bin/sh "fresh$i"; done
printf '%s\n' "3000:3999 CPUWeight=$WEIGHT CPUQuota=150%" > /etc/security/cpuslice.conf
slicectl check > /dev/null || { echo "guest-fresh: slicectl check refuses the config"; exit 1; }
for s in permit:pam_permit sd:pam_systemd sdcs:"pam_systemd pam_cpuslice" cs:pam_cpuslice; do
        printf 'session required %s.so\n' ${s#*:} > "$D/pam.d/${s%%:*}"
done
# the floor's parent, cpu enabled on the way (what the module's first login does for user.slice)
echo +cpu > $CG/cgroup.subtree_control
mkdir -p $CG/fresh-floor
echo +cpu > $CG/fresh-floor/cgroup.subtree_control

login() { # login KIND USER: one fresh login, its line to stdout
        case $1 in
        floor2) bench-driver floor2 $CG/fresh-floor "$HOLD_MS" ;;
        *) bench-driver pam "$D/pam.d" "$1" "$2" "$HOLD_MS" ;;
        esac
}
rounds() { # rounds PHASE N USER|new KIND...: N interleaved rounds, each kind once per round
        local phase=$1 n=$2 who=$3 r i k user; shift 3
        local kinds=("$@") m=$#
        echo "$phase: $n rounds of ${kinds[*]}, ${GAP}s apart, held ${HOLD_MS} ms; load $(loadavg)"
        for r in $(seq 0 $((n - 1))); do
                for i in $(seq 0 $((m - 1))); do
                        k=${kinds[$(((i + r) % m))]}
                        user=$who
                        [ "$who" = new ] && NEW=$((NEW + 1)) && user=fresh$NEW
                        sleep "$GAP"
                        # a failed kind loses its rows (the report says so), not the whole run
                        login "$k" "$user" >> "$RAW/$ENV-$phase-$k" || meta "failed.$phase.$k" "status $? (round $r)"
                done
        done
}
NEW=0
set_fdm() { # set_fdm on|off: remount cgroup2 with or without favordynmods, keeping every other option
        local vfs super opts
        read -r vfs super <<< "$(cg_mount)"
        opts=$(tr , '\n' <<< "$vfs,$super" | grep -vx -e rw -e favordynmods | paste -sd,)
        [ "$1" = on ] && opts+=,favordynmods
        # only the options given here: mount(8) would otherwise merge the current ones back in
        mount --options-mode ignore -o "remount,$opts" $CG
        case ",$(cg_mount | tr ' ' ,)," in
        *,favordynmods,*) [ "$1" = on ] ;;
        *) [ "$1" = off ] ;;
        esac || { echo "guest-fresh: favordynmods $1 did not take: $(cg_mount)"; exit 1; }
        [ "$(cg_mount | cut -d' ' -f1)" = "$vfs" ] || { echo "guest-fresh: remount changed $vfs to $(cg_mount)"; exit 1; }
}

if [ $SYSTEMD = 1 ]; then
        section "second session: fresh is logged in already"
        bench-driver pam "$D/pam.d" sd fresh 86400000 > /dev/null 2>&1 &
        HOLDER=$!
        for _ in $(seq 300); do systemctl -q is-active user@3000.service && break; sleep 0.2; done
        systemctl -q is-active user@3000.service || { echo "guest-fresh: user@3000.service did not start"; exit 1; }
        wait_quiet
        meta second.load_start "$(loadavg)"
        rounds second "$ROUNDS" fresh permit sd sdcs
        meta second.load_end "$(loadavg)"
        props=$(systemctl show -p CPUWeight,CPUQuotaPerSecUSec user-3000.slice | paste -sd' ')
        echo "user-3000.slice: $props; kernel: $(cat $CG/user.slice/user-3000.slice/cpu.weight)" \
                "$(cat $CG/user.slice/user-3000.slice/cpu.max)"
        [ "$props" = "CPUWeight=$WEIGHT CPUQuotaPerSecUSec=1.500000s" ] || { echo "guest-fresh: settings not applied"; exit 1; }
        meta second.props "$props"

        section "first login: a user who never logged in, per login"
        wait_quiet
        meta first.load_start "$(loadavg)"
        rounds first "$FIRST_ROUNDS" new "${FIRST_KINDS[@]}"
        meta first.load_end "$(loadavg)"
        meta first.props "$(systemctl show -p CPUWeight,CPUQuotaPerSecUSec user-$((3000 + NEW)).slice | paste -sd' ')"
        FDM_KINDS=(floor2 sd sdcs) FDM_USER=fresh
else
        # no background session: the module makes and removes the slice each login, like the floor
        FDM_KINDS=(floor2 permit cs) FDM_USER=fresh
fi

section "favordynmods: off and on in turn"
wait_quiet
meta fdm.load_start "$(loadavg)"
for r in $(seq 0 $((FDM_ROUNDS - 1))); do
        modes=(off on)
        [ $((r % 2)) = 1 ] && modes=(on off)
        for mode in "${modes[@]}"; do
                set_fdm "$mode"
                [ "$r" = 0 ] && meta "fdm.mount_$mode" "$(cg_mount)"
                rounds "fdm-$mode" 1 "$FDM_USER" "${FDM_KINDS[@]}" > /dev/null
        done
done
set_fdm off
meta fdm.load_end "$(loadavg)"
echo "favordynmods: $FDM_ROUNDS rounds each; load $(loadavg)"
if [ $SYSTEMD = 1 ]; then
        failed=$(systemctl --failed --plain --no-legend | grep -v '^$' || true)
        [ -z "$failed" ] || echo "failed units: $failed"
fi
echo "guest-fresh: done"
