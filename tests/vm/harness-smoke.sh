#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/harness-smoke.sh — smoke test of the QEMU VM harness (tools/vm).
#
# Builds (or reuses) the cached guest image, then boots each environment once
# (systemd-v2 systemd-v1 nosd-v2 nosd-v1, one VM at a time) with
# tests/vm/smoke-guest.sh, which checks PID 1, the cgroup layout, the test
# users/groups, logind sessions (systemd envs) and su/runuser/login on a pty.
#
# Exit: 0 all envs passed; 1 a check failed; 77 skipped (not root, or QEMU
# cannot be installed) — unless CPUSLICE_REQUIRE_ALL=1, where a skip fails.
# Env: CPUSLICE_VM_ENVS="systemd-v2 nosd-v1" to run a subset;
#      CPUSLICE_VM_TIMEOUT=SECS per VM (default 300);
#      CPUSLICE_VM_CACHE=DIR image cache (default /var/cache/pam_cpuslice/vm).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
ENVS=${CPUSLICE_VM_ENVS:-systemd-v2 systemd-v1 nosd-v2 nosd-v1}
VM_TIMEOUT=${CPUSLICE_VM_TIMEOUT:-300}

NAME=harness-smoke
. "$HERE/host-lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot and the image cache)"
if ! command -v qemu-system-x86_64 > /dev/null; then
    echo "harness-smoke: installing qemu-system-x86" >&2
    { apt-get install -y -qq --no-install-recommends qemu-system-x86 \
      || { apt-get update -qq && apt-get install -y -qq --no-install-recommends qemu-system-x86; }; } \
      > /dev/null 2>&1
    command -v qemu-system-x86_64 > /dev/null || skip "qemu-system-x86 cannot be installed"
fi

t0=$SECONDS
IMAGE=$(vm_image) || exit 1
echo "harness-smoke: image $IMAGE ready in $((SECONDS - t0)) s"

WORK=$(mktemp -d /tmp/vm-smoke.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
passed=0 failed=0
declare -A TIMES=() RESULT=()
for env in $ENVS; do
    share=$WORK/$env
    mkdir -p "$share"
    cp "$HERE/smoke-guest.sh" "$share/smoke-guest.sh"
    chmod 755 "$share/smoke-guest.sh"
    head -c $((32 * 1048576)) /dev/zero > "$share/blob"
    echo
    echo "===================== $env ====================="
    t=$SECONDS
    CPUSLICE_VM_IMAGE=$IMAGE "$TOP/tools/vm/run" --env "$env" --share "$share" \
        --script smoke-guest.sh --timeout "$VM_TIMEOUT"
    rc=$?
    TIMES[$env]=$((SECONDS - t))
    if [ "$rc" = 0 ]; then
        RESULT[$env]=ok; passed=$((passed + 1))
    else
        case "$rc" in
            124) RESULT[$env]="FAIL (VM timed out after ${VM_TIMEOUT}s)" ;;
            125) RESULT[$env]="FAIL (harness error / no exit status; see console above)" ;;
            *) RESULT[$env]="FAIL (guest checks failed, status $rc):$(grep -a 'CHECK FAIL' "$share/guest.log" | sed 's/^CHECK FAIL/ /' | tr '\n' ';')" ;;
        esac
        failed=$((failed + 1))
        cp "$share/console.log" "/tmp/vm-smoke-$env-console.log" 2>/dev/null \
            && echo "harness-smoke: console log kept in /tmp/vm-smoke-$env-console.log"
    fi
done

echo
echo "harness-smoke summary (image $(basename "$IMAGE")):"
for env in $ENVS; do
    printf '  %-11s %4ss  %s\n' "$env" "${TIMES[$env]}" "${RESULT[$env]}"
done
echo "harness-smoke: total $((SECONDS - t0)) s"
echo "harness-smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
