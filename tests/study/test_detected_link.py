"""The link rate the environment snapshot reports: Wi-Fi's PHY rate with its standard, an
Ethernet interface's line rate, nothing for the loopback."""

from __future__ import annotations

from app.domain.plan import Medium
from app.study.host.environment import DetectedLink, EnvironmentSnapshot, WifiInfo, detected_link


def test_wifi_gives_its_phy_rate_and_standard() -> None:
    wifi = WifiInfo(phy_rate_mbps=866.7, standard="802.11ac", security="WPA2")
    snapshot = EnvironmentSnapshot(interface="wlan0", interface_speed_mbps=None, wifi=wifi)
    assert detected_link(snapshot) == DetectedLink(866_700_000, Medium.AC)
    # A standard LinkLab's conditions do not name: the rate, no medium.
    be = EnvironmentSnapshot(wifi=WifiInfo(phy_rate_mbps=2882.4, standard="802.11be"))
    assert detected_link(be) == DetectedLink(2_882_400_000, None)
    # Wireless, but no rate reported: nothing, even if the interface claims a speed.
    quiet = EnvironmentSnapshot(interface_speed_mbps=1000, wifi=WifiInfo(interface="wlan0"))
    assert detected_link(quiet) is None
    # Windows refused to read the Wi-Fi, but its adapter is IEEE 802.11: the speed Windows
    # reports for it is no Ethernet line rate.
    refused = EnvironmentSnapshot(
        interface="Wi-Fi", interface_speed_mbps=866, interface_wireless=True
    )
    assert detected_link(refused) is None


def test_a_wired_interface_gives_its_line_rate() -> None:
    wired = EnvironmentSnapshot(interface="eth0", interface_speed_mbps=1000)
    assert detected_link(wired) == DetectedLink(1_000_000_000, Medium.ETHERNET)
    # The loopback reports no speed (psutil's 0 is stored as None).
    assert detected_link(EnvironmentSnapshot(interface="lo")) is None
