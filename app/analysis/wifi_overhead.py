"""802.11 overhead: the bytes around every IP packet and the air time of an exchange.

Frame bytes come from the standard. Air time follows the exchange Jun, Peddabachagari &
Sichitiu analyse for the theoretical maximum throughput of IEEE 802.11 (Proc. IEEE NCA 2003,
pp. 249-256): wait (AIFS, then the mean backoff), send (PHY preamble, then the data symbols),
be acknowledged (SIFS, then the acknowledgement). For 802.11n/ac/ax the data is an A-MPDU
answered by one block ack, as in Ginzburg & Kesselman, "Performance analysis of A-MPDU and
A-MSDU aggregation in IEEE 802.11n" (IEEE Sarnoff Symposium 2007); with aggregation 1 it is
Jun et al.'s single-frame exchange with the HT/VHT/HE preamble.

Assumptions, the best case: one sender with a frame always ready, no other station, no
collisions and no retries; every data frame at the PHY rate the user gives (the link rate),
the short guard interval (HE: 0.8 µs) and 5 GHz timings; control responses at 24 Mbit/s; no
RTS/CTS, no A-MSDU, no HE packet extension; A-MPDUs as long as the standard allows unless
capped. Clause numbers are those of IEEE Std 802.11-2016 unless 802.11ax-2021 is named.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from app.domain.plan import Medium, Security
from app.domain.units import format_rate

# The frame around the IP packet.
# QoS Data header: Frame Control 2, Duration 2, three addresses 18, Sequence Control 2, QoS
# Control 2 (§9.3.2.1); 802.11n/ac/ax stations send QoS data frames.
MAC_HEADER = 26
FCS = 4  # §9.2.4.8
LLC_SNAP = 8  # LLC DSAP, SSAP, control 3 (IEEE 802.2) + SNAP OUI 3, EtherType 2 (RFC 1042)
MAX_MSDU = 2304  # the longest MSDU, so the longest IP packet: §9.2.4.7.1, Table 9-19


class Cipher(StrEnum):
    """What protects each frame; it, not the security setting's name, sets the bytes."""

    NONE = "none"
    WEP = "WEP"
    TKIP = "TKIP"
    CCMP_128 = "CCMP-128"
    CCMP_256 = "CCMP-256"
    GCMP_256 = "GCMP-256"


CIPHER_BYTES = {
    Cipher.NONE: 0,
    Cipher.WEP: 8,  # IV 4 + ICV 4: §12.3.2.2
    # IV/Key ID 4 + Extended IV 4 + ICV 4 (§12.5.2.2) + Michael MIC 8 (§12.5.2.3)
    Cipher.TKIP: 20,
    Cipher.CCMP_128: 16,  # CCMP header 8 + MIC 8: §12.5.3.2
    Cipher.CCMP_256: 24,  # CCMP header 8 + MIC 16: §12.5.3.2
    Cipher.GCMP_256: 24,  # GCMP header 8 + MIC 16: §12.5.5.2
}
CIPHER_PARTS = {
    Cipher.NONE: "security",
    Cipher.WEP: "WEP IV + ICV",
    Cipher.TKIP: "TKIP IV + MIC + ICV",
    Cipher.CCMP_128: "CCMP header + MIC",
    Cipher.CCMP_256: "CCMP-256 header + MIC",
    Cipher.GCMP_256: "GCMP-256 header + MIC",
}
# The cipher a security setting uses unless told otherwise: WPA is TKIP (802.11i TSN), WPA2
# CCMP-128 (802.11i RSN), WPA3-Personal CCMP-128 (Wi-Fi Alliance WPA3 Specification);
# WPA3-Enterprise's 192-bit mode uses GCMP-256: give that cipher explicitly.
SECURITY_CIPHER = {
    Security.OPEN: Cipher.NONE,
    Security.WEP: Cipher.WEP,
    Security.WPA: Cipher.TKIP,
    Security.WPA2: Cipher.CCMP_128,
    Security.WPA3: Cipher.CCMP_128,
}

# Channel access (5 GHz OFDM timings; HT, VHT and HE repeat them).
SLOT_US = 9.0  # aSlotTime: §17.4.5, Table 17-21 (OFDM PHY characteristics)
SIFS_US = 16.0  # aSIFSTime: §17.4.5, Table 17-21 (2.4 GHz: 10 µs + 6 µs signal extension)
CW_MIN = 15  # aCWmin: §17.4.5, Table 17-21; AC_BE starts from aCWmin (§9.4.2.29, Table 9-137)
AIFSN_BE = 3  # best effort, what iperf3 traffic is: §9.4.2.29, Table 9-137 (default EDCA)
AIFS_US = SIFS_US + AIFSN_BE * SLOT_US  # AIFS[AC] = AIFSN[AC] × aSlotTime + aSIFSTime: §10.22.2.4
# The backoff drawn uniformly from 0..CWmin slots, CWmin/2 on average with no collisions:
# Jun, Peddabachagari & Sichitiu 2003, §3 (T_BO).
MEAN_BACKOFF_US = CW_MIN / 2 * SLOT_US

# Control responses (Ack, BlockAck) in a non-HT PPDU at a basic rate: §10.6 (multirate).
CONTROL_RATE_BPS = 24e6  # the highest mandatory OFDM rate: §17.3.2.3, Table 17-4
LEGACY_PREAMBLE_US = 20.0  # T_PREAMBLE 16 µs + T_SIGNAL 4 µs: §17.3.2.4, Table 17-5
LEGACY_SYMBOL_US = 4.0  # T_SYM: §17.3.2.4, Table 17-5
CONTROL_DBPS = round(CONTROL_RATE_BPS * LEGACY_SYMBOL_US * 1e-6)  # 96: Table 17-4
ACK_BYTES = 14  # Frame Control 2, Duration 2, RA 6, FCS 4: §9.3.1.4 (Ack frame format)
# Compressed BlockAck: Frame Control 2, Duration 2, RA 6, TA 6, BA Control 2, Starting
# Sequence Control 2, bitmap (one bit per frame of the window), FCS 4: §9.3.1.9.3.
BLOCK_ACK_FIXED_BYTES = 24

# Data symbols: SERVICE field 16 bits (§17.3.5.2) and 6 tail bits per BCC encoder
# (§17.3.5.3) are coded with the PSDU: N_SYM = ceil((16 + 8·length + 6) / N_DBPS), equations
# (19-32) (HT) and (21-62) (VHT); one encoder assumed (LDPC, common at high rates, needs no
# tail: a difference of 6 bits per PPDU).
SERVICE_BITS = 16
TAIL_BITS = 6

# A-MPDU: each MPDU behind a 4-byte delimiter, padded to a multiple of 4 bytes: §9.7.1.
AMPDU_DELIMITER_BYTES = 4
AMPDU_ALIGN = 4
# The longest PPDU an HT-mixed, VHT or HE preamble can announce (aPPDUMaxTime): the L-SIG
# length field's 4095 bytes at 6 Mbit/s, 1366 symbols × 4 µs + 20 µs = 5484 µs; the HT and
# VHT PHY characteristics tables (§19.4.5, §21.4.4) and 802.11ax-2021 Clause 27 (HE).
PPDU_MAX_US = 5484.0


@dataclass(frozen=True)
class Phy:
    """What the airtime model needs of one PHY generation."""

    name: str
    header_us: float  # the preamble before the training fields, independent of streams
    ltf_us: float  # one long training field
    symbol_us: float  # one data symbol, guard interval included
    max_ampdu_bytes: int  # the longest A-MPDU a receiver may announce
    window: int  # block-ack window: at most this many MPDUs per A-MPDU
    always_ampdu: bool  # every MPDU travels in an A-MPDU (VHT single MPDU, HE)
    max_streams: int

    def preamble_us(self, streams: int) -> float:
        return self.header_us + training_fields(streams) * self.ltf_us


PHYS = {
    # HT-mixed format: L-STF 8 + L-LTF 8 + L-SIG 4 + HT-SIG 8 + HT-STF 4 µs, then 4 µs per
    # HT-LTF; data symbols 3.6 µs with the short guard interval: §19.3.6, Table 19-6 (timing
    # constants). Longest A-MPDU 65 535 bytes (exponent 3): §9.4.2.56.3. Window 64: Buffer
    # Size of the Block Ack Parameter Set field, §9.4.1.14.
    Medium.N: Phy("802.11n (HT)", 32.0, 4.0, 3.6, 65_535, 64, False, 4),
    # VHT: L-STF 8 + L-LTF 8 + L-SIG 4 + VHT-SIG-A 8 + VHT-STF 4 + VHT-SIG-B 4 µs, then 4 µs
    # per VHT-LTF; symbols 3.6 µs with the short guard interval: §21.3.6, Table 21-5.
    # Longest A-MPDU 1 048 575 bytes (exponent 7): §9.4.2.158.2. Every VHT PPDU carries an
    # A-MPDU, a lone frame as a VHT single MPDU: §10.13 (A-MPDU operation).
    Medium.AC: Phy("802.11ac (VHT)", 36.0, 4.0, 3.6, 1_048_575, 64, True, 8),
    # HE SU: L-STF 8 + L-LTF 8 + L-SIG 4 + RL-SIG 4 + HE-SIG-A 8 + HE-STF 4 µs, then per
    # HE-LTF 6.4 µs (2x LTF) + 0.8 µs guard; symbols 12.8 + 0.8 µs: 802.11ax-2021 §27.3,
    # timing-related constants. Longest A-MPDU 6 500 631 bytes: 802.11ax-2021 §9.4.2.248.2.
    # Window 256: 802.11ax-2021 §9.4.1.14.
    Medium.AX: Phy("802.11ax (HE)", 36.0, 7.2, 13.6, 6_500_631, 256, True, 8),
}


# Long training fields for 1..8 spatial streams: §19.3.9.4.6, Table 19-13 (HT);
# §21.3.8.3.5, Table 21-13 (VHT); HE uses the VHT numbers (802.11ax-2021 §27.3.11, HE-LTF).
TRAINING_FIELDS = (1, 2, 4, 4, 6, 6, 8, 8)


def training_fields(streams: int) -> int:
    return TRAINING_FIELDS[streams - 1]


def control_us(length: int) -> float:
    """A control frame in a non-HT PPDU at 24 Mbit/s (TXTIME: §17.4.3)."""
    bits = SERVICE_BITS + 8 * length + TAIL_BITS
    return LEGACY_PREAMBLE_US + LEGACY_SYMBOL_US * math.ceil(bits / CONTROL_DBPS)


def block_ack_bytes(phy: Phy) -> int:
    return BLOCK_ACK_FIXED_BYTES + phy.window // 8


def subframe_bytes(phy: Phy, mpdu: int, aggregated: bool) -> int:
    """An MPDU as it lies in the PSDU: behind its delimiter and padded, when in an A-MPDU."""
    if not (aggregated or phy.always_ampdu):
        return mpdu
    size = AMPDU_DELIMITER_BYTES + mpdu
    return size + (-size) % AMPDU_ALIGN


@dataclass(frozen=True)
class Exchange:
    """One transmit opportunity: wait, send a PPDU of `mpdus` frames, be acknowledged."""

    mpdus: int
    limit: str  # what kept the A-MPDU from growing, in words
    psdu_bytes: float
    access_us: float  # AIFS and the mean backoff
    preamble_us: float
    data_us: float  # the data symbols: the PSDU plus service, tail and padding bits
    payload_us: float  # the share of data_us the PSDU's bytes need at the PHY rate
    response_us: float  # SIFS and the Ack or BlockAck
    block_ack: bool

    @property
    def total_us(self) -> float:
        return self.access_us + self.preamble_us + self.data_us + self.response_us


def exchange(
    medium: Medium,
    rate_bps: float,
    streams: int,
    mpdu_sizes: Sequence[int],
    cap: int | None = None,
) -> Exchange:
    """The exchange carrying as many MPDUs as the standard allows (at most `cap`); for a
    datagram in several fragments `mpdu_sizes` lists them and the A-MPDU uses their mean."""
    phy = PHYS[medium]
    preamble = phy.preamble_us(streams)
    dbps = rate_bps * phy.symbol_us * 1e-6

    def mean_subframe(aggregated: bool) -> float:
        return sum(subframe_bytes(phy, m, aggregated) for m in mpdu_sizes) / len(mpdu_sizes)

    def data_us(count: int) -> float:
        bits = SERVICE_BITS + 8 * count * mean_subframe(count > 1) + TAIL_BITS
        return phy.symbol_us * math.ceil(bits / dbps - 1e-9)

    count, limit = 1, "no aggregation"
    if cap is None or cap > 1:
        by_bytes = max(1, int(phy.max_ampdu_bytes // mean_subframe(True)))
        by_time = 1
        while by_time < phy.window and preamble + data_us(by_time + 1) <= PPDU_MAX_US:
            by_time += 1
        limits = [
            (phy.window, f"the block-ack window of {phy.window} frames"),
            (by_bytes, f"the {phy.max_ampdu_bytes:,}-byte A-MPDU maximum"),
            (by_time, f"the {PPDU_MAX_US / 1000:g} ms PPDU maximum"),
        ]
        if cap is not None:
            limits.append((cap, f"the aggregation cap of {cap} frames"))
        count, limit = min(limits, key=lambda item: item[0])
    block_ack = count > 1
    response = SIFS_US + control_us(block_ack_bytes(phy) if block_ack else ACK_BYTES)
    psdu = count * mean_subframe(count > 1)
    return Exchange(
        mpdus=count,
        limit=limit,
        psdu_bytes=psdu,
        access_us=AIFS_US + MEAN_BACKOFF_US,
        preamble_us=preamble,
        data_us=data_us(count),
        payload_us=8 * psdu / rate_bps * 1e6,
        response_us=response,
        block_ack=block_ack,
    )


def ack_exchange(
    medium: Medium, rate_bps: float, streams: int, ack_mpdu: int, data: Exchange
) -> tuple[Exchange, float]:
    """The receiver's TCP acknowledgements for one data exchange, sharing the air: one per
    two segments (delayed ACK, RFC 9293 §3.8.6.3; RFC 5681 §4.2), sent together in one
    exchange of their own. Returns that exchange and how many data MPDUs it answers."""
    acks = max(1, data.mpdus // 2)
    back = exchange(medium, rate_bps, streams, [ack_mpdu], cap=acks)
    return back, 2.0 * back.mpdus


@dataclass(frozen=True)
class WifiFrames:
    """The 802.11 bytes and air time of the frames carrying one segment or datagram."""

    layers: list[tuple[str, float]]  # summed over the frames; air time as bytes at the rate
    mpdus: int  # frames per A-MPDU (1: none)
    sentences: list[str]


def wifi_frames(
    medium: Medium,
    rate_bps: float,
    streams: int,
    cipher: Cipher,
    packets: Sequence[int],
    aggregation: int | None,
    tcp_ack: int | None,
) -> WifiFrames:
    """The frames for IP packets of `packets` bytes; `tcp_ack` is the size of the TCP ACK
    packet the receiver returns (None for UDP), whose frames take air time too."""
    secured = CIPHER_BYTES[cipher]
    phy = PHYS[medium]

    def mpdu(ip_bytes: int) -> int:
        return MAC_HEADER + secured + LLC_SNAP + ip_bytes + FCS

    data = exchange(medium, rate_bps, streams, [mpdu(p) for p in packets], aggregation)
    # Air time per data frame, in the order it passes: the exchange's share, then the ACKs'.
    before_us = {
        "AIFS + backoff": data.access_us / data.mpdus,
        "PHY preamble": data.preamble_us / data.mpdus,
        "PHY padding": (data.data_us - data.payload_us) / data.mpdus,
    }
    after_us = {
        "SIFS + block ack" if data.block_ack else "SIFS + ACK": data.response_us / data.mpdus
    }
    said = [
        f"Each IP packet becomes one 802.11 data frame: {MAC_HEADER} (QoS MAC header) + "
        f"{LLC_SNAP} (LLC/SNAP)"
        + (f" + {secured} ({cipher.value})" if secured else "")
        + f" + {FCS} (FCS) = {MAC_HEADER + LLC_SNAP + secured + FCS} bytes around the packet.",
        f"{phy.name} sends {data.mpdus} frames together in one A-MPDU (limited by "
        f"{data.limit}), each behind a 4-byte delimiter and padded to a multiple of 4 bytes, "
        "and the receiver answers them all with one block ack."
        if data.mpdus > 1
        else f"{phy.name} sends one frame per transmission ({data.limit}).",
        f"One transmission holds the air for {data.total_us:.1f} µs: {data.access_us:.1f} µs "
        f"waiting (AIFS {AIFS_US:g} µs + mean backoff {MEAN_BACKOFF_US:g} µs), a "
        f"{data.preamble_us:g} µs PHY preamble ({streams} spatial streams), "
        f"{data.data_us:.1f} µs of data symbols at {format_rate(rate_bps)} and "
        f"{data.response_us:g} µs for SIFS and the {'block ack' if data.block_ack else 'ACK'} "
        "at 24 Mbit/s.",
    ]
    if tcp_ack is not None:
        back, answered = ack_exchange(medium, rate_bps, streams, mpdu(tcp_ack), data)
        after_us["TCP ACKs (air time)"] = back.total_us / answered
        said.append(
            "The receiver's TCP ACKs (one per two segments) need the same air: "
            f"{back.total_us:.1f} µs for {back.mpdus}, {back.total_us / answered:.1f} µs per "
            "segment."
        )
    layers: list[tuple[str, float]] = []
    for size in (mpdu(p) for p in packets):
        layers += [(name, us * rate_bps / 8e6) for name, us in before_us.items()]
        layers += [
            ("A-MPDU delimiter + padding", subframe_bytes(phy, size, data.mpdus > 1) - size),
            ("802.11 MAC header", MAC_HEADER),
            (CIPHER_PARTS[cipher], secured),
            ("LLC/SNAP", LLC_SNAP),
            ("802.11 FCS", FCS),
        ]
        layers += [(name, us * rate_bps / 8e6) for name, us in after_us.items()]
    if cipher in (Cipher.WEP, Cipher.TKIP):
        said.append(
            f"802.11n and later devices send {cipher.value} frames only at legacy 802.11a/g "
            "rates (54 Mbit/s at most): give such a rate as the link rate."
        )
    said.append(
        "Assumed: one sender and no collisions or retries, every frame at the link rate, "
        "the short guard interval, 5 GHz timings, no A-MSDU."
    )
    return WifiFrames(layers, data.mpdus, said)
