# shellcheck shell=bash
# bench/lock.sh — sourced by every benchmark script. One benchmark at a time on a machine:
# bench/run and bench/interactive both own /etc/cgrules.conf and /etc/cgconfig.conf while they
# run, and a figure taken while another benchmark or a VM runs measures that, not us.
BENCH_LOCK=/run/cpuslice-bench.lock

# bench_lock "$@": run the calling script again under the lock (waiting, and saying so, while
# another benchmark holds it); returns at once inside the locked run.
bench_lock() {
        [ -z "${CPUSLICE_BENCH_LOCKED:-}" ] || return 0
        flock -n "$BENCH_LOCK" true || echo "$(basename "$0"): waiting for $BENCH_LOCK (another benchmark runs)" >&2
        exec env CPUSLICE_BENCH_LOCKED=1 flock "$BENCH_LOCK" "$0" "$@"
}
