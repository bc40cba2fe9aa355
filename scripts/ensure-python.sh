#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Make sure the Python given can create a virtual environment (Debian splits venv out).
set -u
py=${1:-python3}
say() { printf 'linklab set-up: %s\n' "$*" >&2; }
if ! command -v "$py" >/dev/null 2>&1; then
    say "$py was not found: install Python 3.11 or newer (Debian/Ubuntu: sudo apt-get install python3 python3-venv)."
    exit 1
fi
if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
    say "LinkLab needs Python 3.11 or newer; $py is $("$py" -V 2>&1)."
    exit 1
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
if "$py" -m venv "$probe/v" >/dev/null 2>&1; then
    exit 0
fi
ver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
if command -v apt-get >/dev/null 2>&1; then
    say "installing python${ver}-venv so that a virtual environment can be made"
    as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else return 1; fi; }
    as_root apt-get update -qq >/dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "python${ver}-venv" >/dev/null 2>&1 \
        || DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq python3-venv >/dev/null 2>&1
    "$py" -m venv "$probe/v2" >/dev/null 2>&1 && exit 0
fi
say "$py cannot create a virtual environment: install python3-venv (sudo apt-get install python3-venv)."
exit 1
