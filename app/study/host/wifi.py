"""One Wi-Fi association as typed values, and what the readers share: LinkLab's security
values from a tool's or an API's words, channels and frequencies, numbers read with bounds."""

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
_FLOAT = re.compile(r"\s*(-?\d{1,9}(?:[.,]\d{1,9})?)(?!\d)", re.ASCII)
_TOKEN = re.compile(r"[A-Za-z0-9]+", re.ASCII)


@dataclass(frozen=True)
class WifiLink:
    """One link of a Wi-Fi 7 multi-link (MLO) association, as far as the tool said."""

    link_id: int
    frequency_mhz: int | None = None
    channel: int | None = None

    @classmethod
    def from_dict(cls, data: object) -> WifiLink | None:
        if not isinstance(data, Mapping) or optional_int(data.get("link_id")) is None:
            return None
        return cls(
            link_id=int(data["link_id"]),
            frequency_mhz=optional_int(data.get("frequency_mhz")),
            channel=optional_int(data.get("channel")),
        )


@dataclass(frozen=True)
class WifiInfo:
    """One Wi-Fi association as the system reports it; None where nothing said.

    With several links (Wi-Fi 7 multi-link), channel and frequency stay None unless one link
    alone is in use: the links are listed, and no link's figures stand for the whole."""

    ssid: str | None = None
    security: str | None = None  # the tool's words: nmcli "WPA1 WPA2", netsh "WPA2-Personal"
    phy_rate_mbps: float | None = None  # transmit PHY rate (nmcli: the AP's top rate)
    channel: int | None = None
    frequency_mhz: int | None = None
    signal_dbm: int | None = None
    signal_pct: int | None = None
    standard: str | None = None  # "802.11ac"
    interface: str | None = None
    links: tuple[WifiLink, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> WifiInfo | None:
        """Read stored data: anything that is not a mapping gives None, a wrong value None."""
        if not isinstance(data, Mapping):
            return None
        links = data.get("links")
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
            links=tuple(
                link
                for item in (links if isinstance(links, list) else [])
                if (link := WifiLink.from_dict(item)) is not None
            ),
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
            (v for info in present if (v := getattr(info, field.name)) not in (None, ())),
            getattr(present[0], field.name),
        )
    return replace(present[0], **values)


def security_from_text(text: str | None) -> str | None:
    """What nmcli, iw, wpa_cli, iwctl or netsh print for security, as one of SECURITY_VALUES;
    None if unknown.

    A WPA2/WPA3 transition network gives "WPA2": that is what most clients negotiate there,
    unless the text names SAE, WPA3's handshake.
    """
    if text is None:
        return None
    stripped = text.strip()
    if stripped in ("", "--"):  # nmcli: nothing (terse) or "--" (tabular) for an open network
        return "open"
    tokens = {token.upper() for token in _TOKEN.findall(stripped)}
    if tokens & {"SAE", "SUITE", "FT-SAE"}:  # nmcli "WPA-EAP-SUITE-B-192" is WPA3-Enterprise
        return "WPA3"
    if "WPA3" in tokens:
        return "WPA2" if "WPA2" in tokens else "WPA3"
    if tokens & {"WPA2", "RSN"}:
        return "WPA2"
    if tokens & {"WPA", "WPA1"}:
        return "WPA"
    if tokens & {"WEP", "WEP40", "WEP104", "SHARED"}:  # netsh "Shared": WEP shared-key
        return "WEP"
    if tokens & {"OPEN", "NONE"}:  # wpa_cli key_mgmt=NONE: no key at all
        return "open"
    return None  # OWE ("Enhanced Open") and anything else is none of LinkLab's values


#: IEEE 802.11 AKM suite selectors (OUI 00-0f-ac) that name a security of their own: PSK and
#: 802.1X are WPA2 (their SHA-256 and FT variants too), SAE and Suite B are WPA3. netsh's
#: "Connected Akm-cipher" line prints them the same in every display language.
AKM_SECURITY = {1: "WPA2", 2: "WPA2", 3: "WPA2", 4: "WPA2", 5: "WPA2", 6: "WPA2"}
AKM_SECURITY |= {8: "WPA3", 9: "WPA3", 11: "WPA3", 12: "WPA3", 24: "WPA3", 25: "WPA3"}
#: The WPA (version 1) OUI's suites: 1 is 802.1X, 2 PSK.
WPA1_OUI = "00-50-f2"
RSN_OUI = "00-0f-ac"
_AKM = re.compile(r"akm\s*=\s*([0-9a-fA-F]{2}-[0-9a-fA-F]{2}-[0-9a-fA-F]{2}):(\d{1,3})", re.ASCII)


def security_from_akm(text: str | None) -> str | None:
    """netsh's "[ akm = 00-0f-ac:02, cipher = 00-0f-ac:04 ]" as one of SECURITY_VALUES."""
    match = _AKM.search(text or "")
    if match is None:
        return None
    oui, suite = match.group(1).lower(), int(match.group(2))
    if oui == WPA1_OUI and suite in (1, 2):
        return "WPA"
    return AKM_SECURITY.get(suite) if oui == RSN_OUI else None


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


def read_int(text: str) -> int | None:
    """The whole number text starts with (after spaces), bounded to 9 digits."""
    match = _INT.match(text)
    return int(match.group(1)) if match else None


def read_float(text: str) -> float | None:
    """The number text starts with; a decimal comma ("2,4" in French or Spanish) reads too."""
    match = _FLOAT.match(text)
    return float(match.group(1).replace(",", ".")) if match else None
