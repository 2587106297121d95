#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/guest-metrics.sh — guest half of vm-metrics-systemd-v2 and vm-metrics-nosd-v2
# (tests/vm/vm-test.sh ENV guest-metrics.sh).
#
# slicectl metrics with the real node_exporter (Debian's prometheus-node-exporter, textfile
# collector on /var/lib/prometheus/node-exporter): the module and slicectl installed as in the other
# guests, the shipped cpuslice-metrics.timer (systemd) or the shipped cron line run every 15 s
# (no systemd, no cron daemon: a loop runs it), alice (CPUQuota=50%) and bob log in and burn CPU.
# Then /metrics from node_exporter (plain HTTP over bash's /dev/tcp: the guest has no curl or
# python) must have the cpuslice families, a usage counter that agrees with cpu.stat within one
# interval (and exactly, to the µs, while the slice is frozen), the weight, quota and throttling of
# the slice, and no longer alice once her slice is gone.
set -u
ENV=${CPUSLICE_VM_ENV:?not running under tools/vm/run}
S=${CPUSLICE_VM_SHARE:-/mnt/share}
[ -f "$S/params" ] && . "$S/params"
NPROC=$(nproc)
D=/tmp/vmt
TF=/var/lib/prometheus/node-exporter
CG=/sys/fs/cgroup/user.slice
INTERVAL=15
NE= LOOP=
if [ -n "${TRACE:-}" ]; then
        exec 7> "$S/trace"; BASH_XTRACEFD=7; PS4='+ ${EPOCHREALTIME} ${FUNCNAME[0]:-}: '; set -x
fi
. "$S/guest-lib.sh"
mkdir -m 1777 -p "$D"
cd /tmp

SYSTEMD=0
[ "$(cat /proc/1/comm)" = systemd ] && SYSTEMD=1
section "facts ($ENV, $(uname -r), $NPROC CPUs, systemd=$SYSTEMD)"
[ $SYSTEMD = 1 ] && echo "system: $(timeout 60 systemctl is-system-running --wait 2>&1)"
check "cgroup2 at /sys/fs/cgroup" grep -qw cpu /sys/fs/cgroup/cgroup.controllers
check "prometheus-node-exporter is installed, $TF exists" [ -x /usr/bin/prometheus-node-exporter -a -d "$TF" ]

section "install"
# the built packages, as an admin installs them; the units and the cron line come from them too
install_packages --own-stack || exit 1
install -m 644 "$S/session.sh" "$D/session.sh"
if [ $SYSTEMD = 1 ]; then
        echo 'session optional pam_cpuslice.so' >> /etc/pam.d/common-session
else
        echo 'session required pam_cpuslice.so' >> /etc/pam.d/common-session
fi
printf '%s\n' ':999 CPUSlice=no' '* CPUWeight=100' '@staff CPUWeight=300' 'alice CPUQuota=50%' > /etc/security/cpuslice.conf
chmod 644 /etc/security/cpuslice.conf

scrape() { # scrape FILE: GET /metrics from node_exporter (HTTP/1.0: the server closes when done)
        local rc
        : > "$1"
        exec 3<> /dev/tcp/127.0.0.1/9100 || return 1
        printf 'GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
        timeout 20 cat <&3 > "$1"; rc=$?
        exec 3>&-
        return $rc
}
val() { # val FILE METRIC [USER]: the sample's value (host metric without USER); node_exporter
        # sorts the labels (uid before user), slicectl does not: the label is matched anywhere
        if [ -n "${3:-}" ]; then
                awk -v m="$2{" -v u="user=\"$3\"" 'index($0, m) == 1 && index($0, u) { print $NF; exit }' "$1"
        else
                awk -v m="$2" '$1 == m { print $2; exit }' "$1"
        fi
}
stamp() { val "$TF/cpuslice.prom" cpuslice_metrics_timestamp_seconds 2> /dev/null; }
newer_file() { local t; t=$(stamp) && [ -n "$t" ] && is_true "$t > $1"; } # newer_file AFTER: the textfile's timestamp passed AFTER
wait_new_file() { wait_for "$2" newer_file "$1"; } # wait_new_file AFTER SECS
usage_now() { # usage_now UID: cpu.stat usage_usec of the slice, as seconds with 6 decimals
        awk '$1 == "usage_usec" { printf "%d.%06d\n", $2 / 1000000, $2 % 1000000 }' "$CG/user-$1.slice/cpu.stat"
}

section "node_exporter with the textfile collector"
if [ $SYSTEMD = 1 ]; then
        systemctl start prometheus-node-exporter.service
        check "prometheus-node-exporter.service is active" systemctl is-active -q prometheus-node-exporter.service
else
        # as its package's init script would run it; setpriv, not su: no PAM session, so no slice
        setpriv --reuid=prometheus --regid=prometheus --init-groups /usr/bin/prometheus-node-exporter \
                --collector.textfile.directory=$TF --web.listen-address=127.0.0.1:9100 > "$D/node-exporter.log" 2>&1 &
        NE=$!
        trap 'kill $NE $LOOP 2> /dev/null' EXIT
fi
scraped() { scrape "$1" 2> /dev/null && grep -q '^node_textfile_scrape_error' "$1"; } # scraped FILE: node_exporter answered
wait_for 30 scraped "$D/scrape0"
check "node_exporter answers on :9100 with its textfile collector" grep -q '^node_textfile_scrape_error 0' "$D/scrape0"

section "the writer: $([ $SYSTEMD = 1 ] && echo cpuslice-metrics.timer || echo the cron line, every 15 s)"
t_start=$EPOCHREALTIME
if [ $SYSTEMD = 1 ]; then
        systemctl enable --now cpuslice-metrics.timer 2>&1
        check "cpuslice-metrics.timer is active" systemctl is-active -q cpuslice-metrics.timer
else
        # no cron daemon in the guest: run the shipped cron line's command as cron would, every 15 s
        CRONCMD=$(grep -v '^#' /usr/share/doc/pam_cpuslice/cpuslice-metrics.cron | grep . | head -n1 | sed -E 's/^([^ ]+ ){5}root //')
        echo "cron command: $CRONCMD"
        check "the cron lines parse" bash -c 'grep -v "^#" "$1" | sed -E "s/^([^ ]+ ){5}root //" |
                while read -r l; do sh -n -c "$l" || exit 1; done' - "$S/cpuslice-metrics.cron"
        ( while :; do sh -c "$CRONCMD"; sleep $INTERVAL; done ) > "$D/loop.log" 2>&1 &
        LOOP=$!
fi
check "the first cpuslice.prom is written" wait_new_file 0 30
check "cpuslice.prom is 0644, no temporary file beside it" \
        bash -c '[ "$(stat -c %a "$1/cpuslice.prom")" = 644 ] && [ -z "$(ls -A "$1" | grep -v "^cpuslice.prom$")" ]' - "$TF"
if [ $SYSTEMD = 1 ]; then
        r=$(systemctl show -p Result --value cpuslice-metrics.service)
        check "cpuslice-metrics.service ran sandboxed and succeeded (Result=$r)" [ "$r" = success ]
        fig "metrics systemd-analyze security exposure: $(systemd-analyze security cpuslice-metrics.service 2>/dev/null |
                sed -n 's/.*Overall exposure level for cpuslice-metrics.service: \([0-9.]*\).*/\1/p')"
fi

section "alice (CPUQuota=50%, $NPROC hogs) and bob (1 hog) log in"
start alice su -l alice -c "sh $D/session.sh alice $NPROC"
start bob su -l bob -c "sh $D/session.sh bob 1"
wait_info alice bob
go alice bob
t_go=$EPOCHREALTIME
check "a file written after the hogs started" wait_new_file "$t_go" 40
t1=$(stamp)
check "and the next one, one interval later" wait_new_file "$t1" $((3 * INTERVAL))
t2=$(stamp)
fig "metrics timer interval: $(calc "$t2 - $t1" 1) s (configured $INTERVAL s)"
# runs start an interval apart, but the time stamp is taken after the run's own start-up (the
# service's sandbox), which a slow guest stretches unevenly; cron's minute would be 60 s
check "the file is rewritten every ~${INTERVAL} s ($(calc "$t2 - $t1" 1) s)" \
        is_true "$t2 - $t1 >= $INTERVAL / 2 && $t2 - $t1 <= 3 * $INTERVAL"

section "node_exporter's /metrics"
scrape "$D/scrape1"
u_now=$(usage_now 1001); t_now=$EPOCHREALTIME
for f in cpuslice_cpu_usage_seconds_total cpuslice_cpu_user_seconds_total cpuslice_cpu_system_seconds_total \
         cpuslice_cpu_throttled_seconds_total cpuslice_cpu_periods_total cpuslice_cpu_throttled_periods_total \
         cpuslice_cpu_pressure_some_seconds_total cpuslice_cpu_weight cpuslice_cpu_quota_cpus cpuslice_sessions \
         cpuslice_config_errors cpuslice_slices cpuslice_metrics_timestamp_seconds; do
        grep -q "^# TYPE $f " "$D/scrape1" || bad "/metrics lacks the family $f"
done
ok "/metrics has the 13 cpuslice families (HELP/TYPE)"
check "node_exporter read the textfile without error" grep -q '^node_textfile_scrape_error 0' "$D/scrape1"
grep '^cpuslice_.*user="alice"' "$D/scrape1" | sed 's/^/  | /'
u_scr=$(val "$D/scrape1" cpuslice_cpu_usage_seconds_total alice)
t_file=$(val "$D/scrape1" cpuslice_metrics_timestamp_seconds)
age=$(calc "$t_now - $t_file" 1)
fig "metrics usage: alice scraped ${u_scr} s, cpu.stat now ${u_now} s, file age ${age} s"
check "the scraped file is at most one interval old (+5 s under TCG): ${age} s" is_true "$age <= $INTERVAL + 5"
check "alice's scraped usage is within what $NPROC CPUs can add since the file was written" \
        is_true "$u_scr > 0 && $u_scr <= $u_now && $u_now - $u_scr <= ($t_now - $t_file + 1) * $NPROC"
w=$(cat $CG/user-1001.slice/cpu.weight)
check "alice's weight in /metrics is cpu.weight ($w)" [ "$(val "$D/scrape1" cpuslice_cpu_weight alice)" = "$w" ]
check "alice's quota is 0.5 CPUs" [ "$(val "$D/scrape1" cpuslice_cpu_quota_cpus alice)" = 0.5 ]
check "bob has no quota sample" [ -z "$(val "$D/scrape1" cpuslice_cpu_quota_cpus bob)" ]
thr=$(val "$D/scrape1" cpuslice_cpu_throttled_periods_total alice)
per=$(val "$D/scrape1" cpuslice_cpu_periods_total alice)
fig "metrics alice throttled periods: $thr of $per"
check "alice, over her quota, is throttled ($thr of $per periods)" is_true "${thr:-0} > 0 && ${thr:-0} <= ${per:-0}"
check "one session each" [ "$(val "$D/scrape1" cpuslice_sessions alice)$(val "$D/scrape1" cpuslice_sessions bob)" = 11 ]
check "the config has no errors" [ "$(val "$D/scrape1" cpuslice_config_errors)" = 0 ]

section "frozen slice: the counter equals cpu.stat to the µs"
echo 1 > $CG/user-1001.slice/cgroup.freeze
# the hogs stop only once each is scheduled, which a slow guest delays
wait_for 30 grep -q '^frozen 1' $CG/user-1001.slice/cgroup.events
check "alice's slice froze" grep -q '^frozen 1' $CG/user-1001.slice/cgroup.events
t_frozen=$EPOCHREALTIME
u_frozen=$(usage_now 1001)
check "a file written after the freeze" wait_new_file "$t_frozen" 40
scrape "$D/scrape2"
u2=$(val "$D/scrape2" cpuslice_cpu_usage_seconds_total alice)
u_still=$(usage_now 1001)
echo 0 > $CG/user-1001.slice/cgroup.freeze
fig "metrics frozen: cpu.stat ${u_frozen} s, /metrics ${u2} s"
# node_exporter prints the number its own way (21.62285 for 21.622850): compared as numbers
check "frozen: /metrics says ${u2} s, cpu.stat ${u_frozen} s" \
        is_true "${u2:-0} == $u_frozen && $u_still == $u_frozen"
check "the counter did not go back" is_true "$u2 >= $u_scr"

section "alice logs out: her slice leaves the next file"
stop alice
# with systemd, logind stops user@1001.service 10 s after the last session, and that stop may take
# 15 s more
wait_for 90 test ! -d $CG/user-1001.slice
check "alice's slice is gone from the tree" [ ! -d $CG/user-1001.slice ]
t_gone=$EPOCHREALTIME
check "a file written after that" wait_new_file "$t_gone" 40
scrape "$D/scrape3"
check "no alice in /metrics" bash -c '! grep -q "user=\"alice\"" "$1"' - "$D/scrape3"
check "bob still there, with his session" [ "$(val "$D/scrape3" cpuslice_sessions bob)" = 1 ]
check "cpuslice_slices follows ($(val "$D/scrape3" cpuslice_slices))" [ "$(val "$D/scrape3" cpuslice_slices)" = 1 ]
stop bob
fig "metrics guest time: $(calc "$EPOCHREALTIME - $t_start" 0) s from the writer's start"

cp "$D/scrape1" "$S/metrics-scrape.txt" 2> /dev/null
echo
echo "=== $fails check(s) failed"
[ "$fails" = 0 ]
