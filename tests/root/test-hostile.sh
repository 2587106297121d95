#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile input on the real kernel: a tmpfs mounted where user.slice, user-UID.slice or the scope
# should be (refused: not cgroupfs; nothing written into it); user and group names with '/', '..',
# blanks, control bytes, 300 bytes, or digits; XDG_SESSION_ID with path characters or 4 KB; configs
# owned by another user, group-writable, with NUL bytes, invalid UTF-8 and a 1 MB line. None of it
# reaches a path or a syslog line unescaped. (Symlinks and regular files planted in the tree cannot
# exist on cgroupfs: tests/unit/test-backend-cgroupfs-hostile.c and tests/pam/test-pam-hostile.c
# plant them on scratch trees.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hardening.sh"

HOSTILE=0

# test-local users and groups, hostile names included
NSS_WRAPPER_PASSWD=$T/passwd NSS_WRAPPER_GROUP=$T/group
export NSS_WRAPPER_PASSWD NSS_WRAPPER_GROUP
long=$(printf 'x%.0s' $(seq 300))     # above the 256 bytes user_lookup accepts: unknown, fail-open
long256=$(printf 'y%.0s' $(seq 256))
{
        cat "$TEST_DATA_DIR/passwd"
        printf '%s:x:%s:%s::/nonexistent:/bin/sh\n' 'a/b' 4001 4001 '..' 4002 4002 'a b' 4003 4003 \
                "$long256" 4004 4004 "$long" 4015 4015 4005 4006 4006 '-1' 4007 4007 0 4008 4008 '%s%n%x' 4009 4009 \
                'user@realm' 4010 4010 $'\e[31mred' 4011 4011 $'bad\xff\xfeutf8' 4012 4012 \
                '../../../etc' 4013 4013 'session-1.scope' 4014 4014 $'\xff\xfe\xfd' 4016 4016
} > "$T/passwd"
{
        cat "$TEST_DATA_DIR/group"
        printf '%s:x:%s:%s\n' '../../etc' 4100 'a/b,..,a b' 'a b' 4101 "$long" 'cpu.max' 4102 '4005,0' \
                '4005' 4006 '' '0' 4008 ''
} > "$T/group"

write_conf '* CPUWeight=100' '@../../etc CPUWeight=300' '0 CPUWeight=1000' '4005 CPUWeight=77' \
        '@cpu.max CPUQuota=50%'
svc cs parent=$PARENT

# hostile_login USER WANT-SHARES [ID]: the login proceeds, its process sits in
# user-UID.slice/session-*.scope with the expected cpu.shares, and nothing else was created
hostile_login() {
        local user=$1 want=$2 id=${3:-} uid out path esc
        uid=$(awk -F: -v u="$user" '$1 == u {print $3}' "$NSS_WRAPPER_PASSWD")
        out=$(with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user "$user" ${id:+--env "XDG_SESSION_ID=$id"} -- \
                sh -c 'grep ":cpu:" /proc/self/cgroup; cat "$1/cpu.shares"' sh "$CPU/user.slice/user-$uid.slice") ||
                fail "login of $(printf %q "$user") was denied"
        # no pipes here: under pipefail, head closing early can fail an assignment (SIGPIPE)
        path=${out%%$'\n'*}
        path=${path#*:*:}
        [[ "$path" =~ ^/$PARENT/user\.slice/user-$uid\.slice/session-[A-Za-z0-9_-]+\.scope$ ]] ||
                fail "$(printf %q "$user"): in cgroup '$path'"
        [ "${out##*$'\n'}" = "$want" ] || fail "$(printf %q "$user"): cpu.shares ${out##*$'\n'}, want $want"
        HOSTILE=$((HOSTILE + 1))
}

# only user-<digits>.slice and session-<safe>.scope directories ever appear
tree_clean() {
        local bad
        bad=$(find "$CPU" "$ACCT" -mindepth 1 -type d | grep -Ev "^($CPU|$ACCT)/user\.slice(/user-[0-9]+\.slice(/session-[A-Za-z0-9_-]+\.scope)?)?$" || true)
        [ -z "$bad" ] || { echo "$bad"; fail "unexpected cgroups"; }
}

# --- names
hostile_login 'a/b' 3072                # in @../../etc
hostile_login '..' 3072
hostile_login 'a b' 3072
hostile_login "$long256" 1024
hostile_login 4005 1024                 # a name made of digits is not uid 4005's line
hostile_login '-1' 1024
hostile_login 0 1024                    # the user named "0" (uid 4008) is not root
hostile_login '%s%n%x' 1024
hostile_login 'user@realm' 1024
hostile_login $'\e[31mred' 1024
hostile_login $'bad\xff\xfeutf8' 1024
hostile_login '../../../etc' 1024
hostile_login 'session-1.scope' 1024
# numeric group names and a group called cpu.max: membership by name, nothing written by that name
out=$(login 4005 -- cat "$CPU/user.slice/user-4006.slice/cpu.cfs_quota_us")
[ "$out" = 50000 ] || fail "user 4005 in @cpu.max: quota $out"
# names NSS cannot hold: unknown, logged escaped, login proceeds
for u in $'a\nb' $'tab\there' "$long" $'\x01ctl' '../x'; do
        with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user "$u" -- true || fail "unknown $(printf %q "$u") denied"
        HOSTILE=$((HOSTILE + 1))
done
log_has 'a\x0ab: user not known to NSS'
log_has 'tab\x09here: user not known to NSS'
log_has "$(printf 'x%.0s' $(seq 64))...: user not known to NSS"
tree_clean
echo "ok: $HOSTILE hostile user names: each in its own user-UID.slice, no name in a path, logs escaped"

# --- XDG_SESSION_ID
n0=$HOSTILE
for id in '../../x' 'a/b' '.' '..' "$(printf 'a%.0s' $(seq 4096))" $'x\ny' '%n%s' 'session-1.scope' $'\e]0;title\a' \
          ' ' $'\xff' "$(printf 'b%.0s' $(seq 65))" '-' 'user.slice'; do
        hostile_login alice 1024 "$id"
done
log_has "ignoring unusable XDG_SESSION_ID '../../x'"
log_has "ignoring unusable XDG_SESSION_ID 'x\x0ay'"
log_has "ignoring unusable XDG_SESSION_ID '$(printf 'a%.0s' $(seq 64))...'"
tree_clean
echo "ok: $((HOSTILE - n0)) hostile XDG_SESSION_IDs: session-pam-PID.scope instead, logged escaped and cut at 64 bytes"

# --- tmpfs where the tree should be (private mount namespace): refused, nothing written into it
# in_tmpfs PATH CMD...: CMD with a fresh tmpfs mounted at PATH; what ends up in it goes to $T/tmpfs.ls
in_tmpfs() {
        local at=$1; shift
        unshare -m --propagation private sh -c 'mount --bind "$0" /dev && mount -t tmpfs -o mode=755 cs-planted "$1" &&
                touch "$1/planted-marker" && shift && { "$@"; rc=$?; }; find "$at" -mindepth 1 > "$ls"; exit $rc' \
                "$T/dev" "$at" "$@"
}
export ls="$T/tmpfs.ls" # for the inner sh
for where in user.slice user.slice/user-1001.slice user.slice/user-1001.slice/session-t1.scope; do
        mkdir -p "$CPU/$where"
        export at="$CPU/$where"
        FENV=XDG_SESSION_ID=t1 FARGS="parent=$PARENT" fault "tmpfs at $where" alice \
                "is not on cgroupfs (filesystem magic 0x1021994); refused" in_tmpfs "$CPU/$where"
        [ "$(cat "$ls")" = "$CPU/$where/planted-marker" ] || { cat "$ls"; fail "something was written into the tmpfs at $where"; }
        HOSTILE=$((HOSTILE + 2))
done
rmdir "$CPU/user.slice/user-1001.slice/session-t1.scope" "$CPU/user.slice/user-1001.slice" 2>/dev/null || true
rmdir "$ACCT/user.slice/user-1001.slice/session-t1.scope" "$ACCT/user.slice/user-1001.slice" 2>/dev/null || true
echo "ok: tmpfs at user.slice, user-UID.slice and the scope: refused, nothing written through it"

# --- unsafe configs: refused with one line, strict denies
printf '* CPUWeight=100\n' > "$T/other.conf"; chmod 0644 "$T/other.conf"; chown 1001:1001 "$T/other.conf"
CONF=$T/other.conf FARGS="parent=$PARENT" fault "config owned by uid 1001" alice "is owned by uid 1001, not root; refused" with_syslog
printf '* CPUWeight=100\n' > "$T/gw.conf"; chmod 0664 "$T/gw.conf"
CONF=$T/gw.conf FARGS="parent=$PARENT" fault "config group-writable" alice "writable by its group (mode 0664); refused" with_syslog
chmod 0646 "$T/gw.conf"
CONF=$T/gw.conf FARGS="parent=$PARENT" fault "config world-writable" alice "writable by others (mode 0646); refused" with_syslog
mkdir -m 0775 "$T/gw.d"
CONFDIR=$T/gw.d FARGS="parent=$PARENT" fault "drop-in directory group-writable" alice "directory is writable by its group" with_syslog
mkdir -m 0755 "$T/fifo.d"; mkfifo -m 0644 "$T/fifo.d/10-fifo.conf"
CONFDIR=$T/fifo.d FARGS="parent=$PARENT" fault "drop-in is a FIFO (no hang)" alice "not a regular file; refused" \
        with_syslog timeout 10
HOSTILE=$((HOSTILE + 10))

# --- bad bytes in lines: NUL, invalid UTF-8, control bytes, 1 MB; every other line still applies
{
        printf '* CPUWeight=100\n'
        printf 'alice CPUWeight=200\0 CPUWeight=9999\n'
        printf '\xff\xfe\xfd CPUWeight=5\n'
        printf 'bob CPUWeight=300\n'
        printf 'x%.0s' $(seq 1048576); printf ' CPUWeight=1\n'
        printf 'carol CPUWeight=400 CPUQuota=\xc3\x28%%\n'
        printf 'carol CPUWeight=400\n'
        printf 'erin\x1b[2J CPUWeight=7\n'
} > "$T/bytes.conf"
chmod 0644 "$T/bytes.conf"
CONF=$T/bytes.conf svc bytes parent=$PARENT
t0=$(date +%s%N)
# invalid UTF-8 in a name is a name like any other (NSS names need not be UTF-8): line 3 applies to it
for u in alice:1001:1024 bob:1002:3072 carol:1003:4096 $'\xff\xfe\xfd':4016:51; do
        IFS=: read -r user uid want <<< "$u"
        out=$(with_syslog timeout 20 "$PAM_RUN" --confdir "$T/pam.d" --service bytes --user "$user" -- \
                cat "$CPU/user.slice/user-$uid.slice/cpu.shares") || fail "$user: login with the bad-bytes config failed"
        [ "$out" = "$want" ] || fail "$user: cpu.shares $out, want $want"
done
t1=$(date +%s%N)
log_has "bytes.conf:2: NUL byte in line; line skipped"
log_has "bytes.conf:5: line longer than 4096 bytes; line skipped"
log_has "bytes.conf:6: bad CPUQuota= value '\xc3(%'"
log_has "bytes.conf:8: bad domain"
HOSTILE=$((HOSTILE + 5))
echo "ok: NUL, invalid UTF-8, control bytes and a 1 MB line: each reported with file:line, the rest applies; 4 logins in $(( (t1 - t0) / 1000000 )) ms"

no_unescaped
tree_clean
echo "$HOSTILE hostile inputs tried ($FAULTS fault-style checks among them)"
echo PASS
