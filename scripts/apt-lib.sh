# SPDX-License-Identifier: MIT
# Sourced by the ensure-*.sh scripts: install the Debian/Ubuntu packages of a list that are
# missing, with one line saying what and why.

say() { printf 'linklab set-up: %s\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else return 1
    fi
}

# install_missing WHY PACKAGE...: 0 when all are installed afterwards (or already were), else 1
# after a line saying how to install them by hand.
install_missing() {
    local why=$1
    shift
    local missing=() pkg status
    for pkg in "$@"; do
        status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)
        [ "$status" = "install ok installed" ] || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing what $why: ${missing[*]}"
    if as_root apt-get update -qq >/dev/null 2>&1 &&
       DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
           "${missing[@]}" >/dev/null 2>&1; then
        return 0
    fi
    say "could not install ${missing[*]}: install them with your package manager" \
        "(sudo apt-get install ${missing[*]})."
    return 1
}
