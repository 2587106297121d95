#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/boot-watchdog.sh — tools/vm/run's boot watchdog (BOOT WATCHDOG in its header): a guest
# whose console stays silent before the test script starts is killed and booted once more, and a
# second stall ends the run with 124. QEMU's -S (CPUs stopped from the start) gives a boot that
# prints nothing, without waiting for the rare real hang; a 3 s stall limit keeps this short.
# Exit: 0 passed; 1 failed; 77 skipped (not root, no QEMU) unless CPUSLICE_REQUIRE_ALL=1.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
NAME=vm-boot-watchdog

. "$HERE/host-lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (the guest image is built with debootstrap and chroot)"
command -v qemu-system-x86_64 > /dev/null || skip "qemu-system-x86_64 is not installed (tools/install-deps vm)"

IMAGE=$(vm_image) || exit 1
SHARE=$(mktemp -d "/tmp/cpuslice-$NAME.XXXXXX")
trap 'rm -rf "$SHARE"' EXIT
printf '#!/bin/sh\nexit 0\n' > "$SHARE/guest.sh"

failures=0
check() { # DESCRIPTION COMMAND...
        local what=$1
        shift
        if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

t0=$SECONDS
CPUSLICE_VM_BOOT_STALL=3 CPUSLICE_VM_IMAGE=$IMAGE "$TOP/tools/vm/run" --env nosd-v2 --share "$SHARE" \
        --script guest.sh --timeout 120 --qemu-arg -S > "$SHARE/out" 2>&1
rc=$?
secs=$((SECONDS - t0))
sed 's/^/  | /' "$SHARE/out"

check "exit status 124 after two stalls (got $rc)" test "$rc" = 124
check "first boot reported stalled" grep -q "BOOT STALLED: nosd-v2 .*(attempt 1)" "$SHARE/out"
check "booted a second time" grep -q "booting nosd-v2 .*attempt 2)" "$SHARE/out"
check "second boot reported stalled" grep -q "BOOT STALLED: nosd-v2 .*(attempt 2)" "$SHARE/out"
check "no third boot" test "$(grep -c "booting nosd-v2" "$SHARE/out")" = 2
check "the end says so" grep -q "stalled in boot twice" "$SHARE/out"
check "killed at the stall limit, not at --timeout 120 (took ${secs} s)" test "$secs" -lt 60
no_qemu_left() { ! pgrep -f -- "[q]emu-system.*path=$SHARE," > /dev/null; } # [q]: not pgrep's own line
check "no QEMU left on the share" no_qemu_left
check "each stalled console kept" test -e "$SHARE/console-stalled-1.log" -a -e "$SHARE/console-stalled-2.log"

[ "$failures" = 0 ] && { echo "$NAME: PASS (${secs} s)"; exit 0; }
echo "$NAME: FAIL: $failures check(s)"
exit 1
