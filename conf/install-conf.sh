#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# conf/install-conf.sh EXAMPLE DIR — meson install script: installs EXAMPLE as DIR/cpuslice.conf
# (under $DESTDIR) only when no cpuslice.conf is there, so a second `meson install` keeps the
# admin's edited config. The example also lands in the doc dir (conf/meson.build). meson 1.0 shows
# a script's output only when it fails.
set -eu
src=$1
dir=${DESTDIR:-}$2
if [ -e "$dir/cpuslice.conf" ] || [ -L "$dir/cpuslice.conf" ]; then
        echo "Keeping the existing $dir/cpuslice.conf (the example is not installed over it)"
        exit 0
fi
install -d -m 755 "$dir"
install -m 644 "$src" "$dir/cpuslice.conf"
echo "Installing $src to $dir/cpuslice.conf"
