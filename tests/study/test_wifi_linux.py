"""Linux without NetworkManager: the security from wpa_supplicant (`wpa_cli -i IF status`) or
iwd (`iwctl station IF show`); Wi-Fi 7 multi-link from `iw dev IF link`; the radio switched
off (rfkill); an interface that is not wireless. The outcomes come from WifiTools with the
tools' output replayed and a sysfs of the test's own."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from app.study.host.wifi import WifiLink, security_from_text
from app.study.host.wifi_linux import (
    ip_link_kind,
    parse_iw_link,
    parse_iwctl_station,
    parse_wpa_cli_status,
)
from app.study.host.wifi_query import WifiTools
from app.study.host.wifi_reading import WifiState
from tests.conftest import DATA

WIFI = DATA / "wifi"


def read(name: str) -> str:
    return (WIFI / name).read_bytes().decode("utf-8")


def status(**values: str) -> str:
    return "".join(f"{key}={value}\n" for key, value in values.items())


@pytest.mark.parametrize(
    ("key_mgmt", "cipher", "security"),
    [
        ("WPA2-PSK", "CCMP", "WPA2"),
        ("WPA-PSK", "TKIP", "WPA"),
        ("WPA2-PSK+WPA-PSK", "CCMP+TKIP", "WPA2"),
        ("WPA2/IEEE 802.1X/EAP", "CCMP", "WPA2"),
        ("WPA2-PSK-SHA256", "CCMP", "WPA2"),
        ("FT-PSK", "CCMP", "WPA2"),
        ("FT-EAP", "CCMP", "WPA2"),
        ("SAE", "CCMP", "WPA3"),
        ("FT-SAE", "CCMP", "WPA3"),
        ("SAE-EXT-KEY", "GCMP-256", "WPA3"),
        ("WPA-EAP-SUITE-B-192", "GCMP-256", "WPA3"),
        ("NONE", "NONE", "open"),
        ("NONE", "WEP-104", "WEP"),  # static WEP keys
        ("IEEE 802.1X (no WPA)", "WEP-104", "WEP"),  # dynamic WEP, not WPA
        ("OWE", "CCMP", None),  # Enhanced Open: none of LinkLab's values
    ],
)
def test_wpa_cli_key_management_is_linklabs_security(
    key_mgmt: str, cipher: str, security: str | None
) -> None:
    text = status(
        bssid="94:83:c4:06:d0:36",
        freq="2437",
        ssid="Lab",
        pairwise_cipher=cipher,
        key_mgmt=key_mgmt,
        wpa_state="COMPLETED",
    )
    found = parse_wpa_cli_status(text, "wlan0")
    assert found is not None and found.connected
    assert security_from_text(found.info.security) == security
    assert (found.info.channel, found.info.frequency_mhz) == (6, 2437)


def test_wpa_cli_states() -> None:
    found = parse_wpa_cli_status(read("wpa_cli_status_wpa2.txt"), "wlan0")
    assert found is not None and found.connected
    assert found.info.ssid == "Lab Pi" and found.info.frequency_mhz == 5180
    scanning = parse_wpa_cli_status(read("wpa_cli_status_scanning.txt"), "wlan0")
    assert scanning is not None and not scanning.connected
    assert parse_wpa_cli_status("Failed to connect to non-global ctrl_ifname: wlan0", "x") is None


def test_iwctl_station() -> None:
    found = parse_iwctl_station(read("iwctl_station_wpa3.txt"), "wlan0")
    assert found is not None and found.connected
    info = found.info
    assert info.ssid == "Lab 6E"  # iwctl's bold (ANSI) around the name is not part of it
    assert security_from_text(info.security) == "WPA3"
    assert (info.channel, info.frequency_mhz, info.signal_dbm) == (37, 6135, -49)
    assert info.phy_rate_mbps == 1200.9 and info.standard == "802.11ax"
    idle = parse_iwctl_station(read("iwctl_station_disconnected.txt"), "wlan0")
    assert idle is not None and not idle.connected
    assert parse_iwctl_station("No station on device: 'eth0'", "eth0") is None


def test_a_rate_without_a_unit_iwctl_names_is_not_read() -> None:
    text = read("iwctl_station_wpa3.txt").replace("1200900 Kbit/s", "12009")
    found = parse_iwctl_station(text, "wlan0")
    assert found is not None and found.info.phy_rate_mbps is None


def test_multi_link_lists_its_links_and_takes_none_for_the_whole() -> None:
    info = parse_iw_link(read("iw_link_mlo.txt"))
    assert info is not None
    assert info.links == (WifiLink(0, 5180, 36), WifiLink(1, 6115, 33))
    # Which link carries the traffic is not said: no link's channel stands for the whole.
    assert info.channel is None and info.frequency_mhz is None
    # The MLD's own station figures are the association's.
    assert (info.signal_dbm, info.phy_rate_mbps, info.standard) == (-44, 1921.5, "802.11be")
    one = "\n".join(line for line in read("iw_link_mlo.txt").splitlines() if "6115" not in line)
    one_link = parse_iw_link(one.replace("\tLink 1 BSSID 02:11:22:33:44:52\n", ""))
    assert one_link is not None and (one_link.channel, one_link.frequency_mhz) == (36, 5180)


# -- the outcomes, tools replayed ---------------------------------------------------------------


class Tools:
    """Replays recorded output per command (None: the tool is not installed) and records
    what was asked."""

    def __init__(self, answers: dict[str, str | None]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, argv: Sequence[str]) -> str | None:
        line = " ".join(argv)
        self.asked.append(line)
        for start, answer in self.answers.items():
            if line.startswith(start):
                return answer
        return None


def sysfs(root: Path, *wireless: str, wired: Sequence[str] = ()) -> Path:
    for name in wireless:
        (root / name / "wireless").mkdir(parents=True)
    for name in wired:
        (root / name).mkdir(parents=True)
    return root


def test_without_networkmanager_wpa_supplicant_says_the_security(tmp_path: Path) -> None:
    tools = Tools(
        {
            "iw dev wlan0 link": read("iw_link_connected.txt"),
            "iw dev wlan0 info": read("iw_info.txt"),
            "wpa_cli -i wlan0 status": read("wpa_cli_status_wpa2.txt"),
        }
    )
    reading = WifiTools(tools, "Linux", sys_net=sysfs(tmp_path, "wlan0")).reading("wlan0")
    assert reading.state is WifiState.CONNECTED and reading.security == "WPA2"
    assert reading.source == "iw dev wlan0 link + wpa_cli status"
    assert reading.info is not None and reading.info.signal_dbm == -58  # iw's figures kept
    assert reading.info.phy_rate_mbps == 144.4
    assert any(line.startswith("nmcli") for line in tools.asked)  # asked first, not there


def test_iwd_alone_says_everything(tmp_path: Path) -> None:
    tools = Tools({"iwctl station wlan0 show": read("iwctl_station_wpa3.txt")})
    reading = WifiTools(tools, "Linux", sys_net=sysfs(tmp_path, "wlan0")).reading("wlan0")
    assert reading.state is WifiState.CONNECTED and reading.security == "WPA3"
    assert reading.source == "iwctl station show"
    assert reading.info is not None and reading.info.ssid == "Lab 6E"


def test_not_connected_radio_off_and_wired(tmp_path: Path) -> None:
    root = sysfs(tmp_path, "wlan0", "wlan1", wired=["eth0"])
    idle = Tools({"iw dev wlan0 link": "Not connected.\n"})
    assert WifiTools(idle, "Linux", sys_net=root).reading("wlan0").state is WifiState.DISCONNECTED
    rfkill = root / "wlan1" / "phy80211" / "rfkill2"
    rfkill.mkdir(parents=True)
    (rfkill / "soft").write_text("1\n")
    (rfkill / "hard").write_text("0\n")
    off = WifiTools(Tools({}), "Linux", sys_net=root).reading("wlan1")
    assert off.state is WifiState.RADIO_OFF and "turn it on" in off.sentence()
    wired = WifiTools(Tools({"iw dev": ""}), "Linux", sys_net=root).reading("eth0")
    assert wired.state is WifiState.NOT_WIRELESS and wired.wireless is False


def test_wpa_supplicant_not_associated_is_disconnected(tmp_path: Path) -> None:
    tools = Tools({"wpa_cli -i wlan0 status": read("wpa_cli_status_scanning.txt")})
    reading = WifiTools(tools, "Linux", sys_net=sysfs(tmp_path, "wlan0")).reading("wlan0")
    assert reading.state is WifiState.DISCONNECTED and reading.source == "wpa_cli status"


def test_the_survey_lists_every_wireless_interface(tmp_path: Path) -> None:
    root = sysfs(tmp_path, "wlan0", "wlan1", wired=["eth0"])
    tools = Tools(
        {
            "iw dev wlan0 link": read("iw_link_connected.txt"),
            "iw dev wlan1 link": "Not connected.\n",
            "nmcli": read("nmcli_wpa2_80211n.txt"),
        }
    )
    readings = WifiTools(tools, "Linux", sys_net=root).survey()
    assert [(r.interface, r.state) for r in readings] == [
        ("wlan0", WifiState.CONNECTED),
        ("wlan1", WifiState.DISCONNECTED),
    ]
    assert readings[0].security == "WPA2"
    none = WifiTools(Tools({}), "Linux", sys_net=sysfs(tmp_path / "none", wired=["eth0"]))
    [alone] = none.survey()
    assert alone.state is WifiState.NO_ADAPTER


def test_ip_link_names_a_virtual_kind_and_leaves_an_ethernet_like_device_open() -> None:
    veth = '[{"ifname":"lla0","link_type":"ether","linkinfo":{"info_kind":"veth"}}]'
    assert ip_link_kind(veth) == "veth"
    assert ip_link_kind('[{"ifname":"wg0","link_type":"none"}]') == "none"
    wifi_or_wired = '[{"ifname":"wlp2s0","link_type":"ether","address":"a4:..."}]'
    assert ip_link_kind(wifi_or_wired) is None  # a Wi-Fi adapter says just this too
    assert ip_link_kind('Device "x" does not exist.') is None
    assert ip_link_kind("[]") is None
