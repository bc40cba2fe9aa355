"""The overhead model against worked values and hand-checked arithmetic."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.analysis import wifi_overhead as air
from app.analysis.overhead import LinkInputs, OverheadError, expected, security_cost
from app.analysis.wifi_overhead import Cipher
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Medium, Security

V4, V6 = IpVersion.V4, IpVersion.V6
TCP, UDP = Protocol.TCP, Protocol.UDP


def ethernet(protocol: Protocol, ip: IpVersion, length: int, **more: object) -> LinkInputs:
    return LinkInputs(100e6, Medium.ETHERNET, ip, protocol, length, **more)  # type: ignore[arg-type]


def wifi(protocol: Protocol, length: int, rate: float = 300e6, **more: object) -> LinkInputs:
    return LinkInputs(rate, Medium.N, V4, protocol, length, **more)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "mbit"),
    [
        (ethernet(TCP, V4, 1408), 94.15),  # MSS 1448 with timestamps over 1538 wire bytes
        (ethernet(UDP, V4, 1472), 95.7),  # 1472 / 1538
        (ethernet(TCP, V6, 1408), 92.85),  # 1428 / 1538
    ],
)
def test_worked_values(spec: LinkInputs, mbit: float) -> None:
    assert expected(spec).expected_bps == pytest.approx(mbit * 1e6, rel=0.001)


def test_breakdown_of_one_tcp_frame() -> None:
    result = expected(ethernet(TCP, V4, 1408))
    assert dict(result.overhead) == {
        "preamble + SFD": 8,
        "Ethernet header": 14,
        "Ethernet FCS": 4,
        "inter-frame gap": 12,
        "IPv4 header": 20,
        "TCP header": 20,
        "TCP timestamps option": 12,
    }
    assert (result.payload_bytes, result.overhead_bytes, result.frames) == (1448, 90, 1)
    assert result.efficiency == pytest.approx(1448 / 1538)
    assert result.unit == "segment" and result.aggregated is None
    assert any("1448 bytes of data per segment" in s for s in result.explanation)
    data = result.as_dict()
    assert data["payload_bytes"] == 1448 and data["overhead_bytes"]["IPv4 header"] == 20
    assert list(data["overhead_bytes"])[:2] == ["preamble + SFD", "Ethernet header"]


@pytest.mark.parametrize("medium", [Medium.ETHERNET, Medium.N, Medium.AC, Medium.AX])
def test_tcp_ignores_the_write_length(medium: Medium) -> None:
    rates = {
        expected(LinkInputs(100e6, medium, V4, TCP, n)).expected_bps
        for n in (1, 128, 640, 1408, 65536)
    }
    assert len(rates) == 1


def test_udp_follows_the_datagram_length() -> None:
    sizes = (128, 384, 640, 896, 1152, 1408)
    for spec in (ethernet(UDP, V4, 0), wifi(UDP, 0, security=Security.WPA2)):
        rates = [expected(replace(spec, length=n)).expected_bps for n in sizes]
        assert rates == sorted(rates) and rates[0] < 0.9 * rates[-1]
    # 128-byte datagrams on Ethernet: 128 / (128 + 8 + 20 + 38).
    assert expected(ethernet(UDP, V4, 128)).efficiency == pytest.approx(128 / 194)


def test_without_timestamps_and_with_a_vlan_tag() -> None:
    assert expected(ethernet(TCP, V4, 1, tcp_timestamps=False)).efficiency == pytest.approx(
        1460 / 1538
    )
    tagged = expected(ethernet(TCP, V4, 1, vlan=True))
    assert dict(tagged.overhead)["Ethernet header + VLAN tag"] == 18
    assert tagged.efficiency == pytest.approx(1448 / 1542)


def test_jumbo_frames() -> None:
    assert expected(ethernet(TCP, V4, 1, mtu=9000)).efficiency == pytest.approx(8948 / 9038)


def test_udp_at_the_mtu_is_one_frame_and_one_byte_more_is_two() -> None:
    assert expected(ethernet(UDP, V4, 1472)).frames == 1
    two = expected(ethernet(UDP, V4, 1473))
    # 1481 bytes of UDP data: 1480 in the first fragment, 1 in the second, each fragment with
    # its own IP header and Ethernet frame; the second one padded to the 46-byte minimum.
    assert two.frames == 2
    layers = dict(two.overhead)
    assert layers["IPv4 header"] == 40 and layers["UDP header"] == 8
    assert layers["Ethernet padding"] == 46 - 21 and layers["inter-frame gap"] == 24


def test_udp_fragments_ipv4() -> None:
    result = expected(ethernet(UDP, V4, 4000))
    # 4008 bytes cut at 1480: 1480 + 1480 + 1048; the UDP header only in the first.
    assert result.frames == 3 and result.payload_bytes == 4000
    assert result.overhead_bytes == 3 * 38 + 3 * 20 + 8
    assert any("3 fragments of at most 1480 bytes" in s for s in result.explanation)


def test_udp_fragments_ipv6() -> None:
    result = expected(ethernet(UDP, V6, 4000))
    # Room per fragment: (1500 − 40 − 8) rounded down to 8 = 1448; 4008 = 1448 + 1448 + 1112.
    layers = dict(result.overhead)
    assert result.frames == 3
    assert layers["IPv6 fragment header"] == 24 and layers["IPv6 header"] == 120
    assert result.efficiency == pytest.approx(4000 / (4000 + 3 * 38 + 120 + 24 + 8))


def test_small_datagrams_are_padded() -> None:
    result = expected(ethernet(UDP, V4, 10))
    assert dict(result.overhead)["Ethernet padding"] == 46 - 38
    assert result.efficiency == pytest.approx(10 / 84)


def test_the_tc_frame_overhead_counts_the_ethernet_header_only() -> None:
    # What tests/engine/test_netns.py measures at 40 Mbit/s: skb length = 14 + IP packet.
    shaped = {
        (TCP, V4, 1408): 1448 / (1448 + 12 + 20 + 20 + 14),
        (TCP, V6, 256): 1428 / (1428 + 12 + 20 + 40 + 14),
        (UDP, V4, 256): 256 / (256 + 8 + 20 + 14),
        (UDP, V6, 1408): 1408 / (1408 + 8 + 40 + 14),
    }
    for (protocol, ip, length), share in shaped.items():
        spec = LinkInputs(40e6, Medium.ETHERNET, ip, protocol, length, frame_overhead=14)
        result = expected(spec)
        assert result.expected_bps == pytest.approx(40e6 * share)
        assert dict(result.overhead)["frame overhead"] == 14


def test_frame_overhead_describes_any_medium() -> None:
    spec = LinkInputs(10e6, Medium.OTHER, V4, UDP, 1000, frame_overhead=0)
    assert expected(spec).efficiency == pytest.approx(1000 / 1028)
    with pytest.raises(OverheadError, match="--frame-overhead"):
        expected(replace(spec, frame_overhead=None))


def test_wifi_aggregated_tcp_by_hand() -> None:
    """802.11n at 300 Mbit/s, 2 streams, WPA2, TCP/IPv4 with timestamps.

    Frame: 26 MAC + 16 CCMP + 8 LLC/SNAP + 1500 IP + 4 FCS = 1554 bytes, 1560 with delimiter
    and padding; 65535 // 1560 = 42 frames per A-MPDU. Data symbols: 16 + 8 × 65520 + 6 bits at
    1080 bits per 3.6 µs symbol = 486 symbols, 1749.6 µs. Exchange: AIFS 43 + backoff 67.5 +
    preamble 40 + 1749.6 + SIFS 16 + block ack 32 (32 bytes at 24 Mbit/s: 20 + 3 × 4) =
    1948.1 µs. TCP ACKs: 21 frames of 26 + 16 + 8 + 52 + 4 = 106 bytes (112 in the A-MPDU),
    2352 bytes = 18 symbols, 64.8 µs; 43 + 67.5 + 40 + 64.8 + 16 + 32 = 263.3 µs.
    Goodput: 42 × 1448 × 8 bits in 2211.4 µs = 220.01 Mbit/s.
    """
    result = expected(wifi(TCP, 1408, security=Security.WPA2))
    assert result.aggregated == 42
    assert result.expected_bps == pytest.approx(42 * 1448 * 8 / 2211.4e-6, rel=1e-9)
    layers = dict(result.overhead)
    assert layers["CCMP header + MIC"] == 16 and layers["A-MPDU delimiter + padding"] == 6
    assert layers["PHY preamble"] == pytest.approx(40 / 42 * 300 / 8)
    assert layers["TCP ACKs (air time)"] == pytest.approx(263.3 / 42 * 300 / 8)
    assert any("65,535-byte A-MPDU maximum" in s for s in result.explanation)


def test_wifi_single_frame_exchange_by_hand() -> None:
    """Without aggregation, the DCF exchange of Jun et al.: 802.11n at 65 Mbit/s, WPA2, UDP
    1408 B. Frame 26 + 16 + 8 + 1436 + 4 = 1490 bytes; 16 + 11920 + 6 bits at 234 bits per
    symbol = 52 symbols, 187.2 µs; 43 + 67.5 + 40 + 187.2 + 16 + Ack 28 µs (14 bytes at
    24 Mbit/s: 20 + 2 × 4) = 381.7 µs for 1408 bytes: 29.51 Mbit/s."""
    result = expected(wifi(UDP, 1408, rate=65e6, security=Security.WPA2, aggregation=1))
    assert result.aggregated == 1
    assert result.expected_bps == pytest.approx(1408 * 8 / 381.7e-6, rel=1e-9)
    assert "SIFS + ACK" in dict(result.overhead)
    assert "A-MPDU delimiter + padding" not in dict(result.overhead)


def test_aggregation_limits() -> None:
    def exchange(medium: Medium, rate: float) -> air.Exchange:
        return air.exchange(medium, rate, 2, [1554])

    assert (exchange(Medium.N, 300e6).mpdus, exchange(Medium.AC, 866.7e6).mpdus) == (42, 64)
    assert "block-ack window" in exchange(Medium.AC, 866.7e6).limit
    assert exchange(Medium.AX, 1201e6).mpdus == 256
    slow = exchange(Medium.N, 6.5e6)
    assert "PPDU maximum" in slow.limit
    assert slow.preamble_us + slow.data_us <= air.PPDU_MAX_US
    # Two 2304-byte frames at 6.5 Mbit/s outlast the PPDU maximum: one frame, no delimiter.
    lone = expected(wifi(UDP, 2276, rate=6.5e6, mtu=2304))
    assert lone.aggregated == 1 and "A-MPDU delimiter + padding" not in dict(lone.overhead)
    more = [expected(wifi(UDP, 1408, aggregation=n)).expected_bps for n in (1, 2, 8, 32)]
    assert more == sorted(more)


def test_preambles() -> None:
    # HT-mixed 32 + 4 per LTF; VHT 36 + 4 per LTF; HE 36 + 7.2 per LTF (3 streams: 4 LTFs).
    assert air.PHYS[Medium.N].preamble_us(1) == 36
    assert air.PHYS[Medium.N].preamble_us(3) == 48
    assert air.PHYS[Medium.AC].preamble_us(2) == 44
    assert air.PHYS[Medium.AX].preamble_us(1) == pytest.approx(43.2)
    assert [air.training_fields(n) for n in range(1, 9)] == [1, 2, 4, 4, 6, 6, 8, 8]


def test_security_bytes_per_frame() -> None:
    def layers(**more: object) -> dict[str, float]:
        return dict(expected(wifi(UDP, 1408, **more)).overhead)

    assert layers(security=Security.WEP)["WEP IV + ICV"] == 8
    assert layers(security=Security.WPA)["TKIP IV + MIC + ICV"] == 20
    assert layers(security=Security.WPA3)["CCMP header + MIC"] == 16
    assert layers(security=Security.WPA3, cipher=Cipher.GCMP_256)["GCMP-256 header + MIC"] == 24
    assert not any("header + MIC" in name for name in layers(security=Security.OPEN))


def test_security_cost_open_vs_wpa2() -> None:
    spec = wifi(UDP, 1408, rate=65e6, aggregation=1)
    cost = security_cost(spec, Security.OPEN, Security.WPA2)
    open_, wpa2, difference = cost
    assert difference == open_.expected_bps - wpa2.expected_bps > 0
    # One frame per exchange: CCMP's 16 bytes lengthen the data symbols by 0.5 to 1 symbol.
    assert difference < 0.02 * open_.expected_bps
    assert cost.explained_share(2 * difference) == pytest.approx(0.5)
    assert cost.explained_share(0) is None
    same = security_cost(spec, Security.WPA2, Security.WPA3)
    assert same.difference_bps == 0


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (ethernet(TCP, V4, 1408, security=Security.WPA2), "WPA2 protects Wi-Fi frames"),
        (ethernet(TCP, V4, 1408, cipher=Cipher.GCMP_256), "GCMP-256 protects Wi-Fi frames"),
        (wifi(TCP, 1408, security=Security.UNKNOWN), "Say which security"),
        (ethernet(UDP, V4, 65508), "at most 65507 bytes"),
        (ethernet(UDP, V6, 1000, mtu=1000), "1280..65535"),
        (ethernet(TCP, V4, 0), "at least 1 byte"),
        (LinkInputs(0, Medium.ETHERNET, V4, TCP, 1), "above 0"),
        (wifi(TCP, 1408, mtu=9000), "68..2304"),
        (wifi(TCP, 1408, vlan=True), "VLAN"),
        (wifi(TCP, 1408, spatial_streams=5), "1 to 4 spatial streams"),
    ],
)
def test_refused_inputs_say_why(spec: LinkInputs, words: str) -> None:
    with pytest.raises(OverheadError, match=words):
        expected(spec)
