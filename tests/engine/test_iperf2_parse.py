"""iperf 2's output as LinkLab reads it: captures of this machine's iperf 2.1.8 (tests/data/iperf2,
TCP and UDP with -e, -R, --full-duplex, -P, --bounceback, IPv6 and the failures), iperf 2.0
output from elsewhere read in place (shared/engine-outputs), every failure as a typed error
with a sentence, and random text that never breaks the parser."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey, RunKind
from app.domain.results import EngineFailure, FlowSummary, ParseEvent, RunSummary, Sample
from app.engine.drivers.iperf2.driver import start_iperf2
from app.engine.drivers.iperf2.errors import classifier
from app.engine.drivers.iperf2.parse import parse_iperf2
from app.engine.errors import (
    ClosedBeforeStart,
    ConnectionRefused,
    ConnectTimeout,
    EngineError,
    HostUnresolved,
    ImpossibleValue,
    ServerBusy,
)
from app.engine.process.tools import Source, Tool
from tests.conftest import ROOT_DIR
from tests.engine.engine_replay import ENGINE_OUTPUTS, FakeEngine, Replay

DATA = ROOT_DIR / "tests" / "data" / "iperf2"
K = 1000.0  # -f k: Kbits are 1000 bits; KBytes are 1024 bytes


def events(name: str) -> list[ParseEvent]:
    return list(parse_iperf2((DATA / name).read_text(encoding="utf-8").splitlines()))


def summary(found: list[ParseEvent]) -> RunSummary:
    (total,) = [e for e in found if isinstance(e, RunSummary)]
    return total


def samples(found: list[ParseEvent]) -> list[Sample]:
    return [e for e in found if isinstance(e, Sample)]


def flow(total: RunSummary, which: Flow) -> FlowSummary:
    (found,) = [f for f in total.flows if f.flow is which]
    return found


def test_tcp_upload_with_enhanced_reports() -> None:
    found = events("local-iperf-2.1.8-linux-tcp-e.txt")
    up = flow(summary(found), Flow.UP)
    # [  1] 0.0000-3.0035 sec  3040896 KBytes  8294017 Kbits/sec  23757/0  17  2302K/167(140) us
    assert up.sender_bps == 8294017 * K and up.sender_bytes == 3040896 * 1024
    assert up.retransmits == 17 and up.receiver_bps is None
    first, *_ = samples(found)
    assert (first.start_s, first.end_s, first.flow) == (0.0, 1.0, Flow.UP)
    assert first.sent_bps == 6786384 * K and first.received_bps is None
    assert (first.retransmits, first.cwnd_bytes, first.rtt_ms) == (9, 1023 * 1024, 0.245)
    assert len(samples(found)) == 3


def test_udp_upload_takes_the_receiver_from_the_server_report() -> None:
    found = events("local-iperf-2.1.8-linux-udp-e.txt")
    up = flow(summary(found), Flow.UP)
    assert up.sender_bps == 20978 * K and up.receiver_bps == 21017 * K
    assert (up.lost_packets, up.packets, up.jitter_ms, up.loss_pct) == (0, 5589, 0.001, 0.0)
    assert all(s.sent_bps == pytest.approx(20975 * K, rel=1e-3) for s in samples(found))


def test_download_is_the_clients_receiving_end() -> None:
    tcp = events("local-iperf-2.1.8-linux-tcp-reverse-e.txt")
    assert flow(summary(tcp), Flow.DOWN).receiver_bps == 7957046 * K
    assert [s.received_bps for s in samples(tcp)][:2] == [7994343 * K, 5591723 * K]
    udp = events("local-iperf-2.1.8-linux-udp-reverse-e.txt")
    down = flow(summary(udp), Flow.DOWN)
    assert (down.receiver_bps, down.lost_packets, down.packets) == (20977 * K, 0, 5352)
    assert samples(udp)[1].jitter_ms == 0.007


def test_full_duplex_has_both_flows_and_leaves_out_the_sums() -> None:
    found = events("local-iperf-2.1.8-linux-tcp-full-duplex-e.txt")
    total = summary(found)
    assert flow(total, Flow.UP).sender_bps == 10311309 * K
    assert flow(total, Flow.DOWN).receiver_bps == 8705297 * K
    assert [s.flow for s in samples(found)] == [Flow.UP, Flow.DOWN] * 3


def test_parallel_streams_are_added_up_where_iperf2_leaves_out_its_sums() -> None:
    up = events("local-iperf-2.1.8-linux-tcp-P2-e.txt")
    assert flow(summary(up), Flow.UP).sender_bps == (20626345 + 20201531) * K
    assert samples(up)[0].sent_bps == (20093862 + 20153631) * K
    # -R -P 2: iperf 2.1.8 prints a sum for the first interval only.
    down = events("local-iperf-2.1.8-linux-tcp-reverse-P2-e.txt")
    assert flow(summary(down), Flow.DOWN).receiver_bps == (10613329 + 10202324) * K
    assert [s.received_bps for s in samples(down)] == [
        (8488223 + 5603564) * K,
        (12739972 + 14846814) * K,
    ]
    udp = events("local-iperf-2.1.8-linux-udp-P2-e.txt")
    total = flow(summary(udp), Flow.UP)
    assert (total.lost_packets, total.packets) == (1, 1787 + 1787)


def test_bounceback_is_a_round_trip_time() -> None:
    total = summary(events("local-iperf-2.1.8-linux-tcp-bounceback-e.txt"))
    # [  1] 0.0000-3.0157 sec  6.05 KBytes  16.4 Kbits/sec  31=0.071/0.017/0.819/0.151 ms
    assert (total.rtt_mean_ms, total.rtt_min_ms, total.rtt_max_ms) == (0.071, 0.017, 0.819)
    assert total.transactions_per_s == pytest.approx(1000 / 0.071)
    assert total.flows == ()


# -- one-way delay (--trip-times) ---------------------------------------------------------------
def test_tcp_download_trip_times_give_the_receivers_one_way_delay() -> None:
    found = events("local-iperf-2.1.8-linux-tcp-reverse-trip-times-e.txt")
    # [ *1] 0.0000-1.0000 sec ... 3.510/0.043/13.109/1.981 ms (13431/131072) ...
    # [ *1] 1.0000-2.0000 sec ... 2.468/0.034/5.561/0.473 ms (20159/131072) ...
    assert [s.owd_ms for s in samples(found)] == [3.510, 2.468]
    # [ *1] 0.0000-2.0039 sec  4312704 KBytes  17630668 Kbits/sec  2.883/0.034/13.109/1.400 ms
    down = flow(summary(found), Flow.DOWN)
    assert down.owd_ms == 2.883 and down.receiver_bps == 17630668 * K


def test_udp_download_trip_times_read_the_latency_after_the_loss() -> None:
    found = events("local-iperf-2.1.8-linux-udp-reverse-trip-times-e.txt")
    # [ *1] 0.0000-1.0000 sec  1281 KBytes  10490 Kbits/sec   0.001 ms 1/893 (0.11%)
    #       0.006/0.002/0.179/0.006 ms 894 pps ...
    first, second = samples(found)
    assert (first.owd_ms, first.jitter_ms, first.lost_packets) == (0.006, 0.001, 1)
    assert second.owd_ms == 0.005
    down = flow(summary(found), Flow.DOWN)
    assert (down.owd_ms, down.lost_packets, down.packets) == (0.006, 1, 1787)


def test_udp_upload_takes_the_one_way_delay_from_the_server_report() -> None:
    found = events("local-iperf-2.1.8-linux-udp-trip-times-e.txt")
    # The client's own lines (the sender's) carry none; the server report after the run:
    # [  1] 0.0000-2.0022 sec  2565 KBytes  10496 Kbits/sec   0.000 ms 0/1787 (0%)
    #       0.005/0.001/0.186/0.005 ms 892 pps ...
    assert all(s.owd_ms is None for s in samples(found))
    up = flow(summary(found), Flow.UP)
    assert (up.owd_ms, up.receiver_bps, up.packets) == (0.005, 10496 * K, 1787)


def test_tcp_upload_trip_times_have_no_one_way_delay_at_the_client() -> None:
    found = events("local-iperf-2.1.8-linux-tcp-trip-times-e.txt")
    assert all(s.owd_ms is None for s in samples(found))
    assert flow(summary(found), Flow.UP).owd_ms is None


def test_full_duplex_trip_times_give_the_download_its_one_way_delay() -> None:
    found = events("local-iperf-2.1.8-linux-tcp-full-duplex-trip-times-e.txt")
    down = [s for s in samples(found) if s.flow is Flow.DOWN]
    assert [s.owd_ms for s in down] == [6.860, 5.692]
    total = summary(found)
    assert flow(total, Flow.DOWN).owd_ms == 6.211 and flow(total, Flow.UP).owd_ms is None


def test_the_latency_columns_without_trip_times_are_no_one_way_delay() -> None:
    # iperf 2.1.8 prints Latency for a UDP download without --trip-times too: between ends
    # whose clocks nobody stated synchronised, so it is left out.
    found = events("local-iperf-2.1.8-linux-udp-reverse-e.txt")
    assert all(s.owd_ms is None for s in samples(found))
    assert flow(summary(found), Flow.DOWN).owd_ms is None


def test_one_way_delay_reaches_the_runs_metrics() -> None:
    from app.domain.records import RunMetrics
    from app.domain.results import RunResult

    total = summary(events("local-iperf-2.1.8-linux-tcp-reverse-trip-times-e.txt"))
    result = RunResult("iperf", "2.1.8", ("iperf", "--trip-times"), total, (), "", 0.0, 2.0)
    metrics = RunMetrics.from_result(result)
    assert metrics.owd_ms == 2.883


@pytest.mark.parametrize(
    "name",
    [
        "local-iperf-2.1.8-linux-tcp-ipv6-e.txt",
        "local-iperf-2.1.8-linux-tcp-trip-times-e.txt",
        "local-iperf-2.1.8-linux-tcp-reverse-trip-times-e.txt",
    ],
)
def test_other_captures_give_a_total(name: str) -> None:
    total = summary(events(name))
    assert [f.throughput_bps for f in total.flows if f.throughput_bps]


@pytest.mark.skipif(
    not list(ENGINE_OUTPUTS.glob("iperf-2-*")), reason=f"no iperf 2 outputs in {ENGINE_OUTPUTS}"
)
@pytest.mark.parametrize("path", sorted(ENGINE_OUTPUTS.glob("iperf-2-*")), ids=lambda p: p.name)
def test_iperf_2_0_output_from_elsewhere(path: Path) -> None:
    """iperf 2.0's UDP output (no -e, no intervals, a six-space indent), read in place."""
    found = list(parse_iperf2(path.read_text(encoding="utf-8").splitlines()))
    up = flow(summary(found), Flow.UP)
    # [  3]  0.0-60.0 sec  7.50 MBytes  1.05 Mbits/sec   0.017 ms    0/ 5350 (0%)
    assert up.sender_bps == 1.05e6 and up.receiver_bps == 1.05e6
    assert (up.lost_packets, up.packets, up.jitter_ms) == (0, 5350, 0.017)
    assert up.receiver_bytes == round(7.5 * 1024**2)


# -- failures ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "error", "says"),
    [
        ("local-iperf-2.1.8-linux-err-refused.txt", ConnectionRefused, "iperf -s"),
        ("local-iperf-2.1.8-linux-err-unknown-host.txt", HostUnresolved, "could not be resolved"),
        ("local-iperf-2.1.8-linux-err-no-route.txt", ConnectTimeout, "No answer from"),
        ("local-iperf-2.1.8-linux-err-udp-no-server.txt", ConnectionRefused, "iperf -s -u"),
    ],
)
def test_failures_are_typed_with_a_sentence(name: str, error: type[EngineError], says: str) -> None:
    found = [e for e in events(name) if isinstance(e, EngineFailure)]
    assert found, "the failure must be seen even though iperf 2 exits with 0"
    udp = "udp" in name
    typed = classifier("10.9.9.9", 5001, IpVersion.V4, udp)(found[0].message, started=False)
    assert type(typed) is error and says in typed.sentence
    assert typed.sentence.endswith(".")


def _tool(folder: Path, recording: str, to_stderr: tuple[str, ...]) -> Tool:
    script = FakeEngine(
        [Replay(DATA / recording, exit_code=0, stderr_prefixes=to_stderr)], name="iperf"
    ).write(folder)
    return Tool(
        "iperf", str(script), (2, 1, 8), "iperf version 2.1.8", Source.SETTINGS, frozenset()
    )


def _run(tool: Tool, port: int = 5921) -> list[object]:
    plan = Plan(Peer("127.0.0.1", {"iperf2": port}), values=(1408,), duration_s=2)
    key = RunKey(Protocol.TCP, IpVersion.V4, 0, 1, RunKind.STREAM)
    run = start_iperf2(tool, [tool.path, "-c", "127.0.0.1"], "127.0.0.1", port, key, plan)
    return list(run.events())


@pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts")
def test_a_peer_that_closes_fails_the_run_though_iperf2_exits_with_0(tmp_path: Path) -> None:
    """The peer accepts, then closes: iperf 2 prints a total of a few hundred microseconds,
    writes "tcp write failed: Broken pipe" to stderr and exits with 0."""
    tool = _tool(tmp_path, "local-iperf-2.1.8-linux-err-peer-closes.txt", ("tcp write", "shutdown"))
    with pytest.raises(ClosedBeforeStart) as caught:
        _run(tool)
    assert "port 5921" in caught.value.sentence


@pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts")
def test_a_refused_connection_fails_the_run(tmp_path: Path) -> None:
    tool = _tool(tmp_path, "local-iperf-2.1.8-linux-err-refused.txt", ("tcp connect",))
    with pytest.raises(ConnectionRefused) as caught:
        _run(tool, 5999)
    assert "port 5999" in caught.value.sentence and "iperf -s" in caught.value.sentence


# -- fuzzing -------------------------------------------------------------------------------------
_LINE = st.one_of(
    st.text(max_size=120),
    st.builds(
        lambda id_, a, b, n, u, r, v, tail: (
            f"[{id_}] {a}-{b} sec  {n} {u}Bytes  {r} {v}bits/sec  {tail}"
        ),
        st.sampled_from(["  1", " *1", "SUM", "FD1", "  2", " CT"]),
        st.sampled_from(["0.0000", "1.0000", "2.5", "-1", "nan", "1e400"]),
        st.sampled_from(["1.0000", "2.0000", "3.0035", "inf"]),
        st.sampled_from(["12", "0.058", "1e3", "x", "-5"]),
        st.sampled_from(["", "K", "M", "G"]),
        st.sampled_from(["825", "1.05", "nan", "9e999"]),
        st.sampled_from(["", "K", "M"]),
        st.sampled_from(
            [
                "",
                "6472/0  9  1023K/245(225) us  3462441",
                "0.001 ms 0/5589 (0%)",
                "10=0.078/0.039/0.343/0.094 ms    0  576K/20 us    12804 rps",
                "7631=2:3:0:2:1:2:3:7618",
                "3.510/0.043/13.109/1.981 ms (13431/131072) 5.92 MByte 501547  13479=15:12",
                "0.001 ms 1/893 (0.11%) 0.006/0.002/0.179/0.006 ms 894 pps 892/0(0) pkts",
                "0.001 ms 1/893 (0.11%) 1e400/0.002/0.179/0.006 ms 894 pps",
                "nan/0.043/13.109/1.981 ms (13431/131072)",
                "9e999/1/2/3 ms (1/2)",
                "99999999999.5/0.1/0.2/0.3 ms (1/2)",
            ]
        ),
    ),
    st.sampled_from(
        [
            "[  1] Server Report:",
            "tcp connect failed: Connection refused",
            "[  1] local 127.0.0.1 port 33552 connected with 127.0.0.1 port 5911 (reverse) "
            "(trip-times) (sock=3)",
        ]
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=30))
def test_random_lines_never_break_the_parser(lines: list[str]) -> None:
    """Whatever iperf 2 (or anything else) prints, the parser yields typed events or refuses
    an impossible figure with ImpossibleValue, never another exception."""
    try:
        found = list(parse_iperf2(lines))
    except ImpossibleValue:
        return
    for event in found:
        assert isinstance(event, Sample | RunSummary | EngineFailure) or hasattr(event, "text")


def test_a_total_of_nothing_fails_the_run_and_is_tried_again() -> None:
    """Connected, yet 0 bytes went through: no measurement of 0 bit/s, but a failure the
    runner retries (the server may still be ending another test)."""
    lines = [
        "[  1] local 198.18.0.1 port 40000 connected with 198.18.0.2 port 5001 (reverse)",
        "[ *1] 0.0000-1.0000 sec  0.00 KBytes  0.00 Kbits/sec  0=0:0:0:0:0:0:0:0",
        "[ *1] 0.0000-3.0010 sec  0.00 KBytes  0.00 Kbits/sec  0=0:0:0:0:0:0:0:0",
    ]
    (failure,) = [e for e in parse_iperf2(lines) if isinstance(e, EngineFailure)]
    typed = classifier("198.18.0.2", 5001, IpVersion.V4, False)(failure.message)
    assert isinstance(typed, ServerBusy) and "no data went through" in typed.sentence
