#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fault injection on the real kernel and real files: each fault lets the login proceed with one
# clear syslog line, denies it under `strict`, and changes nothing outside the user's own
# user-UID.slice (the scratch tree is compared before and after). Faults the real kernel cannot be
# made to give on demand (ENOSPC/ENOMEM from mkdir, EACCES/EBUSY from cpu.max, cgroup.procs
# refused, the slice removed between steps) are injected through CgfsOps in
# tests/unit/test-backend-cgroupfs-faults.c and -close.c.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hardening.sh"

write_conf '* CPUWeight=100' 'alice CPUWeight=200 CPUQuota=50%'
# user.slice exists in both trees before the faults, as it would on a host in use
svc cs parent=$PARENT
login bob --env XDG_SESSION_ID=warm -- true
[ -d "$CPU/user.slice" ] && [ -d "$ACCT/user.slice" ] || fail "warm-up login made no user.slice"

# cgroupfs absent: no such root, and a root with no cgroup mounted below it
FARGS="parent=$PARENT cgroup_root=$T/no-such-dir" fault "cgroup root missing" alice "cannot open cgroup root" with_syslog
mkdir "$T/empty-root"
FARGS="parent=$PARENT cgroup_root=$T/empty-root" fault "no cgroupfs mounted" alice \
        "no cgroup hierarchy with the cpu controller is mounted" with_syslog

# mounted read-only: the scratch parents bind-mounted read-only onto themselves, in a private
# mount namespace only
RO="mount --bind '$CPU' '$CPU' && mount -o remount,bind,ro '$CPU' && mount --bind '$ACCT' '$ACCT' && mount -o remount,bind,ro '$ACCT'"
FARGS="parent=$PARENT" fault "cgroupfs read-only (new slice)" alice "Read-only file system" in_ns "$RO"
# ... and with the user's slice already there: the writes of the values fail
mkdir "$CPU/user.slice/user-1001.slice" "$ACCT/user.slice/user-1001.slice"
FARGS="parent=$PARENT" fault "cgroupfs read-only (existing slice)" alice "Read-only file system" in_ns "$RO"
rmdir "$CPU/user.slice/user-1001.slice" "$ACCT/user.slice/user-1001.slice"

# the cpu controller not available: the cgroup2 mount here has none, so +cpu in the scratch
# parent's cgroup.subtree_control is refused by the kernel
FARGS="cgroup_root=$ACCT cgroup_layout=unified parent=" fault "cpu controller not available (+cpu refused)" alice \
        "the cpu controller is not available below" with_syslog
[ ! -e "$ACCT/user.slice/user-1001.slice" ] || fail "a slice was left in the v2 tree"
FARGS="cgroup_root=$CG/unified parent=$PARENT" fault "cpu controller not available (detection)" alice \
        "the cpu controller is not available on the cgroup2 mount at $CG/unified" with_syslog

# cpu.cfs_quota_us refused (EINVAL): v1 rejects a child quota above its parent's
echo 20000 > "$CPU/cpu.cfs_quota_us"
FARGS="parent=$PARENT" fault "quota write refused (EINVAL)" alice "cpu.cfs_quota_us: Invalid argument" with_syslog
echo -1 > "$CPU/cpu.cfs_quota_us"
rmdir "$CPU/user.slice/user-1001.slice" "$ACCT/user.slice/user-1001.slice" 2>/dev/null || true

# mkdir refused by the kernel: cgroup.max.descendants in the accounting mirror (EAGAIN); the scope
# already made in the cpu tree is removed again
echo 0 > "$ACCT/user.slice/cgroup.max.descendants"
FARGS="parent=$PARENT" fault "mkdir refused (cgroup.max.descendants)" alice "Resource temporarily unavailable" with_syslog
[ -z "$(ls -d "$CPU"/user.slice/user-1001.slice/session-* 2>/dev/null)" ] || fail "a scope was left after a failed open"
echo max > "$ACCT/user.slice/cgroup.max.descendants"
rmdir "$CPU/user.slice/user-1001.slice" 2>/dev/null || true

# config faults: unreadable even for root (a 0200 sysctl: EACCES), truncated, huge, and a
# directory or FIFO in its place
CONF=/proc/sys/vm/drop_caches FARGS="parent=$PARENT" fault "config unreadable (EACCES)" alice "Permission denied" with_syslog
printf '* CPUWeight=100\nalice CPUWeight=300 CPUQuo' > "$T/truncated.conf"
CONF=$T/truncated.conf svc trunc parent=$PARENT
out=$(with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service trunc --user alice -- cat "$CPU/user.slice/user-1001.slice/cpu.shares")
# a cut setting costs only itself, like any bad one (cpuslice.conf(5)): the line's complete
# CPUWeight=300 applies
[ "$out" = 3072 ] || fail "truncated config: cpu.shares $out, want 3072 from the cut line's complete setting"
log_has "truncated.conf:2: expected SETTING=VALUE, got 'CPUQuo'"
FAULTS=$((FAULTS + 1))
echo "ok: truncated config: the cut setting is reported with file:line and skipped, the rest applies"

truncate -s 100M "$T/huge.conf"
t0=$(date +%s%N)
CONF=$T/huge.conf FARGS="parent=$PARENT" fault "config 100 MB (sparse)" alice "larger than 16 MiB; refused" with_syslog
t1=$(date +%s%N)
head -c 100M /dev/zero | tr '\0' '#' > "$T/huge-dense.conf"
t2=$(date +%s%N)
CONF=$T/huge-dense.conf FARGS="parent=$PARENT" fault "config 100 MB (dense)" alice "larger than 16 MiB; refused" with_syslog
t3=$(date +%s%N)
echo "100 MB config: two logins and checks in $(( (t1 - t0) / 1000000 )) ms (sparse), $(( (t3 - t2) / 1000000 )) ms (dense)"
rm -f "$T/huge-dense.conf"
[ $(( (t3 - t2) / 1000000 )) -lt 10000 ] || fail "a 100 MB config took more than 10 s to refuse"

mkdir "$T/conf-dir"
CONF=$T/conf-dir FARGS="parent=$PARENT" fault "config is a directory" alice "not a regular file; refused" with_syslog
mkfifo "$T/conf-fifo"
CONF=$T/conf-fifo FARGS="parent=$PARENT" fault "config is a FIFO (no hang)" alice "not a regular file; refused" \
        with_syslog timeout 10

# replaced mid-read: a writer swaps two complete versions in (rename) and rewrites the file in
# place (truncate + write) while logins run; every login proceeds, and applies one version or
# (in-place rewrite caught half-way) a prefix of one, never anything else
pad=$(printf '# padding line to make the file take more than one read() %.0s\n' $(seq 600))
printf '%s\n* CPUWeight=100\nalice CPUWeight=200\n' "$pad" > "$T/v1.conf"
printf '%s\n* CPUWeight=100\nalice CPUWeight=300\n' "$pad" > "$T/v2.conf"
chmod 0644 "$T/v1.conf" "$T/v2.conf"
cp "$T/v1.conf" "$T/swap.conf"
CONF=$T/swap.conf svc swap parent=$PARENT
( while [ ! -e "$T/stop" ] && [ -d "$T" ]; do
        cp "$T/v2.conf" "$T/swap.tmp" && mv "$T/swap.tmp" "$T/swap.conf"
        cat "$T/v1.conf" > "$T/swap.conf"
        cp "$T/v2.conf" "$T/swap.tmp" && mv "$T/swap.tmp" "$T/swap.conf"
        cp "$T/v1.conf" "$T/swap.tmp" && mv "$T/swap.tmp" "$T/swap.conf"
done ) &
writer=$!
seen=""
for i in $(seq 60); do
        v=$("$PAM_RUN" --confdir "$T/pam.d" --service swap --user alice -- \
                sh -c "cat $CPU/user.slice/user-1001.slice/cpu.shares 2>/dev/null || echo none") ||
                { touch "$T/stop"; fail "login $i during config replacement failed"; }
        # none: a prefix holding only the padding matched no line, and alice was left alone
        case "$v" in 2048|3072|1024|none) seen="$seen $v" ;; *) touch "$T/stop"; fail "login $i applied cpu.shares=$v" ;; esac
done
touch "$T/stop"; wait "$writer"
FAULTS=$((FAULTS + 60))
echo "ok: 60 logins while the config was replaced and rewritten: all proceeded; cpu.shares seen: $(echo $seen | tr ' ' '\n' | sort | uniq -c | tr '\n' ' ')"

no_unescaped
[ -z "$(find "$CPU/user.slice" "$ACCT/user.slice" -mindepth 1 -type d)" ] || { find "$CPU/user.slice" "$ACCT/user.slice"; fail "cgroups left behind"; }
echo "$FAULTS fault cases injected on the real kernel and real files"
echo PASS
