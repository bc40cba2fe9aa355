"""What nmcli, iw and netsh say about a Wi-Fi link: pure parsers over their captured text."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

#: LinkLab's Wi-Fi security condition values, weakest first.
SECURITY_VALUES = ("open", "WEP", "WPA", "WPA2", "WPA3")

# Bounded digit runs: a number nobody prints must not become an int of 5,000 digits.
_INT = re.compile(r"\s*(-?\d{1,9})(?!\d)", re.ASCII)
_FLOAT = re.compile(r"\s*(-?\d{1,9}(?:\.\d{1,9})?)(?!\d)", re.ASCII)
_TOKEN = re.compile(r"[A-Za-z0-9]+", re.ASCII)
_HEX_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})", re.ASCII)
_IW_CONNECTED = re.compile(r"^Connected to (\S+)(?: \(on ([^)\s]+)\))?", re.ASCII | re.MULTILINE)
_IW_BITRATE = re.compile(r"^([rt]x) bitrate:\s*(\d{1,9}(?:\.\d{1,9})?) MBit/s(.*)$", re.ASCII)
_IW_CHANNEL = re.compile(r"^channel (\d{1,9}) \((\d{1,9})(?:\.\d{1,9})? MHz\)", re.ASCII)
#: What a rate line names, best PHY first: EHT is 802.11be, HE 802.11ax, VHT 802.11ac, HT 802.11n.
_IW_STANDARDS = (
    ("EHT-MCS", "802.11be"),
    ("HE-MCS", "802.11ax"),
    ("VHT-MCS", "802.11ac"),
    (" MCS ", "802.11n"),
)


@dataclass(frozen=True)
class WifiInfo:
    """One Wi-Fi association as the system tools report it; None where a tool did not say."""

    ssid: str | None = None
    security: str | None = None  # the tool's words: nmcli "WPA1 WPA2", netsh "WPA2-Personal"
    phy_rate_mbps: float | None = None  # transmit PHY rate (nmcli: the AP's top rate)
    channel: int | None = None
    frequency_mhz: int | None = None
    signal_dbm: int | None = None
    signal_pct: int | None = None
    standard: str | None = None  # "802.11ac"
    interface: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> WifiInfo | None:
        """Read stored data: anything that is not a mapping gives None, a wrong value None."""
        if not isinstance(data, Mapping):
            return None
        return cls(
            ssid=optional_str(data.get("ssid")),
            security=optional_str(data.get("security")),
            phy_rate_mbps=optional_float(data.get("phy_rate_mbps")),
            channel=optional_int(data.get("channel")),
            frequency_mhz=optional_int(data.get("frequency_mhz")),
            signal_dbm=optional_int(data.get("signal_dbm")),
            signal_pct=optional_int(data.get("signal_pct")),
            standard=optional_str(data.get("standard")),
            interface=optional_str(data.get("interface")),
        )


def optional_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def optional_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def optional_float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def merge_wifi(*infos: WifiInfo | None) -> WifiInfo | None:
    """Field by field, the first value any of infos knows; None when all are None."""
    present = [info for info in infos if info is not None]
    if not present:
        return None
    values: dict[str, Any] = {}
    for field in fields(WifiInfo):
        values[field.name] = next(
            (v for info in present if (v := getattr(info, field.name)) is not None), None
        )
    return replace(present[0], **values)


def security_from_text(text: str | None) -> str | None:
    """What nmcli, iw or netsh print for security, as one of SECURITY_VALUES; None if unknown.

    A WPA2/WPA3 transition network gives "WPA2": that is what most clients negotiate there,
    unless the text names SAE, WPA3's handshake.
    """
    if text is None:
        return None
    stripped = text.strip()
    if stripped in ("", "--"):  # nmcli: nothing (terse) or "--" (tabular) for an open network
        return "open"
    tokens = {token.upper() for token in _TOKEN.findall(stripped)}
    if "SAE" in tokens or "SUITE" in tokens:  # nmcli "WPA-EAP-SUITE-B-192" is WPA3-Enterprise
        return "WPA3"
    if "WPA3" in tokens:
        return "WPA2" if "WPA2" in tokens else "WPA3"
    if tokens & {"WPA2", "RSN"}:
        return "WPA2"
    if tokens & {"WPA", "WPA1"}:
        return "WPA"
    if tokens & {"WEP", "SHARED"}:  # netsh "Shared" is WEP shared-key authentication
        return "WEP"
    if "OPEN" in tokens:
        return "open"
    return None  # OWE ("Enhanced Open") and anything else is none of LinkLab's values


def channel_from_frequency(mhz: int | None) -> int | None:
    """The 802.11 channel number of a centre frequency in MHz (2.4, 5 and 6 GHz bands)."""
    if mhz is None:
        return None
    if mhz == 2484:
        return 14
    if 2412 <= mhz <= 2472 and mhz % 5 == 2:
        return (mhz - 2407) // 5
    if mhz == 5935:
        return 2
    if 5955 <= mhz <= 7115 and mhz % 5 == 0:
        return (mhz - 5950) // 5
    if 5150 <= mhz <= 5925 and mhz % 5 == 0:
        return (mhz - 5000) // 5
    return None


def frequency_from_channel(channel: int | None, band_ghz: float | None) -> int | None:
    """Centre frequency of a channel; without a band, 1-14 are 2.4 GHz and 32-177 are 5 GHz."""
    if channel is None or channel <= 0:
        return None
    if band_ghz is None:
        band_ghz = 2.4 if channel <= 14 else 5.0 if 32 <= channel <= 177 else None
    if band_ghz is None:
        return None
    if band_ghz < 3:
        if channel == 14:
            return 2484
        return 2407 + 5 * channel if channel <= 13 else None
    if band_ghz < 5.9:
        return 5000 + 5 * channel if channel <= 177 else None
    if channel == 2:
        return 5935
    return 5950 + 5 * channel if channel <= 233 else None


def _int(text: str) -> int | None:
    match = _INT.match(text)
    return int(match.group(1)) if match else None


def _float(text: str) -> float | None:
    match = _FLOAT.match(text)
    return float(match.group(1)) if match else None


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


def parse_nmcli_wifi(text: str, interface: str | None) -> WifiInfo | None:
    """The active row of `nmcli -t -f ACTIVE,SSID,SECURITY,CHAN,FREQ,RATE,SIGNAL dev wifi list`."""
    for line in text.splitlines():
        parts = split_terse(line.rstrip("\r"))
        if len(parts) != 7 or parts[0].strip().lower() != "yes":
            continue
        _active, ssid, security, chan, freq, rate, signal = parts
        return WifiInfo(
            ssid=ssid or None,  # empty: a hidden network
            security=security.strip() or "--",  # terse mode prints nothing for an open network
            phy_rate_mbps=_float(rate),
            channel=_int(chan),
            frequency_mhz=_int(freq),
            signal_pct=_int(signal),
            interface=interface,
        )
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


def parse_iw_link(text: str) -> WifiInfo | None:
    """`iw dev <if> link`: SSID, frequency, signal, rates; None when "Not connected."."""
    connected = _IW_CONNECTED.search(text)
    if connected is None:
        return None
    ssid = frequency = signal = None
    rates: dict[str, float] = {}
    rank = len(_IW_STANDARDS)
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if line.startswith("SSID:"):
            ssid = _iw_unescape(line[len("SSID:") :].strip()) or None
        elif line.startswith("freq:"):
            value = _float(line[len("freq:") :])
            frequency = round(value) if value is not None else None
        elif line.startswith("signal:"):
            signal = _int(line[len("signal:") :])
        elif match := _IW_BITRATE.match(line):
            rates[match.group(1)] = float(match.group(2))
            flags = f"{match.group(3)} "
            for index, (tag, _standard) in enumerate(_IW_STANDARDS):
                if tag in flags:
                    rank = min(rank, index)
    return WifiInfo(
        ssid=ssid,
        phy_rate_mbps=rates.get("tx", rates.get("rx")),
        frequency_mhz=frequency,
        signal_dbm=signal,
        standard=_IW_STANDARDS[rank][1] if rank < len(_IW_STANDARDS) else None,
        interface=connected.group(2),
    )


def parse_iw_info(text: str) -> WifiInfo | None:
    """`iw dev <if> info`: interface, SSID and channel; None when it names no interface."""
    interface = ssid = channel = frequency = None
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if line.startswith("Interface ") and interface is None:
            interface = line[len("Interface ") :].strip() or None
        elif line.startswith("ssid "):
            ssid = _iw_unescape(line[len("ssid ") :].strip()) or None
        elif match := _IW_CHANNEL.match(line):
            channel, frequency = int(match.group(1)), int(match.group(2))
    if interface is None:
        return None
    return WifiInfo(ssid=ssid, channel=channel, frequency_mhz=frequency, interface=interface)


def iw_dev_interfaces(text: str) -> frozenset[str]:
    """The wireless interface names `iw dev` lists."""
    names = set()
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if line.startswith("Interface ") and len(line.split()) == 2:
            names.add(line.split()[1])
    return frozenset(names)


# -- netsh --------------------------------------------------------------------------------------


def _netsh_blocks(text: str) -> list[dict[str, str]]:
    """One {lower-case label: value} per interface; each interface starts at its Name line."""
    blocks: list[dict[str, str]] = []
    for raw_line in text.splitlines():
        label, colon, value = raw_line.strip().partition(":")  # labels hold no colon, values may
        if not colon:
            continue  # headings, blank lines, "Software On" under "Radio status"
        key = label.strip().lower()
        if key == "name":
            blocks.append({})
        if blocks:
            blocks[-1].setdefault(key, value.strip())
    return blocks


def parse_netsh_interfaces(text: str, interface: str | None = None) -> WifiInfo | None:
    """`netsh wlan show interfaces` (English labels): the connected interface, or None.

    With interface, only the block of that name counts, so that a connected Wi-Fi adapter is
    not reported for a peer reached over Ethernet.
    """
    chosen = None
    for block in _netsh_blocks(text):
        if interface is not None and block.get("name", "").casefold() != interface.casefold():
            continue
        if block.get("state", "").lower() == "connected":
            chosen = block
            break
    if chosen is None:
        return None
    security = chosen.get("authentication") or None
    if security is not None and chosen.get("cipher", "").upper().startswith("WEP"):
        security = f"{security} WEP"  # "Open" or "Shared" authentication, WEP encryption
    channel = _int(chosen.get("channel", ""))
    band = _float(chosen.get("band", ""))
    radio = chosen.get("radio type", "").replace(" ", "")
    return WifiInfo(
        ssid=chosen.get("ssid") or None,
        security=security,
        phy_rate_mbps=_float(chosen.get("transmit rate (mbps)", "")),
        channel=channel,
        frequency_mhz=frequency_from_channel(channel, band),
        signal_dbm=_int(chosen.get("rssi", "")),
        signal_pct=_int(chosen.get("signal", "")),
        standard=radio or None,
        interface=chosen.get("name") or None,
    )
