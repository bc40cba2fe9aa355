#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Make sure what `make dist` (and the bundle smoke test) needs is installed on Debian/Ubuntu:
# binutils (PyInstaller reads binaries with objdump), the shared libpython of the Python given
# (a frozen program loads it), x11-utils (xwininfo: the smoke test looks for the window),
# desktop-file-utils (desktop-file-validate checks the menu entry), nsis (makensis builds the
# Windows installer, on Linux as on Windows) and MinGW-w64 with POSIX threads (builds iperf 2.2.1
# for Windows from its pinned source: installers/build_iperf2.py).
set -u
py=${1:-python3}
. "$(dirname "$0")/apt-lib.sh"
command -v dpkg-query >/dev/null 2>&1 || exit 0   # not Debian-like: nothing we can check

packages=(binutils x11-utils desktop-file-utils nsis gcc-mingw-w64-x86-64-posix
          g++-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64)
shared=$("$py" -c 'import sysconfig, pathlib, sys
lib = sysconfig.get_config_var("INSTSONAME") or ""
dirs = [sysconfig.get_config_var("LIBDIR") or "", sys.base_prefix + "/lib",
        "/usr/lib/" + (sysconfig.get_config_var("MULTIARCH") or "")]
print("yes" if lib and any((pathlib.Path(d) / lib).exists() for d in dirs if d) else lib)')
if [ "$shared" != "yes" ] && [ -n "$shared" ]; then
    ver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    packages+=("libpython${ver}")
fi

install_missing "building the installers needs" "${packages[@]}"
