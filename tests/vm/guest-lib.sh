# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/guest-lib.sh — sourced by the guest halves of the VM tests: check/figure output,
# background logins that hold a session (tests/vm/session.sh) until told to stop, the cpu
# hierarchy's files, systemd's view of a slice, and the 3:1 split and the quota windows.
# Needs: S (the share); D (a scratch dir in the guest holding session.sh) defaults to /tmp/vmt.
D=${D:-/tmp/vmt}
fails=0
ok() { echo "CHECK ok   $*"; }
bad() { echo "CHECK FAIL $*"; fails=$((fails + 1)); }
check() { # check DESCRIPTION COMMAND...
        local what=$1; shift
        if "$@"; then ok "$what"; else bad "$what"; fi
}
fig() { echo "FIGURE $*"; echo "$*" >> "$S/figures"; }
section() { echo; echo "=== $* [${SECONDS} s]"; } # the guest script's clock: where its time goes
calc() { awk "BEGIN { printf \"%.${2:-3}f\", $1 }"; }
is_true() { awk "BEGIN { exit !($1) }"; }
declare -A JOB=()
fifos() { # fifos TAG: the FIFOs the session waits on, go-TAG and stop-TAG
        local f
        mkfifo -m 666 "$D/go-$1" "$D/stop-$1"
}
poke() { # poke FIFO...: wake whoever waits on each
        local f
        for f in "$@"; do
                timeout 30 bash -c 'echo > "$1"' - "$f" || bad "nobody read $f"
        done
}
start() { # start TAG CMD...: a login in the background
        local tag=$1; shift
        fifos "$tag"
        "$@" < /dev/null > "$D/$tag.out" 2>&1 &
        JOB[$tag]=$!
}
login_shells() { # login_shells USER: the PIDs of USER's bash that a login(1) started, one a line
        local l
        l=$(pgrep -d, -x login) && pgrep -u "$1" -x -P "$l" bash
}
new_login_shell() { # new_login_shell USER " PID PID ": USER has a login shell not in that list
        local p
        for p in $(login_shells "$1"); do [[ "$2" == *" $p "* ]] || return 0; done
        return 1
}
start_login() { # start_login TAG USER HOGS [COMMAND [ANSWER]]: login(1) on a pty through script(1);
                # COMMAND is typed into the login shell (default: hold the session with session.sh),
                # ANSWER once a Password: prompt is out (PAM flushes what was typed ahead)
        local tag=$1 user=$2 hogs=$3 cmd=${4:-"exec sh $D/session.sh $1 $3"} answer=${5:-} old
        fifos "$tag"
        mkfifo -m 600 "$D/feed-$tag"
        # login flushes the tty before it starts the shell: type only once the shell runs, and
        # keep script's stdin open until the session is over. The shell is a new bash whose parent
        # is a login: for root, any bash would be there at once (this script is one)
        old=" $(login_shells "$user" | tr '\n' ' ') "
        # shellcheck disable=SC2094 # the left side reads script's output for the prompt, on purpose
        ( wait_for 60 new_login_shell "$user" "$old" ||
                  echo "start_login $tag: no new login shell of $user within 60 s; typing all the same" >&2
          sleep 1
          echo "$cmd"
          if [ -n "$answer" ]; then # misc_conv flushes the tty, then prints the prompt
                  wait_for 60 grep -qF 'Password:' "$D/$tag.out" 2> /dev/null ||
                          echo "start_login $tag: no Password: prompt within 60 s; typing all the same" >&2
                  sleep 0.5
                  echo "$answer"
          fi
          read -r _ < "$D/feed-$tag" ) | timeout 300 script -qec "exec login -f $user" /dev/null > "$D/$tag.out" 2>&1 &
        JOB[$tag]=$!
}
wait_info() { # wait_info TAG...: until each session has written its info file
        local tag
        for tag in "$@"; do
                wait_for 60 test -f "$D/$tag.info" || { bad "$tag: session did not start"; sed 's/^/  | /' "$D/$tag.out"; }
        done
}
go() { # go TAG...: the sessions start their hogs
        local tag
        for tag in "$@"; do poke "$D/go-$tag"; done
}
stop() { # stop TAG...: end the sessions and wait for su/runuser/login to close them
        local tag rc
        for tag in "$@"; do poke "$D/stop-$tag"; done
        for tag in "$@"; do
                wait_for 30 not kill -0 "${JOB[$tag]}" 2> /dev/null
                [ -p "$D/feed-$tag" ] && timeout 5 bash -c 'echo > "$1"' - "$D/feed-$tag" 2> /dev/null
                if kill -0 "${JOB[$tag]}" 2> /dev/null; then
                        bad "$tag: the login did not end within 30 s"
                else
                        wait "${JOB[$tag]}"; rc=$?
                        check "$tag: the login ended with status 0 (it was $rc)" [ "$rc" = 0 ]
                fi
        done
}
held_login() { # held_login TAG USER: a su -l session of USER that holds until `stop TAG`
        start "$1" su -l "$2" -c "sh $D/session.sh $1 0"
        wait_info "$1"
        go "$1"
}
info() { sed -n "s/^$2=//p" "$D/$1.info" | head -n1; } # info TAG KEY: a field of the session's info file
install_packages() { # install_packages [--own-stack]: the built libpam-cpuslice and slicectl from the
        # share's debs/ with apt, as an admin installs them (pam-auth-update then puts the module in
        # common-session and common-session-noninteractive). --own-stack: for tests that write
        # their own stack lines, the profile is disabled again (`pam-auth-update --disable`).
        local f debs=()
        mkdir -p /tmp/debs
        for f in "$S"/debs/libpam-cpuslice_*.deb "$S"/debs/slicectl_*.deb; do
                [ -f "$f" ] || { bad "no $f in the share"; return 1; }
                install -m 644 "$f" /tmp/debs/ && debs+=("/tmp/debs/${f##*/}")
        done
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${debs[@]}" > /tmp/debs/apt.log 2>&1 ||
                { sed 's/^/  | /' /tmp/debs/apt.log; bad "apt-get install ${debs[*]##*/}"; return 1; }
        [ "${1:-}" = --own-stack ] || return 0
        DEBIAN_FRONTEND=noninteractive pam-auth-update --disable cpuslice
        # bullseye's pam-auth-update (libpam-runtime 1.4) leaves a disabled profile's lines in
        # place; its --remove, which the prerm uses, takes them out
        grep -q pam_cpuslice /etc/pam.d/common-session /etc/pam.d/common-session-noninteractive &&
                DEBIAN_FRONTEND=noninteractive pam-auth-update --package --remove cpuslice
        return 0
}
# The user slices in the cpu hierarchy: need CPUH (its mount), V (1 or 2), and for want_values the
# configured W (CPUWeight), Q (quota per period, or max) and P (period, µs) per uid.
slice_dir() { echo "$CPUH/user.slice/user-$1.slice"; }
usage_us() { # UID -> CPU time of the user's slice in µs
        if [ $V = 2 ]; then awk '/^usage_usec/ { print $2 }' "$(slice_dir "$1")/cpu.stat"
        else echo $(( $(cat "$(slice_dir "$1")/cpuacct.usage") / 1000 )); fi
}
kernel_values() { # UID -> the slice's kernel files as one line
        local d; d=$(slice_dir "$1")
        if [ $V = 2 ]; then echo "cpu.weight=$(cat "$d/cpu.weight") cpu.max=$(cat "$d/cpu.max" | tr ' ' /)"
        else echo "cpu.shares=$(cat "$d/cpu.shares") cfs_quota_us=$(cat "$d/cpu.cfs_quota_us") cfs_period_us=$(cat "$d/cpu.cfs_period_us")"; fi
}
want_values() { # UID -> what the cgroupfs backend writes for the same config
        local u=$1 q=${Q[$1]}
        if [ $V = 2 ]; then echo "cpu.weight=${W[$u]} cpu.max=$q/${P[$u]}"
        else [ "$q" = max ] && q=-1; echo "cpu.shares=$(( W[$u] * 1024 / 100 )) cfs_quota_us=$q cfs_period_us=${P[$u]}"; fi
}

# ---- the common start of a guest half; a slice's quota and weight as systemd and the kernel have them
guest_init() { # the start of a guest half: ENV from the harness, a fresh D with session.sh, cwd /tmp
        ENV=${CPUSLICE_VM_ENV:?not running under tools/vm/run}
        # fresh: /tmp is on the root disk, which a guest half booted twice (vm-test.sh) finds again
        rm -rf "$D"
        mkdir -m 1777 "$D"
        install -m 644 "$S/session.sh" "$D/session.sh"
        cd /tmp || exit 1
}
vm_boot() { # which boot of the same disk this is (tools/vm/run --disk, cpuslice.boot=N): 1 unless told
        local a
        for a in $(cat /proc/cmdline); do
                case "$a" in cpuslice.boot=*) echo "${a#cpuslice.boot=}"; return ;; esac
        done
        echo 1
}
cpu_hierarchy() { # V (1 or 2) and CPUH, the mount of the hierarchy that has the cpu controller
        if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
                V=2 CPUH=/sys/fs/cgroup
        else # systemd's hybrid layout and vm-nosd-init's v1 both link cpu to cpu,cpuacct
                V=1 CPUH=$(readlink -f /sys/fs/cgroup/cpu)
        fi
}
conf() { printf '%s\n' "$@" > /etc/security/cpuslice.conf; chmod 644 /etc/security/cpuslice.conf; }
quota_of() { systemctl show -p CPUQuotaPerSecUSec --value "user-$1.slice"; }
weight_of() { systemctl show -p CPUWeight --value "user-$1.slice"; }
cpu_max() { cpu_max_at "$CPUH/user.slice/user-$1.slice"; } # UID -> cpu_max_at of the user's slice
cpu_max_at() { # DIR -> the cgroup's quota in the kernel as v2's cpu.max has it ("20000 100000", "max
        # 100000"), on v1 from cpu.cfs_quota_us and cpu.cfs_period_us; nothing without the cgroup
        local d=$1 q p
        if [ "$V" = 2 ]; then
                cat "$d/cpu.max" 2> /dev/null
                return 0
        fi
        { read -r q < "$d/cpu.cfs_quota_us" && read -r p < "$d/cpu.cfs_period_us"; } 2> /dev/null || return 0
        [ "$q" = -1 ] && q=max
        echo "$q $p"
}
cpu_max_is() { [ "$(cpu_max "$1")" = "$2" ]; }  # cpu_max_is UID "QUOTA PERIOD"
quota_is() { [ "$(quota_of "$1")" = "$2" ]; } # quota_is UID CPUQuotaPerSecUSec
# Deadlines are on the guest's clock, not counts of tries: a slow guest (TCG beside a busy host)
# makes each try longer, and a counted loop would stretch its deadline by as much
wait_for() { # wait_for SECS CMD...: until CMD succeeds, for at most SECS seconds; 0.2 s between the
        # first 10 tries, then a second: a try may be a systemctl (0.2 s of a TCG guest's CPU), and the
        # CPU is for what we wait on
        local end=$((SECONDS + $1)) n=0
        shift
        until "$@"; do
                [ "$SECONDS" -lt "$end" ] || return 1
                n=$((n + 1))
                if [ "$n" -le 10 ]; then sleep 0.2; else sleep 1; fi
        done
}
wait_is() { # wait_is WANT CMD...: CMD's output once it is WANT, or its last after 10 s: systemd
        # writes the kernel files just after it answers
        local got
        wait_for 10 output_is "$@"
        echo "$got"
}
output_is() { got=$("${@:2}" 2> /dev/null); [ "$got" = "$1" ]; } # output_is WANT CMD...: sets wait_is's got
state_is() { [ "$(systemctl show -P ActiveState "$1")" = "$2" ]; } # state_is UNIT STATE (systemd's ActiveState)
not() { ! "$@"; } # not CMD...: for wait_for

# ---- the 3:1 split (guest-cgroupfs.sh, guest-package.sh, guest-systemd-backend.sh); needs V, CPUH
# (ACCTH instead where cpuacct is a hierarchy of its own), FAIR_SECS
slice_usage() { # slice_usage UID: USAGE = CPU time of the user's slice in µs. Shell builtins only: a
        # fork costs ~0.1 s under TCG and, sampled with awk/date, a split reads low (tests/vm/README.md)
        local k v h=${ACCTH:-$CPUH}
        USAGE=0
        if [ "$V" = 2 ]; then
                while read -r k v; do
                        [ "$k" = usage_usec ] && { USAGE=$v; break; }
                done < "$h/user.slice/user-$1.slice/cpu.stat"
        else
                read -r v < "$h/user.slice/user-$1.slice/cpuacct.usage" && USAGE=$((v / 1000))
        fi
}
split_windows() { # split_windows WHAT UID-A UID-B WANT: A's CPU time over B's in up to three windows
        # of FAIR_SECS, a FIGURE each; 0 at the first within 10 % of WANT. A host that starves the
        # guest's vCPUs (TCG beside a busy neighbour) can bend one window, while weights that were
        # not applied bend every window. Leaves RATIO and BUSY (the % of the CPUs the two used) of
        # the last window, and RATIOS, all of them.
        local w a0 b0 t0 da db dt n
        n=$(nproc)
        RATIOS=
        for w in 1 2 3; do
                slice_usage "$2"; a0=$USAGE; slice_usage "$3"; b0=$USAGE; t0=${EPOCHREALTIME/./}
                sleep "$FAIR_SECS"
                slice_usage "$2"; da=$((USAGE - a0)); slice_usage "$3"; db=$((USAGE - b0))
                dt=$((${EPOCHREALTIME/./} - t0))
                RATIO=$(calc "$da / ($db > 0 ? $db : 1)")
                BUSY=$(calc "($da + $db) * 100 / ($dt * $n)" 0)
                RATIOS="$RATIOS $RATIO"
                fig "$ENV $1, window $w: $((da / 1000)) ms : $((db / 1000)) ms over $(calc "$dt / 1e6" 1) s," \
                        "ratio $RATIO (want $4 +/- 10 %), $BUSY % of $n CPUs"
                is_true "$RATIO >= $4 * 0.9 && $RATIO <= $4 * 1.1" && return 0
        done
        return 1
}

# ---- quota windows (guest-cgroupfs.sh); needs V, CPUH (ACCTH as above), QUOTA_SECS
declare -A PCT=() PCTS=()
quota_windows() { # quota_windows WHAT UID:LO:HI...: each UID's CPU time in % of one CPU over up to
        # three windows of QUOTA_SECS, a FIGURE each; 0 at the first where every UID is within its
        # LO..HI. As with the split, a starved guest can bend one window, while a quota that was
        # not applied bends every window. Leaves PCT[UID], of the last window, and PCTS[UID], all.
        local w s u lo hi t0 dt good line
        local -A a0=() a1=()
        PCT=() PCTS=()
        for w in 1 2 3; do
                for s in "${@:2}"; do slice_usage "${s%%:*}"; a0[${s%%:*}]=$USAGE; done
                t0=${EPOCHREALTIME/./}
                sleep "$QUOTA_SECS"
                for s in "${@:2}"; do slice_usage "${s%%:*}"; a1[${s%%:*}]=$USAGE; done
                dt=$((${EPOCHREALTIME/./} - t0))
                good=1 line=
                for s in "${@:2}"; do
                        IFS=: read -r u lo hi <<< "$s"
                        PCT[$u]=$(calc "(${a1[$u]} - ${a0[$u]}) * 100 / $dt" 1)
                        PCTS[$u]="${PCTS[$u]:-} ${PCT[$u]}"
                        line="$line user-$u.slice +$(( (a1[$u] - a0[$u]) / 1000 )) ms = ${PCT[$u]} % (want $lo-$hi %),"
                        is_true "${PCT[$u]} >= $lo && ${PCT[$u]} <= $hi" || good=
                done
                fig "$ENV $1, window $w:${line%,} of one CPU over $(calc "$dt / 1e6" 1) s"
                [ -n "$good" ] && return 0
        done
        return 1
}
