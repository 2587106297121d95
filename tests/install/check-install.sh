#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/install/check-install.sh SRCDIR — the meson side of installing:
#  1. `meson setup --prefix=/usr` + `meson install --destdir` puts every file where the module,
#     slicectl, libpam and man look: the config where lib/policy/conf.h reads it, the module and its
#     systemd plugin beside libpam's own modules, slicectl(1)/cpuslice.conf(5)/pam_cpuslice(8)
#     under /usr/share/man, the completion where bash-completion looks;
#  2. a second `meson install` keeps an edited /etc/security/cpuslice.conf byte for byte;
#  3. a default (/usr/local) setup warns, naming the directory the config would go to, and
#     -Dsysconfdir=/etc silences it;
#  4. without the test libraries a plain setup succeeds and names them (-Dtests=auto); with
#     -Dtests=enabled it fails.
# Exit: 0 passed, 1 failed.
set -uo pipefail
SRC=$(cd "${1:?usage: check-install.sh SRCDIR}" && pwd)
T=$(mktemp -d /tmp/cpuslice-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
check() { # check DESCRIPTION COMMAND...
        local what=$1; shift
        if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
conf_file=$(sed -n 's/^#define CONF_MAIN_FILE *"\(.*\)"/\1/p' "$SRC/lib/policy/conf.h")
[ -n "$conf_file" ] || { echo "FAIL no CONF_MAIN_FILE in lib/policy/conf.h"; exit 1; }
libpam_dir=$(dirname "$(readlink -f "$(dpkg -L libpam-modules | grep '/pam_unix\.so$' | head -n1)")")

meson setup "$T/b" "$SRC" --prefix=/usr -Dtests=disabled > "$T/setup.log" 2>&1 || { cat "$T/setup.log"; exit 1; }
check "--prefix=/usr: no sysconfdir warning at setup" bash -c "! grep -q 'where nothing reads it' '$T/setup.log'"
ninja -C "$T/b" > "$T/ninja.log" 2>&1 || { cat "$T/ninja.log"; exit 1; }
meson install -C "$T/b" --destdir "$T/d" > "$T/install1.log" 2>&1 || { cat "$T/install1.log"; exit 1; }
D=$T/d
mod=$(cd "$D" && find . -name pam_cpuslice.so | sed 's/^\.//')
check "the module is in libpam's module dir $libpam_dir (it is at $mod)" \
        [ "$(readlink -f "$(dirname "/$mod")")" = "$libpam_dir" ]
check "the systemd plugin is beside the module" [ -f "$D$(dirname "$mod")/pam_cpuslice-systemd.so" ]
check "the config is at $conf_file, where lib/policy/conf.h reads it" cmp -s "$SRC/conf/cpuslice.conf" "$D$conf_file"
check "slicectl is in /usr/bin" [ -x "$D/usr/bin/slicectl" ]
for m in man1/slicectl.1 man5/cpuslice.conf.5 man8/pam_cpuslice.8; do
        check "/usr/share/man/$m" [ -s "$D/usr/share/man/$m" ]
done
check "bash completion in /usr/share/bash-completion/completions" [ -f "$D/usr/share/bash-completion/completions/slicectl" ]
check "the example config is also in the doc dir" cmp -s "$SRC/conf/cpuslice.conf" "$D/usr/share/doc/pam_cpuslice/cpuslice.conf.example"
echo "installed files:"; (cd "$D" && find . -type f | sort | sed 's/^\./  /')

echo '* CPUWeight=123   # edited by the admin' > "$D$conf_file"
cp "$D$conf_file" "$T/edited"
meson install -C "$T/b" --destdir "$T/d" > "$T/install2.log" 2>&1 || { cat "$T/install2.log"; exit 1; }
check "a second meson install keeps the edited config" cmp -s "$T/edited" "$D$conf_file"

meson setup "$T/local" "$SRC" -Dtests=disabled > "$T/local.log" 2>&1 || { cat "$T/local.log"; exit 1; }
check "default prefix: setup warns that the config would go to /usr/local/etc/security" \
        grep -q "example config into /usr/local/etc/security, where nothing reads it" "$T/local.log"
meson setup "$T/local-etc" "$SRC" -Dtests=disabled -Dsysconfdir=/etc > "$T/local-etc.log" 2>&1 ||
        { cat "$T/local-etc.log"; exit 1; }
check "default prefix with -Dsysconfdir=/etc: no warning" bash -c "! grep -q 'where nothing reads it' '$T/local-etc.log'"

# tests by detection: a host with the build libraries but none of the test libraries
mkdir "$T/pc"
for pc in pam libsystemd smartcols bash-completion; do
        f=$(pkg-config --variable=pcfiledir "$pc" 2> /dev/null) && cp "$f/$pc.pc" "$T/pc/"
done
PKG_CONFIG_LIBDIR=$T/pc meson setup "$T/notests" "$SRC" > "$T/notests.log" 2>&1
check "without the test libraries a plain setup succeeds" [ $? = 0 ]
check "and says which are missing" grep -q "tests: not built, missing .*libnss-wrapper libpam-wrapper libpamtest0-dev" "$T/notests.log"
PKG_CONFIG_LIBDIR=$T/pc meson setup "$T/tests-on" "$SRC" -Dtests=enabled > "$T/tests-on.log" 2>&1
check "with -Dtests=enabled the missing test libraries are an error" [ $? != 0 ]

echo "$fails failed"
[ "$fails" = 0 ]
