#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Empty scopes do not outlive the next login or logout of their user: 200 logins whose
# background jobs outlive them, then, once the jobs ended, one more login, and nothing is left.
# Also: max_scopes= at the cap (the login joins one of the user's scopes, strict or not), another
# user's scopes untouched, a login already in the slice reaping too, and the modes of what the
# module makes with the caller's umask at 0777.
. "$(dirname "$0")/lib.sh"

N=${LIFECYCLE_LOGINS:-200}
GRACE=5 # CGFS_REAP_GRACE_USEC: an empty scope younger than this is left for a login to join

scopes() { # UID HIERARCHY-DIR -> how many session scopes the user has there
        { find "$2/user.slice/user-$1.slice" -mindepth 1 -maxdepth 1 -type d -name '*.scope' 2>/dev/null || true; } |
                wc -l
}

scope_pids() { # UID -> the processes still in the user's scopes (cpu hierarchy)
        cat "$CPU/user.slice/user-$1.slice"/*.scope/cgroup.procs 2>/dev/null || true
}

mode() { stat -c %a "$1"; }

write_conf '* CPUWeight=100'
service cs
service cs-cap max_scopes=3
service cs-cap-strict max_scopes=3 strict

# --- modes: su and sudo keep their caller's umask; nothing the module makes may take it ---
(umask 0777; with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs --user bob -- sh -c 'sleep 3 &')
for h in "$CPU" "$ACCT"; do
        for d in "$h/user.slice" "$h/user.slice/user-1002.slice" "$h"/user.slice/user-1002.slice/*.scope; do
                [ -d "$d" ] || fail "$d missing"
                [ "$(mode "$d")" = 755 ] || fail "$d has mode $(mode "$d") with the caller's umask 0777, not 755"
        done
done
echo "umask 0777: user.slice, user-1002.slice and its scope are 0755 in both hierarchies"

# --- max_scopes=3: three jobs hold three scopes; a fourth login joins one of them ---
for i in 1 2 3; do
        with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs-cap --user carol -- sh -c 'sleep 60 >/dev/null 2>&1 &' ||
                fail "carol's login $i failed"
done
[ "$(scopes 1003 "$CPU")" -eq 3 ] || fail "carol has $(scopes 1003 "$CPU") scopes, not 3"
first=$(cd "$CPU/user.slice/user-1003.slice" && LC_ALL=C ls -d -- *.scope | head -n1)
for svc in cs-cap cs-cap-strict; do
        log_reset
        with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service "$svc" --user carol -- \
                sh -c 'grep -E "^[0-9]+:([^:]*,)?cpu(,[^:]*)?:" /proc/self/cgroup > "$0"' "$T/cap-cgroup" ||
                fail "$svc: the login at the cap must proceed"
        log_has "user-1003.slice has 3 other session scopes still in use, the most that max_scopes=3 allows; this login joins $first"
        grep -q "/user.slice/user-1003.slice/$first\$" "$T/cap-cgroup" ||
                fail "$svc: the login at the cap ran in $(cat "$T/cap-cgroup"), not in carol's $first"
        [ "$(scopes 1003 "$CPU")" -eq 3 ] || fail "$svc: a login at the cap made a scope"
        ! grep -q "login proceeds without\|session denied" "$LOG" || fail "$svc: the login at the cap was failed: $(cat "$LOG")"
done

# --- 200 logins whose jobs outlive them ---
start=$(date +%s.%N)
most=0
for i in $(seq "$N"); do
        login alice -- sh -c 'sleep 1 &' || fail "login $i failed"
        if [ $((i % 10)) -eq 0 ]; then
                n=$(scopes 1001 "$CPU")
                [ "$n" -gt "$most" ] && most=$n
        fi
done
end=$(date +%s.%N)
before=$(scopes 1001 "$CPU")
# the jobs end within a second; then the newest scope must be older than the grace
for _ in $(seq 100); do [ -z "$(scope_pids 1001)" ] && break; sleep 0.1; done
[ -z "$(scope_pids 1001)" ] || fail "alice's jobs did not end: $(scope_pids 1001 | head -3)"
# carol's jobs end too (her scopes were made long before: the grace is one wait for both)
for p in $(scope_pids 1003); do kill "$p" 2>/dev/null || true; done
for _ in $(seq 50); do [ -z "$(scope_pids 1003)" ] && break; sleep 0.1; done
[ -z "$(scope_pids 1003)" ] || fail "carol's jobs did not end"
sleep $((GRACE + 1))
login alice -- true || fail "the last login failed"
left_cpu=$(scopes 1001 "$CPU")
left_acct=$(scopes 1001 "$ACCT")
echo "$N logins with a job outliving each: $(python3 -c "print(f'{$end-$start:.1f}')") s;" \
     "at most $most scopes seen during them (the grace keeps the newest), $before at the end;" \
     "after the jobs ended and one more login+logout: $left_cpu scopes left (cpu), $left_acct (unified mirror)"
[ "$left_cpu" -eq 0 ] || { ls "$CPU/user.slice/user-1001.slice"; fail "$left_cpu empty scopes outlived the next login"; }
[ "$left_acct" -eq 0 ] || fail "$left_acct empty scopes left in the unified mirror"
[ ! -e "$CPU/user.slice/user-1001.slice" ] || fail "alice's empty slice left behind"
[ ! -e "$ACCT/user.slice/user-1001.slice" ] || fail "alice's empty mirror slice left behind"
# bob's scope emptied long ago, but nothing of bob's ran since: alice's logins left it alone
[ "$(scopes 1002 "$CPU")" -eq 1 ] || fail "bob's scope was touched by alice's logins"
[ "$(scopes 1002 "$ACCT")" -eq 1 ] || fail "bob's mirror scope was touched by alice's logins"

# carol's jobs ended (above): her next login reaps their scopes, and is under the cap again
log_reset
with_syslog "$PAM_RUN" --confdir "$T/pam.d" --service cs-cap-strict --user carol -- true ||
        fail "strict: a login after the jobs ended must get its scope"
! grep -q "max_scopes" "$LOG" || fail "a login under the cap was logged as at it: $(cat "$LOG")"
[ "$(scopes 1003 "$CPU")" -eq 0 ] || fail "carol's emptied scopes were not reaped"
echo "max_scopes=3: the fourth login joined $first, the first of carol's scopes (fail-open and strict" \
     "alike), and made none; once the jobs ended the next login reaped them"

# --- a login already inside the user's slice (su to oneself in a session) reaps the others too ---
for i in 1 2 3; do
        login alice -- sh -c 'sleep 600 >/dev/null 2>&1 &' || fail "alice's login $i with a job failed"
done
jobs_pids=$(scope_pids 1001)
jobs_procs=$(echo "$CPU"/user.slice/user-1001.slice/*.scope/cgroup.procs)
[ "$(scopes 1001 "$CPU")" -eq 3 ] && [ "$(echo "$jobs_pids" | wc -w)" -eq 3 ] ||
        fail "alice has $(scopes 1001 "$CPU") scopes holding '$jobs_pids', not 3 with a job each"
mkfifo "$T/go"
# the outer session's command waits for the go, then opens the inner one, which counts the scopes
cat > "$T/inner.sh" <<INNER
#!/bin/sh
read -r _ < "$T/go"
exec "$PAM_RUN" --confdir "$T/pam.d" --service cs --user alice -- sh -c 'find "$CPU/user.slice/user-1001.slice" -mindepth 1 -maxdepth 1 -type d -name "*.scope" | wc -l > "$T/inner-count"'
INNER
chmod 0755 "$T/inner.sh"
login alice -- "$T/inner.sh" &
outer=$!
for _ in $(seq 200); do [ "$(scopes 1001 "$CPU")" -eq 4 ] && break; sleep 0.05; done
[ "$(scopes 1001 "$CPU")" -eq 4 ] || { kill "$outer"; fail "the outer login made no scope of its own"; }
for p in $jobs_pids; do kill "$p" 2>/dev/null || true; done
# shellcheck disable=SC2086 # the three files, split
for _ in $(seq 100); do [ -z "$(cat $jobs_procs)" ] && break; sleep 0.05; done
# shellcheck disable=SC2086
[ -z "$(cat $jobs_procs)" ] || { kill "$outer"; fail "alice's jobs did not end: $(cat $jobs_procs)"; }
sleep $((GRACE + 1)) # the three emptied scopes are older than the grace now
[ "$(scopes 1001 "$CPU")" -eq 4 ] || { kill "$outer"; fail "alice's emptied scopes went before the inner login"; }
echo go > "$T/go"
wait "$outer" || fail "the outer login failed"
[ "$(cat "$T/inner-count")" -eq 1 ] ||
        fail "a login already in alice's slice left $(($(cat "$T/inner-count") - 1)) of her emptied scopes"
echo "a login already in alice's slice reaped her 3 emptied scopes and kept the one it ran in"
echo "($SECONDS s in all)"
echo PASS
