#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Real v1 hierarchy: the module twice in one stack (runuser-l includes runuser, su includes
# common-session) places the login once, and close leaves the caller where it was before the first
# open, with nothing left behind; a login from inside the user's own slice (su - self) stays where
# it is; a slice a user was given (chown, Delegate=) is refused with one line and left untouched.
. "$(dirname "$0")/lib.sh"

write_conf '* CPUWeight=100' 'alice CPUWeight=300'
service cs debug
cat > "$T/pam.d/twice" << EOT
session required $PAM_CPUSLICE_MODULE conf=$T/cpuslice.conf confdir=$T/none rundir=$T/none parent=$PARENT debug
session include $T/pam.d/cs
EOT
before=$(grep -E '^[0-9]+:cpu[,:]' /proc/self/cgroup)

echo "== two instances in one stack"
out=$(with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service twice --user alice --env XDG_SESSION_ID=s1 -- \
        sh -c "grep -E '^[0-9]+:cpu[,:]' /proc/self/cgroup; ls -d $CPU/user.slice/user-1001.slice/*.scope")
echo "$out"
[ "$(grep -c "^$CPU/" <<< "$out")" = 1 ] || fail "two instances made $(grep -c "^$CPU/" <<< "$out") scopes"
grep -q "cpu.*:/$PARENT/user.slice/user-1001.slice/session-s1.scope$" <<< "$out" || fail "not in session-s1.scope"
[ ! -e "$CPU/user.slice/user-1001.slice" ] || fail "left behind after close: $(find "$CPU/user.slice")"
log_has "an earlier pam_cpuslice in this stack placed the session; nothing to do"
# the one who opened the session is back where it was: a shell that logs in and reports after
out=$(sh -c "\"$PAM_RUN\" --confdir \"$T/pam.d\" --service twice --user alice -- true;
             grep -E '^[0-9]+:cpu[,:]' /proc/\$\$/cgroup")
[ "$out" = "$before" ] || fail "the caller's shell moved: '$out', was '$before'"
echo "two instances: one scope, closed cleanly, nothing left"

echo "== a login from inside the user's own slice stays where it is (su - self)"
out=$(login alice --env XDG_SESSION_ID=outer -- "$PAM_RUN" --confdir "$T/pam.d" --service cs --user alice \
        --env XDG_SESSION_ID=inner -- sh -c "grep -E '^[0-9]+:cpu[,:]' /proc/self/cgroup; ls $CPU/user.slice/user-1001.slice")
echo "$out"
grep -q "session-outer.scope$" <<< "$out" || fail "the nested login left the outer scope"
! grep -q "session-inner.scope" <<< "$out" || fail "the nested login made a scope of its own"
[ ! -e "$CPU/user.slice/user-1001.slice" ] || fail "left behind after the nested logins"

if [ -n "${SLICECTL:-}" ]; then
        echo "== slicectl status says whether the cgroup mounts use favordynmods (the cost of a first move)"
        want=off
        grep -E " - cgroup2? " /proc/self/mountinfo | grep -E " /sys/fs/cgroup/(cpu|unified) " | grep -qv favordynmods || want=on
        out=$(login alice --env XDG_SESSION_ID=st -- "$SLICECTL" --parent "$PARENT" --conf "$T/cpuslice.conf" \
                --confdir '' --rundir '' status alice)
        grep -q "^Host: cgroup favordynmods $want" <<< "$out" || fail "status does not say favordynmods $want: $out"
        echo "status: $(grep '^Host:' <<< "$out")"
fi

echo "== a delegated slice is refused and left alone"
mkdir -p "$CPU/user.slice/user-1002.slice"
chown 1002 "$CPU/user.slice/user-1002.slice"
shares=$(cat "$CPU/user.slice/user-1002.slice/cpu.shares")
: > "$LOG"
with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user bob -- \
        sh -c "grep -E '^[0-9]+:cpu[,:]' /proc/self/cgroup" > "$T/out" || fail "fail-open login denied"
log_has "owned by uid 1002, not root"
grep -q "user-1002" "$T/out" && fail "joined the delegated slice: $(cat "$T/out")"
[ "$(cat "$CPU/user.slice/user-1002.slice/cpu.shares")" = "$shares" ] || fail "wrote to the delegated slice"
[ -z "$(find "$CPU/user.slice/user-1002.slice" -mindepth 1 -type d)" ] || fail "created below the delegated slice"
rmdir "$CPU/user.slice/user-1002.slice"
echo "delegated user-1002.slice: refused ($(grep -o "bob: .*not root.*" "$LOG" | head -n1))"
echo PASS
