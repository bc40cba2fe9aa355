"""What the environment snapshot says of the link to the peer: Wi-Fi's PHY rate with its
standard, a wired interface's medium with its speed kept as the adapter's (never a link
rate), nothing for the loopback."""

from __future__ import annotations

from app.domain.plan import Medium
from app.study.host.environment import DetectedLink, EnvironmentSnapshot, WifiInfo, detected_link


def test_wifi_gives_its_phy_rate_and_standard() -> None:
    wifi = WifiInfo(phy_rate_mbps=866.7, standard="802.11ac", security="WPA2", interface="wlan0")
    snapshot = EnvironmentSnapshot(interface="wlan0", interface_speed_mbps=None, wifi=wifi)
    found = detected_link(snapshot)
    assert found == DetectedLink("wlan0", Medium.AC, 866_700_000, wireless=True)
    assert found is not None and found.rate_source == "wlan0's Wi-Fi PHY rate"
    assert found.medium_source == "wlan0, a Wi-Fi adapter"
    # A standard LinkLab's conditions do not name: the rate, no medium.
    be = EnvironmentSnapshot(
        interface="wlan1", wifi=WifiInfo(phy_rate_mbps=2882.4, standard="802.11be")
    )
    assert detected_link(be) == DetectedLink("wlan1", None, 2_882_400_000, wireless=True)
    # Wireless, but no rate or standard reported: nothing, even if the interface claims a
    # speed (it is no Wi-Fi rate).
    quiet = EnvironmentSnapshot(interface_speed_mbps=1000, wifi=WifiInfo(interface="wlan0"))
    assert detected_link(quiet) is None
    # Windows refused to read the Wi-Fi, but its adapter is IEEE 802.11: the speed Windows
    # reports for it is no Ethernet line rate.
    refused = EnvironmentSnapshot(
        interface="Wi-Fi", interface_speed_mbps=866, interface_wireless=True
    )
    assert detected_link(refused) is None


def test_a_wired_interface_gives_ethernet_and_its_speed_as_the_adapters_only() -> None:
    wired = EnvironmentSnapshot(interface="veth0", interface_speed_mbps=10_000)
    found = detected_link(wired)
    assert found == DetectedLink("veth0", Medium.ETHERNET, adapter_speed_bps=10_000_000_000)
    assert found is not None and found.rate_bps is None  # never the link's rate
    assert found.medium_source == "veth0, a wired adapter"
    # The loopback reports no speed (psutil's 0 is stored as None).
    assert detected_link(EnvironmentSnapshot(interface="lo")) is None
