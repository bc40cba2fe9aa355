"""Environment snapshot: Wi-Fi parsers on recorded tool output (tests/data/wifi), capture() on
this machine and with recorded output replayed through its command runner, stored-data reading."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.lan.netinfo import ipv6_available
from app.study.host import commands
from app.study.host.environment import (
    FORMAT_VERSION,
    EnvironmentSnapshot,
    WifiInfo,
    WifiReading,
    WifiState,
    WifiTools,
    capture,
    no_route_reason,
    parse_iw_info,
    parse_iw_link,
    parse_netsh_interfaces,
    parse_nmcli_wifi,
    query_wifi,
    run_command,
)
from app.study.host.wifi import (
    channel_from_frequency,
    frequency_from_channel,
    merge_wifi,
    security_from_text,
)
from app.study.host.wifi_linux import iw_dev_interfaces, split_terse
from tests.conftest import DATA

WIFI = DATA / "wifi"
LINUX = sys.platform.startswith("linux")


def read(name: str) -> str:
    """A fixture exactly as stored: binary read, so that netsh's CRLF survives."""
    return (WIFI / name).read_bytes().decode("utf-8")


# -- nmcli --------------------------------------------------------------------------------------


def test_nmcli_wpa2_80211n_picks_the_active_row() -> None:
    assert parse_nmcli_wifi(read("nmcli_wpa2_80211n.txt"), "wlan0") == WifiInfo(
        ssid="LabNet-2G",
        security="WPA2",
        phy_rate_mbps=130.0,
        channel=6,
        frequency_mhz=2437,
        signal_pct=74,
        interface="wlan0",
    )


def test_nmcli_open_network_has_empty_security() -> None:
    info = parse_nmcli_wifi(read("nmcli_open.txt"), "wlan0")
    assert info == WifiInfo(
        ssid="Cafe Guest",
        security="--",
        phy_rate_mbps=54.0,
        channel=1,
        frequency_mhz=2412,
        signal_pct=67,
        interface="wlan0",
    )
    assert security_from_text(info.security) == "open"


def test_nmcli_escaped_colons_in_ssid() -> None:
    assert parse_nmcli_wifi(read("nmcli_ssid_colon.txt"), "wlp2s0") == WifiInfo(
        ssid="Lab:5G:Floor 2",
        security="WPA3",
        phy_rate_mbps=866.0,
        channel=36,
        frequency_mhz=5180,
        signal_pct=84,
        interface="wlp2s0",
    )
    rows = [split_terse(line) for line in read("nmcli_ssid_colon.txt").splitlines()]
    assert [row[1] for row in rows] == ["Lab:2G", "Lab:5G:Floor 2", "back\\slash"]
    assert all(len(row) == 7 for row in rows)


def test_nmcli_without_an_active_row() -> None:
    inactive = read("nmcli_wpa2_80211n.txt").replace("yes:", "no:")
    assert parse_nmcli_wifi(inactive, "wlan0") is None
    assert parse_nmcli_wifi("", "wlan0") is None
    assert parse_nmcli_wifi("yes:too:few:fields", "wlan0") is None


# -- iw -----------------------------------------------------------------------------------------


def test_iw_link_connected_80211n() -> None:
    assert parse_iw_link(read("iw_link_connected.txt")) == WifiInfo(
        ssid="LabNet-2G",
        phy_rate_mbps=144.4,
        frequency_mhz=2437,
        signal_dbm=-58,
        standard="802.11n",
        interface="wlan0",
    )


def test_iw_link_vht_with_escaped_ssid_and_decimal_frequency() -> None:
    assert parse_iw_link(read("iw_link_vht.txt")) == WifiInfo(
        ssid="Café Lab",
        phy_rate_mbps=780.0,
        frequency_mhz=5180,
        signal_dbm=-49,
        standard="802.11ac",
        interface="wlp2s0",
    )


def test_iw_link_not_connected() -> None:
    assert parse_iw_link(read("iw_link_not_connected.txt")) is None
    assert parse_iw_link("") is None


def test_iw_link_standards_from_rate_flags() -> None:
    base = "Connected to 02:00:00:00:01:00 (on wlan0)\n\ttx bitrate: {}\n"
    cases = {
        "2401.9 MBit/s 160MHz HE-MCS 11 HE-NSS 2 HE-GI 0 HE-DCM 0": "802.11ax",
        "2882.4 MBit/s 320MHz EHT-MCS 13 EHT-NSS 2 EHT-GI 0": "802.11be",
        "54.0 MBit/s": None,
    }
    for rate, standard in cases.items():
        info = parse_iw_link(base.format(rate))
        assert info is not None and info.standard == standard


def test_iw_info_and_dev_listing() -> None:
    assert parse_iw_info(read("iw_info.txt")) == WifiInfo(
        ssid="LabNet-2G", channel=6, frequency_mhz=2437, interface="wlan0"
    )
    assert parse_iw_info("command failed: No such device (-19)") is None
    assert iw_dev_interfaces(read("iw_dev.txt")) == {"wlan0"}


# -- netsh --------------------------------------------------------------------------------------


def test_netsh_wpa2_80211ac_crlf() -> None:
    text = read("netsh_wpa2_80211ac.txt")
    assert "\r\n" in text
    assert parse_netsh_interfaces(text) == WifiInfo(
        ssid="Lab",
        security="WPA2-Personal",
        phy_rate_mbps=780.0,
        channel=44,
        frequency_mhz=5220,
        signal_pct=91,
        standard="802.11ac",
        interface="Wi-Fi",
    )


def test_netsh_wpa3_picks_the_connected_of_two_interfaces() -> None:
    text = read("netsh_wpa3.txt")
    expected = WifiInfo(
        ssid="Lab-6E",
        security="WPA3-Personal",
        phy_rate_mbps=2041.7,
        channel=37,
        frequency_mhz=6135,
        signal_dbm=-52,
        signal_pct=88,
        standard="802.11ax",
        interface="Wi-Fi",
    )
    assert parse_netsh_interfaces(text) == expected
    assert parse_netsh_interfaces(text, "wi-fi") == expected  # Windows names ignore case
    assert parse_netsh_interfaces(text, "Wi-Fi 2") is None  # that adapter is disconnected
    assert parse_netsh_interfaces(text, "Ethernet") is None


def test_netsh_disconnected() -> None:
    assert parse_netsh_interfaces(read("netsh_disconnected.txt")) is None
    assert parse_netsh_interfaces("There is no wireless interface on the system.") is None
    tools = WifiTools(
        runner=lambda argv: read("netsh_disconnected.txt"), system="Windows", native=lambda: None
    )
    assert query_wifi("Wi-Fi", tools).state is WifiState.DISCONNECTED


def test_netsh_bssid_is_not_ssid() -> None:
    text = (
        "    Name                   : Wi-Fi\r\n"
        "    State                  : connected\r\n"
        "    BSSID                  : 3c:37:86:5e:2a:91\r\n"
        "    AP BSSID               : 3c:37:86:5e:2a:92\r\n"
        "    Authentication         : Open\r\n"
        "    Cipher                 : WEP\r\n"
    )
    info = parse_netsh_interfaces(text)
    assert info is not None and info.ssid is None
    assert security_from_text(info.security) == "WEP"
    with_ssid = text + "    SSID                   : Lab\r\n"
    info = parse_netsh_interfaces(with_ssid)
    assert info is not None and info.ssid == "Lab"


# -- security, channels, merging ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("WPA2", "WPA2"),
        ("WPA1 WPA2", "WPA2"),
        ("WPA1", "WPA"),
        ("WPA2 802.1X", "WPA2"),
        ("WPA3", "WPA3"),
        ("WPA2 WPA3", "WPA2"),
        ("SAE", "WPA3"),
        ("PSK SAE", "WPA3"),
        ("WPA-EAP-SUITE-B-192", "WPA3"),
        ("WEP", "WEP"),
        ("--", "open"),
        ("", "open"),
        ("WPA2-Personal", "WPA2"),
        ("WPA2-Enterprise", "WPA2"),
        ("WPA3-Personal", "WPA3"),
        ("WPA3-Personal (H2E)", "WPA3"),
        ("WPA3-Enterprise 192 Bits", "WPA3"),
        ("WPA-Personal", "WPA"),
        ("Open", "open"),
        ("Shared", "WEP"),
        ("Open WEP", "WEP"),
        ("OWE", None),
        ("802.1X", None),
        ("gibberish", None),
        (None, None),
    ],
)
def test_security_from_text(text: str | None, expected: str | None) -> None:
    assert security_from_text(text) == expected


def test_channels_and_frequencies() -> None:
    pairs = [(1, 2412), (6, 2437), (13, 2472), (14, 2484), (36, 5180), (165, 5825)]
    for channel, mhz in pairs:
        assert channel_from_frequency(mhz) == channel
        assert frequency_from_channel(channel, None) == mhz
    assert channel_from_frequency(6135) == 37
    assert frequency_from_channel(37, 6.0) == 6135
    assert frequency_from_channel(44, 5.0) == 5220
    assert channel_from_frequency(5181) is None
    assert frequency_from_channel(0, None) is None


def test_merge_takes_the_first_known_value() -> None:
    first = WifiInfo(ssid="A", signal_dbm=-50)
    second = WifiInfo(ssid="B", security="WPA2", signal_dbm=-60)
    assert merge_wifi(first, None, second) == WifiInfo(ssid="A", security="WPA2", signal_dbm=-50)
    assert merge_wifi(None, None) is None


# -- capture() on this machine ------------------------------------------------------------------


def _check_loopback(snapshot: EnvironmentSnapshot, address: str) -> None:
    if LINUX:
        assert snapshot.interface == "lo"
        # The loopback has no wireless/ in sysfs: not a Wi-Fi interface, said so.
        assert snapshot.wifi_reading is not None
        assert snapshot.wifi_reading.state is WifiState.NOT_WIRELESS
        assert snapshot.interface_wireless is False
    assert snapshot.interface is not None
    assert snapshot.local_address == address
    assert snapshot.wifi is None
    assert snapshot.detected_security is None
    assert snapshot.os_name and snapshot.os_version is not None
    assert snapshot.cpu_model
    assert snapshot.cpu_count is not None and snapshot.cpu_count >= 1
    assert snapshot.hostname
    assert snapshot.interface_speed_mbps is None or snapshot.interface_speed_mbps > 0


def test_capture_loopback_v4() -> None:
    snapshot = capture("127.0.0.1", {"iperf3": "3.17.1", "netperf": "2.7.0"})
    _check_loopback(snapshot, "127.0.0.1")
    assert snapshot.engine_versions == {"iperf3": "3.17.1", "netperf": "2.7.0"}


@pytest.mark.skipif(not ipv6_available(), reason="no IPv6 loopback")
def test_capture_loopback_v6() -> None:
    snapshot = capture("::1")
    _check_loopback(snapshot, "::1")
    assert snapshot.engine_versions == {}
    assert capture("[::1]").interface == snapshot.interface


def test_capture_never_raises() -> None:
    def broken(argv: Sequence[str]) -> str | None:
        return None

    for peer in ("", "   ", "nonexistent.invalid", "999.1.1.1", "::zz", "\x00", "a" * 300):
        snapshot = capture(peer, runner=broken)
        assert snapshot.interface is None and snapshot.local_address is None
        assert snapshot.wifi is None and snapshot.cpu_model


@pytest.mark.skipif(not (shutil.which("echo") and shutil.which("sleep")), reason="no coreutils")
def test_run_command(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_command(["echo", "a:b"]) == "a:b\n"
    assert run_command(["linklab-no-such-tool"]) is None
    assert run_command(["sleep", "x"]) is None  # fails: non-zero exit
    assert run_command([]) is None
    assert run_command("echo hi") is None  # a command line, not an argv list
    monkeypatch.setattr(commands, "COMMAND_TIMEOUT_S", 0.2)
    assert run_command(["sleep", "5"]) is None


# -- capture() with recorded Wi-Fi output replayed ----------------------------------------------


class Replay:
    """A command runner answering from tests/data/wifi, renaming the recorded interface (wlan0
    or Wi-Fi) to the one this machine routes through, so capture() takes the Wi-Fi path."""

    def __init__(self, answers: dict[tuple[str, ...], str | None], recorded: str, actual: str):
        self.answers = answers
        self.recorded = recorded
        self.actual = actual
        self.calls: list[list[str]] = []

    def __call__(self, argv: Sequence[str]) -> str | None:
        assert isinstance(argv, list) and all(isinstance(a, str) for a in argv)
        self.calls.append(argv)
        key = tuple(self.recorded if a == self.actual else a for a in argv)
        if key[0] == "nmcli":
            key = ("nmcli",)
        name = self.answers.get(key)
        if name is None:
            return None
        return (
            read(name)
            .replace(f": {self.recorded}\r\n", f": {self.actual}\r\n")
            .replace(f"Interface {self.recorded}\n", f"Interface {self.actual}\n")
            .replace(f"(on {self.recorded})", f"(on {self.actual})")
        )


def _routed() -> str:
    interface = capture("127.0.0.1").interface
    assert interface is not None
    return interface


def _linux_replay(**answers: str | None) -> Replay:
    table: dict[tuple[str, ...], str | None] = {
        ("iw", "dev"): "iw_dev.txt",
        ("iw", "dev", "wlan0", "link"): answers.get("link", "iw_link_connected.txt"),
        ("iw", "dev", "wlan0", "info"): answers.get("info", "iw_info.txt"),
        ("nmcli",): answers.get("nmcli", "nmcli_wpa2_80211n.txt"),
    }
    return Replay(table, "wlan0", _routed())


def test_capture_replayed_linux_wifi() -> None:
    replay = _linux_replay()
    snapshot = capture("127.0.0.1", {"iperf3": "3.17.1"}, runner=replay, system="Linux")
    assert snapshot.wifi == WifiInfo(
        ssid="LabNet-2G",
        security="WPA2",
        phy_rate_mbps=144.4,  # iw's current rate wins over nmcli's AP maximum (130)
        channel=6,
        frequency_mhz=2437,
        signal_dbm=-58,
        signal_pct=74,
        standard="802.11n",
        interface=replay.actual,
    )
    assert snapshot.detected_security == "WPA2"
    assert snapshot.engine_versions == {"iperf3": "3.17.1"}
    nmcli = next(call for call in replay.calls if call[0] == "nmcli")
    assert nmcli[:4] == ["nmcli", "-t", "-f", "ACTIVE,SSID,SECURITY,CHAN,FREQ,RATE,SIGNAL"]
    assert nmcli[4:] == ["dev", "wifi", "list", "ifname", replay.actual, "--rescan", "no"]
    assert EnvironmentSnapshot.from_dict(json.loads(json.dumps(snapshot.to_dict()))) == snapshot


def test_capture_replayed_linux_without_nmcli() -> None:
    snapshot = capture("127.0.0.1", runner=_linux_replay(nmcli=None), system="Linux")
    assert snapshot.wifi is not None
    assert snapshot.wifi.ssid == "LabNet-2G" and snapshot.wifi.signal_dbm == -58
    assert snapshot.wifi.security is None and snapshot.detected_security is None


def test_capture_replayed_linux_open_network_from_nmcli_only() -> None:
    replay = _linux_replay(link=None, info=None, nmcli="nmcli_open.txt")
    snapshot = capture("127.0.0.1", runner=replay, system="Linux")
    assert snapshot.wifi is not None and snapshot.wifi.ssid == "Cafe Guest"
    assert snapshot.detected_security == "open"


def test_capture_replayed_linux_wireless_but_not_connected() -> None:
    replay = _linux_replay(link="iw_link_not_connected.txt", info=None, nmcli=None)
    snapshot = capture("127.0.0.1", runner=replay, system="Linux")
    assert snapshot.wifi is None and snapshot.detected_security is None
    assert snapshot.wifi_reading == WifiReading(
        WifiState.DISCONNECTED, f"iw dev {replay.actual} link", replay.actual
    )
    assert snapshot.interface_wireless is True  # iw dev lists it: a Wi-Fi interface


def test_capture_replayed_linux_wireless_but_tools_silent() -> None:
    replay = _linux_replay(link=None, info=None, nmcli=None)
    snapshot = capture("127.0.0.1", runner=replay, system="Linux")
    assert snapshot.wifi is None and snapshot.detected_security is None
    reading = snapshot.wifi_reading
    assert reading is not None and reading.state is WifiState.UNREADABLE
    assert reading.wireless is True and "no tool" in reading.sentence()


@pytest.mark.parametrize(
    ("fixture", "ssid", "security"),
    [
        ("netsh_wpa2_80211ac.txt", "Lab", "WPA2"),
        ("netsh_wpa3.txt", "Lab-6E", "WPA3"),
        ("netsh_disconnected.txt", None, None),
    ],
)
def test_capture_replayed_windows_wifi(
    fixture: str, ssid: str | None, security: str | None
) -> None:
    replay = Replay({("netsh", "wlan", "show", "interfaces"): fixture}, "Wi-Fi", _routed())
    snapshot = capture("127.0.0.1", runner=replay, system="Windows")
    assert replay.calls == [["netsh", "wlan", "show", "interfaces"]]
    assert (snapshot.wifi.ssid if snapshot.wifi else None) == ssid
    assert snapshot.detected_security == security


def test_windows_wifi_not_reported_for_another_interface() -> None:
    def netsh(argv: Sequence[str]) -> str | None:
        return read("netsh_wpa2_80211ac.txt")  # "Wi-Fi" is connected, but not routed to

    windows = WifiTools(runner=netsh, system="Windows", native=lambda: None)  # netsh alone
    ethernet = query_wifi("Ethernet", windows)
    assert ethernet.state is WifiState.NOT_WIRELESS and ethernet.info is None
    assert query_wifi("Wi-Fi", windows).state is WifiState.CONNECTED
    mac = query_wifi("en0", WifiTools(runner=netsh, system="Darwin"))
    assert mac.state is WifiState.UNREADABLE and "Darwin" in mac.sentence()


# -- stored data --------------------------------------------------------------------------------


def test_round_trip_through_json() -> None:
    snapshot = capture("127.0.0.1", {"iperf3": "3.12"})
    data = snapshot.to_dict()
    assert data["format_version"] == FORMAT_VERSION
    assert EnvironmentSnapshot.from_dict(json.loads(json.dumps(data))) == snapshot
    full = EnvironmentSnapshot(
        os_name="Windows 11",
        os_version="10.0.22631",
        hostname="lab-pc",
        cpu_model="Intel64 Family 6 Model 140 Stepping 1, GenuineIntel",
        cpu_count=8,
        engine_versions={"iperf3": "3.17.1"},
        interface="Wi-Fi",
        interface_speed_mbps=866,
        interface_mtu=1500,
        local_address="fe80::1%12",
        wifi=parse_netsh_interfaces(read("netsh_wpa3.txt")),
        detected_security="WPA3",
        wifi_reading=WifiReading(
            WifiState.CONNECTED,
            "netsh wlan show interfaces",
            "Wi-Fi",
            parse_netsh_interfaces(read("netsh_wpa3.txt")),
        ),
        interface_wireless=True,
    )
    assert EnvironmentSnapshot.from_dict(json.loads(json.dumps(full.to_dict()))) == full


def test_from_dict_on_garbage() -> None:
    junks: list[object] = [None, [], "snapshot", 42, 3.5, {}]
    for junk in junks:
        assert EnvironmentSnapshot.from_dict(junk) == EnvironmentSnapshot()
    snapshot = EnvironmentSnapshot.from_dict(
        {
            "os_name": 3,
            "cpu_model": None,
            "cpu_count": "4",
            "interface_mtu": True,
            "interface_speed_mbps": 1000.0,
            "engine_versions": {"iperf3": 3, "netperf": "2.7.0", "x": None},
            "wifi": {"ssid": 5, "channel": "6", "phy_rate_mbps": "fast", "signal_dbm": -60},
            "detected_security": "WPA9",
            "unknown_future_key": {"a": 1},
        }
    )
    assert snapshot == EnvironmentSnapshot(
        engine_versions={"netperf": "2.7.0"}, wifi=WifiInfo(signal_dbm=-60)
    )
    assert EnvironmentSnapshot.from_dict({"wifi": [1, 2]}).wifi is None
    assert WifiInfo.from_dict({"phy_rate_mbps": float("nan")}) == WifiInfo()


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=20), inner),
    max_leaves=20,
)
KEYS = st.sampled_from([f.name for f in EnvironmentSnapshot.__dataclass_fields__.values()])


@given(st.dictionaries(KEYS, JSON) | JSON)
def test_from_dict_never_raises(data: object) -> None:
    assert isinstance(EnvironmentSnapshot.from_dict(data), EnvironmentSnapshot)


# -- parsers never raise -------------------------------------------------------------------------

FIXTURE_LINES = sorted(
    {line for path in WIFI.glob("*.txt") for line in read(path.name).splitlines(keepends=True)}
)
MUTATED = st.lists(
    st.one_of(st.sampled_from(FIXTURE_LINES), st.text(max_size=40)), max_size=30
).map("".join)


@given(st.one_of(st.text(), MUTATED), st.sampled_from(["wlan0", "Wi-Fi", ""]))
def test_parsers_never_raise(text: str, interface: str) -> None:
    for info in (
        parse_nmcli_wifi(text, interface),
        parse_iw_link(text),
        parse_iw_info(text),
        parse_netsh_interfaces(text),
        parse_netsh_interfaces(text, interface),
    ):
        assert info is None or isinstance(info, WifiInfo)
    assert security_from_text(text) in {None, "open", "WEP", "WPA", "WPA2", "WPA3"}
    iw_dev_interfaces(text)


def test_why_no_way_to_the_peer_was_found_is_said() -> None:
    """A name no resolver knows (RFC 6761's .invalid) is said as such; an address always
    resolves, so what it lacks is a route."""
    assert no_route_reason("labhost.invalid") == "the name 'labhost.invalid' could not be resolved"
    assert no_route_reason("[2001:db8::7]") == "this computer has no route to 2001:db8::7"
    assert no_route_reason("lab\x00pc") == "the name 'lab\\x00pc' could not be resolved"
