# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by test-faults.sh, test-hostile.sh and test-races.sh (after lib.sh): a syslog catcher that
# keeps the raw bytes, snapshots of the scratch tree, and the fail-open/strict check every fault
# must pass.

# The module's lines must reach syslog escaped: this catcher replaces lib.sh's, writes each message
# as it came, and records any message with a byte outside printable ASCII in $T/unescaped.
kill "$CATCHER_PID" 2>/dev/null || true
wait "$CATCHER_PID" 2>/dev/null || true
rm -f "$T/dev/log"
python3 - "$T/dev/log" "$LOG" "$T/unescaped" </dev/null >/dev/null 2>&1 <<'PY' &
import os, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
with open(sys.argv[2], "ab", buffering=0) as out, open(sys.argv[3], "ab", buffering=0) as bad:
    while True:
        msg = sock.recv(65536).rstrip(b"\n")
        out.write(msg + b"\n")
        if any(b < 0x20 or b > 0x7e for b in msg):
            bad.write(repr(msg).encode() + b"\n")
PY
CATCHER_PID=$!
for _ in $(seq 100); do [ -S "$T/dev/log" ] && break; sleep 0.05; done
: > "$T/unescaped"

FAULTS=0        # cases run, for the closing figures

# svc NAME MODULE-ARGS...: a service with exactly these module arguments (conf paths added)
svc() {
        local name=$1; shift
        cat > "$T/pam.d/$name" <<EOT
session required $PAM_CPUSLICE_MODULE conf=${CONF:-$T/cpuslice.conf} confdir=${CONFDIR:-$T/none} rundir=$T/none $*
session required pam_permit.so
EOT
}

# snapshot UID: every cgroup below the scratch parents and the values in them, except the user's
# own user-UID.slice (the one place a login may change)
snapshot() {
        local d f
        {
                for d in "$CPU" "$ACCT"; do
                        find "$d" -path "*/user.slice/user-$1.slice" -prune -o -type d -print | sort | while read -r dir; do
                                echo "dir $dir"
                                for f in cpu.shares cpu.cfs_quota_us cpu.cfs_period_us cgroup.subtree_control \
                                         cgroup.max.descendants cgroup.max.depth; do
                                        [ -f "$dir/$f" ] && echo "$dir/$f=$(cat "$dir/$f")"
                                done
                        done
                done
                # the hierarchy roots themselves
                cat $CG/cpu/cpu.shares $CG/cpu/cpu.cfs_quota_us $CG/unified/cgroup.subtree_control
        } 2>/dev/null
}

log_count() { grep -cF -- "$1" "$LOG" || true; }

# fault NAME USER EXPECTED-LOG RUNNER...: the login proceeds with one clear log line; with the
# same arguments plus `strict` it is denied; nothing outside user-UID.slice changes either way.
# RUNNER runs "$@" in the faulty environment (e.g. with_syslog, or a private mount namespace).
# Service args come from $FARGS, a PAM environment variable for the session from $FENV.
fault() {
        local name=$1 user=$2 want=$3 uid before after l0 n0 n1 s0 s1; shift 3
        uid=$(awk -F: -v u="$user" '$1 == u {print $3}' "$NSS_WRAPPER_PASSWD")
        svc fault "$FARGS"
        svc fault-strict "$FARGS" strict
        before=$(snapshot "$uid")
        l0=$(wc -l < "$LOG")
        n0=$(log_count "login proceeds without a CPU slice")
        "$@" "$PAM_RUN" --confdir "$T/pam.d" --service fault --user "$user" ${FENV:+--env "$FENV"} -- true ||
                fail "$name: the login was denied without strict"
        log_sync
        n1=$(log_count "login proceeds without a CPU slice")
        [ $((n1 - n0)) -eq 1 ] || { tail -5 "$LOG"; fail "$name: $((n1 - n0)) failure lines, want 1"; }
        # the reason is in the failure line itself or in the config diagnostic just before it
        tail -n +$((l0 + 1)) "$LOG" | grep -F -- "$want" > /dev/null || { tail -5 "$LOG"; fail "$name: log lacks '$want'"; }
        s0=$(log_count "session denied (strict)")
        if "$@" "$PAM_RUN" --confdir "$T/pam.d" --service fault-strict --user "$user" ${FENV:+--env "$FENV"} -- true 2>/dev/null; then
                fail "$name: strict did not deny the session"
        fi
        log_sync
        s1=$(log_count "session denied (strict)")
        [ $((s1 - s0)) -eq 1 ] || fail "$name: $((s1 - s0)) strict denial lines, want 1"
        after=$(snapshot "$uid")
        [ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); fail "$name: changed outside user-$uid.slice"; }
        FAULTS=$((FAULTS + 2))
        echo "ok: $name: login proceeds, one line ('$want'); strict denies; nothing else changed"
}

# no_unescaped: nothing the module logged carried a raw control or non-ASCII byte
no_unescaped() {
        log_sync
        if [ -s "$T/unescaped" ]; then
                cat "$T/unescaped"
                fail "syslog lines with unescaped bytes"
        fi
}

# in_ns SETUP-SCRIPT CMD...: runs CMD in a private mount namespace (with the test's /dev/log)
# after SETUP-SCRIPT; the host's mounts are never changed
in_ns() {
        local setup=$1; shift
        unshare -m --propagation private sh -c "mount --bind '$T/dev' /dev && $setup"' && exec "$@"' sh "$@"
}
