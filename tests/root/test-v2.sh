#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The cgroupfs backend's v2 layout (cgroup_layout=unified) on a real cgroup2 mount, whatever this
# host's layout: the host's cgroup2 (at /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid
# host), else one mounted for the test. A scratch parent of the test's own holds user.slice: a
# login's process really lands in user.slice/user-UID.slice/session-ID.scope, only the scopes hold
# processes (the leaf rule), the slice goes at logout, a scope a job keeps stays and is reaped by
# the user's next login once empty, and modes ignore a umask of 0777. Where the mount has no cpu
# controller (a hybrid host binds it to v1), cgv2-shadow.so keeps +cpu and the cpu.* values in
# files beside it: the kernel's acceptance of those values is then not checked, the rest is.
CPUSLICE_V2_TIER=1
. "$(dirname "$0")/lib.sh"

: "${CGV2_SHADOW_LIB:?}" "${SLICECTL:?}"
GRACE=5 # CGFS_REAP_GRACE_USEC

fstype() { stat -f -c %T "$1" 2>/dev/null || true; }
if [ -n "${CPUSLICE_V2_MOUNT:-}" ] || { [ "$(fstype $CG)" != cgroup2fs ] && [ "$(fstype $CG/unified)" != cgroup2fs ]; }; then
        # a cgroup2 of our own (CPUSLICE_V2_MOUNT=1 forces it): the same hierarchy as any other
        # cgroup2 mount, so the scratch parent is still what keeps the test apart
        mkdir "$T/cgroup2"
        mount -t cgroup2 cgroup2 "$T/cgroup2" || skip "no cgroup2 mounted, and mounting one failed"
        V2_MOUNT=$T/cgroup2
        V2ROOT=$V2_MOUNT
elif [ "$(fstype $CG)" = cgroup2fs ]; then
        V2ROOT=$CG
else
        V2ROOT=$CG/unified
fi
V2_PARENT=cpuslice-v2-$$
V2=$V2ROOT/$V2_PARENT
mkdir "$V2"
US=$V2/user.slice

PRELOAD=$NSS_WRAPPER_LIB
if grep -qw cpu "$V2ROOT/cgroup.controllers"; then
        REAL_CPU=1
        echo "cgroup2 at $V2ROOT has the cpu controller: values and the leaf rule checked in the kernel"
else
        REAL_CPU=
        export CGV2_SHADOW_ROOT=$V2ROOT CGV2_SHADOW_DIR=$T/shadow
        PRELOAD="$CGV2_SHADOW_LIB $NSS_WRAPPER_LIB"
        echo "SKIP (part): no cpu controller on the cgroup2 at $V2ROOT (bound to v1 here): +cpu and" \
             "cpu.weight/cpu.max/cpu.idle go to shadow files, so the kernel's taking of those values and" \
             "its own leaf-rule refusal are not checked; placement, leaf placement, cleanup, reaping and" \
             "modes are, on the real cgroup2"
fi

write_conf '* CPUWeight=100' 'alice CPUWeight=300 CPUQuota=50%' 'dave CPUWeight=idle CPUQuota=0.5%'
cat > "$T/pam.d/v2" <<EOT
session required $PAM_CPUSLICE_MODULE conf=$T/cpuslice.conf confdir=$T/none rundir=$T/none cgroup_root=$V2ROOT cgroup_layout=unified parent=$V2_PARENT
EOT
v2login() { # USER [pam-run args...] -- CMD...
        local user=$1; shift
        LD_PRELOAD=$PRELOAD "$PAM_RUN" --confdir "$T/pam.d" --service v2 --user "$user" "$@"
}
mode() { stat -c %a "$1"; }

# --- placement, leaf rule, values, cleanup ---
S=$US/user-1001.slice
out=$(v2login alice --env XDG_SESSION_ID=v2a -- sh -c "
        cat /proc/self/cgroup
        echo \"pid \$\$\"; echo \"scope \$(cat $S/session-v2a.scope/cgroup.procs | tr '\n' ' ')\"
        echo \"inner \$(cat $US/cgroup.procs $S/cgroup.procs | wc -l)\"
        echo \"subtree \$(cat $S/cgroup.subtree_control)\"
        echo \"weight \$(cat $S/cpu.weight) max \$(cat $S/cpu.max) idle \$(cat $S/cpu.idle)\"
        if [ -n '$REAL_CPU' ]; then
                if echo \$\$ > $S/cgroup.procs 2>/dev/null; then echo 'leaf: joined the slice'; else echo 'leaf: refused'; fi
        fi") || fail "alice's login failed: $out"
echo "$out"
grep -qx "0::/$V2_PARENT/user.slice/user-1001.slice/session-v2a.scope" <<< "$out" || fail "not in the v2 scope"
pid=$(echo "$out" | sed -n 's/^pid //p')
grep -q "^scope .*\b$pid\b" <<< "$out" || fail "the session's shell $pid is not in the scope's cgroup.procs"
grep -qx "inner 0" <<< "$out" || fail "a process sits in user.slice or user-1001.slice, not only in the scope"
grep -qx "weight 300 max 50000 100000 idle 0" <<< "$out" || fail "values: $(grep ^weight <<< "$out")"
if [ -n "$REAL_CPU" ]; then
        grep -qx "subtree cpu" <<< "$out" || fail "cpu is not enabled in user-1001.slice's subtree_control"
        grep -qx "leaf: refused" <<< "$out" || fail "the kernel let a process into user-1001.slice itself"
else
        # +cpu was written on every directory on the way down, from the mount's root to the slice
        for d in "" "/$V2_PARENT" "/$V2_PARENT/user.slice" "/$V2_PARENT/user.slice/user-1001.slice"; do
                [ "$(cat "$T/shadow$d/cgroup.subtree_control" 2>/dev/null)" = +cpu ] ||
                        fail "no +cpu written to ${d:-the root}/cgroup.subtree_control"
        done
fi
[ ! -e "$S" ] || fail "alice's slice left behind after logout: $(find "$S")"
[ -d "$US" ] || fail "user.slice removed"
echo "alice: in /$V2_PARENT/user.slice/user-1001.slice/session-v2a.scope, nothing in the inner cgroups," \
     "cpu.weight=300 cpu.max='50000 100000'; scope and slice gone after logout"

# CPUWeight=idle on v2: cpu.idle=1, no weight written
D=$US/user-1500.slice
out=$(v2login dave --env XDG_SESSION_ID=v2d -- sh -c "cat $D/cpu.idle $D/cpu.max; cat $D/cpu.weight 2>/dev/null || echo noweight") ||
        fail "dave's login failed"
[ "$(echo $out)" = "1 1000 200000 $([ -n "$REAL_CPU" ] && echo 100 || echo noweight)" ] || fail "dave (idle): $(echo $out)"
echo "dave: CPUWeight=idle CPUQuota=0.5% -> cpu.idle=1, cpu.max='1000 200000'"

# --- modes under umask 0777, a job keeps its scope, the next login reaps it once empty ---
B=$US/user-1002.slice
(umask 0777; v2login bob --env XDG_SESSION_ID=m1 -- sh -c "sleep 60 >/dev/null 2>&1 & echo \$! > $T/job.pid") ||
        fail "bob's login under umask 0777 failed"
for d in "$US" "$B" "$B/session-m1.scope"; do
        [ -d "$d" ] || fail "$d missing (a job still runs in it)"
        [ "$(mode "$d")" = 755 ] || fail "$d has mode $(mode "$d") with the caller's umask 0777, not 755"
done
grep -qx "$(cat "$T/job.pid")" "$B/session-m1.scope/cgroup.procs" || fail "bob's job is not in its scope"
made=$(stat -c %Y "$B/session-m1.scope") # cgroupfs: when the scope was made
echo "bob: umask 0777 -> user.slice, user-1002.slice, session-m1.scope all 0755; the job kept its scope"
kill "$(cat "$T/job.pid")"
for _ in $(seq 50); do [ -z "$(cat "$B/session-m1.scope/cgroup.procs")" ] && break; sleep 0.1; done
[ -z "$(cat "$B/session-m1.scope/cgroup.procs")" ] || fail "bob's job did not leave its scope"
# too young to reap: a login may just have made it (the grace)
young=$(( $(date +%s) - made < GRACE - 1 ))
v2login bob --env XDG_SESSION_ID=m2 -- true || fail "bob's second login failed"
if [ "$young" = 1 ]; then
        [ -d "$B/session-m1.scope" ] || fail "a scope younger than the grace was reaped"
fi
sleep $((GRACE + 1))
v2login bob --env XDG_SESSION_ID=m3 -- sh -c "ls -d $B/*.scope" > "$T/scopes" || fail "bob's third login failed"
[ "$(cat "$T/scopes")" = "$B/session-m3.scope" ] || fail "bob's empty scope was not reaped: $(cat "$T/scopes")"
[ ! -e "$B" ] || fail "bob's slice left behind: $(find "$B")"
echo "bob: once the job ended and the grace passed, the next login reaped its scope; the slice went at logout"

# --- slicectl gc on the v2 tree ---
mkdir -p "$US/user-4242.slice" "$US/user-4343.slice/session-x.scope" "$US/user-4343.slice/notascope"
"$SLICECTL" --cgroup-root "$V2ROOT" --cgroup-layout unified --parent "$V2_PARENT" --conf "$T/cpuslice.conf" \
        --confdir '' --rundir '' gc > "$T/gc.out" 2>&1 || fail "slicectl gc failed: $(cat "$T/gc.out")"
[ ! -e "$US/user-4242.slice" ] || fail "slicectl gc left an empty slice"
[ -d "$US/user-4343.slice/notascope" ] || fail "slicectl gc removed what is not a scope"
[ -d "$US/user-4343.slice/session-x.scope" ] || fail "slicectl gc removed a scope younger than the grace"
echo "slicectl gc: $(tr '\n' ' ' < "$T/gc.out")"
[ -z "$(find "$US" -mindepth 1 -maxdepth 1 -name 'user-1*.slice')" ] || fail "user slices left: $(ls "$US")"
echo PASS
