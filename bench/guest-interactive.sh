#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/guest-interactive.sh: the guest half of `bench/run vm-interactive` (bench/README.md), one
# round per boot, run by tools/vm/run --env systemd-v2. Share: params, debs/, pam-run, probe, job.in,
# small.in; writes runs/CONFIG.ROUND/{probe,wake.probe,job,usage} and facts.ROUND there. The order
# matters: flat and autogroup before any login turns cpu on at the root (skipped, with the reason in
# facts, if it is on as booted), pam_cpuslice's drop-ins last. Inside the windows only shell builtins
# (a fork under TCG costs ~0.1 s): $EPOCHREALTIME, read, printf -v.
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

cleanup() {
        local rc=$? k
        set +e
        trap - ERR
        for k in $CG/csi-*/*/cgroup.kill $CG/user.slice/user-6400[123].slice/cgroup.kill; do
                [ -e "$k" ] && echo 1 > "$k"
        done
        for p in "${PIDS[@]}"; do wait "$p" 2> /dev/null; done
        exit $rc
}
trap cleanup EXIT

# --- setup (forks are fine here) ---------------------------------------------------------------
state=$(timeout 120 systemctl is-system-running --wait 2>&1 || true)
[ "$(cat /proc/1/comm)" = systemd ] || { say "PID 1 is not systemd"; exit 1; }
grep -q '^0::/' /proc/self/cgroup && [ -f $CG/cgroup.subtree_control ] || { say "not pure cgroup v2"; exit 1; }
mkdir -p "$D/pam.d" "$D/runs" "$S/runs"
install -m 755 "$S/pam-run" "$S/probe" "$D/"
cp "$S/job.in" "$S/small.in" "$D/"
# our own stacks below: the profile pam-auth-update enabled goes again
install_packages --own-stack || { say "apt-get install of the .debs failed"; exit 1; }
UID_LIGHT=64001 UID_HEAVY=64002 UID_WAKE=64003
useradd -M -d /tmp -s /bin/sh -u $UID_LIGHT -U csi-light
useradd -M -d /tmp -s /bin/sh -u $UID_HEAVY -U csi-heavy
useradd -M -d /tmp -s /bin/sh -u $UID_WAKE -U csi-wake
LINGER=0
linger() { # each user's slice and user@UID.service start once, before the first pam_systemd window
        [ $LINGER = 1 ] && return 0
        loginctl enable-linger csi-light csi-heavy csi-wake
        for _ in $(seq 300); do
                [ "$(systemctl is-active user@$UID_LIGHT.service user@$UID_HEAVY.service user@$UID_WAKE.service |
                        sort -u)" = active ] && break
                sleep 0.2
        done
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

# light.sh ACCT RUN MODE [TAG]: joins ACCT (a cgroup2 dir; "-": stays where its session put it),
# then runs the probe, and with MODE=full also the CPU-bound thread and the job loop. TAG (light,
# the default, or wake): its pid goes to RUN/TAG.pid, the probe's samples to RUN/probe (light) or
# RUN/TAG.probe. The wake-only user is light.sh ACCT RUN probe wake.
cat > "$D/light.sh" <<EOF
#!/bin/bash
[ "\$1" = - ] || echo \$\$ > "\$1/cgroup.procs" || exit 90
tag=\${4:-light} out=probe
[ "\$tag" = light ] || out=\$tag.probe
if [ "\$3" = full ]; then
        bash -c 'while :; do :; done' &
        while :; do
                t0=\$EPOCHREALTIME; gzip -6 -c "$D/job.in" > /dev/null; t1=\$EPOCHREALTIME
                echo "\${t0/./}000 \${t1/./}000" >> "\$2/job"
        done &
fi
echo \$\$ > "\$2/\$tag.pid"
"$D/probe" $WARM $DUR "\$2/\$out.tmp" && mv "\$2/\$out.tmp" "\$2/\$out"
wait
EOF
# heavy.sh ACCT RUN: NHOGS hogs and NBUILD build-like loops (one line per gzip+sort to RUN/builds)
cat > "$D/heavy.sh" <<EOF
#!/bin/bash
[ "\$1" = - ] || echo \$\$ > "\$1/cgroup.procs" || exit 90
i=0; while [ \$i -lt $NHOGS ]; do bash -c 'while :; do :; done' & i=\$((i + 1)); done
i=0; while [ \$i -lt $NBUILD ]; do
        (while :; do
                gzip -1 -c "$D/small.in" | sort > /dev/null && echo >> "\$2/builds"
                j=0; while [ \$j -lt 20 ]; do sh -c true; j=\$((j + 1)); done
        done) &
        i=\$((i + 1))
done
echo \$\$ > "\$2/heavy.pid"
wait
EOF
chmod 755 "$D/light.sh" "$D/heavy.sh"

# ctl_to VAR DIR: VAR=cpu when the cpu controller is in DIR's cgroup.subtree_control, else -
# (an empty file, as trixie's user.slice has before the first login, is a failed read: no controller)
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

# --- helpers inside the windows: builtins only, results by printf -v (no $(...) subshell) ----------
# Their locals start with __ so that a caller's variable of the same name is never shadowed.
nap() { sleep "$1" & wait $!; }
now_ns_to() { local __t=$EPOCHREALTIME; printf -v "$1" %s "${__t/./}000"; }
usage_to() { # usage_to VAR CGROUP_DIR: its cpu.stat usage_usec
        local __k __v
        while read -r __k __v; do [ "$__k" = usage_usec ] && { printf -v "$1" %s "$__v"; return; }; done < "$2/cpu.stat"
}
busy_to() { # busy_to VAR: the guest's busy CPU time since boot, µs (USER_HZ 100)
        local __c __u __n __s __i __w __q __sq __st
        read -r __c __u __n __s __i __w __q __sq __st _ < /proc/stat
        printf -v "$1" %s $(( (__u + __n + __s + __q + __sq + __st) * 10000 ))
}
count_to() { local -a __l=(); [ -e "$2" ] && mapfile -t __l < "$2"; printf -v "$1" %s ${#__l[@]}; }
cg_to() { local __l; read -r __l < "/proc/$2/cgroup"; printf -v "$1" %s "${__l#0::}"; }
# /proc/PID/autogroup is empty while autogroup is off (kernel 6.12's at least): then "-"
ag_to() { local __a=- _; read -r __a _ < "/proc/$2/autogroup" || __a=-; printf -v "$1" %s "$__a"; }
weight_to() { # weight_to VAR UID: the user's slice's cpu.weight, - when it has none
        printf -v "$1" -
        [ -e "$CG/user.slice/user-$2.slice/cpu.weight" ] && read -r "$1" < "$CG/user.slice/user-$2.slice/cpu.weight"
        return 0
}
cg_of() { local l; read -r l < "/proc/$1/cgroup"; echo "${l#0::}"; } # after the window only
waitfile() { local i; for ((i = 0; i < 600; i++)); do [ -s "$1" ] && return 0; kill -0 "$2" 2> /dev/null || return 1; sleep 0.1; done; return 1; }
expect_to() { # expect_to VAR CONFIG USER(light|wake) UID: where CONFIG must have put the user's work
        case $2 in
        flat) printf -v "$1" %s "^/csi-flat/$3\$" ;;
        autogroup) printf -v "$1" %s "^/csi-ag/$3\$" ;;
        *) printf -v "$1" %s "^/user\.slice/user-$4\.slice/session-[0-9a-z]+\.scope\$" ;;
        esac
}

# window CONFIG: one measurement of ROUND. The heavy user's work (unless idle), the wake-only
# user's probe and the light user's work, each in a PAM session of the configuration's stack,
# opened one after the other in that order; WARM s of warm-up, DUR s measured, then killed. The
# wake-only user's probe starts before the light user's session opens (by wake_lead µs, in usage):
# its WARM s of warm-up cover that, so it records with all three users' work running.
window() {
        local cfg=$1 svc ag=0 heavy=1 mode=full acct_l=- acct_h=- acct_w=- al ah aw
        local R=$D/runs/$cfg.$ROUND
        case $cfg in
        idle-probe) svc=sd heavy=0 mode=probe ;;
        idle) svc=sd heavy=0 ;;
        flat|autogroup) svc=permit; [ $cfg = autogroup ] && ag=1
                acct_l=$CG/csi-$([ $cfg = flat ] && echo flat || echo ag)/light acct_h=${acct_l%/light}/heavy
                acct_w=${acct_l%/light}/wake ;;
        sd-default) svc=sd ag=$AG_BOOT ;;
        cs-eq|cs-w) svc=$cfg ;;
        *) say "unknown configuration $cfg"; exit 1 ;;
        esac
        if [ $svc = permit ]; then
                local c0; ctl_to c0 $CG
                if [ "$c0" != - ] && [ "$CPU_BOOT" != - ]; then
                        echo "skipped.$cfg=cpu was in the root's cgroup.subtree_control as booted, before any login (systemd $(systemctl --version | head -n1 | cut -d' ' -f2)): no root task group for the users' work" >> "$S/facts.$ROUND"
                        say "$cfg: skipped: cpu is on in / as booted"
                        return 0
                fi
                [ "$c0" = - ] || { say "$cfg: the cpu controller is already on in /: it must run before any login"; exit 1; }
                mkdir -p "$acct_l" "$acct_h" "$acct_w"
        else
                linger
        fi
        mkdir -p "$R"
        echo $ag > $AG
        local lp hp= wp l h= w tw tl
        if [ $heavy = 1 ]; then
                "$D/pam-run" --confdir "$D/pam.d" --service "$svc" --user csi-heavy -- \
                        setsid "$D/heavy.sh" "$acct_h" "$R" > "$R/heavy.log" 2>&1 &
                hp=$!; PIDS+=("$hp")
                waitfile "$R/heavy.pid" $hp || { say "$cfg: the heavy user's session did not start: $(cat "$R/heavy.log")"; exit 1; }
        fi
        "$D/pam-run" --confdir "$D/pam.d" --service "$svc" --user csi-wake -- \
                setsid "$D/light.sh" "$acct_w" "$R" probe wake > "$R/wake.log" 2>&1 &
        wp=$!; PIDS+=("$wp")
        waitfile "$R/wake.pid" $wp || { say "$cfg: the wake-only user's session did not start: $(cat "$R/wake.log")"; exit 1; }
        tw=$EPOCHREALTIME
        "$D/pam-run" --confdir "$D/pam.d" --service "$svc" --user csi-light -- \
                setsid "$D/light.sh" "$acct_l" "$R" "$mode" > "$R/light.log" 2>&1 &
        lp=$!; PIDS+=("$lp")
        waitfile "$R/light.pid" $lp || { say "$cfg: the light user's session did not start: $(cat "$R/light.log")"; exit 1; }
        tl=$EPOCHREALTIME
        nap "$WARM"
        # from here to the end of the window: no fork (see the header)
        local where ww re
        read -r l < "$R/light.pid"
        read -r w < "$R/wake.pid"
        cg_to where "$l"
        expect_to re "$cfg" light $UID_LIGHT
        [[ $where =~ $re ]] || { say "$cfg: the light user is in $where, not where the configuration puts it"; exit 1; }
        cg_to ww "$w"
        expect_to re "$cfg" wake $UID_WAKE
        [[ $ww =~ $re ]] || { say "$cfg: the wake-only user is in $ww, not where the configuration puts it"; exit 1; }
        local ag_l ag_h=- ag_w wh=-
        ag_to ag_l "$l"
        ag_to ag_w "$w"
        if [ $heavy = 1 ]; then
                read -r h < "$R/heavy.pid"
                ag_to ag_h "$h"
                cg_to wh "$h"
                [ "$cfg" = autogroup ] && { [ "$ag_l" = "$ag_h" ] || [ "$ag_w" = "$ag_h" ] || [ "$ag_w" = "$ag_l" ]; } &&
                        { say "autogroup: two users share one (light $ag_l, heavy $ag_h, wake $ag_w)"; exit 1; }
        fi
        if [ "$acct_l" = - ]; then
                al=$CG/user.slice/user-$UID_LIGHT.slice ah=$CG/user.slice/user-$UID_HEAVY.slice aw=$CG/user.slice/user-$UID_WAKE.slice
        else
                al=$acct_l ah=$acct_h aw=$acct_w
        fi
        # who splits the CPU here: the cpu controller in / and in user.slice, the users' cpu.weight
        local c_root c_user wl whv wwt
        ctl_to c_root $CG
        ctl_to c_user $CG/user.slice
        weight_to wl $UID_LIGHT
        weight_to whv $UID_HEAVY
        weight_to wwt $UID_WAKE
        local u0l u0h u0w t0 s0 b0 u1l u1h u1w t1 s1 b1 load
        read -r load _ < /proc/loadavg
        usage_to u0l "$al"; usage_to u0h "$ah"; usage_to u0w "$aw"; now_ns_to t0; busy_to s0; count_to b0 "$R/builds"
        nap "$DUR"
        usage_to u1l "$al"; usage_to u1h "$ah"; usage_to u1w "$aw"; now_ns_to t1; busy_to s1; count_to b1 "$R/builds"
        for _ in $(seq 100); do [ -e "$R/probe" ] && [ -e "$R/wake.probe" ] && break; sleep 0.1; done
        [ -e "$R/probe" ] || { say "$cfg: the probe did not finish: $(cat "$R/light.log")"; exit 1; }
        [ -e "$R/wake.probe" ] || { say "$cfg: the wake-only user's probe did not finish: $(cat "$R/wake.log")"; exit 1; }
        echo "light=$((u1l - u0l)) heavy=$((u1h - u0h)) wake=$((u1w - u0w)) host=$((s1 - s0)) t0=$t0 t1=$t1" \
                "builds=$((b1 - b0)) cg_light=$where cg_heavy=$wh cg_wake=$ww ag_light=$ag_l ag_heavy=$ag_h" \
                "ag_wake=$ag_w cpu_root=$c_root cpu_user_slice=$c_user weight_light=$wl weight_heavy=$whv" \
                "weight_wake=$wwt autogroup=$ag load=$load wake_lead=$(( ${tl/./} - ${tw/./} ))" > "$R/usage"
        # the end: every process of the three users' work (the session scope, or the accounting dir)
        local d
        for p in $l $h $w; do
                d=$CG$(cg_of "$p" 2> /dev/null) && [ "$d" != "$CG/" ] && { echo 1 > "$d/cgroup.kill" || true; }
        done
        for p in $lp $hp $wp; do wait "$p" 2> /dev/null || true; done
        PIDS=()
        [ "$acct_l" = - ] || for _ in $(seq 50); do
                rmdir "$acct_l" "$acct_h" "$acct_w" 2> /dev/null
                [ -d "$acct_l" ] || [ -d "$acct_h" ] || [ -d "$acct_w" ] || break
                sleep 0.1
        done
        echo 0 > $AG
        cp -a "$R" "$S/runs/"
        say "$cfg.$ROUND: light $(( (u1l - u0l) / 1000 )) ms, heavy $(( (u1h - u0h) / 1000 )) ms," \
                "wake $(( (u1w - u0w) / 1000 )) ms, cpu in / $c_root, in user.slice $c_user, light in $where, wake in $ww"
}

for c in $ORDER; do
        say "round $ROUND: $c (load $(cut -d' ' -f1-3 /proc/loadavg))"
        window "$c"
done
# After the windows (nothing is measured any more): where the peer modules put a login here, the
# evidence for their one-line reasons in the table. Debian 12's pam_cgfs with the controller list
# of its pam-configs/cgfs plus unified ("cgfs-packaged") and with -c cpu, and pam_cgroup with a
# cgconfig template, each after pam_systemd.so.
peers_check() {
        local P=$D/peers s out rc
        mkdir -p "$P/pam.d" "$P/lib"
        install -m 644 "$S/peers/libcgroup.so.2" "$P/lib/"
        printf '%s\n' "session required pam_systemd.so" \
                "session required $S/peers/pam_cgfs.so -c freezer,memory,name=systemd,unified" > "$P/pam.d/cgfs-packaged"
        printf '%s\n' "session required pam_systemd.so" "session required $S/peers/pam_cgfs.so -c cpu" > "$P/pam.d/cgfs-cpu"
        printf '%s\n' "session required pam_systemd.so" "session required $S/peers/pam_cgroup.so" > "$P/pam.d/cgroup"
        printf 'template csi-peer/%%u {\n\tcpu { cpu.weight = 100; }\n}\n' > /etc/cgconfig.conf
        printf '*\tcpu\tcsi-peer/%%u\n' > /etc/cgrules.conf
        for s in cgfs-packaged cgfs-cpu cgroup; do
                rc=0
                out=$(LD_LIBRARY_PATH=$P/lib timeout 60 "$D/pam-run" --confdir "$P/pam.d" --service $s --user csi-light \
                        -- cat /proc/self/cgroup 2>&1) || rc=$?
                echo "peer_$s: status $rc: $(echo $out)"
        done
        echo "peer_dirs: $(cd $CG && find . -maxdepth 4 -type d \( -name 'csi-peer' -o -path '*/user/*' -o -name user \) | tr '\n' ' ')"
}
if [ -f "$S/peers/pam_cgfs.so" ] && [ -f "$S/peers/pam_cgroup.so" ] && [ -f "$S/peers/libcgroup.so.2" ]; then
        peers_check > "$S/peers.$ROUND" 2>&1 || true
        say "peers: $(tr '\n' ' ' < "$S/peers.$ROUND")"
fi
{
        echo "root_subtree_end=$(cat $CG/cgroup.subtree_control | tr ' ' ,)"
        echo "user_slice_subtree_end=$(cat $CG/user.slice/cgroup.subtree_control | tr ' ' ,)"
        echo "user_at_service_delegates=$(systemctl show -p DelegateControllers --value user@$UID_LIGHT.service | tr ' ' ,)"
        echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"
} >> "$S/facts.$ROUND"
say "done"
