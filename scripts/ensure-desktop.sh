#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Make sure the system libraries Qt's window needs are installed (Debian/Ubuntu); with
# --with-screenshots also what the tests and `make screenshots` use: Xvfb, Chromium, poppler,
# LibreOffice Calc and Writer.
# A desktop machine has them already: then this installs nothing.
set -u
. "$(dirname "$0")/apt-lib.sh"
command -v dpkg-query >/dev/null 2>&1 || exit 0   # not Debian-like: nothing we can check

packages=(libgl1 libegl1 libfontconfig1 libfreetype6 libglib2.0-0 libdbus-1-3 libxkbcommon0
          libxkbcommon-x11-0 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0
          libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xfixes0
          libxcb-xkb1 fonts-dejavu-core)
# Tests and screenshots: a virtual X server, a browser to open HTML reports, a PDF renderer,
# LibreOffice to open the CSV exports and the editable lab reports.
[ "${1:-}" = "--with-screenshots" ] && packages+=(xvfb xauth chromium poppler-utils
                                                 libreoffice-calc-nogui libreoffice-writer-nogui)

# The window's libraries are optional for the command line: never fail the set-up over them.
install_missing "LinkLab's window needs (the command line works without them)" "${packages[@]}"
exit 0
