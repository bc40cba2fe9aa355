"""The snapshot of this computer and its link to the peer that each measurement session records."""

from __future__ import annotations

import ipaddress
import os
import platform
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import psutil

from app.domain.plan import Medium
from app.engine.lan.netinfo import interface_addresses, interface_stats
from app.engine.process.process import child_environment, run_short
from app.study.host.wifi import (
    SECURITY_VALUES,
    WifiInfo,
    channel_from_frequency,
    iw_dev_interfaces,
    merge_wifi,
    optional_int,
    optional_str,
    parse_iw_info,
    parse_iw_link,
    parse_netsh_interfaces,
    parse_nmcli_wifi,
    security_from_text,
)

__all__ = [
    "COMMAND_TIMEOUT_S",
    "FORMAT_VERSION",
    "SECURITY_VALUES",
    "CommandRunner",
    "DetectedLink",
    "EnvironmentSnapshot",
    "WifiInfo",
    "capture",
    "detected_link",
    "interface_for_address",
    "parse_iw_info",
    "parse_iw_link",
    "parse_netsh_interfaces",
    "parse_nmcli_wifi",
    "query_wifi",
    "route_to",
    "run_command",
    "security_from_text",
]

FORMAT_VERSION = 1
COMMAND_TIMEOUT_S = 3.0

_NMCLI_WIFI_FIELDS = "ACTIVE,SSID,SECURITY,CHAN,FREQ,RATE,SIGNAL"
_NMCLI_WIFI_LIST = ("nmcli", "-t", "-f", _NMCLI_WIFI_FIELDS, "dev", "wifi", "list")

#: Runs one query tool from an argv list; returns its stdout, or None when it is missing or fails.
CommandRunner = Callable[[Sequence[str]], str | None]


@dataclass(frozen=True)
class EnvironmentSnapshot:
    """This computer and the link it uses to reach the peer; None wherever it is unknown."""

    os_name: str | None = None  # "Debian GNU/Linux 12 (bookworm)", "Windows 11"
    os_version: str | None = None  # kernel release on Linux, build on Windows
    hostname: str | None = None
    cpu_model: str | None = None
    cpu_count: int | None = None  # logical CPUs
    engine_versions: dict[str, str] = field(default_factory=dict)  # {"iperf3": "3.17.1"}
    interface: str | None = None  # the one that routes to the peer
    interface_speed_mbps: int | None = None
    interface_mtu: int | None = None
    local_address: str | None = None
    wifi: WifiInfo | None = None
    detected_security: str | None = None  # one of SECURITY_VALUES

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict carrying format_version."""
        return {"format_version": FORMAT_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, data: object) -> EnvironmentSnapshot:
        """Read stored data: missing or wrongly typed values become None, extra keys are ignored."""
        d: Mapping[Any, Any] = data if isinstance(data, Mapping) else {}
        versions = d.get("engine_versions")
        security = d.get("detected_security")
        return cls(
            os_name=optional_str(d.get("os_name")),
            os_version=optional_str(d.get("os_version")),
            hostname=optional_str(d.get("hostname")),
            cpu_model=optional_str(d.get("cpu_model")),
            cpu_count=optional_int(d.get("cpu_count")),
            engine_versions=(
                {k: v for k, v in versions.items() if isinstance(k, str) and isinstance(v, str)}
                if isinstance(versions, Mapping)
                else {}
            ),
            interface=optional_str(d.get("interface")),
            interface_speed_mbps=optional_int(d.get("interface_speed_mbps")),
            interface_mtu=optional_int(d.get("interface_mtu")),
            local_address=optional_str(d.get("local_address")),
            wifi=WifiInfo.from_dict(d.get("wifi")),
            detected_security=security if security in SECURITY_VALUES else None,
        )


#: The Wi-Fi standards a snapshot names that are media of LinkLab's conditions.
_STANDARD_MEDIUM = {"802.11n": Medium.N, "802.11ac": Medium.AC, "802.11ax": Medium.AX}


@dataclass(frozen=True)
class DetectedLink:
    """The link's rate as the system reports it, and its medium where LinkLab names it."""

    rate_bps: int
    medium: Medium | None


def detected_link(snapshot: EnvironmentSnapshot) -> DetectedLink | None:
    """Wi-Fi: the PHY rate in use; otherwise the interface's line rate (Ethernet); None when
    the system reports neither (the loopback has no rate)."""
    wifi = snapshot.wifi
    if wifi is not None:
        if not wifi.phy_rate_mbps or wifi.phy_rate_mbps <= 0:
            return None
        medium = _STANDARD_MEDIUM.get(wifi.standard or "")
        return DetectedLink(round(wifi.phy_rate_mbps * 1e6), medium)
    if snapshot.interface_speed_mbps and snapshot.interface_speed_mbps > 0:
        return DetectedLink(snapshot.interface_speed_mbps * 1_000_000, Medium.ETHERNET)
    return None


# -- running the query tools --------------------------------------------------------------------


def _which(name: str) -> str | None:
    found = shutil.which(name)
    if found is None and sys.platform.startswith("linux"):
        # iw lives in /usr/sbin, which is not on an ordinary user's PATH on Debian.
        found = shutil.which(name, path=os.pathsep.join(("/usr/sbin", "/sbin")))
    return found


def _query_env() -> dict[str, str] | None:
    """English words (nmcli's "yes") but the user's character set, so that SSIDs stay UTF-8."""
    if sys.platform == "win32":
        return None  # netsh speaks the Windows display language whatever the environment says
    env = child_environment("")
    everything = env.pop("LC_ALL", None)
    if everything:
        env["LC_CTYPE"] = everything
    env.pop("LANGUAGE", None)
    env["LC_MESSAGES"] = "C"
    return env


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        if sys.platform == "win32":
            return data.decode("oem", "replace")  # netsh writes the console's OEM code page
        return data.decode("utf-8", "replace")


def run_command(argv: Sequence[str]) -> str | None:
    """Run a short query tool (argv list, 3 s limit, no window); stdout, or None on any failure."""
    if isinstance(argv, str | bytes) or not argv:
        return None
    path = _which(argv[0])
    if path is None:
        return None
    try:
        done = run_short([path, *argv[1:]], timeout=COMMAND_TIMEOUT_S, env=_query_env())
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if done.returncode != 0:
        return None
    return _decode(done.stdout)


# -- the route to the peer ----------------------------------------------------------------------


def interface_for_address(address: str) -> str | None:
    """The interface that holds a local address (an IPv6 %zone names it when it is ambiguous)."""
    text, _, zone = address.partition("%")
    try:
        wanted = ipaddress.ip_address(text)
    except ValueError:
        return None
    table = interface_addresses()
    matches = []
    for name, addrs in table.items():
        for addr in addrs:
            if addr.family not in (socket.AF_INET, socket.AF_INET6):
                continue
            try:
                if ipaddress.ip_address(addr.address.partition("%")[0]) == wanted:
                    matches.append(name)
            except ValueError:
                continue
    if zone in matches:
        return zone
    return matches[0] if matches else None


def route_to(peer_host: str) -> tuple[str | None, str | None]:
    """(local address, interface) this computer uses to reach peer_host.

    A UDP socket's connect() only asks the routing table: no packet is sent.
    """
    host = peer_host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or not host.isprintable():
        # Windows' resolver ends a name at a NUL and answers "" with this computer's own
        # addresses: a name with a control character in it is no peer's.
        return None, None
    try:
        candidates = socket.getaddrinfo(host, 9, type=socket.SOCK_DGRAM)
    except (OSError, UnicodeError, ValueError):
        return None, None
    for family, kind, proto, _name, sockaddr in candidates:
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.connect(sockaddr)
                local = str(sock.getsockname()[0])
        except OSError:
            continue
        return local, interface_for_address(local)
    return None, None


def _link_stats(interface: str) -> tuple[int | None, int | None]:
    """(speed in Mbit/s, MTU); psutil reports 0 for a speed it does not know."""
    stats = interface_stats().get(interface)
    if stats is None:
        return None, None
    return (stats.speed or None), (stats.mtu or None)


# -- Wi-Fi --------------------------------------------------------------------------------------


def _is_wireless_linux(interface: str, runner: CommandRunner) -> bool:
    if "/" not in interface and interface not in (".", ".."):
        try:
            if Path("/sys/class/net", interface, "wireless").exists():
                return True
        except (OSError, ValueError):
            pass  # unreadable sysfs: ask iw instead
    listing = runner(["iw", "dev"])
    return listing is not None and interface in iw_dev_interfaces(listing)


def _query_linux(interface: str, runner: CommandRunner) -> WifiInfo | None:
    if not _is_wireless_linux(interface, runner):
        return None
    link_text = runner(["iw", "dev", interface, "link"])
    link = parse_iw_link(link_text) if link_text is not None else None
    # --rescan no: a scan on the interface under test would disturb the measurement.
    nmcli_text = runner([*_NMCLI_WIFI_LIST, "ifname", interface, "--rescan", "no"])
    nmcli = parse_nmcli_wifi(nmcli_text, interface) if nmcli_text is not None else None
    if link is None and nmcli is None:
        return WifiInfo(interface=interface)  # wireless, but nothing says more
    info_text = runner(["iw", "dev", interface, "info"])
    info = parse_iw_info(info_text) if info_text is not None else None
    # iw's rate is the one in use now (nmcli's is the AP's best), and only iw gives dBm;
    # only nmcli gives security and signal %.
    merged = merge_wifi(link, info, nmcli) or WifiInfo()
    channel = merged.channel or channel_from_frequency(merged.frequency_mhz)
    return replace(merged, channel=channel, interface=interface)


def query_wifi(
    interface: str, *, runner: CommandRunner = run_command, system: str | None = None
) -> WifiInfo | None:
    """Wi-Fi facts for interface, or None when it is not wireless (or the system is unsupported).

    system is a platform.system() value choosing the tools (default: this computer's); tests
    pass "Windows" to replay netsh output on Linux.
    """
    system = system or platform.system()
    if system == "Linux":
        return _query_linux(interface, runner)
    if system == "Windows":
        text = runner(["netsh", "wlan", "show", "interfaces"])
        return parse_netsh_interfaces(text, interface) if text is not None else None
    return None


# -- this computer ------------------------------------------------------------------------------


def _os_name_version() -> tuple[str, str | None]:
    system = platform.system()
    if system == "Linux":
        try:
            release = platform.freedesktop_os_release()
        except OSError:
            release = {}
        return release.get("PRETTY_NAME") or release.get("NAME") or "Linux", platform.release()
    if system == "Windows":
        version = platform.version()  # "10.0.22631"
        name = platform.release()
        build = version.rpartition(".")[2]
        if name == "10" and build.isdigit() and int(build) >= 22000:
            name = "11"  # Python before 3.12 calls Windows 11 "10"
        return f"Windows {name}", version or None
    if system == "Darwin":
        return "macOS", platform.mac_ver()[0] or platform.release() or None
    return system or sys.platform, platform.release() or None


def _cpuinfo_model(text: str) -> str | None:
    """The CPU's name in /proc/cpuinfo: x86 "model name"; ARM boards "Model" or "Hardware"."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        if colon and value.strip():
            values.setdefault(key.strip().lower(), value.strip())
    for key in ("model name", "model", "hardware", "cpu model", "processor", "cpu"):
        value = values.get(key, "")
        if value and not value.isdigit():  # x86 "processor : 0" is an index, not a name
            return value
    return None


def _cpu_model() -> str:
    if sys.platform.startswith("linux"):
        try:
            model = _cpuinfo_model(Path("/proc/cpuinfo").read_text(errors="replace"))
        except OSError:
            model = None
        if model:
            return model
    # Windows: "Intel64 Family 6 Model 140 Stepping 1, GenuineIntel", the PROCESSOR_IDENTIFIER
    # that platform.processor() reads there (the brand name is only in the registry, which
    # LinkLab does not read).
    candidates = (platform.processor(), platform.machine())
    return next((c.strip() for c in candidates if c and c.strip()), "unknown")


def _cpu_count() -> int | None:
    try:
        return psutil.cpu_count(logical=True)
    except (OSError, psutil.Error):
        return None


def capture(
    peer_host: str,
    engines: Mapping[str, str] | None = None,
    *,
    runner: CommandRunner = run_command,
    system: str | None = None,
) -> EnvironmentSnapshot:
    """Record this computer and the link to peer_host; never raises, unknowns are None.

    engines maps engine names to the versions found ({"iperf3": "3.17.1"}). runner and system
    are passed to query_wifi.
    """
    os_name, os_version = _os_name_version()
    local, interface = route_to(peer_host)
    speed, mtu = _link_stats(interface) if interface else (None, None)
    wifi = query_wifi(interface, runner=runner, system=system) if interface else None
    return EnvironmentSnapshot(
        os_name=os_name,
        os_version=os_version,
        hostname=platform.node() or None,
        cpu_model=_cpu_model(),
        cpu_count=_cpu_count(),
        engine_versions={str(k): str(v) for k, v in (engines or {}).items()},
        interface=interface,
        interface_speed_mbps=speed,
        interface_mtu=mtu,
        local_address=local,
        wifi=wifi,
        detected_security=security_from_text(wifi.security) if wifi else None,
    )
