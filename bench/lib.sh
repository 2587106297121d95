# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/lib.sh — what the benchmark scripts share; sourced after ROOT is set.

# One benchmark at a time on a machine: bench/run and bench/interactive both own
# /etc/cgrules.conf and /etc/cgconfig.conf while they run, and a figure taken while another
# benchmark or a VM runs measures that, not us.
BENCH_LOCK=/run/cpuslice-bench.lock

# bench_lock "$@": run the calling script again under the lock (waiting, and saying so, while
# another benchmark holds it); returns at once inside the locked run.
bench_lock() {
        [ -z "${CPUSLICE_BENCH_LOCKED:-}" ] || return 0
        flock -n "$BENCH_LOCK" true || echo "$(basename "$0"): waiting for $BENCH_LOCK (another benchmark runs)" >&2
        exec env CPUSLICE_BENCH_LOCKED=1 flock "$BENCH_LOCK" "$0" "$@"
}

# peer_extract DEST PKG...: Debian's packages of the peer modules, downloaded once into
# build-bench/bench-debs and unpacked into DEST. Never installed: libpam-cgfs's maintainer script
# would put pam_cgfs into the host's common-session.
PEER_DEBS=$ROOT/build-bench/bench-debs
peer_extract() {
        local dest=$1 p
        shift
        mkdir -p "$PEER_DEBS" "$dest"
        for p in "$@"; do
                ls "$PEER_DEBS/${p}"_*.deb > /dev/null 2>&1 || (cd "$PEER_DEBS" && apt-get download -q "$p" >&2 2> /dev/null) ||
                        (cd "$PEER_DEBS" && apt-get download "$p" >&2)
                dpkg-deb -x "$(ls "$PEER_DEBS/${p}"_*.deb | tail -n1)" "$dest"
        done
}

# peer_versions: "pam_cgroup V, pam_cgfs V" of the packages peer_extract unpacked, for a table's header
peer_versions() {
        local p v=()
        for p in cgroup cgfs; do
                v+=("pam_$p $(dpkg-deb -f "$(ls "$PEER_DEBS/libpam-$p"_*.deb | tail -n1)" Version)")
        done
        echo "${v[0]}, ${v[1]}"
}

# own_debs SUITE DEBS DEST: our .debs as SUITE's guests install them (tests/vm/vm-test.sh's choice:
# the host's build in DEBS, or the one made for SUITE in DEBS-<build suite> by tools/package
# --suite, vm_build_suite of tools/vm/suite-lib.sh), built when missing or older than the sources,
# and the newest of each copied into DEST for a guest
own_debs() {
        local suite=$1 debs=$2 dest=$3 newest b args=()
        . "$ROOT/tools/vm/suite-lib.sh"
        b=$(vm_build_suite "$suite")
        [ -n "$b" ] && debs=$debs-$b args=(--suite "$b")
        newest=$(ls -t "$debs"/libpam-cpuslice_*.deb 2> /dev/null | head -n1 || true)
        if [ -z "$newest" ] || ! ls "$debs"/slicectl_*.deb > /dev/null 2>&1 ||
           [ -n "$(find "$ROOT/lib" "$ROOT/pam" "$ROOT/slicectl" "$ROOT/debian" "$ROOT/meson.build" -newer "$newest" -print -quit)" ]; then
                echo "$(basename "$0"): building the packages into $debs (tools/package ${args[*]})" >&2
                mkdir -p "$debs"
                DEB_BUILD_OPTIONS=nocheck "$ROOT/tools/package" "${args[@]}" "$debs" > "$debs.log" 2>&1 ||
                        { tail -n 30 "$debs.log" >&2; echo "$(basename "$0"): tools/package failed (log: $debs.log)" >&2; return 1; }
        fi
        mkdir -p "$dest"
        cp "$(ls -t "$debs"/libpam-cpuslice_*.deb | head -n1)" "$(ls -t "$debs"/slicectl_*.deb | head -n1)" "$dest/"
}

# wait_host_quiet: a build or a VM before loads the host; wait (up to 4 min) until its 1-min load
# average is below half its CPUs. The caller records the load and judges it.
wait_host_quiet() {
        local t
        for t in $(seq 240); do
                awk -v n="$(nproc)" '{ exit !($1 < n / 2) }' /proc/loadavg && break
                sleep 1
        done
        echo "$(basename "$0"): host quiet after ${t} s: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
}

# busy_usec: the host's busy CPU time since boot, all CPUs, in bash's 64-bit arithmetic (mawk
# prints large numbers as %.6g and saturates printf %d at 2^31); no fork, it is read in windows
BENCH_TCK=$(getconf CLK_TCK)
busy_usec() {
        local c u n s i w q sq st
        read -r c u n s i w q sq st _ < /proc/stat
        echo $(((u + n + s + q + sq + st) * 1000000 / BENCH_TCK))
}

# run_metered DIR CMD...: runs CMD in the cgroup2 dir DIR (made here, removed after; accounting
# only, no controller) and returns its status. Sets METERED_SECS, and OTHER_CPUS: what the rest of
# the host used meanwhile, in CPUs (its busy time minus DIR's). /proc/stat counts ticks and
# cpu.stat microseconds, so a quiet host can come out a little below 0: clamped.
# usage_usec DIR: a cgroup2 dir's CPU time (cpu.stat's usage_usec), for bash's 64-bit arithmetic
usage_usec() { awk '/^usage_usec/ {print $2}' "$1/cpu.stat"; }

# metered_cleanup DIR: for an EXIT trap: what an interrupted run_metered left in DIR is killed, DIR removed
metered_cleanup() {
        [ -d "$1" ] || return 0
        [ -e "$1/cgroup.kill" ] && echo 1 > "$1/cgroup.kill"
        for _ in $(seq 50); do rmdir "$1" 2> /dev/null && return 0; sleep 0.1; done
}

BENCH_V2=/sys/fs/cgroup/unified
[ -f $BENCH_V2/cgroup.procs ] || BENCH_V2=/sys/fs/cgroup
run_metered() {
        local dir=$1 b0 b1 q0 q1 t0 t1 rc=0
        shift
        mkdir -p "$dir"
        b0=$(busy_usec) q0=$(usage_usec "$dir") t0=$(date +%s%N)
        (echo $BASHPID > "$dir/cgroup.procs" && exec "$@") || rc=$?
        b1=$(busy_usec) q1=$(usage_usec "$dir") t1=$(date +%s%N)
        rmdir "$dir" 2> /dev/null || true
        METERED_SECS=$(((t1 - t0) / 1000000000))
        OTHER_CPUS=$(awk -v b=$((b1 - b0)) -v q=$((q1 - q0)) -v t=$(((t1 - t0) / 1000)) \
                'BEGIN { x = (b - q) / (t > 0 ? t : 1); printf "%.3f", x < 0 ? 0 : x }')
        return $rc
}
