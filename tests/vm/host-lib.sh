# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/host-lib.sh — sourced by the host halves of the VM tests (vm-test.sh, boot-watchdog.sh,
# harness-smoke.sh); they set NAME first. Not a guest file: the guests source guest-lib.sh.

# a test that cannot run here skips (77), except under CPUSLICE_REQUIRE_ALL=1 (CI), where it fails
skip() {
        if [ -n "${CPUSLICE_REQUIRE_ALL:-}" ] && [ "${CPUSLICE_REQUIRE_ALL}" != 0 ]; then
                echo "$NAME: FAIL (would skip, but CPUSLICE_REQUIRE_ALL is set): $*"
                exit 1
        fi
        echo "$NAME: SKIP: $*"
        exit 77
}
fail() { echo "$NAME: FAIL: $*"; exit 1; }

# the cached guest image's directory on stdout (tools/vm/build-image builds it when missing), of
# suite $1 (default: CPUSLICE_VM_SUITE, else bookworm); called as IMAGE=$(vm_image) || exit 1, so
# its complaint goes to stderr
# CPUSLICE_VM_IMAGE=IMGDIR takes that image instead, as tools/vm/run does (debugging)
vm_image() {
        local image=${CPUSLICE_VM_IMAGE:-} suite=${1:-${CPUSLICE_VM_SUITE:-bookworm}}
        [ -n "$image" ] || image=$("$TOP/tools/vm/build-image" --suite "$suite" | tail -n1) ||
                { echo "$NAME: FAIL: tools/vm/build-image --suite $suite failed" >&2; return 1; }
        [ -f "$image/rootfs.ext4" ] || { echo "$NAME: FAIL: build-image printed '$image', which has no rootfs.ext4" >&2; return 1; }
        echo "$image"
}

# Succeeds when console log $1 shows the guest kernel dying of a stray int3 in its own text: under
# TCG (thread=multi) a vCPU now and then runs an int3 that text_poke_bp() had already replaced (a
# static key flips, e.g. cfs_bandwidth_used at the first cpu.max quota), and the kernel oopses
# with "Oops: int3". Real CPUs serialise that patching; no user-space code, ours included, can
# put an int3 into kernel text, so this death is the emulator's, not the code under test's.
# Any other panic, oops or BUG is not matched: it stays a failure.
# die()'s header of the first oops, "[Oops: ]WHAT: 0000 [#1]", when WHAT is int3 (grep -E)
VM_INT3_OOPS='\] (Oops: )?int3: [0-9a-f]{4} \[#1\]'
vm_emulator_panic() {
        grep -aq 'Kernel panic' "$1" 2> /dev/null || return 1
        # the first oops decides: the int3 one may bring others down with it
        grep -aE -m1 '[^ ]: [0-9a-f]{4} \[#1\]' "$1" | grep -qE "$VM_INT3_OOPS"
}
