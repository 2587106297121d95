#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# interactive-load.sh light|wake|heavy JOIN CPU_CG RUN [probe]: one user's work in a window of
# bench/run interactive or vm-interactive, started in the user's PAM session (bench/lib.sh's
# window). Joins JOIN (cgroup2, its accounting) and CPU_CG (v1's cpu), each unless "-"; its pid goes
# to RUN/ROLE.pid. Env: DRIVER WARM DUR JOB_IN NHOGS NBUILD BUILD_IN. Run by sh on the host and by
# bash in the guests, where a fork costs ~0.1 s: there the job's clock is $EPOCHREALTIME.
role=$1 run=$4
unset LD_PRELOAD NSS_WRAPPER_PASSWD NSS_WRAPPER_GROUP
[ "$2" = - ] || echo $$ > "$2/cgroup.procs" || exit 90
[ "$3" = - ] || echo $$ > "$3/cgroup.procs" || exit 91
now() { if [ -n "${EPOCHREALTIME:-}" ]; then e=$EPOCHREALTIME t=${e%.*}${e#*.}000; else t=$(date +%s%N); fi; }
# a build step: cc where BUILD_IN is C (the host), else gzip -1 | sort of it (no compiler in the guest)
build() {
        case $BUILD_IN in
        *.c) cc -O2 -c "$BUILD_IN" -o "$run/tiny-$1.o" ;;
        *) gzip -1 -c "$BUILD_IN" | sort > /dev/null ;;
        esac
}
if [ "$role" = heavy ]; then # NHOGS hogs and NBUILD build loops, one line per build to RUN/builds
        i=0; while [ $i -lt "$NHOGS" ]; do (while :; do :; done) & i=$((i + 1)); done
        i=0; while [ $i -lt "$NBUILD" ]; do
                (while :; do
                        build $i && echo >> "$run/builds"
                        j=0; while [ $j -lt 20 ]; do sh -c true; j=$((j + 1)); done
                done) &
                i=$((i + 1))
        done
elif [ "$role" = light ] && [ "${5:-}" != probe ]; then # a CPU-bound thread, and gzip -6 jobs back to back
        (while :; do :; done) &
        while :; do
                now; t0=$t; gzip -6 -c "$JOB_IN" > /dev/null; now
                echo "$t0 $t" >> "$run/job"
        done &
fi
echo $$ > "$run/$role.pid"
# the probe: the light user's samples to RUN/probe, the wake-only user's to RUN/wake.probe
out=$run/probe
[ "$role" = light ] || out=$run/$role.probe
[ "$role" = heavy ] || { "$DRIVER" probe "$WARM" "$DUR" "$out.tmp" > "$out.start" && mv "$out.tmp" "$out"; }
# the session open until the window ends it: the user's slice may be the accounting (cs-pen)
[ "$role" = wake ] && exec sleep 86400
wait
