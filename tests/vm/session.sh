#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/session.sh TAG HOGS — the body of one login in the VM tests, run as the logged-in user
# (su -l alice -c 'sh /tmp/vmt/session.sh alice-su-l 2', or typed into a login shell).
# Writes /tmp/vmt/TAG.info (its pid, user, /proc/self/cgroup) for the test to check, then runs
# HOGS busy loops until told to stop, and ends.
#   go-TAG and stop-TAG FIFOs (made by the test before the login): the hogs start when go-TAG is
#   written, and stop when stop-TAG is; waiting on a FIFO costs no CPU, so the slice's CPU time
#   is the hogs'.  Without the FIFOs: the hogs start at once and stop when a file stop-TAG appears.
tag=$1 n=$2 d=/tmp/vmt
{
        echo "pid=$$"
        echo "user=$(id -un)"
        sed 's/^/cgroup=/' /proc/self/cgroup
} > "$d/$tag.tmp" && mv "$d/$tag.tmp" "$d/$tag.info"
[ -p "$d/go-$tag" ] && read -r _ < "$d/go-$tag"
pids=
i=0
while [ "$i" -lt "$n" ]; do
        (while :; do :; done) &
        pids="$pids $!"
        i=$((i + 1))
done
if [ -p "$d/stop-$tag" ]; then
        read -r _ < "$d/stop-$tag"
else
        while [ ! -e "$d/stop-$tag" ]; do sleep 0.2; done
fi
[ -n "$pids" ] && kill $pids
wait
exit 0
