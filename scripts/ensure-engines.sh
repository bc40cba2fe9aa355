#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Make sure the measurement engines are installed: iperf3 (required), netperf and iperf 2
# (optional), and iperf 2.2.1 built from its pinned source (installers/build_iperf2.py).
# Uses what the system has; otherwise installs through the system package manager. On Debian
# netperf lives in the non-free component (main from Debian 13), on Ubuntu in multiverse: the
# extra component is derived from the machine's own apt sources, never from a fixed mirror.
#
# Usage: ensure-engines.sh [--with-test-tools]
#   --with-test-tools   also install what the test suite and benchmarks use (nftables for the
#                       loss test bed, ping for the latency prober's benchmark, PostgreSQL's
#                       server programs for the class-store tests).
set -u

with_test_tools=0
[ "${1:-}" = "--with-test-tools" ] && with_test_tools=1

say() { printf 'linklab set-up: %s\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else return 1
    fi
}

have_apt() { command -v apt-get >/dev/null 2>&1; }

apt_updated=0
apt_update() {
    [ "$apt_updated" = 1 ] && return 0
    as_root apt-get update -qq >/dev/null 2>&1 && apt_updated=1
}

apt_install() {
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" \
        >/dev/null 2>&1
}

has_candidate() {
    local cand
    cand=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')
    [ -n "$cand" ] && [ "$cand" != "(none)" ]
}

# Print the extra component that carries netperf on this distribution, or nothing.
extra_component() {
    local id=""
    [ -r /etc/os-release ] && id=$(. /etc/os-release && printf '%s %s' "${ID:-}" "${ID_LIKE:-}")
    case "$id" in
        *ubuntu*) echo multiverse ;;
        *debian*) echo non-free ;;
    esac
}

# Write a sources file that adds $1 to every repository the machine already uses for "main".
add_component() {
    local component=$1
    local out=/etc/apt/sources.list.d/linklab-${component}.sources
    [ -e "$out" ] && return 0
    as_root python3 - "$component" "$out" <<'PY' || return 1
import glob, re, sys
component, out = sys.argv[1], sys.argv[2]
stanzas = []
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")) + ["/etc/apt/sources.list"]:
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        continue
    if path.endswith(".sources"):
        for block in re.split(r"\n\s*\n", text):
            fields = {}
            for line in block.splitlines():
                if line.startswith("#") or ":" not in line or line[:1].isspace():
                    continue
                key, _, value = line.partition(":")
                fields[key.strip().lower()] = value.strip()
            if "main" in fields.get("components", "").split() and fields.get("enabled", "yes") != "no":
                stanza = {k: fields[k] for k in ("types", "uris", "suites", "signed-by") if k in fields}
                stanzas.append(stanza)
    else:
        for line in text.splitlines():
            m = re.match(r"^\s*(deb)\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)$", line)
            if m and "main" in m.group(5).split():
                stanza = {"types": "deb", "uris": m.group(3), "suites": m.group(4)}
                opts = m.group(2) or ""
                signed = re.search(r"signed-by=(\S+?)\]?(\s|$)", opts)
                if signed:
                    stanza["signed-by"] = signed.group(1).rstrip("]")
                stanzas.append(stanza)
if not stanzas:
    sys.exit(1)
names = {"types": "Types", "uris": "URIs", "suites": "Suites", "signed-by": "Signed-By"}
with open(out, "w", encoding="utf-8") as fh:
    fh.write("# Added by LinkLab's set-up: the same repositories as main, for the %s component.\n" % component)
    for stanza in stanzas:
        for key, value in stanza.items():
            fh.write("%s: %s\n" % (names[key], value))
        fh.write("Components: %s\n\n" % component)
PY
    apt_updated=0
}

install_pkg() {  # install_pkg PACKAGE [allow-extra-component]
    local pkg=$1 extra=${2:-}
    have_apt || return 1
    apt_update || return 1
    if ! has_candidate "$pkg" && [ -n "$extra" ]; then
        local comp
        comp=$(extra_component)
        [ -n "$comp" ] || return 1
        say "enabling the '$comp' component of this machine's apt sources for $pkg"
        add_component "$comp" || return 1
        apt_update || return 1
    fi
    has_candidate "$pkg" || return 1
    apt_install "$pkg"
}

status=0
if command -v iperf3 >/dev/null 2>&1; then
    :
elif install_pkg iperf3; then
    say "installed iperf3 $(iperf3 --version 2>/dev/null | head -n1 | awk '{print $2}')"
else
    say "iperf3 is missing and could not be installed: install it with your package manager" \
        "(Debian/Ubuntu: sudo apt-get install iperf3) or set its path in LinkLab's settings."
    status=1
fi

if command -v netperf >/dev/null 2>&1 && command -v netserver >/dev/null 2>&1; then
    :
elif install_pkg netperf extra; then
    say "installed netperf"
else
    say "netperf is not installed (optional: RTT and netperf sweeps need it)." \
        "Debian: enable the non-free component and apt-get install netperf; Ubuntu: multiverse."
fi

if command -v iperf >/dev/null 2>&1; then
    :
elif install_pkg iperf; then
    say "installed iperf 2 $(iperf -v 2>&1 | head -n1 | awk '{print $3}')"
else
    say "iperf 2 is not installed (optional: studies with the iperf2 engine need it)." \
        "Debian/Ubuntu: sudo apt-get install iperf"
fi

# iperf 2.2.1 built from its pinned source into build/built-engines/ (LinkLab prefers it to the
# system's iperf 2: Debian 12's 2.1.8 server dies after a UDP test). Needs a C/C++ compiler.
if ! command -v c++ >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
    install_pkg g++ >/dev/null 2>&1 && install_pkg make >/dev/null 2>&1 || true
fi
here=$(cd "$(dirname "$0")" && pwd)
if ! python3 "$here/../installers/build_iperf2.py" --target linux; then
    if command -v iperf >/dev/null 2>&1; then
        say "iperf 2.2.1 could not be built (see above): LinkLab uses this machine's iperf 2" \
            "$(iperf -v 2>&1 | head -n1 | awk '{print $3}') instead, whose UDP server may crash" \
            "on Debian 12 (2.1.8)."
    else
        say "iperf 2.2.1 could not be built (see above) and no iperf 2 is installed."
    fi
fi

if [ "$with_test_tools" = 1 ]; then
    command -v nft >/dev/null 2>&1 || install_pkg nftables || say "nftables missing: the packet-loss test bed will be skipped"
    command -v tc >/dev/null 2>&1 || install_pkg iproute2 || say "iproute2 missing: the namespace test bed will be skipped"
    command -v ping >/dev/null 2>&1 || install_pkg iputils-ping || say "ping (iputils-ping) missing: the latency benchmark will not compare against it"
    # PostgreSQL's server programs for the class-store tests, which start their own cluster in
    # a temporary folder: no cluster of the package's own is created, and no service started.
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
        if install_pkg postgresql-common; then
            as_root mkdir -p /etc/postgresql-common/createcluster.d
            echo "create_main_cluster = false" | as_root tee /etc/postgresql-common/createcluster.d/linklab-tests.conf >/dev/null
        fi
        install_pkg postgresql || say "postgresql missing: the tests of a class kept in PostgreSQL will be skipped"
    fi
fi
exit $status
