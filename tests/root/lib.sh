# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the real-kernel tests: a scratch parent in the real cpu hierarchy (and the accounting
# mirror), PAM service files of the test's own, users from nss_wrapper, a syslog socket.
# Never touches the host's /etc/pam.d or its live user.slice.
set -euo pipefail
# and so never `echo "$out" | grep -q X`: grep -q leaves at the first match, bash's echo writes a
# line at a time, and its next line dying of SIGPIPE fails the pipeline now and then (3 in 3000
# under load). `grep -q X <<< "$out"` has no pipe to break.

: "${PAM_RUN:?}" "${PAM_CPUSLICE_MODULE:?}" "${NSS_WRAPPER_LIB:?}" "${TEST_DATA_DIR:?}"
CG=/sys/fs/cgroup

skip() {
        if [ -n "${CPUSLICE_REQUIRE_ALL:-}" ]; then
                echo "FAIL (would skip, but CPUSLICE_REQUIRE_ALL is set): $*"
                exit 1
        fi
        echo "SKIP: $*"
        exit 77
}

[ "$(id -u)" -eq 0 ] || skip "needs root for real cgroups"
# CPUSLICE_V2_TIER (test-v2.sh): no v1 needed; the test makes its own scratch parent in $V2
if [ -z "${CPUSLICE_V2_TIER:-}" ]; then
        [ -f $CG/cpu/cpu.shares ] || skip "no v1 cpu hierarchy at $CG/cpu on this machine"
        [ -f $CG/unified/cgroup.procs ] || skip "no cgroup2 mount at $CG/unified (hybrid layout expected)"
fi

T=$(mktemp -d /tmp/cpuslice-root.XXXXXX)
PARENT=cpuslice-test-$$
CPU= ACCT=
if [ -z "${CPUSLICE_V2_TIER:-}" ]; then
        CPU=$CG/cpu/$PARENT
        ACCT=$CG/unified/$PARENT
fi
V2=             # test-v2.sh: its scratch parent on a cgroup2 mount
V2_MOUNT=       # and the cgroup2 it mounted, if it had to
LOG=$T/syslog
CATCHER_PID=

cleanup() {
        local rc=$?
        [ -n "$CATCHER_PID" ] && kill "$CATCHER_PID" 2>/dev/null || true
        # anything still inside goes back to the root before the scratch tree is removed
        for h in "$CPU" "$ACCT" "$V2"; do
                [ -n "$h" ] && [ -d "$h" ] || continue
                find "$h" -name cgroup.procs | while read -r f; do
                        while read -r p; do echo "$p" > "$(dirname "$h")/cgroup.procs" 2>/dev/null || true; done < "$f"
                done
                find "$h" -depth -type d -exec rmdir {} + 2>/dev/null || true
        done
        [ -n "$V2_MOUNT" ] && umount "$V2_MOUNT" 2>/dev/null || true
        rm -rf "$T"
        exit $rc
}
trap cleanup EXIT

[ -n "$CPU" ] && mkdir -p "$CPU" "$ACCT"
mkdir -p "$T/pam.d" "$T/dev"
: > "$LOG"

export LD_PRELOAD=$NSS_WRAPPER_LIB
export NSS_WRAPPER_PASSWD=$TEST_DATA_DIR/passwd NSS_WRAPPER_GROUP=$TEST_DATA_DIR/group

# config: must be root-owned and not group/world-writable, as the module demands
write_conf() {
        printf '%s\n' "$@" > "$T/cpuslice.conf"
        chmod 0644 "$T/cpuslice.conf"
}

# service NAME [extra module args]
service() {
        local name=$1; shift
        cat > "$T/pam.d/$name" <<EOT
session required $PAM_CPUSLICE_MODULE conf=$T/cpuslice.conf confdir=$T/none rundir=$T/none parent=$PARENT $*
session required pam_permit.so
EOT
}

# login USER [pam-run args...] -- CMD...: a session through the test's service "cs"
login() {
        local user=$1; shift
        "$PAM_RUN" --confdir "$T/pam.d" --service "${SERVICE:-cs}" --user "$user" "$@"
}

# A syslog socket for the module's lines: a private /dev (device nodes and the socket) replaces the
# real one inside `unshare -m`, so the host's /dev is never touched.
for n in null:1:3 zero:1:5 random:1:8 urandom:1:9 tty:5:0; do
        IFS=: read -r name maj min <<< "$n"
        mknod -m 666 "$T/dev/$name" c "$maj" "$min"
done
python3 "$(dirname "$0")/syslog-catcher.py" "$T/dev/log" "$LOG" </dev/null >/dev/null 2>&1 &
CATCHER_PID=$!
for _ in $(seq 100); do [ -S "$T/dev/log" ] && break; sleep 0.05; done

# log_sync: returns once every message sent to the catcher before it is in $LOG. The catcher writes
# asynchronously, so a fixed sleep before reading $LOG was a bet on the scheduler that a loaded host
# could lose; a marker sent behind them comes out after them (one datagram socket, one reader).
LOG_SYNCS=0
log_sync() {
        local mark
        LOG_SYNCS=$((LOG_SYNCS + 1))
        mark="cpuslice-test-log-sync $BASHPID.$LOG_SYNCS.$RANDOM"
        logger -d -u "$T/dev/log" --socket-errors=on -- "$mark" || fail "log_sync: the syslog catcher's socket refused a message"
        for _ in $(seq 600); do
                grep -qF -- "$mark" "$LOG" && return 0
                sleep 0.05
        done
        fail "log_sync: the syslog catcher wrote nothing for 30 s"
}

# log_reset: $LOG emptied, with nothing still on its way that would land in it afterwards
log_reset() {
        log_sync
        : > "$LOG"
}

# with_syslog CMD...: runs CMD where /dev/log feeds $LOG; returns CMD's status once all that CMD
# logged is in $LOG
with_syslog() {
        local rc=0
        unshare -m sh -c 'mount --bind "$0" /dev && exec "$@"' "$T/dev" "$@" || rc=$?
        log_sync
        return $rc
}

# hogs N SECS: a shell command line that keeps N CPUs busy for SECS seconds and then ends by itself
hogs() {
        echo "for i in \$(seq $1); do timeout $2 sh -c 'while :; do :; done' & done; wait"
}

# spin_pinned SECS STOP: a shell command line with one hog pinned to each CPU this test may use,
# spinning until the file STOP exists (checked every few ms; SECS at most in any case). Pinned so
# that each group has one task on every CPU's run queue and every CPU divides itself by the
# shares alone: unpinned, the load balancer moving hogs between CPUs of a loaded machine made a
# split wander by 10 % from window to window.
allowed_cpus() { python3 -c "import os; print(' '.join(map(str, sorted(os.sched_getaffinity(0)))))"; }
spin_pinned() {
        local c
        for c in $(allowed_cpus); do
                printf "taskset -c %s timeout %s sh -c 'while [ ! -e %s ]; do i=0; while [ \$i -lt 2000 ]; do i=\$((i+1)); done; done' & " \
                        "$c" "$1" "$2"
        done
        echo wait
}

log_has() {
        log_sync
        grep -qF -- "$1" "$LOG" || { echo "FAIL: syslog lacks: $1"; echo "--- syslog:"; cat "$LOG"; exit 1; }
}

# wait_placed UID...: until each user's slice is in the cgroup2 accounting mirror (a login beside
# a test's own hogs can take seconds), for 30 s at most; prints the first one missing and fails
wait_placed() {
        local uid f
        for uid in "$@"; do
                f=$ACCT/user.slice/user-$uid.slice/cpu.stat
                for _ in $(seq 300); do [ -e "$f" ] && break; sleep 0.1; done
                [ -e "$f" ] || { echo "$f"; return 1; }
        done
}

usage_usec() { # UID -> usage of user-UID.slice from the cgroup2 accounting mirror
        awk '/^usage_usec/ {print $2}' "$ACCT/user.slice/user-$1.slice/cpu.stat"
}

fail() { echo "FAIL: $*"; exit 1; }
