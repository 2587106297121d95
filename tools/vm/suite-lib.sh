# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/vm/suite-lib.sh — which Debian suites the VM harness boots, and which test environments
# exist on each; sourced by tools/vm/run, tools/vm/all-suites and tests/vm/vm-test.sh, so that a
# combination that cannot exist is refused (or skipped) with the same one-line reason everywhere.

# oldest first: systemd 247 / kernel 5.10, 252 / 6.1, 257 / 6.12, 262 / 7.x
VM_SUITES=(bullseye bookworm trixie forky)
VM_DEFAULT_SUITE=bookworm

# vm_own_build SUITE: true when SUITE's libc is older than the one the packages built on the
# (bookworm) host need, so that its guests install packages built in a chroot of the suite
# (tools/package --suite SUITE); bookworm's build installs on trixie and forky as it is
vm_own_build() { [ "$1" = bullseye ]; }

# vm_env_missing SUITE ENV: prints why ENV (systemd-v2|systemd-v1|nosd-v2|nosd-v1, pkg- or not)
# cannot exist on SUITE and returns 0; returns 1 (prints nothing) when it can.
vm_env_missing() {
        case "$1/${2#pkg-}" in
        # systemd 258 removed cgroup v1 altogether: with systemd.unified_cgroup_hierarchy=0 it
        # boots on cgroup2 regardless, so a "v1" run would only repeat systemd-v2
        forky/systemd-v1) echo "systemd >= 258 (forky has 262) cannot boot on cgroup v1" ;;
        *) return 1 ;;
        esac
}

# The first URI of the host's apt sources that serves suite $1 (deb822 or
# one-line format).  Never hard-coded.
find_mirror() {
    local f uri suite=$1
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        uri=$(awk -v suite="$suite" '
            BEGIN { RS=""; FS="\n" }
            {
                uris=""; ok=0; deb=0
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^#/) continue
                    if ($i ~ /^Types:/ && $i ~ /(^|[ \t])deb([ \t]|$)/) deb=1
                    if ($i ~ /^URIs:/) { uris=$i; sub(/^URIs:[ \t]*/, "", uris) }
                    if ($i ~ /^Suites:/) { n=split($i, s, /[ \t]+/); for (j = 2; j <= n; j++) if (s[j] == suite) ok=1 }
                }
                if (deb && ok && uris != "") { split(uris, u, /[ \t]+/); print u[1]; exit }
            }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return 0; }
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        uri=$(awk -v suite="$suite" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } if ($(i+1) == suite) { print $i; exit } }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return 0; }
    done
    return 1
}
host_suite() { (. /etc/os-release && echo "${VERSION_CODENAME:-}"); }
# the mirror for SUITE: the host's sources list only the host's own suite, and the mirror that
# serves it serves the others too
suite_mirror() { find_mirror "$1" || find_mirror "$(host_suite)"; }
