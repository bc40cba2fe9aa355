"""What LinkLab must make of real netperf -k output."""

from __future__ import annotations

from app.engine.drivers.netperf.errors import DataConnectionFailed, NoNetserver
from app.engine.errors import ConnectTimeout
from tests.engine.engine_replay import HOST, Case, M

NETPERF_CASES = [
    # -- netperf -k keyval ------------------------------------------------------------------------
    Case(
        "local-netperf-2.7.0-debian12-udp_stream-no-etc-protocols.txt",
        "2.7.0",
        {
            "up.sender_bps": 2604.45 * M,
            "up.receiver_bps": 2580.23 * M,
            "up.sender_bytes": 976722600,
            "up.receiver_bytes": 967639400,
            "up.packets": 697659,
            "up.lost_packets": 697659 - 691171,
            "up.loss_pct": 100 * (697659 - 691171) / 697659,
            "cpu_local_pct": 68.53,
            "first.up.sent_bps": 2087.58 * M,
            "samples": 3,
        },
        says="netperf warned: enable_enobufs failed: getprotobyname",
    ),
    Case(
        "netperf-2.6-debian-tcp_rr-keyval-enobufs.txt",
        "2.6.0",
        {
            "transactions_per_s": 2841.067,
            "rtt_mean_ms": 0.35166,
            "rtt_min_ms": None,
            "samples": 0,
        },
        says="netperf warned: enable_enobufs failed",
    ),
    Case(
        "local-netperf-2.7.0-nodemo-tcp_stream-20s-keyval.txt",
        "2.7.0",
        {
            "up.sender_bps": 17028.13 * M,
            "up.receiver_bps": 17028.13 * M,
            "up.sender_bytes": 42571677696,
            "cpu_local_pct": 73.62,
            "samples": 0,
        },
        says="live samples are not available",
        live=False,
    ),
    Case(
        "local-netperf-2.7.0-nodemo-tcp_rr-keyval.txt",
        "2.7.0",
        {
            "transactions_per_s": 11488.119,
            "rtt_mean_ms": 0.08688,
            "rtt_min_ms": 0.018,
            "rtt_max_ms": 7.293,
            "cpu_local_pct": 32.15,
            "cpu_remote_pct": 32.21,
            "samples": 0,
        },
        says="built without demo mode",
        live=False,
    ),
    Case(
        "netperf-2.5.0-err-connect-data-socket.txt",
        "2.5.0",
        error=DataConnectionFailed,
        says="refused the data connection",
    ),
    Case(
        "netperf-flent-err-establish-control.txt",
        "2.7.0",
        error=NoNetserver,
        says=f"No netserver answered at {HOST} port 12865",
    ),
    Case(
        "netperf-starry-udp_stream-err-no-response.txt",
        "2.7.0",
        error=ConnectTimeout,
        says=f"No answer from {HOST} on port 12865",
    ),
]
