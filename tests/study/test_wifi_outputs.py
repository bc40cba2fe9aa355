"""Every real query-tool output in ../shared/wifi-outputs/ (netsh in several display languages
and its Windows 11 refusals, iw, nmcli; sources in its MANIFEST.md) read as its expected.json
says: the state, and each value the output itself states.

These are other projects' files: they are read in place, never copied here, and the tests
skip (saying why) where the folder is absent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.study.host.netsh import netsh_reading
from app.study.host.wifi import WifiInfo, security_from_text
from app.study.host.wifi_linux import (
    iw_dev_station,
    iw_link_not_connected,
    parse_iw_info,
    parse_iw_link,
    parse_nmcli_table,
    parse_nmcli_terse,
)
from app.study.host.wifi_reading import WifiReading, WifiState

OUTPUTS = Path(__file__).resolve().parents[3] / "shared" / "wifi-outputs"
EXPECTED: dict[str, dict[str, Any]] = (
    json.loads((OUTPUTS / "expected.json").read_text(encoding="utf-8"))
    if (OUTPUTS / "expected.json").is_file()
    else {}
)
needs_outputs = pytest.mark.skipif(
    not EXPECTED, reason=f"the shared Wi-Fi outputs are not here ({OUTPUTS})"
)

#: The -f fields of each terse nmcli output, from the command MANIFEST.md gives for it: a
#: terse line is read by the fields asked for, as LinkLab reads its own query.
TERSE_FIELDS = {
    "nmcli-linux-terse-active-ssid-bssid-chan-freq-signal-security-flags.txt": (
        "ACTIVE,SSID,BSSID,MODE,CHAN,FREQ,SIGNAL,SECURITY,WPA-FLAGS,RSN-FLAGS"
    ),
    # COMMON of the nmcli that printed it (the BAND column came with Wi-Fi 6 GHz support).
    "nmcli-linux-C-terse-common-dev-wifi-list-mockdaemon.txt": (
        "IN-USE,BSSID,SSID,MODE,BAND,CHAN,RATE,SIGNAL,BARS,SECURITY"
    ),
    "nmcli-linux-plPL-terse-all-dev-wifi-list-mockdaemon.txt": (
        "NAME,SSID,SSID-HEX,BSSID,MODE,CHAN,BAND,FREQ,RATE,BANDWIDTH,SIGNAL,BARS,SECURITY,"
        "WPA-FLAGS,RSN-FLAGS,DEVICE,ACTIVE,IN-USE,DBUS-PATH"
    ),
    "nmcli-linux-terse-dev-wifi-list-default-fields-EDITED.txt": (
        "IN-USE,BSSID,SSID,MODE,CHAN,RATE,SIGNAL,BARS,SECURITY"
    ),
}


def read(name: str) -> str:
    """The file exactly as stored (binary read: a CRLF or a no-break space stays)."""
    return (OUTPUTS / name).read_bytes().decode("utf-8")


def outcome(name: str) -> tuple[str, WifiInfo | None]:
    """(state, association) the reader for the file's tool makes of it."""
    text = read(name)
    if name.startswith("netsh-"):
        reading = netsh_reading(text)
        return reading.state.value, reading.info
    if name.startswith("iw-link-"):
        info = parse_iw_link(text)
        if info is None:
            assert iw_link_not_connected(text), "neither connected nor iw's 'Not connected.'"
        return ("connected" if info else "disconnected"), info
    if name.startswith("iw-info-"):
        info = parse_iw_info(text)
        return ("connected" if info and info.ssid else "disconnected"), info
    if name.startswith("iw-dev-"):
        info = iw_dev_station(text)
        return ("connected" if info else "disconnected"), info
    if name in TERSE_FIELDS:
        info = parse_nmcli_terse(text, TERSE_FIELDS[name].split(","))
    else:
        info = parse_nmcli_table(text)
    return ("connected" if info else "disconnected"), info


def stated(info: WifiInfo) -> dict[str, Any]:
    """The association in expected.json's keys (security as LinkLab's value)."""
    return {
        "ssid": info.ssid,
        "security": security_from_text(info.security),
        "channel": info.channel,
        "frequency_mhz": info.frequency_mhz,
        "signal_pct": info.signal_pct,
        "signal_dbm": info.signal_dbm,
        "tx_rate_mbps": info.phy_rate_mbps,
        "standard": info.standard,
        "interface": info.interface,
    }


#: Values LinkLab works out rather than reads: a frequency from a channel and its band (netsh
#: prints "Band : 5 GHz" and the channel, not the MHz), a channel from a frequency (iw).
#: expected.json leaves them out, since the output does not print them.
WORKED_OUT = frozenset({"frequency_mhz", "channel"})


@needs_outputs
def test_every_file_has_its_expectation() -> None:
    files = {p.name for p in OUTPUTS.glob("*.txt")}
    assert files == set(EXPECTED), "a file without its expectation, or one gone"
    assert len(files) == 34


@needs_outputs
@pytest.mark.parametrize("name", sorted(EXPECTED) or ["(none)"])
def test_each_output_is_read_as_it_states(name: str) -> None:
    expected = EXPECTED[name]
    state, info = outcome(name)
    assert state == expected["state"]
    if info is None:
        assert set(expected) == {"state"}, "values stated, none read"
        return
    got = stated(info)
    for key, value in expected.items():
        if key != "state":
            assert got[key] == value, key
    # Nothing read that the output does not say (nor worked out from what it says).
    invented = {k: v for k, v in got.items() if v is not None and k not in expected}
    assert set(invented) <= WORKED_OUT, invented


@needs_outputs
def test_the_refusals_are_outcomes_that_say_what_to_do() -> None:
    location = netsh_reading(read("netsh-win11-en-location-denied-accessdenied-tail.txt"))
    assert location.state is WifiState.REFUSED_LOCATION and location.info is None
    assert location.needs_location
    assert "Privacy & security › Location" in location.sentence()
    assert "state the security yourself" in location.sentence()
    service = netsh_reading(read("netsh-win-en-wlansvc-not-running-LITERAL.txt"))
    assert service.state is WifiState.SERVICE_OFF and service.info is None
    assert "WLAN AutoConfig" in service.sentence() and "Start" in service.sentence()
    # A refusal concerns every interface: asked for the routed one, it is the answer still.
    for name in (
        "netsh-win11-en-location-denied-accessdenied-tail.txt",
        "netsh-win-en-wlansvc-not-running-LITERAL.txt",
    ):
        assert netsh_reading(read(name), "Wi-Fi").state.value == EXPECTED[name]["state"]
    assert WifiReading.from_dict(location.to_dict()) == location


LOCALIZED = (
    "netsh-win11-de-connected-wpa2enterprise.txt",
    "netsh-win11-fr-connected-open.txt",
    "netsh-win11-es-connected-open.txt",
    "netsh-win-ja-connected-wpa2-MOCK-handmade.txt",
)


@needs_outputs
@pytest.mark.parametrize("name", LOCALIZED)
def test_another_language_loses_no_condition_an_english_output_gives(name: str) -> None:
    """Every condition an English Windows 11 capture gives, a localized one gives too
    (Rssi aside: these builds do not print it)."""
    english = netsh_reading(read("netsh-win11-en-ax201-wpa2-5ghz-23h2.txt")).info
    localized = netsh_reading(read(name)).info
    assert english is not None and localized is not None
    given = {k for k, v in stated(english).items() if v is not None}
    if name.startswith("netsh-win-ja"):
        given -= {"frequency_mhz"}  # its layout (Windows 10) prints no band: channel 1 alone
    assert given <= {k for k, v in stated(localized).items() if v is not None}


@needs_outputs
@pytest.mark.parametrize("name", LOCALIZED[:3])
def test_labels_in_a_language_not_known_are_read_by_their_shapes(name: str) -> None:
    """Labels swapped for words in no language LinkLab knows: the values whose shape says
    what they are (802.11ax, 81%, 5 GHz, the two rates) are still read, the rest is left
    unknown rather than guessed."""
    lines = []
    for number, line in enumerate(read(name).splitlines()):
        label, colon, value = line.partition(":")
        if not colon or label.strip() == "SSID":  # SSID: untranslated in every language
            lines.append(line)
            continue
        unit = " (Mbps)" if "(M" in label else ""  # a rate's unit stays on its label
        lines.append(f"   Xq{number}{unit} : {value}")
    known = netsh_reading(read(name)).info
    shaped = netsh_reading("\n".join(lines)).info
    assert known is not None and shaped is not None
    assert shaped.ssid == known.ssid
    assert shaped.standard == known.standard
    assert shaped.signal_pct == known.signal_pct
    assert shaped.phy_rate_mbps == known.phy_rate_mbps
    assert shaped.channel is None and shaped.security is None  # not guessed
