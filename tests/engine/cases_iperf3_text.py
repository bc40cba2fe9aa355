"""What LinkLab must make of real iperf3 text output."""

from __future__ import annotations

from app.engine.errors import BadOption
from tests.engine.engine_replay import KIB, Case, K

TEXT_CASES = [
    # -- iperf3 text (-f k -V --forceflush for LinkLab; some public ones without -V) -----------
    Case(
        "local-iperf3-3.1.3-linux-tcp-V-fk.txt",
        "3.1.3",
        {
            "up.sender_bps": 18613628 * K,
            "up.receiver_bps": 18612928 * K,
            "up.retransmits": 4,
            "cpu_local_pct": 97.9,
            "cpu_remote_pct": 29.6,
            "first.up.bits_per_second": 19678187 * K,
            "first.up.cwnd_bytes": 1023 * KIB,
            "samples": 3,
        },
    ),
    Case(
        "local-iperf3-3.5-linux-tcp-P2-V.txt",
        "3.5",
        {
            "up.sender_bps": 15362285 * K,
            "up.receiver_bps": 15154271 * K,
            "up.retransmits": 28,
            "first.up.bits_per_second": 14344211 * K,
            "first.up.retransmits": 2,
            "cpu_local_pct": 94.8,
            "samples": 3,
        },
    ),
    Case(
        "local-iperf3-3.5-linux-tcp-reverse-V.txt",
        "3.5",
        {
            "down.sender_bps": 16203601 * K,
            "down.receiver_bps": 16432616 * K,
            "down.retransmits": 27,
            "cpu_local_pct": 41.6,
            "cpu_remote_pct": 69.8,
            "samples": 3,
        },
    ),
    Case(
        "local-iperf3-3.5-linux-udp-V.txt",
        "3.5",
        {
            "up.sender_bps": 20009 * K,
            "up.receiver_bps": 19726 * K,
            "up.jitter_ms": 0.014,
            "up.lost_packets": 0,
            "up.packets": 229,
            "samples": 3,
        },
    ),
    Case(
        "local-iperf3-3.5-linux-udp-reverse-V.txt",
        "3.5",
        {
            "down.sender_bps": 20072 * K,
            "down.receiver_bps": 20359 * K,
            "down.jitter_ms": 0.019,
            "down.lost_packets": 0,
            "down.packets": 233,
            "first.down.jitter_ms": 0.049,
            "first.down.packets": 80,
            "samples": 3,
        },
    ),
    Case(
        "iperf3-3.7plus-openwrt-text-param-error.txt",
        "3.7",
        error=BadOption,
        says="you must specify username",
    ),
]
