"""What LinkLab must make of real iperf3 -J documents and --json-stream lines."""

from __future__ import annotations

from app.engine.drivers.iperf3.errors import AuthenticationFailed
from app.engine.errors import (
    ClosedBeforeStart,
    ConnectionRefused,
    ConnectTimeout,
    EngineFailed,
)
from tests.engine.engine_replay import HOST, LOSS, Case

JSON_CASES = [
    # -- iperf3 -J (one document at the end) ----------------------------------------------------
    Case(
        "iperf3-3.0.7-linux-tcp.json",
        "3.0.7",
        {
            "up.sender_bps": 156181000.0,
            "up.receiver_bps": 154521000.0,
            "up.sender_bytes": 195443936,
            "up.receiver_bytes": 193366712,
            "up.retransmits": 81,
            "rtt_mean_ms": None,  # 3.0.7 reports no RTT
            "cpu_local_pct": 7.51411,
            "cpu_remote_pct": 41.1438,
            "samples": 10,
        },
    ),
    Case(
        "iperf3-3.0.7-linux-udp.json",
        "3.0.7",
        {
            "up.sender_bps": 19804500.0,
            "up.jitter_ms": 0.0113579,
            "up.lost_packets": 0,
            "up.packets": 3022,
            "up.loss_pct": 0.0,
            "up.receiver_bps": 19804500.0,  # 3022 of 3022 arrived
            "up.receiver_derived": LOSS,
            "samples": 10,
        },
    ),
    Case(
        "iperf3-3.1.3-linux-tcp.json",
        "3.1.3",
        {
            "up.sender_bps": 389274697.967401,
            "up.receiver_bps": 388736097.120548,
            "up.retransmits": 159,
            "up.receiver_derived": None,
            "rtt_mean_ms": 10.175,
            "rtt_min_ms": 1.875,
            "rtt_max_ms": 67.0,
            "cpu_local_pct": 2.18151,
            "cpu_remote_pct": 4.763802,
            "samples": 10,
        },
    ),
    Case(
        "iperf3-3.1.3-linux-udp.json",
        "3.1.3",
        {
            "up.sender_bps": 1048481.633493,
            "up.jitter_ms": 2735.461,  # as published: large, yet possible
            "up.lost_packets": 0,
            "up.packets": 159,
            "up.receiver_bps": 1048481.633493,
            "up.receiver_derived": LOSS,
            "samples": 10,
        },
    ),
    Case(
        "local-iperf3-3.1.3-linux-udp.json",
        "3.1.3",
        {
            "up.sender_bps": 9697822.025529,
            "up.sender_bytes": 3637248,
            "up.jitter_ms": 0.008,
            "up.lost_packets": 60,
            "up.packets": 441,
            "up.loss_pct": 13.605442,
            # Not the sender's rate: 381 of 441 datagrams arrived.
            "up.receiver_bps": 9697822.025529 * 381 / 441,
            "up.receiver_derived": LOSS,
            "throughput_bps": 9697822.025529 * 381 / 441,
            "cpu_local_pct": 1.711054,
            "cpu_remote_pct": 0.163431,
            "samples": 3,
        },
        says="worked out from the loss counters",
    ),
    Case(
        "iperf3-3.1.6-linux-tcp-20s.json",
        "3.1.6",
        {
            "up.sender_bps": 27192153.616692,
            "up.receiver_bps": 25489247.640428,
            "up.retransmits": 281,
            "rtt_mean_ms": 135.056,
            "rtt_min_ms": 133.798,
            "rtt_max_ms": 138.924,
            "samples": 20,
        },
    ),
    Case(
        "iperf3-3.6-linux-tcp-bytes.json",
        "3.6",
        {
            "up.sender_bps": 9273837.989949748,
            "up.sender_bytes": 84480,
            "up.receiver_bps": 0.0,  # as published: the server counted nothing
            "up.receiver_bytes": 0,
            "up.retransmits": 0,
            "rtt_mean_ms": 0.033,
            "samples": 1,
        },
    ),
    Case(
        "iperf3-3.9-linux-tcp.json",
        "3.9",
        {
            "up.sender_bps": 44042377604.16823,
            "up.receiver_bps": 44042139781.797935,
            "up.retransmits": 0,
            "rtt_mean_ms": 0.025,
            "rtt_min_ms": 0.021,
            "rtt_max_ms": 0.035,
            "cpu_local_pct": 99.49882081069975,
            "cpu_remote_pct": 0.377797593572381,
            "samples": 10,
        },
    ),
    Case(
        "iperf3-3.9-linux-tcp-omit3.json",
        "3.9",
        {
            "up.sender_bps": 197134022.77940047,
            "up.receiver_bps": 196650351.818409,
            "up.retransmits": 0,
            "rtt_mean_ms": 154.269,
            "samples": 10,  # 12 intervals, 2 of them omitted
        },
    ),
    Case(
        "iperf3-3.9-linux-udp.json",
        "3.9",
        {
            "up.sender_bps": 1048569.7085817485,
            "up.jitter_ms": 0.011259258240784126,
            "up.lost_packets": 0,
            "up.packets": 40,
            "up.receiver_bps": 1048569.7085817485,
            "up.receiver_derived": LOSS,
            "samples": 10,
        },
    ),
    Case(
        "iperf3-3.14-macos-tcp.json",
        "3.14",
        {
            "up.sender_bps": 204765977.5822317,
            "up.receiver_bps": 204737447.4407,
            "up.retransmits": None,  # macOS reports none
            "rtt_mean_ms": None,
            "cpu_local_pct": 5.906207383298452,
            "cpu_remote_pct": 0.731671,
            "samples": 10,
        },
    ),
    Case(
        "iperf3-3.14-macos-udp-reverse.json",
        "3.14",
        {
            "down.sender_bps": 32305625.765055776,
            "down.receiver_bps": 32034981.770479407,
            "down.receiver_derived": None,
            "down.jitter_ms": 0.068292653230841,
            "down.lost_packets": 1,
            "down.packets": 30421,
            "down.loss_pct": 0.003287202919036192,
            "samples": 11,
        },
    ),
    Case(
        "iperf3-3.0.11-linux-err-noroute.json",
        "3.0.11",
        error=ConnectTimeout,
        says=f"No answer from {HOST} on port 5201",
    ),
    Case(
        "iperf3-3.6-linux-err-ctrlsock.json",
        "3.6",
        error=ClosedBeforeStart,
        says="then closed it before the test started",
    ),
    Case(
        "iperf3-3.16-macos-err-ctrlsock.json",
        "3.16",
        error=ClosedBeforeStart,
        says="may not be an iperf3 server",
    ),
    Case(
        "iperf3-3.7-openwrt-err-refused.json",
        "3.7",
        error=ConnectionRefused,
        says=f"The peer {HOST} refused the connection on port 5201",
    ),
    Case(
        "iperf3-3.7-openwrt-err-authfail.json",
        "3.7",
        error=AuthenticationFailed,
        says="refused the user name or password",
    ),
    # -- iperf3 --json-stream (3.17+, live) -----------------------------------------------------
    Case(
        "local-iperf3-3.17-linux-tcp.jsonl",
        "3.17",
        {
            "up.sender_bps": 14248959935.167974,
            "up.receiver_bps": 14248295233.189142,
            "up.retransmits": 56,
            "rtt_mean_ms": 0.072,
            "rtt_min_ms": 0.063,
            "rtt_max_ms": 0.079,
            "cpu_local_pct": 94.3966659961179,
            "cpu_remote_pct": 38.656989896169421,
            "first.up.sent_bps": 17397003678.4313,
            "first.up.rtt_ms": 0.063,
            "first.up.cwnd_bytes": 916762,
            "samples": 3,
        },
    ),
    Case(
        "local-iperf3-3.17-linux-tcp-bidir.jsonl",
        "3.17",
        {
            "up.sender_bps": 14300485832.985046,
            "up.receiver_bps": 14289141495.194723,
            "up.retransmits": 2,
            "down.sender_bps": 17873162883.1235,
            "down.receiver_bps": 17859157421.216469,
            "down.retransmits": 3,
            "throughput_bps": 14289141495.194723 + 17859157421.216469,
            "rtt_mean_ms": 0.147,  # this end's sending stream only
            "samples": 6,
        },
    ),
    Case(
        "local-iperf3-3.17-linux-udp-reverse.jsonl",
        "3.17",
        {
            "down.sender_bps": 20002237.761864953,
            "down.receiver_bps": 20004477.357785739,
            "down.jitter_ms": 0.20762595498395242,
            "down.lost_packets": 0,
            "down.packets": 229,
            "cpu_remote_pct": 103.25950345592332,  # CPU time of all threads: above 100 % is real
            "samples": 3,
        },
    ),
    Case(
        "local-iperf3-3.17-linux-err-refused.jsonl",
        "3.17",
        error=ConnectionRefused,
        says="refused the connection on port 5201",
    ),
    Case(
        "local-iperf3-3.21-linux-tcp-P128-bidir.jsonl",  # lines of ~54 KB and ~100 KB
        "3.21",
        {
            "up.sender_bps": 11294929601.804447,
            "up.receiver_bps": 11244606217.352177,
            "up.retransmits": 797,
            "down.sender_bps": 10631874480.48373,
            "down.receiver_bps": 8729686862.28986,
            "down.retransmits": 875,
            "cpu_local_pct": 96.0880205127691,
            "cpu_remote_pct": 96.01539754878102,
            "samples": 6,
        },
    ),
    Case(
        "local-iperf3-3.21-linux-tcp-reverse.jsonl",
        "3.21",
        {
            "down.sender_bps": 7259437572.2980652,
            "down.receiver_bps": 7259510410.0046425,
            "down.retransmits": 2,
            "rtt_mean_ms": None,  # the server sent; 0 there means unknown
            "samples": 3,
        },
    ),
    Case(
        "local-iperf3-3.21-linux-udp-1408.jsonl",
        "3.21",
        {
            "up.sender_bps": 199974519.80517262,
            "up.receiver_bps": 199967522.35304311,
            "up.receiver_derived": None,
            "up.jitter_ms": 0.009932845059336717,
            "up.lost_packets": 0,
            "up.packets": 53271,
            "samples": 3,
        },
    ),
    # Fragments: one interval event each, as a document published them; no result.
    Case(
        "iperf3-3.17-android-tcp-bidir-interval.jsonl",
        "3.17",
        {
            "first.up.sent_bps": 31473171298.031265,
            "first.up.retransmits": 0,
            "first.up.rtt_ms": 0.034,
            "first.up.cwnd_bytes": 1309660,
            "first.down.received_bps": 29513829576.759514,
            "samples": 2,
        },
        error=EngineFailed,
        says="the run ended without a summary",
        exit_code=0,
    ),
    Case(
        "iperf3-3.17-android-udp-bidir-interval.jsonl",
        "3.17",
        {
            "first.up.sent_bps": 1081247.7156053118,
            "first.up.packets": 8,
            "first.down.received_bps": 1081247.7156053118,
            "first.down.jitter_ms": 0.021732455059885976,
            "first.down.lost_packets": 0,
            "samples": 2,
        },
        error=EngineFailed,
        says="the run ended without a summary",
        exit_code=0,
    ),
    Case(
        "iperf3-3.17-android-udp-reverse-interval.jsonl",
        "3.17",
        {
            # "sender": false in the interval: this end received, so the flow is down.
            "first.down.received_bps": 1081340.7773533543,
            "first.down.jitter_ms": 0.023491129322622144,
            "first.down.packets": 8,
            "samples": 1,
        },
        error=EngineFailed,
        says="the run ended without a summary",
        exit_code=0,
    ),
]
