#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/vm-test.sh ENV — one test of the meson suite `vm`: boots a throw-away QEMU guest
# (tools/vm/run) with the freshly built module and slicectl, and runs the guest half there:
#
#   nosd-v2, nosd-v1   tests/vm/guest-cgroupfs.sh: real logins (su -l, runuser -l, login on a pty,
#                      su, runuser) through the guest's /etc/pam.d with the cgroupfs backend;
#                      placement, values, 3:1 split, 50 % quota, slicectl, cleanup
#   systemd-v2,        tests/vm/guest-systemd-backend.sh: the systemd backend after pam_systemd.so
#   systemd-v1         (su -l, runuser -l, login): systemd's properties and the kernel files, 3:1
#                      split, 50 % quota, config changes, stopped slices, slicectl; on v2 also
#                      su/sudo/runuser into the target's slice, and an unreachable or hung bus
#   pkg-systemd-v2,    tests/vm/guest-package.sh: the packages' lifecycle with apt (install, /etc/pam.d
#   pkg-systemd-v1,    diffs, reinstall, upgrade with a session open, remove, purge) and logins by
#   pkg-nosd-v2        sshd (public key, several users, 3:1 split), cron and systemd's user manager
# vm-test.sh ENV guest-metrics.sh (vm-metrics-systemd-v2, vm-metrics-nosd-v2): slicectl metrics
#                      with the real node_exporter, the shipped timer or cron line (guest-metrics.sh)
# vm-test.sh ENV guest-NAME-....sh: any other guest half, as test vm-NAME-ENV
# A guest half with a line "# vm-boots: N" in its header is booted N times over one disk that
# persists between the boots (tools/vm/run --disk), each told which boot it is (cpuslice.boot=B on
# the kernel command line; guest-lib.sh's vm_boot): guest-reboot.sh. The boots stop at the first
# that fails; the logs of the earlier ones stay in the share as guest-bootB.log, console-bootB.log.
#
# CPUSLICE_VM_SUITE (default bookworm; tools/vm/suite-lib.sh) picks the guest's Debian suite; the
# test is then named vm-...-SUITE, and skips (77) with the reason when ENV cannot exist there.
# Each suite installs the build made for it (vm_build_suite, tools/vm/suite-lib.sh): the host's
# (bookworm) or one made in a chroot, DEBS-SUITE (tools/package --suite SUITE DEBS-SUITE, built
# here when missing or older than the module; trixie's serves forky), with the pam-run built there.
#
# Every guest half installs the built .debs with apt: DEBS (meson sets it: build/debs) holds them,
# built by the `package` test (tools/package) or here when missing or older than the module.
#
# Env: DEBS (see above), PAM_CPUSLICE_MODULE, SLICECTL (built artifacts; meson sets them; the .debs
# are rebuilt when the module, its systemd plugin or slicectl is newer), PAM_RUN; CPUSLICE_VM_LOGDIR (where
# a failed run's console log is kept; default /tmp); CPUSLICE_VM_TIMEOUT (per VM, default 900 s:
# the slowest guest takes 420 s on a quiet host, and twice that beside a CPU hog or a second VM);
# CPUSLICE_VM_HOGS, CPUSLICE_VM_FAIR_SECS, CPUSLICE_VM_QUOTA_SECS (guest tunables);
# CPUSLICE_VM_TRACE=1 (guest xtrace), CPUSLICE_VM_KEEP_SHARE=1 (keep the share dir, for debugging).
# Exit: 0 passed; 1 failed; 77 skipped (not root, no QEMU) unless CPUSLICE_REQUIRE_ALL=1.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
ENV=${1:?usage: vm-test.sh [pkg-]nosd-v2|nosd-v1|[pkg-]systemd-v2|[pkg-]systemd-v1}
. "$TOP/tools/vm/suite-lib.sh"
SUITE=${CPUSLICE_VM_SUITE:-$VM_DEFAULT_SUITE}
SFX=
[ "$SUITE" = "$VM_DEFAULT_SUITE" ] || SFX=-$SUITE
NAME=vm-$ENV$SFX

. "$HERE/host-lib.sh"

case "$ENV" in
nosd-v2|nosd-v1) GUEST=guest-cgroupfs.sh ;;
systemd-v2|systemd-v1) GUEST=guest-systemd-backend.sh ;;
pkg-systemd-v2|pkg-systemd-v1|pkg-nosd-v2) GUEST=guest-package.sh ;;
*) fail "unknown environment '$ENV'" ;;
esac
# a second argument picks another guest half (guest-metrics.sh: vm-metrics-ENV)
if [ -n "${2:-}" ]; then
        GUEST=$2 n=${2#guest-}
        NAME=vm-${n%%[-.]*}-$ENV$SFX
fi
BOOTS=$(sed -n 's/^# vm-boots: \([1-9]\)$/\1/p' "$HERE/$GUEST" | head -n1)
BOOTS=${BOOTS:-1}
why=$(vm_env_missing "$SUITE" "$ENV") && skip "$ENV cannot exist on $SUITE: $why"
[ "$(id -u)" = 0 ] || skip "needs root (the guest image is built with debootstrap and chroot)"
command -v qemu-system-x86_64 > /dev/null || skip "qemu-system-x86_64 is not installed (tools/install-deps vm)"
[ -f "${PAM_CPUSLICE_MODULE:-}" ] || fail "PAM_CPUSLICE_MODULE='${PAM_CPUSLICE_MODULE:-}' is not a file"
[ -f "${SLICECTL:-}" ] || fail "SLICECTL='${SLICECTL:-}' is not a file"

t0=$SECONDS
DEBS=$(vm_debs "$SUITE" "${DEBS:-$TOP/build-deb}" "$PAM_CPUSLICE_MODULE" "$SLICECTL" \
        ${PAM_CPUSLICE_SYSTEMD:+"$PAM_CPUSLICE_SYSTEMD"}) || fail "no packages for $SUITE"
[ -n "$(vm_build_suite "$SUITE")" ] && PAM_RUN=$DEBS/helpers/pam-run
IMAGE=$(vm_image "$SUITE") || exit 1
echo "$NAME: $SUITE image $IMAGE ($((SECONDS - t0)) s)"

SHARE=$(mktemp -d "/tmp/cpuslice-$NAME.XXXXXX")
[ -n "${CPUSLICE_VM_KEEP_SHARE:-}" ] || trap 'rm -rf "$SHARE" "$SHARE.qcow2" "$SHARE.in"' EXIT
mkdir "$SHARE/debs"
cp "$DEBS"/libpam-cpuslice_*.deb "$DEBS"/slicectl_*.deb "$SHARE/debs/"
[ -f "${PAM_RUN:-}" ] && cp "$PAM_RUN" "$SHARE/pam-run"
cp "$HERE"/*.sh "$SHARE/" # the guest halves and what they source or run
[ -d "${CPUSLICE_BUILD_CONF:-}" ] && cp "$CPUSLICE_BUILD_CONF"/cpuslice-metrics.{service,cron} "$TOP"/conf/systemd/cpuslice-metrics.timer "$SHARE/"
{
        [ -n "${CPUSLICE_VM_HOGS:-}" ] && echo "HOGS=$CPUSLICE_VM_HOGS"
        [ -n "${CPUSLICE_VM_FAIR_SECS:-}" ] && echo "FAIR_SECS=$CPUSLICE_VM_FAIR_SECS"
        [ -n "${CPUSLICE_VM_QUOTA_SECS:-}" ] && echo "QUOTA_SECS=$CPUSLICE_VM_QUOTA_SECS"
        [ -n "${CPUSLICE_VM_TRACE:-}" ] && echo "TRACE=1"
        true
} > "$SHARE/params"

t=$SECONDS
run=("$TOP/tools/vm/run" --suite "$SUITE" --env "${ENV#pkg-}" --share "$SHARE" --script "$GUEST"
        --timeout "${CPUSLICE_VM_TIMEOUT:-900}")
# the disk sits beside the share, not in it: the guest has no business with its own disk's file
[ "$BOOTS" -gt 1 ] && run+=(--disk "$SHARE.qcow2")
# what the guest is given, kept so that a second run starts from it alone
cp -a "$SHARE" "$SHARE.in"
# all the boots; rc and at are the last boot's
run_boots() {
        local b
        at=
        for b in $(seq "$BOOTS"); do
                if [ "$BOOTS" -gt 1 ]; then
                        at=" (boot $b of $BOOTS)"
                        echo "$NAME: boot $b of $BOOTS"
                        CPUSLICE_VM_IMAGE=$IMAGE "${run[@]}" --cmdline-extra "cpuslice.boot=$b"
                else
                        CPUSLICE_VM_IMAGE=$IMAGE "${run[@]}"
                fi
                rc=$?
                [ "$rc" = 0 ] && [ "$b" -lt "$BOOTS" ] || break
                mv "$SHARE/guest.log" "$SHARE/guest-boot$b.log"
                mv "$SHARE/console.log" "$SHARE/console-boot$b.log"
        done
}
# A guest kernel killed by the emulator (vm_emulator_panic, host-lib.sh) says nothing of the code
# under test: the whole test runs once more from a clean disk, and says so. Once only: a second
# such death fails, so an emulator gone bad cannot pass unseen.
run_boots
if [ "$rc" = 125 ] && vm_emulator_panic "$SHARE/console.log"; then
        mkdir -p "${CPUSLICE_VM_LOGDIR:-/tmp}"
        cp "$SHARE/console.log" "${CPUSLICE_VM_LOGDIR:-/tmp}/$NAME-console-emulator-panic.log"
        echo "$NAME: RETRY: the guest kernel died of a stray int3 in its own text (TCG's text patching," \
                "not the code under test)$at; the console's oops:"
        grep -aE -m1 -A3 "$VM_INT3_OOPS" "$SHARE/console.log" | sed 's/^/  | /'
        echo "$NAME: running the whole test once more from a clean disk"
        rm -rf "$SHARE" "$SHARE.qcow2"
        cp -a "$SHARE.in" "$SHARE"
        run_boots
fi
vm_secs=$((SECONDS - t))

problems=()
case "$rc" in
0) ;;
124) problems+=("the VM timed out$at") ;;
125) problems+=("harness error, or the VM stopped without an exit status$at") ;;
*) problems+=("guest checks failed$at (status $rc):$(grep -a '^CHECK FAIL' "$SHARE/guest.log" | sed 's/^CHECK FAIL/ /' | tr '\n' ';')") ;;
esac

# slicectl's JSON is checked here: the guest has no JSON parser.
if [ "$GUEST" = guest-cgroupfs.sh ] && [ "$rc" != 124 ] && [ "$rc" != 125 ]; then
        echo
        echo "=== slicectl list --json (checked on the host)"
        if ! python3 "$HERE/check-slicectl.py" "$SHARE"; then
                problems+=("slicectl list --json is wrong")
        fi
fi

echo
echo "=== $NAME figures"
sed 's/^/  /' "$SHARE/figures" 2> /dev/null || echo "  (none)"
if [ ${#problems[@]} -gt 0 ]; then
        logdir=${CPUSLICE_VM_LOGDIR:-/tmp}
        mkdir -p "$logdir"
        if cp "$SHARE/console.log" "$logdir/$NAME-console.log" 2> /dev/null; then
                cp "$SHARE/guest.log" "$logdir/$NAME-guest.log" 2> /dev/null
                echo "$NAME: console log kept in $logdir/$NAME-console.log; its last 30 lines:"
                tail -n 30 "$logdir/$NAME-console.log" | sed 's/^/  | /'
        fi
        printf '%s: FAIL: %s\n' "$NAME" "${problems[@]}"
        echo "$NAME: VM ${vm_secs} s, total $((SECONDS - t0)) s"
        exit 1
fi
echo "$NAME: PASS (VM ${vm_secs} s, total $((SECONDS - t0)) s)"
