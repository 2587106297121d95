#!/bin/bash
# bench/guest-interactive.sh — guest half of `bench/vm-interactive` (one round per boot), run by
# tools/vm/run --env systemd-v2 as root in the throw-away guest (systemd 252, Debian's 6.1 kernel,
# pure cgroup v2, 2 vCPUs under TCG). The same two users and the same work as bench/interactive on
# the host, in the configurations the host cannot have: logind's user slices as shipped, and
# pam_cpuslice's systemd backend after pam_systemd.so.
#
# Share (/mnt/share): params (WARM DUR ROUND ORDER NHOGS NBUILD W_LIGHT W_HEAVY), debs/ (the
# built libpam-cpuslice and slicectl), pam-run and probe (built on the Debian 12 host: the guest
# has no compiler), job.in (the light user's fixed job), small.in (the heavy user's). Writes
# runs/<config>.<round>/{probe,job,usage} and facts.<round> there.
#
# Configurations (ORDER): idle-probe, idle, flat (both users' work in one cgroup /csi-flat, autogroup
# off), autogroup (/csi-ag, each user a session, autogroup on), sd-default (pam_systemd only:
# user-UID.slice with no settings, autogroup as the kernel booted), cs-eq and cs-w (pam_systemd.so
# + pam_cpuslice.so, equal weights and W_LIGHT:W_HEAVY). The order within a boot matters, and each
# round is a fresh boot: flat and autogroup come first, while no user is logged in and the cpu
# controller is in no cgroup.subtree_control (as booted: "memory pids" at the root), so every task
# is in the root task group, where autogroup works and no cgroup splits the CPU; the first login
# through pam_systemd makes systemd 252 enable cpu in / and user.slice (user@.service gets the cpu
# controller delegated) and it stays; pam_cpuslice leaves runtime drop-ins with CPU settings on the
# users' slices, so its configurations come last.
#
# Guest-side work keeps to shell builtins inside the windows (every fork under TCG costs ~0.1 s):
# $EPOCHREALTIME for time, `read` for cpu.stat and /proc/stat. The heavy user's build-like load
# has no compiler here: gzip -1 and sort of a 64 KiB file, then 20 x sh -c true (fork/exec churn).
set -euo pipefail
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
        for k in $CG/csi-*/*/cgroup.kill $CG/user.slice/user-6400[12].slice/cgroup.kill; do
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
UID_LIGHT=64001 UID_HEAVY=64002
useradd -M -d /tmp -s /bin/sh -u $UID_LIGHT -U csi-light
useradd -M -d /tmp -s /bin/sh -u $UID_HEAVY -U csi-heavy
LINGER=0
linger() { # each user's slice and user@UID.service start once, before the first pam_systemd window
        [ $LINGER = 1 ] && return 0
        loginctl enable-linger csi-light csi-heavy
        for _ in $(seq 300); do
                [ "$(systemctl is-active user@$UID_LIGHT.service user@$UID_HEAVY.service | sort -u)" = active ] && break
                sleep 0.2
        done
        LINGER=1
}

printf '%s\n' '* CPUWeight=100' > "$D/eq.conf"
printf '%s\n' '* CPUWeight=100' "csi-light CPUWeight=$W_LIGHT" "csi-heavy CPUWeight=$W_HEAVY" > "$D/w.conf"
chmod 644 "$D"/*.conf
echo "session required pam_permit.so" > "$D/pam.d/permit"
echo "session required pam_systemd.so" > "$D/pam.d/sd"
for c in eq w; do
        printf '%s\n' "session required pam_systemd.so" \
                "session required pam_cpuslice.so conf=$D/$c.conf confdir= rundir= strict" > "$D/pam.d/cs-$c"
done
AG_BOOT=$(cat $AG)

# light.sh ACCT RUN MODE: joins ACCT (a cgroup2 dir; "-": stays where its session put it), then
# runs the probe, and with MODE=full also the CPU-bound thread and the job loop
cat > "$D/light.sh" <<EOF
#!/bin/bash
[ "\$1" = - ] || echo \$\$ > "\$1/cgroup.procs" || exit 90
if [ "\$3" = full ]; then
        bash -c 'while :; do :; done' &
        while :; do
                t0=\$EPOCHREALTIME; gzip -6 -c "$D/job.in" > /dev/null; t1=\$EPOCHREALTIME
                echo "\${t0/./}000 \${t1/./}000" >> "\$2/job"
        done &
fi
echo \$\$ > "\$2/light.pid"
"$D/probe" $WARM $DUR "\$2/probe.tmp" && mv "\$2/probe.tmp" "\$2/probe"
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

ctl() { local c; read -r c < "$1/cgroup.subtree_control"; [[ " $c " == *" cpu "* ]] && echo cpu || echo -; }
{
        echo "state=$state kernel=$(uname -r) nproc=$(nproc) systemd=$(systemctl --version | head -n1 | cut -d' ' -f2)"
        echo "autogroup_boot=$AG_BOOT"
        echo "root_subtree=$(cat $CG/cgroup.subtree_control | tr ' ' ,)"
        echo "user_slice_subtree=$(cat $CG/user.slice/cgroup.subtree_control | tr ' ' ,)"
        echo "users_logged_in=$(loginctl list-users --no-legend | wc -l)"
        systemctl show -p DefaultCPUAccounting | tr '\n' ' '
        systemctl show -p CPUAccounting,CPUWeight user.slice | tr '\n' ' '
        echo
} > "$S/facts.$ROUND"
say "facts: $(tr '\n' ' ' < "$S/facts.$ROUND")"

# --- helpers inside the windows: builtins only --------------------------------------------------
nap() { sleep "$1" & wait $!; }
now_ns() { local t=$EPOCHREALTIME; echo "${t/./}000"; }
usage() { local k v; while read -r k v; do [ "$k" = usage_usec ] && { echo "$v"; return; }; done < "$1/cpu.stat"; }
busy_usec() { local c u n s i w q sq st; read -r c u n s i w q sq st _ < /proc/stat; echo $(( (u + n + s + q + sq + st) * 10000 )); }
count() { local -a l=(); [ -e "$1" ] && mapfile -t l < "$1"; echo ${#l[@]}; }
cg_of() { local l; read -r l < "/proc/$1/cgroup"; echo "${l#0::}"; }
ag_of() { local a _; read -r a _ < "/proc/$1/autogroup"; echo "$a"; }
waitfile() { local i; for ((i = 0; i < 600; i++)); do [ -s "$1" ] && return 0; kill -0 "$2" 2> /dev/null || return 1; sleep 0.1; done; return 1; }
expect_cg() {
        case $1 in
        flat) echo "^/csi-flat/light\$" ;;
        autogroup) echo "^/csi-ag/light\$" ;;
        *) echo "^/user\.slice/user-$UID_LIGHT\.slice/session-[0-9a-z]+\.scope\$" ;;
        esac
}

# window CONFIG: one measurement of ROUND; the light user's (and unless idle the heavy user's) work
# in a PAM session of the configuration's stack, WARM s of warm-up, DUR s measured, then killed
window() {
        local cfg=$1 svc ag=0 heavy=1 mode=full acct_l=- acct_h=- al ah
        local R=$D/runs/$cfg.$ROUND
        case $cfg in
        idle-probe) svc=sd heavy=0 mode=probe ;;
        idle) svc=sd heavy=0 ;;
        flat|autogroup) svc=permit; [ $cfg = autogroup ] && ag=1
                acct_l=$CG/csi-$([ $cfg = flat ] && echo flat || echo ag)/light acct_h=${acct_l%/light}/heavy
                mkdir -p "$acct_l" "$acct_h" ;;
        sd-default) svc=sd ag=$AG_BOOT ;;
        cs-eq|cs-w) svc=$cfg ;;
        *) say "unknown configuration $cfg"; exit 1 ;;
        esac
        if [ $svc = permit ]; then
                [ "$(ctl $CG)" = - ] || { say "$cfg: the cpu controller is already on in /: it must run before any login"; exit 1; }
        else
                linger
        fi
        mkdir -p "$R"
        echo $ag > $AG
        local lp hp= l h=
        if [ $heavy = 1 ]; then
                "$D/pam-run" --confdir "$D/pam.d" --service "$svc" --user csi-heavy -- \
                        setsid "$D/heavy.sh" "$acct_h" "$R" > "$R/heavy.log" 2>&1 &
                hp=$!; PIDS+=("$hp")
                waitfile "$R/heavy.pid" $hp || { say "$cfg: the heavy user's session did not start: $(cat "$R/heavy.log")"; exit 1; }
        fi
        "$D/pam-run" --confdir "$D/pam.d" --service "$svc" --user csi-light -- \
                setsid "$D/light.sh" "$acct_l" "$R" "$mode" > "$R/light.log" 2>&1 &
        lp=$!; PIDS+=("$lp")
        waitfile "$R/light.pid" $lp || { say "$cfg: the light user's session did not start: $(cat "$R/light.log")"; exit 1; }
        nap "$WARM"
        read -r l < "$R/light.pid"
        local where; where=$(cg_of "$l")
        [[ $where =~ $(expect_cg "$cfg") ]] || { say "$cfg: the light user is in $where, not where the configuration puts it"; exit 1; }
        local ag_l ag_h=- wh=-
        ag_l=$(ag_of "$l")
        if [ $heavy = 1 ]; then
                read -r h < "$R/heavy.pid"
                ag_h=$(ag_of "$h") wh=$(cg_of "$h")
                [ "$cfg" = autogroup ] && [ "$ag_l" = "$ag_h" ] && { say "autogroup: both users in $ag_l"; exit 1; }
        fi
        [ "$acct_l" = - ] && al=$CG/user.slice/user-$UID_LIGHT.slice ah=$CG/user.slice/user-$UID_HEAVY.slice || al=$acct_l ah=$acct_h
        # who splits the CPU here: the cpu controller in / and in user.slice, the users' cpu.weight
        local c_root c_user wl=- whv=-
        c_root=$(ctl $CG) c_user=$(ctl $CG/user.slice)
        [ -e "$CG/user.slice/user-$UID_LIGHT.slice/cpu.weight" ] && read -r wl < "$CG/user.slice/user-$UID_LIGHT.slice/cpu.weight"
        [ -e "$CG/user.slice/user-$UID_HEAVY.slice/cpu.weight" ] && read -r whv < "$CG/user.slice/user-$UID_HEAVY.slice/cpu.weight"
        local u0l u0h t0 s0 b0 u1l u1h t1 s1 b1 load
        read -r load _ < /proc/loadavg
        u0l=$(usage "$al") u0h=$(usage "$ah") t0=$(now_ns) s0=$(busy_usec) b0=$(count "$R/builds")
        nap "$DUR"
        u1l=$(usage "$al") u1h=$(usage "$ah") t1=$(now_ns) s1=$(busy_usec) b1=$(count "$R/builds")
        for _ in $(seq 100); do [ -e "$R/probe" ] && break; sleep 0.1; done
        [ -e "$R/probe" ] || { say "$cfg: the probe did not finish: $(cat "$R/light.log")"; exit 1; }
        echo "light=$((u1l - u0l)) heavy=$((u1h - u0h)) host=$((s1 - s0)) t0=$t0 t1=$t1 builds=$((b1 - b0))" \
                "cg_light=$where cg_heavy=$wh ag_light=$ag_l ag_heavy=$ag_h cpu_root=$c_root cpu_user_slice=$c_user" \
                "weight_light=$wl weight_heavy=$whv autogroup=$ag load=$load" > "$R/usage"
        # the end: every process of both users' work (the session scope, or the accounting dir)
        local d
        for p in $l $h; do
                d=$CG$(cg_of "$p" 2> /dev/null) && [ "$d" != "$CG/" ] && { echo 1 > "$d/cgroup.kill" || true; }
        done
        for p in $lp $hp; do wait "$p" 2> /dev/null || true; done
        PIDS=()
        [ "$acct_l" = - ] || for _ in $(seq 50); do rmdir "$acct_l" "$acct_h" 2> /dev/null && break; sleep 0.1; done
        echo 0 > $AG
        cp -a "$R" "$S/runs/"
        say "$cfg.$ROUND: light $(( (u1l - u0l) / 1000 )) ms, heavy $(( (u1h - u0h) / 1000 )) ms, cpu in / $c_root, in user.slice $c_user, light in $where"
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
