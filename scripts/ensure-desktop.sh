#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Make sure the system libraries Qt's window needs are installed (Debian/Ubuntu); with
# --with-screenshots also what the tests and `make screenshots` use: Xvfb, Chromium, poppler.
# A desktop machine has them already: then this installs nothing.
set -u
say() { printf 'linklab set-up: %s\n' "$*" >&2; }
command -v dpkg-query >/dev/null 2>&1 || exit 0   # not Debian-like: nothing we can check

packages=(libgl1 libegl1 libfontconfig1 libfreetype6 libglib2.0-0 libdbus-1-3 libxkbcommon0
          libxkbcommon-x11-0 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0
          libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xfixes0
          libxcb-xkb1 fonts-dejavu-core)
# Tests and screenshots: a virtual X server, a browser to open HTML reports, a PDF renderer.
[ "${1:-}" = "--with-screenshots" ] && packages+=(xvfb xauth chromium poppler-utils)

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)
    [ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else return 1
    fi
}
say "installing what LinkLab's window needs: ${missing[*]}"
if as_root apt-get update -qq >/dev/null 2>&1 &&
   DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
       "${missing[@]}" >/dev/null 2>&1; then
    exit 0
fi
say "could not install ${missing[*]}: install them with your package manager" \
    "(sudo apt-get install ${missing[*]}); the command line works without them."
exit 0
