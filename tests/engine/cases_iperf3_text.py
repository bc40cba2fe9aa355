"""What LinkLab must make of real iperf3 text output."""

from __future__ import annotations

from app.engine.drivers.iperf3.errors import AuthenticationRequired, NotIperf3
from app.engine.errors import ClosedBeforeStart, Interrupted
from tests.engine.engine_replay import GIB, KIB, LOSS, MIB, Case, G, K, M

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
            "first.up.sent_bps": 19678187 * K,
            "first.up.cwnd_bytes": 1023 * KIB,
            "samples": 3,
        },
    ),
    Case(
        "local-iperf3-3.1.3-linux-udp-V-fk.txt",
        "3.1.3",
        {
            # One summary line: the sender's 3.47 MBytes, the receiver's 48/443 lost.
            "up.sender_bps": 9698 * K,
            "up.sender_bytes": round(3.47 * MIB),
            "up.jitter_ms": 0.013,
            "up.lost_packets": 48,
            "up.packets": 443,
            "up.loss_pct": 11.0,
            "up.receiver_bps": 9698 * K * 395 / 443,
            "up.receiver_derived": LOSS,
            "cpu_local_pct": 1.7,
            "first.up.packets": 139,
            "samples": 3,
        },
        says="395 of 443 datagrams",
    ),
    Case(
        "iperf3-3.1-windows-udp.txt",
        "3.1",
        {
            "up.sender_bps": 1.38 * G,
            "up.jitter_ms": 0.072,
            "up.lost_packets": 35148,
            "up.packets": 62949,
            "up.loss_pct": 56.0,
            "up.receiver_bps": 1.38 * G * (62949 - 35148) / 62949,
            "up.receiver_derived": LOSS,
            "first.up.sent_bps": 1.34 * G,
            "first.up.packets": 20398,
            "samples": 3,
        },
    ),
    Case(
        "iperf3-3.1-windows-tcp-P5.txt",  # no "Starting Test": 5 "connected to" lines
        "3.1",
        {
            "up.sender_bps": 4670 * M,
            "up.receiver_bps": 4670 * M,
            "up.sender_bytes": round(1.64 * GIB),
            "up.retransmits": None,  # Windows reports none
            "first.up.sent_bps": 4.27 * G,
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
            "first.up.sent_bps": 14344211 * K,
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
            "up.receiver_derived": None,
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
        "iperf3-3.9-linux-tcp-omit3-crlf.txt",  # no -V: the summary follows a separator
        "3.9",
        {
            "up.sender_bps": 361 * M,
            "up.sender_bytes": 430 * MIB,
            "up.receiver_bps": 361 * M,
            "up.receiver_bytes": 434 * MIB,
            "up.retransmits": 46,
            "first.up.sent_bps": 356 * M,
            "samples": 10,
        },
    ),
    Case(
        "iperf3-3.9-linux-tcp-interrupted-crlf.txt",
        "3.9",
        {"samples": 5},  # 3 omitted, 2 counted; the "^C" line is no interval
        error=Interrupted,
        says="iperf3 was interrupted before the run ended",
    ),
    Case(
        "iperf3-3.9-linux-err-ctrlsock-crlf.txt",
        "3.9",
        error=ClosedBeforeStart,
        says="accepted the connection on port 5201",
    ),
    Case(
        "iperf3-3.1.3-windows-V-err-ctrlreset.txt",
        "3.1.3",
        error=ClosedBeforeStart,
        says="then closed it before the test started",
    ),
    Case(
        "iperf3-3.7plus-openwrt-text-param-error.txt",
        "3.7",
        # An OpenWrt server set up for authentication: told as exactly that, with where to
        # give the user name and password.
        error=AuthenticationRequired,
        says="demands a user name and password (iperf3 said: parameter error - you must specify",
    ),
    Case(
        "iperf-2-linux-udp.txt",
        "2.0",
        error=NotIperf3,
        says="is iperf 2 (it printed 'Client connecting to 10.128.0.2, UDP port 25000",
        exit_code=0,
    ),
]
