# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib.sh: sourced by bench/run and, copied into the guests, by its guest halves. What runs
# inside a measured window is builtins only (a fork under TCG costs ~0.1 s): the *_to helpers set
# VAR with printf -v, and their locals start with __ so that they never shadow the caller's VAR.
TICK_USEC=$((1000000 / $(getconf CLK_TCK)))
declare -A UIDS=([light]=64001 [heavy]=64002 [wake]=64003) # the users of interactive

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
wait_quiet() { # until the 1-min load is below half the CPUs (boot, apt, a benchmark before), 240 s at most
        local t=0 # BENCH_QUIET_WAIT=0: not at all (a functional check on a busy host)
        for t in $(seq "${BENCH_QUIET_WAIT:-240}"); do
                awk -v n="$(nproc)" '{ exit !($1 < n / 2) }' /proc/loadavg && break
                sleep 1
        done
        echo "quiet after ${t} s: load $(loadavg)"
}
rmdir_wait() { # DIR...: removed while their last processes exit, 5 s at most; 1 if one is left
        local i d left
        for ((i = 0; i < 50; i++)); do
                left=0
                for d; do [ ! -d "$d" ] || rmdir "$d" 2> /dev/null || left=1; done
                [ $left = 1 ] || return 0
                sleep 0.1
        done
        return 1
}
nap() { sleep "$1" & wait $!; } # a signal's trap runs at once, not after the sleep
now_ns_to() { local __t=$EPOCHREALTIME; printf -v "$1" %s "${__t/./}000"; }
usage_to() { # VAR CGROUP2_DIR: its cpu.stat usage_usec
        local __k __v
        while read -r __k __v; do [ "$__k" = usage_usec ] && { printf -v "$1" %s "$__v"; return; }; done < "$2/cpu.stat"
}
busy_to() { # VAR: the CPU time the machine was busy since boot, µs (in bash: mawk saturates at 2^31)
        local __c __u __n __s __i __w __q __sq __st
        read -r __c __u __n __s __i __w __q __sq __st _ < /proc/stat
        printf -v "$1" %s $(((__u + __n + __s + __q + __sq + __st) * TICK_USEC))
}
count_to() { local -a __l=(); [ -e "$2" ] && mapfile -t __l < "$2"; printf -v "$1" %s ${#__l[@]}; } # VAR FILE: lines
cg_to() { # VAR PID CONTROLLERS: PID's cgroup in that hierarchy (cpu: v1's; empty: cgroup2's), - if none
        local __i __c __p
        printf -v "$1" -
        { while IFS=: read -r __i __c __p; do
                [ "$__c" = "$3" ] && { printf -v "$1" %s "$__p"; break; }
        done < "/proc/$2/cgroup"; } 2> /dev/null || true
}
# /proc/PID/autogroup is empty while autogroup is off (kernel 6.12's at least): then "-"
ag_to() { local __a=- _; read -r __a _ < "/proc/$2/autogroup" || __a=-; printf -v "$1" %s "$__a"; }
sub_to() { local __t=${3//USER/$2}; printf -v "$1" %s "${__t//UID/${UIDS[$2]}}"; } # VAR USER TEMPLATE

# --- one window of interactive and vm-interactive ----------------------------------------------
# The caller sets PAM_RUN, PAM_D (its confdir), LOAD (interactive-load.sh's command), CHECK_CTL
# (the controllers of the hierarchy placement is checked in), V2 (cgroup2's mount), AG, WARM and
# DUR, exports what interactive-load.sh reads, and defines place CONFIG: it sets the window's PAM
# service svc, heavy=0 (no heavy user), mode=probe (the light user runs the probe alone), ag
# (autogroup on), and as templates in which USER and UID stand for each user's name and uid:
# join (the cgroup2 dir the user's work joins, or -), cpu (the v1 cpu group it joins, or -), acct
# (the cgroup2 dir its usage_usec is read from) and re (where the configuration must have put it).
# place returns 1 to skip the window. window_facts and window_done may be redefined.
window_facts() { printf -v "$1" %s ""; } # VAR: fields for the usage line, each with a blank after
window_done() { :; }

# user_start USER ARG...: USER's work in a session of svc, the sessions one at a time (pam_cgfs
# fails when two logins make its shared parent directories at once); waits for RUN/USER.pid
user_start() {
        local who=$1 i
        shift
        "$PAM_RUN" --confdir "$PAM_D" --service "$svc" --user "csi-$who" -- setsid "${LOAD[@]}" "$who" "$@" \
                > "$R/$who.log" 2>&1 &
        PIDS+=($!)
        for ((i = 0; i < 600; i++)); do
                [ -s "$R/$who.pid" ] && return 0
                kill -0 $! 2> /dev/null || break
                sleep 0.1
        done
        say "$cfg: the $who user's session did not start: $(cat "$R/$who.log")"
        exit 1
}

# window CONFIG ROUND: the heavy user (unless idle), the wake-only user and the light user open their
# sessions in that order, the wake-only user's probe starting before the light user's load (by
# wake_lead µs: its WARM s of warm-up cover that); WARM s of warm-up, DUR s measured, then all
# their work killed and the sessions closed. Writes RUNS/CONFIG.ROUND/usage beside the samples.
window() {
        local cfg=$1 svc heavy=1 mode=full ag=0 join=- cpu=- acct re= u p d dirs=() R=$RUNS/$1.$2
        local l h= w where wwhere wh=- rx ag_l ag_h=- ag_w tw tl facts u0l u0h u0w t0 s0 b0 u1l u1h u1w t1 s1 b1
        local -A j c a
        local -x DUR=$DUR # place may lengthen its window
        place "$cfg" || return 0
        for u in light heavy wake; do
                sub_to "j[$u]" $u "$join"
                sub_to "c[$u]" $u "$cpu"
                sub_to "a[$u]" $u "$acct"
                [ "${j[$u]}" = - ] || dirs+=("${j[$u]}")
        done
        mkdir -p "$R" "${dirs[@]}"
        echo "$ag" > "$AG"
        [ $heavy = 0 ] || user_start heavy "${j[heavy]}" "${c[heavy]}" "$R"
        user_start wake "${j[wake]}" "${c[wake]}" "$R"
        tw=$EPOCHREALTIME
        user_start light "${j[light]}" "${c[light]}" "$R" "$mode"
        tl=$EPOCHREALTIME
        nap "$WARM"
        # from here to the end of the window: no fork
        read -r l < "$R/light.pid"
        read -r w < "$R/wake.pid"
        cg_to where "$l" "$CHECK_CTL"
        sub_to rx light "$re"
        [[ $where =~ $rx ]] || { say "$cfg: the light user is in $where, not where the configuration puts it"; exit 1; }
        cg_to wwhere "$w" "$CHECK_CTL"
        sub_to rx wake "$re"
        [[ $wwhere =~ $rx ]] || { say "$cfg: the wake-only user is in $wwhere, not where the configuration puts it"; exit 1; }
        ag_to ag_l "$l"
        ag_to ag_w "$w"
        if [ $heavy = 1 ]; then
                read -r h < "$R/heavy.pid"
                ag_to ag_h "$h"
                cg_to wh "$h" "$CHECK_CTL"
                [ "$cfg" = autogroup ] && { [ "$ag_l" = "$ag_h" ] || [ "$ag_w" = "$ag_h" ] || [ "$ag_w" = "$ag_l" ]; } &&
                        { say "autogroup: two users share one (light $ag_l, heavy $ag_h, wake $ag_w)"; exit 1; }
        fi
        window_facts facts
        usage_to u0l "${a[light]}"; usage_to u0h "${a[heavy]}"; usage_to u0w "${a[wake]}"; now_ns_to t0; busy_to s0; count_to b0 "$R/builds"
        nap "$DUR"
        usage_to u1l "${a[light]}"; usage_to u1h "${a[heavy]}"; usage_to u1w "${a[wake]}"; now_ns_to t1; busy_to s1; count_to b1 "$R/builds"
        for ((p = 0; p < 100; p++)); do [ -e "$R/probe" ] && [ -e "$R/wake.probe" ] && break; sleep 0.1; done
        [ -e "$R/probe" ] || { say "$cfg: the probe did not finish: $(cat "$R/light.log")"; exit 1; }
        [ -e "$R/wake.probe" ] || { say "$cfg: the wake-only user's probe did not finish: $(cat "$R/wake.log")"; exit 1; }
        echo "light=$((u1l - u0l)) heavy=$((u1h - u0h)) wake=$((u1w - u0w)) host=$((s1 - s0)) t0=$t0 t1=$t1" \
                "builds=$((b1 - b0)) cg_light=$where cg_heavy=$wh cg_wake=$wwhere ag_light=$ag_l ag_heavy=$ag_h" \
                "ag_wake=$ag_w ${facts}wake_lead=$((${tl/./} - ${tw/./}))" > "$R/usage"
        # the end: all the users' work, by its cgroup2 dir (the accounting dir, or the session's scope)
        for p in $l $h $w; do
                cg_to d "$p" ""
                [ "$d" = / ] || [ "$d" = - ] || echo 1 > "$V2$d/cgroup.kill" || true
        done
        for p in "${PIDS[@]}"; do wait "$p" 2> /dev/null || true; done
        PIDS=()
        rmdir_wait "${dirs[@]}" || { say "$cfg: processes left after the window"; exit 1; }
        echo 0 > "$AG"
        window_done
}
