"""The snapshot of this computer and its link to the peer that each measurement session records."""

from __future__ import annotations

import ipaddress
import platform
import socket
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil

from app.domain.plan import Medium
from app.engine.lan.netinfo import interface_addresses, interface_stats
from app.study.host import commands
from app.study.host.commands import COMMAND_TIMEOUT_S, CommandRunner, run_command
from app.study.host.netsh import parse_netsh_interfaces
from app.study.host.wifi import SECURITY_VALUES, WifiInfo, optional_int, optional_str
from app.study.host.wifi_linux import parse_iw_info, parse_iw_link, parse_nmcli_wifi
from app.study.host.wifi_query import WifiTools, query_wifi
from app.study.host.wifi_reading import WifiReading, WifiState

__all__ = [
    "COMMAND_TIMEOUT_S",
    "FORMAT_VERSION",
    "SECURITY_VALUES",
    "CommandRunner",
    "DetectedLink",
    "EnvironmentSnapshot",
    "WifiInfo",
    "WifiReading",
    "WifiState",
    "WifiTools",
    "capture",
    "commands",
    "detected_link",
    "interface_for_address",
    "no_route_reason",
    "parse_iw_info",
    "parse_iw_link",
    "parse_netsh_interfaces",
    "parse_nmcli_wifi",
    "query_wifi",
    "route_to",
    "run_command",
]

#: 2: the Wi-Fi outcome (wifi_reading) and whether the interface is wireless.
FORMAT_VERSION = 2


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
    wifi: WifiInfo | None = None  # the association, when connected
    detected_security: str | None = None  # one of SECURITY_VALUES
    #: What asking about the interface's Wi-Fi gave (connected, refused, not wireless, ...)
    #: and which tool or API said it.
    wifi_reading: WifiReading | None = None
    #: Whether the interface to the peer is a Wi-Fi one, where the system said so.
    interface_wireless: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict carrying format_version."""
        data = asdict(self)
        data["wifi_reading"] = self.wifi_reading.to_dict() if self.wifi_reading else None
        return {"format_version": FORMAT_VERSION, **data}

    @classmethod
    def from_dict(cls, data: object) -> EnvironmentSnapshot:
        """Read stored data: missing or wrongly typed values become None, extra keys are ignored."""
        d: Mapping[Any, Any] = data if isinstance(data, Mapping) else {}
        versions = d.get("engine_versions")
        security = d.get("detected_security")
        wifi = WifiInfo.from_dict(d.get("wifi"))
        wireless = d.get("interface_wireless")
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
            wifi=wifi,
            detected_security=security if security in SECURITY_VALUES else None,
            wifi_reading=WifiReading.from_dict(d.get("wifi_reading"), wifi),
            interface_wireless=wireless if isinstance(wireless, bool) else None,
        )


#: The Wi-Fi standards a snapshot names that are media of LinkLab's conditions.
_STANDARD_MEDIUM = {"802.11n": Medium.N, "802.11ac": Medium.AC, "802.11ax": Medium.AX}


@dataclass(frozen=True)
class DetectedLink:
    """What the system says of this computer's end of the link to the peer, each figure as
    what it is: a Wi-Fi PHY rate in use is the rate of that hop (the link rate a study of it
    is about); a wired adapter's speed is the adapter's nominal one (psutil's isup/speed, a
    veth's 10000 Mbit/s), never the path's, and is only shown as such."""

    interface: str
    medium: Medium | None  # the adapter's medium, where LinkLab's conditions name it
    rate_bps: int | None = None  # the Wi-Fi PHY rate in use
    adapter_speed_bps: int | None = None  # a wired adapter's nominal speed
    wireless: bool = False

    @property
    def medium_source(self) -> str:
        """What said the medium, as a condition records it: "eth0, a wired adapter"."""
        return f"{self.interface}, a {'Wi-Fi' if self.wireless else 'wired'} adapter"

    @property
    def rate_source(self) -> str:
        """What said the rate, as a condition records it: "wlan0's Wi-Fi PHY rate"."""
        return f"{self.interface}'s Wi-Fi PHY rate"


def detected_link(snapshot: EnvironmentSnapshot) -> DetectedLink | None:
    """Wi-Fi: its standard and the PHY rate in use; a wired interface: Ethernet, and its
    nominal speed as the adapter's; None when the system says nothing (the loopback)."""
    interface = snapshot.interface or ""
    wifi = snapshot.wifi
    if wifi is None and snapshot.interface_wireless:
        return None  # a Wi-Fi adapter whose PHY rate was not read: its speed is no line rate
    if wifi is not None:
        interface = wifi.interface or interface
        medium = _STANDARD_MEDIUM.get(wifi.standard or "")
        rate = wifi.phy_rate_mbps
        rate_bps = round(rate * 1e6) if rate and rate > 0 else None
        if medium is None and rate_bps is None:
            return None
        return DetectedLink(interface, medium, rate_bps, wireless=True)
    if snapshot.interface_speed_mbps and snapshot.interface_speed_mbps > 0:
        speed = snapshot.interface_speed_mbps * 1_000_000
        return DetectedLink(interface, Medium.ETHERNET, adapter_speed_bps=speed)
    return None


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


def no_route_reason(peer_host: str) -> str:
    """Why route_to found no way to peer_host, as words a sentence goes on with: "the name
    'lab-pc' could not be resolved", "this computer has no route to 10.0.0.9"."""
    host = peer_host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        if host and host.isprintable():
            socket.getaddrinfo(host, 9, type=socket.SOCK_DGRAM)
            return f"this computer has no route to {host}"
    except (OSError, UnicodeError, ValueError):
        pass
    return f"the name {host!r} could not be resolved"


def _link_stats(interface: str) -> tuple[int | None, int | None]:
    """(speed in Mbit/s, MTU); psutil reports 0 for a speed it does not know."""
    stats = interface_stats().get(interface)
    if stats is None:
        return None, None
    return (stats.speed or None), (stats.mtu or None)


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


def _no_api() -> None:
    return None


def capture(
    peer_host: str,
    engines: Mapping[str, str] | None = None,
    *,
    runner: CommandRunner | None = None,
    system: str | None = None,
    tools: WifiTools | None = None,
) -> EnvironmentSnapshot:
    """Record this computer and the link to peer_host; never raises, unknowns are None.

    engines maps engine names to the versions found ({"iperf3": "3.17.1"}). tools asks the
    Wi-Fi (this computer's by default); runner and system, when given, replace its text
    tools' runner and the system they are chosen for (tests replay recorded output).
    """
    os_name, os_version = _os_name_version()
    local, interface = route_to(peer_host)
    speed, mtu = _link_stats(interface) if interface else (None, None)
    tools = tools or WifiTools()
    if runner is not None or system is not None:
        # Recorded output replayed: the tools it came from are the ones asked, not the API.
        native = tools.native if runner is None else _no_api
        tools = WifiTools(runner or tools.runner, system or tools.system, native)
    reading = tools.reading(interface) if interface else None
    wifi = reading.info if reading is not None else None
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
        detected_security=reading.security if reading is not None else None,
        wifi_reading=reading,
        interface_wireless=reading.wireless if reading is not None else None,
    )
