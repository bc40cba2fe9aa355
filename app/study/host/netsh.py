"""`netsh wlan show interfaces` read in every display language LinkLab knows the words of
(app/study/host/netsh_words.py), its refusals included: Windows 11's location gate, the WLAN
AutoConfig service stopped, no Wi-Fi adapter. The fallback after the Native Wifi API."""

from __future__ import annotations

import re

from app.study.host import netsh_words as words
from app.study.host.wifi import (
    WifiInfo,
    frequency_from_channel,
    read_float,
    read_int,
    security_from_akm,
    security_from_text,
)
from app.study.host.wifi_reading import LOCATION_SETTINGS_URI, WifiReading, WifiState

SOURCE = "netsh wlan show interfaces"

_STANDARD = re.compile(r"802\.11[a-z]{1,2}", re.ASCII)
_PERCENT = re.compile(r"(\d{1,3})\s*%", re.ASCII)
_BAND = re.compile(r"\d{1,2}(?:[.,]\d)?\s*GHz", re.ASCII)
#: The refusal of Windows 11 24H2 and later names its Settings page and the API's error in
#: every language: "Function WlanQueryInterface returns error 5" (ERROR_ACCESS_DENIED).
_ACCESS_DENIED = re.compile(r"WlanQueryInterface\D{1,40}\b5\b")


class Block(dict[str, str]):
    """One interface's lines: {label key: value}, and the labels in the order printed."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list[str] = []

    def first(self, labels: frozenset[str]) -> str | None:
        return next((self[label] for label in self.order if label in labels), None)


def _blocks(text: str) -> list[Block]:
    """One Block per interface: each starts at its Name line (the first label with a value
    when the Name label is in no language known here). A line without a colon continues the
    line before it (Radio status prints "Software On" under "Hardware On")."""
    lines: list[tuple[str, str] | str] = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            continue
        label, colon, value = stripped.partition(":")  # labels hold no colon, values may
        lines.append((words.key(label), value.strip()) if colon else stripped)
    labelled = [line for line in lines if isinstance(line, tuple)]
    start = next((k for k, _v in labelled if k in words.NAME), None)
    if start is None:
        start = next((k for k, v in labelled if v), None)
    blocks: list[Block] = []
    last: str | None = None
    for line in lines:
        if isinstance(line, str):
            if blocks and last is not None:
                blocks[-1][last] += f" / {line}"
            continue
        label, value = line
        if label == start:
            blocks.append(Block())
        if blocks and label not in blocks[-1]:
            blocks[-1][label] = value
            blocks[-1].order.append(label)
            last = label
    return blocks


def _connected(block: Block) -> bool:
    """The State value, in a language known here; otherwise whether an SSID is shown, which
    netsh prints only for an associated interface."""
    state = words.key(block.first(words.STATE) or "")
    if state in words.CONNECTED:
        return True
    if state in words.NOT_CONNECTED:
        return False
    return bool(block.first(words.SSID))


def _radio_off(block: Block) -> bool:
    status = (block.first(words.RADIO_STATUS) or "").lower().split()
    return any(word in status for word in words.RADIO_OFF_WORDS)


def _security(block: Block) -> str | None:
    """The Authentication value as netsh printed it, when LinkLab can read it; else what the
    AKM suite or a cipher of none says (the same in every language)."""
    authentication = block.first(words.AUTHENTICATION)
    cipher = block.first(words.CIPHER) or ""
    if authentication is not None and words.key(authentication) in words.OPEN:
        authentication = "Open"
    if authentication is not None and cipher.upper().startswith("WEP"):
        return f"{authentication} WEP"  # "Open" or "Shared" authentication, WEP encryption
    if authentication is not None and security_from_text(authentication) is not None:
        return authentication
    akm = security_from_akm(block.first(words.AKM_CIPHER))
    if akm is not None:
        return akm
    if words.key(cipher) in words.NO_CIPHER:
        return "Open"
    return authentication


def _rate(block: Block) -> float | None:
    """The Transmit rate; in a language not known here, the second rate line (netsh prints
    the receive rate, then the transmit rate)."""
    value = block.first(words.TRANSMIT_RATE)
    if value is None:
        rates = [block[k] for k in block.order if k.endswith(words.RATE_UNITS)]
        value = rates[1] if len(rates) == 2 else None
    return read_float(value) if value is not None else None


def _shaped(block: Block, labels: frozenset[str], shape: re.Pattern[str]) -> str | None:
    """The labelled value if it has the shape; else the one value of that shape in the block."""
    labelled = block.first(labels)
    if labelled is not None:
        match = shape.fullmatch(labelled.replace(" ", "").replace("\u00a0", ""))
        return match.group(0) if match else None
    found = [v for v in block.values() if shape.fullmatch(v.replace("\u00a0", " ").strip())]
    return found[0] if len(found) == 1 else None


def _info(block: Block) -> WifiInfo:
    channel = read_int(block.first(words.CHANNEL) or "")
    band_text = _shaped(block, words.BAND, _BAND)
    band = read_float(band_text) if band_text else None
    signal = _shaped(block, words.SIGNAL, _PERCENT)
    rssi = block.first(words.RSSI)
    return WifiInfo(
        ssid=block.first(words.SSID) or None,
        security=_security(block),
        phy_rate_mbps=_rate(block),
        channel=channel,
        frequency_mhz=frequency_from_channel(channel, band),
        signal_dbm=read_int(rssi) if rssi is not None else None,
        signal_pct=read_int(signal) if signal else None,
        standard=_shaped(block, words.RADIO_TYPE, _STANDARD),
        interface=block.first(words.NAME) or None,
    )


def _reading(block: Block) -> WifiReading:
    name = block.first(words.NAME) or None
    if _connected(block):
        return WifiReading(WifiState.CONNECTED, SOURCE, name, _info(block))
    state = WifiState.RADIO_OFF if _radio_off(block) else WifiState.DISCONNECTED
    return WifiReading(state, SOURCE, name)


def _refusal(text: str) -> WifiReading | None:
    """netsh's words for a refusal as the outcome; None when it is not one."""
    if LOCATION_SETTINGS_URI in text or _ACCESS_DENIED.search(text):
        return WifiReading(WifiState.REFUSED_LOCATION, SOURCE, detail=_first_line(text))
    if "wlansvc" in text.lower():
        return WifiReading(WifiState.SERVICE_OFF, SOURCE, detail=_first_line(text))
    return None


def _first_line(text: str) -> str:
    """The first sentence netsh printed that is not its interface count (for a stored detail)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    said = [line for line in lines if not line.endswith(":")] or lines
    return said[0][:300] if said else ""


def read_netsh(text: str) -> list[WifiReading]:
    """Every interface netsh lists, or the one outcome that stands for all of them (a
    refusal, a stopped service, no adapter, words LinkLab cannot read)."""
    refusal = _refusal(text)
    if refusal is not None:
        return [refusal]
    blocks = _blocks(text)
    if not blocks:
        if "no wireless interface" in text.lower():
            return [WifiReading(WifiState.NO_ADAPTER, SOURCE, detail=_first_line(text))]
        return [WifiReading(WifiState.UNREADABLE, SOURCE, detail=_first_line(text))]
    return [_reading(block) for block in blocks]


def netsh_reading(text: str, interface: str | None = None) -> WifiReading:
    """The outcome for one interface (Windows names ignore case): an interface netsh does not
    list is not a Wi-Fi one. Without interface, the first connected one, else the first."""
    readings = read_netsh(text)
    if readings[0].interface is None:
        return readings[0]  # one outcome for every interface
    if interface is not None:
        for reading in readings:
            if (reading.interface or "").casefold() == interface.casefold():
                return reading
        return WifiReading(WifiState.NOT_WIRELESS, SOURCE, interface)
    connected = [r for r in readings if r.state is WifiState.CONNECTED]
    return (connected or readings)[0]


def parse_netsh_interfaces(text: str, interface: str | None = None) -> WifiInfo | None:
    """The connected interface's association (of that name, when interface is given), or None."""
    reading = netsh_reading(text, interface)
    return reading.info if reading.state is WifiState.CONNECTED else None
