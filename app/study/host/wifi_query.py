"""Asking this computer about its Wi-Fi: on Windows the Native Wifi API first and netsh as the
fallback; on Linux iw, then NetworkManager, wpa_supplicant or iwd for the security. One
outcome per interface (app/study/host/wifi_reading.py), never an exception."""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from app.study.host.commands import CommandRunner, run_command
from app.study.host.netsh import SOURCE as NETSH
from app.study.host.netsh import netsh_reading, read_netsh
from app.study.host.wifi import WifiInfo, channel_from_frequency, merge_wifi
from app.study.host.wifi_linux import (
    NMCLI_WIFI_FIELDS,
    ip_link_kind,
    iw_dev_interfaces,
    iw_link_not_connected,
    parse_iw_info,
    parse_iw_link,
    parse_iwctl_station,
    parse_nmcli_wifi,
    parse_wpa_cli_status,
)
from app.study.host.wifi_reading import WifiReading, WifiState
from app.study.host.wlanapi import NativeWifi, native_wifi

NETSH_ARGV = ("netsh", "wlan", "show", "interfaces")
NMCLI_WIFI_LIST = ("nmcli", "-t", "-f", ",".join(NMCLI_WIFI_FIELDS), "dev", "wifi", "list")
SYS_NET = Path("/sys/class/net")


def _default_native() -> NativeWifi | None:
    return native_wifi() if sys.platform == "win32" else None


@dataclass(frozen=True)
class WifiTools:
    """How this computer's Wi-Fi is asked. system is a platform.system() value choosing the
    tools; runner runs the text tools; native is the Native Wifi API (None: not asked). Tests
    replay real tools' output through runner with system="Windows" or "Linux"."""

    runner: CommandRunner = run_command
    system: str = field(default_factory=platform.system)
    native: Callable[[], NativeWifi | None] = _default_native
    sys_net: Path = SYS_NET

    def reading(self, interface: str) -> WifiReading:
        """The outcome for the interface that routes to the peer."""
        if self.system == "Windows":
            return self._windows(interface)
        if self.system == "Linux":
            return self._linux(interface)
        return WifiReading(
            WifiState.UNREADABLE,
            "LinkLab",
            interface,
            detail=f"LinkLab reads Wi-Fi on Windows and Linux, not on {self.system}",
        )

    def survey(self) -> list[WifiReading]:
        """Every Wi-Fi interface of this computer (`linklab doctor`), or the one outcome that
        stands for all of them (no adapter, a refusal, a stopped service)."""
        if self.system == "Windows":
            api = self.native()
            if api is not None:
                found = api.survey()
                if found and not _fall_back(found[0]):
                    return found
            text = self.runner(list(NETSH_ARGV))
            if text is None:
                return [_silent(None, NETSH)]
            return read_netsh(text)
        if self.system == "Linux":
            names = self._linux_wireless()
            if not names:
                return [WifiReading(WifiState.NO_ADAPTER, "/sys/class/net and iw dev")]
            return [self._linux(name) for name in sorted(names)]
        return [self.reading("")]

    # -- Windows ---------------------------------------------------------------------------
    def _windows(self, interface: str) -> WifiReading:
        api = self.native()
        asked = api.reading(interface) if api is not None else None
        if asked is not None and not _fall_back(asked):
            return asked
        text = self.runner(list(NETSH_ARGV))
        if text is None:
            return asked or _silent(interface, NETSH)
        found = netsh_reading(text, interface)
        if found.interface is None:
            found = replace(found, interface=interface)
        if asked is not None and found.state is WifiState.NOT_WIRELESS:
            return asked  # the API knew it is an 802.11 adapter; netsh did not list it
        return found

    # -- Linux -----------------------------------------------------------------------------
    def _linux_wireless(self) -> set[str]:
        names: set[str] = set()
        try:
            names |= {p.parent.name for p in self.sys_net.glob("*/wireless")}
        except OSError:
            pass
        listing = self.runner(["iw", "dev"])
        if listing is not None:
            names |= iw_dev_interfaces(listing)
        return names

    def _wireless_linux(self, interface: str) -> bool | None:
        """True or False where sysfs, iw or ip says; None when none of them can tell."""
        if "/" in interface or interface in (".", ".."):
            return None
        try:
            if (self.sys_net / interface / "wireless").exists():
                return True
            present = (self.sys_net / interface).exists()
        except (OSError, ValueError):
            present = False
        listing = self.runner(["iw", "dev"])
        if listing is not None and interface in iw_dev_interfaces(listing):
            return True
        if present or listing is not None:
            return False
        # No entry in this /sys (a network namespace of its own keeps the host's) and no iw:
        # the kernel's own word on the interface, which a veth or a bridge says it is.
        link = self.runner(["ip", "-d", "-j", "link", "show", "dev", interface])
        return False if link is not None and ip_link_kind(link) is not None else None

    def _rfkill_blocked(self, interface: str) -> bool:
        """Whether the interface's radio is switched off (rfkill, soft or hard)."""
        try:
            for state in (self.sys_net / interface / "phy80211").glob("rfkill*/*"):
                if state.name in ("soft", "hard") and state.read_text().strip() == "1":
                    return True
        except OSError:
            return False
        return False

    def _linux(self, interface: str) -> WifiReading:
        wireless = self._wireless_linux(interface)
        if wireless is False:
            return WifiReading(WifiState.NOT_WIRELESS, "/sys/class/net and iw dev", interface)
        if wireless is True and self._rfkill_blocked(interface):
            return WifiReading(WifiState.RADIO_OFF, "rfkill", interface)
        link_text = self.runner(["iw", "dev", interface, "link"])
        if link_text is not None and iw_link_not_connected(link_text):
            return WifiReading(WifiState.DISCONNECTED, f"iw dev {interface} link", interface)
        link = parse_iw_link(link_text) if link_text is not None else None
        told = [f"iw dev {interface} link"] if link is not None else []
        security, security_tool, connected = self._linux_security(interface)
        if link is None and connected is not True:
            if connected is False:
                return WifiReading(WifiState.DISCONNECTED, security_tool or "", interface)
            return _silent(interface, "iw, nmcli, wpa_cli and iwctl", wireless)
        if security_tool:
            told.append(security_tool)
        info_text = self.runner(["iw", "dev", interface, "info"]) if link is not None else None
        info = parse_iw_info(info_text) if info_text is not None else None
        # iw's rate is the one in use now (nmcli's is the AP's best), and only iw gives dBm;
        # the security comes from NetworkManager, wpa_supplicant or iwd.
        merged = merge_wifi(link, info, security) or WifiInfo()
        channel = merged.channel or channel_from_frequency(merged.frequency_mhz)
        merged = replace(merged, channel=channel, interface=interface)
        return WifiReading(WifiState.CONNECTED, " + ".join(told), interface, merged)

    def _linux_security(self, interface: str) -> tuple[WifiInfo | None, str | None, bool | None]:
        """(what the connection manager says, which one said it, connected or not)."""
        # --rescan no: a scan on the interface under test would disturb the measurement.
        nmcli = self.runner([*NMCLI_WIFI_LIST, "ifname", interface, "--rescan", "no"])
        if nmcli is not None:
            found = parse_nmcli_wifi(nmcli, interface)
            if found is not None:
                return found, "nmcli", True
        wpa = self.runner(["wpa_cli", "-i", interface, "status"])
        status = parse_wpa_cli_status(wpa, interface) if wpa is not None else None
        if status is not None:
            return (status.info if status.connected else None), "wpa_cli status", status.connected
        iwctl = self.runner(["iwctl", "station", interface, "show"])
        station = parse_iwctl_station(iwctl, interface) if iwctl is not None else None
        if station is not None:
            tool = "iwctl station show"
            return (station.info if station.connected else None), tool, station.connected
        return None, None, None


def _fall_back(reading: WifiReading) -> bool:
    """An API answer that netsh may improve on (it failed in a way netsh may not)."""
    return reading.state is WifiState.UNREADABLE


def _silent(interface: str | None, tools: str, wireless: bool | None = None) -> WifiReading:
    return WifiReading(
        WifiState.UNREADABLE,
        tools,
        interface,
        detail="no tool LinkLab asks gave an answer",
        wireless=wireless,
    )


def query_wifi(interface: str, tools: WifiTools | None = None) -> WifiReading:
    """The Wi-Fi outcome for interface on this computer (or with the tools given)."""
    return (tools or WifiTools()).reading(interface)
