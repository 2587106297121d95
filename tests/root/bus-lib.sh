# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced after lib.sh by the tests of the systemd backend against tests/helpers/fake-bus.py, a
# D-Bus peer playing the bus and systemd, reached only through the module argument bus_socket=
# (and slicectl's --bus-socket). bus_root=$T/root keeps systemd's control dirs and the module's
# record inside the test's own directory.
: "${FAKE_BUS:?}" "${GETENV_TRACE:?}"
command -v python3 > /dev/null || skip "python3 is needed for the fake bus"
BUS=$T/bus
REC=$T/record
BUS_PID=

bus_start() { # MODE
        bus_stop
        rm -f "$BUS"
        : > "$REC"
        python3 "$FAKE_BUS" "$BUS" "$REC" "$1" < /dev/null > "$T/bus.out" 2>&1 &
        BUS_PID=$!
        for _ in $(seq 100); do [ -S "$BUS" ] && return; sleep 0.05; done
        fail "fake bus ($1) did not start: $(cat "$T/bus.out")"
}
bus_stop() { [ -n "$BUS_PID" ] && { kill "$BUS_PID" 2> /dev/null; wait "$BUS_PID" 2> /dev/null; BUS_PID=; } || true; }
trap 'rc=$?; bus_stop; (exit $rc); cleanup' EXIT

# service NAME ARGS...: the systemd backend on the fake bus
bus_service() {
        local name=$1; shift
        cat > "$T/pam.d/$name" << EOT
session required $PAM_CPUSLICE_MODULE conf=$T/cpuslice.conf confdir=$T/none rundir=$T/none backend=systemd bus_socket=$BUS bus_root=$T/root $*
session required pam_permit.so
EOT
}
calls() { grep -c "\"member\": \"$1\"" "$REC" || true; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }


SLICECTL=${SLICECTL:-$(dirname "$PAM_RUN")/../../slicectl/slicectl}
# slicectl on the fake bus, reading the scratch parent's slices (mkslice) as systemd's
sc() {
        "$SLICECTL" --backend systemd --bus-socket "$BUS" --bus-root "$T/root" --parent "$PARENT" \
                --conf "$T/cpuslice.conf" --confdir "$T/conf.d" --rundir "$T/none" "$@"
}
mkslice() { mkdir -p "$CPU/user.slice/user-$1.slice" "$ACCT/user.slice/user-$1.slice"; }
runtime_dropin() { echo "$T/root/run/systemd/system.control/user-$1.slice.d/50-$2.conf"; }
# the (sv) list of the last SetUnitProperties the fake got
last_set() { grep '"SetUnitProperties"' "$REC" | tail -n1 | sed 's/.*"args": \[[^[]*\(\[.*\]\)\]}$/\1/'; }
