#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/emulator-panic.sh DIR — vm_emulator_panic (host-lib.sh), which decides whether vm-test.sh
# may run a test once more, against the consoles in DIR (tests/data/console): only a kernel whose
# first oops is a stray int3 and which then panicked is the emulator's; every other death stays a
# failure of the test.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NAME=emulator-panic
. "$HERE/host-lib.sh"
DIR=${1:?usage: emulator-panic.sh CONSOLE-DIR}

failures=0
expect() { # yes|no LOG WHY
        local got=no
        vm_emulator_panic "$DIR/$2" && got=yes
        if [ "$got" = "$1" ]; then
                echo "ok: $2: $3"
        else
                echo "FAIL: $2: $3 (vm_emulator_panic said $got)"
                failures=$((failures + 1))
        fi
}
expect yes int3-trixie.log "6.12's \"Oops: int3\", then a second oops and the panic (CI, trixie)"
expect yes int3-bookworm.log "6.1's header without \"Oops: \""
expect no null-deref.log "a NULL dereference first; the int3 after it does not excuse it"
expect no gpf.log "a general protection fault"
expect no sysrq.log "a panic with no oops at all"
expect no int3-no-panic.log "an int3 oops the kernel survived: the test's own result stands"
expect no missing.log "no console at all"
[ "$failures" = 0 ] && { echo "$NAME: PASS"; exit 0; }
echo "$NAME: FAIL: $failures check(s)"
exit 1
