"""What Linux's Wi-Fi tools say about an association: pure parsers over the captured text of
iw (link, info and the dev listing, Wi-Fi 7 multi-link included), NetworkManager's nmcli,
wpa_supplicant's wpa_cli and iwd's iwctl."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.study.host.wifi import (
    WifiInfo,
    WifiLink,
    channel_from_frequency,
    read_float,
    read_int,
)

_HEX_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})", re.ASCII)
_IW_CONNECTED = re.compile(r"^Connected to (\S+)(?: \(on ([^)\s]+)\))?", re.ASCII | re.MULTILINE)
_IW_BITRATE = re.compile(r"^([rt]x) bitrate:\s*(\d{1,9}(?:\.\d{1,9})?) MBit/s(.*)$", re.ASCII)
_IW_CHANNEL = re.compile(r"^channel (\d{1,9}) \((\d{1,9})(?:\.\d{1,9})? MHz\)", re.ASCII)
_IW_LINK = re.compile(r"^Link (\d{1,2}) BSSID (\S+)", re.ASCII)
_IW_INFO_LINK = re.compile(r"^-\s*link ID\s+(\d{1,2})\b", re.ASCII)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: What a rate line names, best PHY first: EHT is 802.11be, HE 802.11ax, VHT 802.11ac, HT 802.11n.
_IW_STANDARDS = (
    ("EHT-MCS", "802.11be"),
    ("HE-MCS", "802.11ax"),
    ("VHT-MCS", "802.11ac"),
    (" MCS ", "802.11n"),
)

#: The fields LinkLab asks nmcli for, in this order.
NMCLI_WIFI_FIELDS = ("ACTIVE", "SSID", "SECURITY", "CHAN", "FREQ", "RATE", "SIGNAL")
#: What nmcli's IN-USE and ACTIVE columns print for the row in use (LinkLab runs it in the C
#: locale; another locale's "tak" or "oui" is not read as yes).
_IN_USE = frozenset({"*", "yes"})


# -- nmcli --------------------------------------------------------------------------------------


def split_terse(line: str) -> list[str]:
    """Fields of an nmcli -t line: ':' separates, '\\:' and '\\\\' are a literal ':' and '\\'."""
    parts: list[str] = []
    current: list[str] = []
    chars = iter(line)
    for char in chars:
        if char == "\\":
            current.append(next(chars, "\\"))
        elif char == ":":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _nmcli_row(row: dict[str, str], interface: str | None) -> WifiInfo:
    security = row.get("SECURITY")
    return WifiInfo(
        ssid=row.get("SSID") or None,  # empty: a hidden network
        # Terse mode prints nothing for an open network, tabular "--": both are "--" here.
        security=None if security is None else (security.strip() or "--"),
        phy_rate_mbps=read_float(row.get("RATE", "")),
        channel=read_int(row.get("CHAN", "")),
        frequency_mhz=read_int(row.get("FREQ", "")),
        signal_pct=read_int(row.get("SIGNAL", "")),
        interface=interface or row.get("DEVICE") or None,
    )


def _in_use(row: dict[str, str]) -> bool:
    marks = (row.get("IN-USE", ""), row.get("ACTIVE", ""))
    return any(mark.strip().lower() in _IN_USE for mark in marks)


def parse_nmcli_terse(
    text: str, fields: Sequence[str], interface: str | None = None
) -> WifiInfo | None:
    """The row in use of `nmcli -t -f FIELDS dev wifi list`, read by the fields asked for;
    None when no row is in use."""
    names = [name.upper() for name in fields]
    for line in text.splitlines():
        parts = split_terse(line.rstrip("\r"))
        if len(parts) != len(names):
            continue
        row = dict(zip(names, parts, strict=True))
        if _in_use(row):
            return _nmcli_row(row, interface)
    return None


def parse_nmcli_wifi(text: str, interface: str | None) -> WifiInfo | None:
    """The active row of LinkLab's own `nmcli -t -f ACTIVE,SSID,SECURITY,CHAN,FREQ,RATE,SIGNAL
    dev wifi list`."""
    return parse_nmcli_terse(text, NMCLI_WIFI_FIELDS, interface)


def parse_nmcli_table(text: str, interface: str | None = None) -> WifiInfo | None:
    """The row in use of a tabular `nmcli dev wifi list` (a header line per device): each
    column is read from where its heading starts."""
    columns: list[tuple[str, int]] = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if line.lstrip().startswith(("IN-USE", "ACTIVE")) and "SSID" in line:
            columns = [(m.group(0), m.start()) for m in re.finditer(r"\S+", line)]
            continue
        if not columns or not line.strip():
            continue
        row = {}
        for index, (name, start) in enumerate(columns):
            end = columns[index + 1][1] if index + 1 < len(columns) else len(line)
            row[name] = line[start:end].strip()
        if _in_use(row):
            return _nmcli_row(row, interface)
    return None


# -- iw -----------------------------------------------------------------------------------------


def _iw_unescape(value: str) -> str:
    """iw prints SSID bytes it cannot show (and edge spaces) as \\xNN; SSIDs are mostly UTF-8."""
    raw = bytearray()
    position = 0
    for match in _HEX_ESCAPE.finditer(value):
        raw += value[position : match.start()].encode("utf-8", "surrogatepass")
        raw.append(int(match.group(1), 16))
        position = match.end()
    raw += value[position:].encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "replace")


def _one_link(links: list[WifiLink]) -> tuple[int | None, int | None]:
    """(channel, frequency) of the one link in use; (None, None) when several are, since
    which one carries the traffic is not said."""
    used = [link for link in links if link.frequency_mhz is not None or link.channel is not None]
    if len(used) != 1:
        return None, None
    link = used[0]
    return link.channel or channel_from_frequency(link.frequency_mhz), link.frequency_mhz


def parse_iw_link(text: str) -> WifiInfo | None:
    """`iw dev <if> link`: SSID, frequency, signal, rates; None when "Not connected.".

    A multi-link association prints each link's BSSID and frequency, then the MLD's own
    station figures (signal and rates of the association as a whole)."""
    connected = _IW_CONNECTED.search(text)
    if connected is None:
        return None
    ssid = frequency = signal = None
    rates: dict[str, float] = {}
    rank = len(_IW_STANDARDS)
    links: list[WifiLink] = []
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if line.startswith("SSID:"):
            ssid = _iw_unescape(line[len("SSID:") :].strip()) or None
        elif link := _IW_LINK.match(line):
            links.append(WifiLink(int(link.group(1))))
        elif line.startswith("freq:"):
            value = read_float(line[len("freq:") :])
            mhz = round(value) if value is not None else None
            if links:
                links[-1] = WifiLink(links[-1].link_id, mhz, channel_from_frequency(mhz))
            else:
                frequency = mhz
        elif line.startswith("signal:"):
            signal = read_int(line[len("signal:") :])
        elif match := _IW_BITRATE.match(line):
            rates[match.group(1)] = float(match.group(2))
            flags = f"{match.group(3)} "
            for index, (tag, _standard) in enumerate(_IW_STANDARDS):
                if tag in flags:
                    rank = min(rank, index)
    channel = None
    if links:
        channel, frequency = _one_link(links)
    return WifiInfo(
        ssid=ssid,
        phy_rate_mbps=rates.get("tx", rates.get("rx")),
        channel=channel,
        frequency_mhz=frequency,
        signal_dbm=signal,
        standard=_IW_STANDARDS[rank][1] if rank < len(_IW_STANDARDS) else None,
        interface=connected.group(2),
        links=tuple(links) if len(links) > 1 else (),
    )


def iw_link_not_connected(text: str) -> bool:
    """iw's own words for an interface that is associated with nothing."""
    return text.strip() == "Not connected."


@dataclass(frozen=True)
class IwInterface:
    """One interface of `iw dev` or `iw dev <if> info`."""

    name: str
    kind: str | None  # "managed", "AP", "P2P-device", ...
    info: WifiInfo


def _iw_interfaces(text: str) -> list[IwInterface]:
    found: list[IwInterface] = []
    name: str | None = None
    kind = ssid = None
    channel = frequency = None
    links: list[WifiLink] = []

    def close() -> None:
        if name is None:
            return
        link_channel, link_frequency = _one_link(links) if links else (channel, frequency)
        info = WifiInfo(
            ssid=ssid,
            channel=link_channel,
            frequency_mhz=link_frequency,
            interface=name,
            links=tuple(links) if len(links) > 1 else (),
        )
        found.append(IwInterface(name, kind, info))

    for raw_line in text.splitlines():
        line = raw_line.strip()
        if line.startswith("Interface ") or line.startswith("Unnamed/non-netdev interface"):
            close()
            words = line.split()
            name = words[1] if words[0] == "Interface" and len(words) == 2 else None
            kind = ssid = None
            channel = frequency = None
            links = []
        elif line.startswith("ssid "):
            ssid = _iw_unescape(line[len("ssid ") :].strip()) or None
        elif line.startswith("type "):
            kind = line[len("type ") :].strip() or None
        elif link := _IW_INFO_LINK.match(line):
            links.append(WifiLink(int(link.group(1))))
        elif match := _IW_CHANNEL.match(line):
            number, mhz = int(match.group(1)), int(match.group(2))
            if links:
                links[-1] = WifiLink(links[-1].link_id, mhz, number)
            else:
                channel, frequency = number, mhz
    close()
    return found


def parse_iw_info(text: str) -> WifiInfo | None:
    """`iw dev <if> info`: interface, SSID and channel (of the one link in use, for a
    multi-link association); None when it names no interface."""
    interfaces = _iw_interfaces(text)
    return interfaces[0].info if interfaces else None


def iw_dev_interfaces(text: str) -> frozenset[str]:
    """The wireless interface names `iw dev` lists."""
    return frozenset(interface.name for interface in _iw_interfaces(text))


def iw_dev_station(text: str) -> WifiInfo | None:
    """The associated station (client) interface `iw dev` lists, or None: an access point's
    SSID is the network it offers, not one this computer is connected to."""
    for interface in _iw_interfaces(text):
        if interface.kind == "managed" and interface.info.ssid is not None:
            return interface.info
    return None


# -- wpa_supplicant and iwd ---------------------------------------------------------------------


def _key_values(text: str, separator: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for raw in text.splitlines():
        key, sep, value = raw.partition(separator)
        if sep and key.strip():
            values.setdefault(key.strip(), value.strip())
    return values


@dataclass(frozen=True)
class SupplicantStatus:
    """What wpa_cli or iwctl said: connected or not, and the association's facts."""

    connected: bool
    info: WifiInfo


def parse_wpa_cli_status(text: str, interface: str) -> SupplicantStatus | None:
    """`wpa_cli -i IF status`: wpa_state, ssid, freq, key_mgmt (WPA2-PSK, SAE, NONE, ...);
    None when it is not wpa_cli's status (no wpa_state line)."""
    values = _key_values(text, "=")
    state = values.get("wpa_state")
    if state is None:
        return None
    if state != "COMPLETED":
        return SupplicantStatus(False, WifiInfo(interface=interface))
    frequency = read_int(values.get("freq", ""))
    key_mgmt = values.get("key_mgmt")
    if values.get("pairwise_cipher", "").upper().startswith("WEP"):
        # Static WEP keys (key_mgmt=NONE) or dynamic WEP ("IEEE 802.1X (no WPA)").
        key_mgmt = "WEP"
    elif key_mgmt is not None and key_mgmt.upper().startswith("FT-") and "SAE" not in key_mgmt:
        key_mgmt = f"WPA2 ({key_mgmt})"  # fast transition (802.11r) of PSK or EAP: RSN
    return SupplicantStatus(
        True,
        WifiInfo(
            ssid=values.get("ssid") or None,
            security=key_mgmt,
            frequency_mhz=frequency,
            channel=channel_from_frequency(frequency),
            interface=interface,
        ),
    )


def parse_iwctl_station(text: str, interface: str) -> SupplicantStatus | None:
    """`iwctl station IF show`: State, Connected network, Security, Frequency, RSSI,
    TxBitrate (kbit/s); None when it is not iwctl's station table (no State row)."""
    values: dict[str, str] = {}
    for raw in _ANSI.sub("", text).splitlines():
        words = raw.split()
        for label in ("Connected network", "ConnectedBss", "Frequency", "Security", "State"):
            if raw.strip().startswith(label + " "):
                values[label] = raw.strip()[len(label) :].strip()
        if len(words) >= 2 and words[0] in ("RSSI", "TxBitrate", "Channel", "TxMode"):
            values[words[0]] = " ".join(words[1:])
    state = values.get("State")
    if state is None:
        return None
    if state.split()[0] != "connected":
        return SupplicantStatus(False, WifiInfo(interface=interface))
    frequency = read_int(values.get("Frequency", ""))
    return SupplicantStatus(
        True,
        WifiInfo(
            ssid=values.get("Connected network") or None,
            security=values.get("Security"),
            phy_rate_mbps=_iwctl_rate(values.get("TxBitrate", "")),
            frequency_mhz=frequency,
            channel=read_int(values.get("Channel", "")) or channel_from_frequency(frequency),
            signal_dbm=read_int(values.get("RSSI", "")),
            standard=mode if (mode := values.get("TxMode", "")).startswith("802.11") else None,
            interface=interface,
        ),
    )


def _iwctl_rate(text: str) -> float | None:
    """iwctl's "866700 Kbit/s" in Mbit/s; a number without a unit it names is not read."""
    value = read_float(text)
    unit = text.split()[-1].lower() if text.split() else ""
    scale = {"kbit/s": 1e-3, "mbit/s": 1.0}.get(unit)
    return None if value is None or scale is None else round(value * scale, 1)


def ip_link_kind(text: str) -> str | None:
    """What `ip -d -j link show dev IF` says the interface is when that is no Wi-Fi one: its
    rtnetlink kind ("veth", "bridge", "vlan", "wireguard", ...) or a link type other than
    Ethernet's ("loopback", "none"); None when it says an Ethernet-like device without a kind,
    which a Wi-Fi adapter is too (cfg80211 makes its interfaces without one)."""
    try:
        links = json.loads(text)
    except ValueError:
        return None
    if not isinstance(links, list) or len(links) != 1 or not isinstance(links[0], dict):
        return None
    link = links[0]
    info = link.get("linkinfo")
    kind = info.get("info_kind") if isinstance(info, dict) else None
    if isinstance(kind, str) and kind:
        return kind
    link_type = link.get("link_type")
    if isinstance(link_type, str) and link_type not in ("", "ether"):
        return link_type
    return None
