# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/vm/suite-lib.sh — which Debian suites the VM harness boots, and which test environments
# exist on each; sourced by tools/vm/run, tools/vm/all-suites and tests/vm/vm-test.sh, so that a
# combination that cannot exist is refused (or skipped) with the same one-line reason everywhere.

# oldest first: systemd 247 / kernel 5.10, 252 / 6.1, 257 / 6.12, 262 / 7.x
VM_SUITES=(bullseye bookworm trixie forky)
VM_DEFAULT_SUITE=bookworm

# vm_old_libc SUITE: true when SUITE's glibc is older than the one binaries built on the (bookworm)
# host need, so that the host-built pam-run, driver and packages cannot run there
vm_old_libc() { [ "$1" = bullseye ]; }

# vm_build_suite SUITE: prints the suite whose build of the packages SUITE's guests install, when
# that is not the host's own build (tools/package --suite it, in a chroot); prints nothing when the
# host's build is the one. Each build puts the files where its suite's own packages do
# (debian/rules): bullseye and bookworm have their own, trixie's serves forky too.
vm_build_suite() {
        local b
        case "$1" in
        bullseye|bookworm) b=$1 ;;
        *) b=trixie ;;
        esac
        [ "$b" = "$(host_suite)" ] || echo "$b"
}

# vm_debs SUITE BASE [NEWER...]: prints the directory of the .debs SUITE's guests install: BASE, or
# BASE-B for another build suite B (vm_build_suite). Builds them there first (tools/package, its
# output to DIR.log) when a libpam-cpuslice or slicectl .deb is missing or one of NEWER (files or
# source dirs) is newer than the libpam-cpuslice one; returns 1 with the log's tail on stderr when
# that fails. The one choice of tests/vm/vm-test.sh, tools/vm/all-suites and bench/run.
vm_debs() {
        local dir=$2 b args=() newest
        b=$(vm_build_suite "$1")
        [ -n "$b" ] && dir=$dir-$b args=(--suite "$b")
        shift 2
        newest=$(ls -t "$dir"/libpam-cpuslice_*.deb 2> /dev/null | head -n1)
        if [ -z "$newest" ] || ! ls "$dir"/slicectl_*.deb > /dev/null 2>&1 ||
           { [ $# -gt 0 ] && [ -n "$(find "$@" -newer "$newest" -print -quit)" ]; }; then
                echo "building the packages into $dir (tools/package ${args[*]})" >&2
                mkdir -p "$dir"
                DEB_BUILD_OPTIONS=nocheck "$(dirname "${BASH_SOURCE[0]}")/../package" "${args[@]}" "$dir" > "$dir.log" 2>&1 ||
                        { tail -n 30 "$dir.log" >&2; echo "tools/package ${args[*]} failed (log: $dir.log)" >&2; return 1; }
        fi
        echo "$dir"
}

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

# suite_chroot_lock SUITE: this process holds SUITE's chroot until it exits (fd 9). Two runs in one
# chroot share its apt lock and its /proc mount, and one's exit unmounts the other's /proc.
suite_chroot_lock() {
        mkdir -p /var/cache/pam_cpuslice/chroot
        exec 9> "/var/cache/pam_cpuslice/chroot/$1.lock"
        flock -w 3600 9 || { echo "the $1 chroot stayed busy for an hour" >&2; return 1; }
}

# suite_chroot SUITE LOG: prints the cached buildd chroot of SUITE
# (/var/cache/pam_cpuslice/chroot/SUITE, from the mirror of the host's apt sources), made first when
# missing (debootstrap's output to LOG); shared by tools/package --suite and tools/lintian-suite.
# Returns 1 with the reason on stderr when it cannot be made. Needs root.
suite_chroot() {
        local suite=$1 log=$2 chroots=/var/cache/pam_cpuslice/chroot mirror ch
        ch=$chroots/$suite
        if [ ! -f "$ch/.complete" ]; then
                command -v debootstrap > /dev/null || { apt-get update -q && apt-get install -y -q debootstrap; } >&2 || return 1
                mirror=$(suite_mirror "$suite") || { echo "no apt source in /etc/apt to take the mirror from" >&2; return 1; }
                echo "debootstrap --variant=buildd $suite into $ch ($mirror)" >&2
                rm -rf "$ch.tmp" && mkdir -p "$chroots"
                debootstrap --variant=buildd "$suite" "$ch.tmp" "$mirror" > "$log" 2>&1 ||
                        { tail -n 30 "$log" >&2; echo "debootstrap $suite failed" >&2; return 1; }
                echo "deb $mirror $suite main" > "$ch.tmp/etc/apt/sources.list"
                touch "$ch.tmp/.complete"
                rm -rf "$ch" && mv "$ch.tmp" "$ch"
        fi
        cp /etc/resolv.conf "$ch/etc/resolv.conf"
        echo "$ch"
}
