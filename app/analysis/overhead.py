"""Expected goodput: what a link could deliver at best, with the bytes every layer adds."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from app.analysis import wifi_overhead as air
from app.analysis.wifi_overhead import SECURITY_CIPHER, Cipher
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Medium, Security
from app.domain.units import format_rate

# Ethernet: IEEE Std 802.3-2022.
ETH_PREAMBLE = 8  # preamble 7 + start frame delimiter 1: §3.1.1, §3.2.1, §3.2.2
ETH_HEADER = 14  # destination 6 + source 6 + Length/Type 2: §3.1.1
VLAN_TAG = 4  # the 802.1Q tag: IEEE Std 802.1Q-2022 §9.3; 802.3 §3.5
ETH_FCS = 4  # frame check sequence: §3.2.9
ETH_GAP = 12  # interPacketGap, 96 bit times: §4.4.2
ETH_MIN_DATA = 46  # minFrameSize 64 bytes less header and FCS: §4.4.2, §3.2.8 (42 when tagged)

# IP and transport.
IPV4_HEADER = 20  # without options: RFC 791 §3.1
IPV6_HEADER = 40  # RFC 8200 §3
IPV6_FRAGMENT = 8  # the Fragment header, in every fragment: RFC 8200 §4.5
FRAGMENT_UNIT = 8  # fragment data comes in multiples of 8 bytes: RFC 791 §3.1, RFC 8200 §4.5
MAX_IP_PACKET = 65_535  # the 16-bit Total/Payload Length fields: RFC 791 §3.1, RFC 8200 §3
IPV4_MIN_MTU = 68  # every IPv4 module forwards 68-byte datagrams: RFC 791 §3.2
IPV6_MIN_MTU = 1280  # RFC 8200 §5
UDP_HEADER = 8  # RFC 768
TCP_HEADER = 20  # without options: RFC 9293 §3.1
# The 10-byte timestamps option (RFC 7323 §3.2) behind two NOPs (RFC 7323 Appendix A), on
# every segment; Linux's default (net.ipv4.tcp_timestamps = 1, ip-sysctl documentation).
TCP_TIMESTAMPS = 12

WIFI = (Medium.N, Medium.AC, Medium.AX)


class OverheadError(ValueError):
    """Inputs the model cannot answer for; the message is one sentence for the user."""


@dataclass(frozen=True)
class LinkInputs:
    """A link and the traffic measured over it."""

    link_rate_bps: float  # Ethernet: the line rate; Wi-Fi: the PHY data rate
    medium: Medium
    ip_version: IpVersion
    protocol: Protocol
    length: int  # bytes per write (TCP: does not matter, segments coalesce) or per datagram
    security: Security = Security.OPEN
    mtu: int = 1500
    tcp_timestamps: bool = True
    vlan: bool = False
    frame_overhead: int | None = None  # link-layer bytes per frame instead of the medium's
    cipher: Cipher | None = None  # None: the security setting's usual cipher
    aggregation: int | None = None  # at most this many frames per A-MPDU; None: the maximum
    spatial_streams: int = 2


@dataclass(frozen=True)
class Expected:
    """The best goodput the link allows, with the arithmetic that gives it."""

    inputs: LinkInputs
    expected_bps: float
    efficiency: float  # expected_bps / link rate
    unit: str  # "segment" (TCP) or "datagram" (UDP): what the byte counts below are for
    payload_bytes: int
    # Bytes per unit by layer, outermost first; Wi-Fi airtime counted as the bytes the link
    # rate would carry in that time.
    overhead: tuple[tuple[str, float], ...]
    frames: int  # frames per unit: more than 1 for a fragmented datagram
    aggregated: int | None  # Wi-Fi: frames per A-MPDU (1 = none); None elsewhere
    explanation: tuple[str, ...]

    @property
    def overhead_bytes(self) -> float:
        return sum(n for _, n in self.overhead)

    def as_dict(self) -> dict[str, Any]:
        spec = self.inputs
        wifi = spec.medium in WIFI and spec.frame_overhead is None
        return {
            "link_rate_bps": spec.link_rate_bps,
            "medium": spec.medium.value,
            "protocol": spec.protocol.value,
            "ip_version": int(spec.ip_version),
            "length": spec.length,
            "security": spec.security.value,
            "cipher": cipher_of(spec).value if wifi else None,
            "mtu": spec.mtu,
            "tcp_timestamps": spec.tcp_timestamps,
            "frame_overhead": spec.frame_overhead,
            "expected_bps": self.expected_bps,
            "efficiency": self.efficiency,
            "unit": self.unit,
            "payload_bytes": self.payload_bytes,
            "overhead_bytes": {name: _plain(n) for name, n in self.overhead},
            "frames": self.frames,
            "frames_per_ampdu": self.aggregated,
            "explanation": list(self.explanation),
        }


@dataclass(frozen=True)
class _Packet:
    """One IP packet, one frame on the link: its payload and headers, outermost first."""

    payload: int
    headers: tuple[tuple[str, int], ...]

    @property
    def size(self) -> int:
        return self.payload + sum(n for _, n in self.headers)


def cipher_of(spec: LinkInputs) -> Cipher:
    if spec.cipher is not None:
        return spec.cipher
    if spec.security is Security.UNKNOWN:
        raise OverheadError(
            "Say which security the Wi-Fi link uses (open, WEP, WPA, WPA2 or WPA3): it "
            "changes the bytes of every frame."
        )
    return SECURITY_CIPHER[spec.security]


def expected(spec: LinkInputs) -> Expected:
    """The best goodput over the link, the bytes of every layer and the arithmetic in words."""
    _check(spec)
    packets, said = _packets(spec)
    layers: dict[str, float] = {}
    aggregated = None
    if spec.frame_overhead is not None:
        for _ in packets:
            _add(layers, [("frame overhead", spec.frame_overhead)])
        said.append(
            f"Each frame is counted as its IP packet plus {spec.frame_overhead} bytes, the "
            "per-frame overhead given: what a shaper counts (a Linux tc shaper on an Ethernet "
            "or veth interface counts 14, the Ethernet header, and no preamble, FCS or gap)."
        )
    elif spec.medium is Medium.ETHERNET:
        for packet in packets:
            _add(layers, _ethernet(spec, packet))
        said += _ethernet_words(spec, packets, layers)
    else:
        aggregated = _wifi(spec, packets, layers, said)
    for packet in packets:
        _add(layers, packet.headers)
    overhead = tuple((name, n) for name, n in layers.items() if n)
    payload = sum(p.payload for p in packets)
    total = payload + sum(n for _, n in overhead)
    efficiency = payload / total
    rate = spec.link_rate_bps
    kind = "bytes on the wire" if aggregated is None else "bytes' worth of air time"
    said.append(
        f"So {payload} of every {_plain(total)} {kind} carry data: {efficiency * 100:.2f} % of "
        f"{format_rate(rate)} is {_rate(rate * efficiency)}."
    )
    return Expected(
        inputs=spec,
        expected_bps=rate * efficiency,
        efficiency=efficiency,
        unit="segment" if spec.protocol is Protocol.TCP else "datagram",
        payload_bytes=payload,
        overhead=overhead,
        frames=len(packets),
        aggregated=aggregated,
        explanation=tuple(said),
    )


class SecurityCost(NamedTuple):
    """What two security settings' extra bytes and airtime alone make of the goodput."""

    expected_a: Expected
    expected_b: Expected
    difference_bps: float  # expected_a − expected_b

    def explained_share(self, measured_difference_bps: float) -> float | None:
        """The share of a measured difference (a − b) the extra bytes explain; None when
        nothing was measured to differ."""
        if measured_difference_bps == 0:
            return None
        return self.difference_bps / measured_difference_bps


def security_cost(spec: LinkInputs, security_a: Security, security_b: Security) -> SecurityCost:
    """The expected goodput under two security settings and their difference, e.g. open vs
    WPA2: CCMP's 16 bytes in every frame."""
    a = expected(replace(spec, security=security_a, cipher=None))
    b = expected(replace(spec, security=security_b, cipher=None))
    return SecurityCost(a, b, a.expected_bps - b.expected_bps)


def _check(spec: LinkInputs) -> None:
    v4 = spec.ip_version is IpVersion.V4
    if not spec.link_rate_bps > 0:
        raise OverheadError("The link rate must be above 0, for example 100M or 1G.")
    if spec.length < 1:
        raise OverheadError("The length must be at least 1 byte.")
    low = IPV4_MIN_MTU if v4 else IPV6_MIN_MTU
    high = air.MAX_MSDU if spec.medium in WIFI and spec.frame_overhead is None else MAX_IP_PACKET
    if not low <= spec.mtu <= high:
        raise OverheadError(
            f"An MTU of {spec.mtu} is outside what IPv{int(spec.ip_version)} over this link "
            f"allows ({low}..{high} bytes)."
        )
    ip = IPV4_HEADER if v4 else IPV6_HEADER
    if spec.protocol is Protocol.UDP and spec.length > MAX_IP_PACKET - ip - UDP_HEADER:
        raise OverheadError(
            f"A UDP datagram over IPv{int(spec.ip_version)} holds at most "
            f"{MAX_IP_PACKET - ip - UDP_HEADER} bytes: give a smaller length."
        )
    if spec.frame_overhead is not None:
        if not 0 <= spec.frame_overhead <= 10_000:
            raise OverheadError("The frame overhead must be between 0 and 10000 bytes.")
        return
    if spec.medium not in (*WIFI, Medium.ETHERNET):
        raise OverheadError(
            "Say which medium the link is (Ethernet, 802.11n, 802.11ac or 802.11ax), or give "
            "the per-frame overhead in bytes (--frame-overhead)."
        )
    if spec.vlan and spec.medium is not Medium.ETHERNET:
        raise OverheadError("A VLAN tag belongs to Ethernet frames: leave it out for Wi-Fi.")
    if spec.medium is Medium.ETHERNET:
        wifi_only = spec.cipher.value if spec.cipher not in (None, Cipher.NONE) else None
        if spec.security not in (Security.OPEN, Security.UNKNOWN):
            wifi_only = spec.security.value
        if wifi_only:
            raise OverheadError(
                f"{wifi_only} protects Wi-Fi frames, not Ethernet ones: leave the security "
                "out, or choose a Wi-Fi medium."
            )
        return
    cipher_of(spec)
    phy = air.PHYS[spec.medium]
    if not 1 <= spec.spatial_streams <= phy.max_streams:
        raise OverheadError(f"{phy.name} has 1 to {phy.max_streams} spatial streams.")
    if spec.aggregation is not None and spec.aggregation < 1:
        raise OverheadError("The aggregation is at least 1 frame per A-MPDU (1 = none).")


def _packets(spec: LinkInputs) -> tuple[list[_Packet], list[str]]:
    """The IP packets that carry one TCP segment or one UDP datagram."""
    v = int(spec.ip_version)
    ip = IPV4_HEADER if v == 4 else IPV6_HEADER
    ip_part = (f"IPv{v} header", ip)
    if spec.protocol is Protocol.TCP:
        options = TCP_TIMESTAMPS if spec.tcp_timestamps else 0
        data = spec.mtu - ip - TCP_HEADER - options
        tcp = (ip_part, ("TCP header", TCP_HEADER), ("TCP timestamps option", options))
        stamps = f" − {options} (timestamps option)" if options else ""
        return [_Packet(data, tcp)], [
            f"TCP fills every segment whatever the write length ({spec.length}-byte writes "
            f"coalesce): {spec.mtu} (MTU) − {ip} (IPv{v} header) − {TCP_HEADER} (TCP header)"
            f"{stamps} = {data} bytes of data per segment."
        ]
    datagram = spec.length + UDP_HEADER
    if datagram + ip <= spec.mtu:
        return [_Packet(spec.length, (ip_part, ("UDP header", UDP_HEADER)))], [
            f"Each {spec.length}-byte datagram gets an {UDP_HEADER}-byte UDP header and a "
            f"{ip}-byte IPv{v} header: a {datagram + ip}-byte IP packet, within the "
            f"{spec.mtu}-byte MTU, so one frame."
        ]
    fragment = IPV6_FRAGMENT if v == 6 else 0
    room = (spec.mtu - ip - fragment) // FRAGMENT_UNIT * FRAGMENT_UNIT
    count = math.ceil(datagram / room)
    packets = []
    for index in range(count):
        chunk = min(room, datagram - index * room)
        headers = [ip_part] + ([("IPv6 fragment header", fragment)] if fragment else [])
        if index == 0:
            headers.append(("UDP header", UDP_HEADER))
        packets.append(_Packet(chunk - (UDP_HEADER if index == 0 else 0), tuple(headers)))
    extra = f" and an {fragment}-byte fragment header" if fragment else ""
    return packets, [
        f"A {spec.length}-byte datagram and its {UDP_HEADER}-byte UDP header do not fit the "
        f"{spec.mtu}-byte MTU: IPv{v} cuts them into {count} fragments of at most {room} bytes "
        f"(a multiple of 8), each with its own {ip}-byte IPv{v} header{extra}; only the "
        "first carries the UDP header."
    ]


def _ethernet(spec: LinkInputs, packet: _Packet) -> list[tuple[str, float]]:
    tag = VLAN_TAG if spec.vlan else 0
    return [
        ("preamble + SFD", ETH_PREAMBLE),
        ("Ethernet header + VLAN tag" if tag else "Ethernet header", ETH_HEADER + tag),
        ("Ethernet padding", max(0, ETH_MIN_DATA - tag - packet.size)),
        ("Ethernet FCS", ETH_FCS),
        ("inter-frame gap", ETH_GAP),
    ]


def _ethernet_words(
    spec: LinkInputs, packets: list[_Packet], layers: dict[str, float]
) -> list[str]:
    header = ETH_HEADER + (VLAN_TAG if spec.vlan else 0)
    tag = " with its VLAN tag" if spec.vlan else ""
    said = [
        f"Each Ethernet frame adds {ETH_PREAMBLE} (preamble and SFD) + {header} (header{tag}) "
        f"+ {ETH_FCS} (FCS) + {ETH_GAP} (inter-frame gap) = "
        f"{ETH_PREAMBLE + header + ETH_FCS + ETH_GAP} bytes on the wire."
    ]
    if layers.get("Ethernet padding"):
        said.append(
            f"A frame carries at least {ETH_MIN_DATA} bytes: shorter packets are padded "
            f"({_plain(layers['Ethernet padding'])} bytes here)."
        )
    if spec.protocol is Protocol.TCP:
        said.append(
            "The receiver's ACKs travel the other way of the full-duplex link and take "
            "nothing from this direction."
        )
    return said


def _wifi(
    spec: LinkInputs, packets: list[_Packet], layers: dict[str, float], said: list[str]
) -> int:
    """Adds the 802.11 bytes and air time of the frames; returns the frames per A-MPDU."""
    ack = None
    if spec.protocol is Protocol.TCP:
        ip = IPV4_HEADER if spec.ip_version is IpVersion.V4 else IPV6_HEADER
        ack = ip + TCP_HEADER + (TCP_TIMESTAMPS if spec.tcp_timestamps else 0)
    frames = air.wifi_frames(
        spec.medium,
        spec.link_rate_bps,
        spec.spatial_streams,
        cipher_of(spec),
        [p.size for p in packets],
        spec.aggregation,
        ack,
    )
    _add(layers, frames.layers)
    said += frames.sentences
    return frames.mpdus


def _add(
    layers: dict[str, float], parts: list[tuple[str, float]] | tuple[tuple[str, int], ...]
) -> None:
    for name, n in parts:
        layers[name] = layers.get(name, 0.0) + n


def _plain(value: float) -> float | int:
    """Whole byte counts as integers, airtime equivalents to two decimals."""
    return int(value) if float(value).is_integer() else round(value, 2)


def _rate(bps: float) -> str:
    return format_rate(bps, 4)
