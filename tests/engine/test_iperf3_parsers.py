"""iperf3 parsers against real captured output (tests/data/iperf3) and arbitrary input."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.net import Flow
from app.domain.results import EngineFailure, FarEndIntervals, RunSummary, Sample
from app.engine.drivers.iperf3.parse_json import parse_document, parse_stream
from app.engine.drivers.iperf3.parse_text import parse_text
from app.engine.errors import ImpossibleValue, ParseError
from tests.conftest import DATA

IPERF = DATA / "iperf3"


def events(name: str) -> list[object]:
    lines = (IPERF / name).read_text(encoding="utf-8").splitlines()
    if name.endswith(".jsonl"):
        return list(parse_stream(lines))
    if name.endswith(".json"):
        return list(parse_document(lines))
    return list(parse_text(lines))


def samples(evs: list[object]) -> list[Sample]:
    return [e for e in evs if isinstance(e, Sample)]


def summary(evs: list[object]) -> RunSummary:
    found = [e for e in evs if isinstance(e, RunSummary)]
    assert len(found) == 1
    return found[0]


def failures(evs: list[object]) -> list[str]:
    return [e.message for e in evs if isinstance(e, EngineFailure)]


# -- text (iperf3 3.12, -V --forceflush) --------------------------------------------------------
def test_text_tcp_intervals_and_summary() -> None:
    evs = events("text_tcp_v4.txt")
    got = samples(evs)
    assert [(s.start_s, s.end_s) for s in got] == [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)]
    assert got[0].sent_bps == pytest.approx(24.5e9)
    assert got[0].retransmits == 0
    assert got[0].cwnd_bytes == 895 * 1024
    assert got[0].rtt_ms is None  # the text output does not say
    total = summary(evs)
    (flow,) = total.flows
    assert flow.flow is Flow.UP
    assert flow.sender_bps == pytest.approx(24.5e9)
    assert flow.receiver_bps == pytest.approx(24.5e9)
    assert flow.retransmits == 0
    assert total.cpu_local_pct == pytest.approx(99.1)
    assert total.cpu_remote_pct == pytest.approx(43.2)


def test_text_kbit_format_keeps_precision() -> None:
    lines = [
        "Starting Test: protocol: TCP, 1 streams, 131072 byte blocks, omitting 0 seconds, "
        "2 second test, tos 0",
        "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd",
        "[  5]   1.00-1.50   sec  1.50 GBytes  25775999 Kbits/sec    0    767 KBytes       ",
    ]
    (sample,) = samples(list(parse_text(lines)))
    assert sample.sent_bps == 25_775_999_000.0


def test_text_as_the_driver_runs_it() -> None:
    """The capture made with LinkLab's own text-mode options (-f k -V --forceflush)."""
    tcp = events("text_k_tcp_v4.txt")
    assert len(samples(tcp)) == 2
    assert all(s.sent_bps and s.sent_bps % 1000 == 0 for s in samples(tcp))
    assert summary(tcp).flows[0].receiver_bps is not None
    udp = events("text_k_udp_v6.txt")
    (flow,) = summary(udp).flows
    assert flow.receiver_bps == 3_138_882_000
    assert (flow.lost_packets, flow.packets, flow.loss_pct) == (2815, 560160, 0.5)


def test_text_udp_sender_and_receiver_loss() -> None:
    evs = events("text_udp_v4.txt")
    first = samples(evs)[0]
    assert first.packets == 303560 and first.retransmits is None
    (flow,) = summary(evs).flows
    assert flow.lost_packets == 7924 and flow.packets == 869510
    assert flow.loss_pct == pytest.approx(0.91)
    assert flow.jitter_ms == pytest.approx(0.002)
    assert flow.receiver_bps == pytest.approx(3.23e9)


def test_text_udp_reverse_is_download_with_interval_loss() -> None:
    evs = events("text_udp_reverse.txt")
    first = samples(evs)[0]
    assert first.flow is Flow.DOWN
    assert (first.lost_packets, first.packets, first.jitter_ms) == (600, 267059, 0.003)
    total = summary(evs)
    assert total.flows[0].flow is Flow.DOWN
    assert total.cpu_local_pct is None  # 3.12 prints no CPU line in this mode: unknown, not 0


def test_text_reverse_tcp() -> None:
    evs = events("text_tcp_reverse.txt")
    assert {s.flow for s in samples(evs)} == {Flow.DOWN}
    assert summary(evs).flows[0].retransmits == 6


def test_text_parallel_uses_sum_lines() -> None:
    evs = events("text_tcp_p4.txt")
    got = samples(evs)
    assert len(got) == 3
    assert got[0].sent_bps == pytest.approx(33.1e9)
    assert got[0].retransmits == 17
    (flow,) = summary(evs).flows
    assert flow.sender_bps == pytest.approx(32.5e9) and flow.retransmits == 21


def test_text_bidir_has_two_flows() -> None:
    evs = events("text_tcp_bidir.txt")
    got = samples(evs)
    assert [s.flow for s in got[:2]] == [Flow.UP, Flow.DOWN]
    flows = {f.flow: f for f in summary(evs).flows}
    assert flows[Flow.UP].sender_bps == pytest.approx(2.33e9)
    assert flows[Flow.DOWN].receiver_bps == pytest.approx(21.8e9)


def test_text_omitted_intervals_are_marked() -> None:
    got = samples(events("text_tcp_omit.txt"))
    assert [s.omitted for s in got] == [True, False, False, False, False]
    assert got[0].sent_bps == pytest.approx(24.6e9)


def test_text_errors_become_failures() -> None:
    assert failures(events("err_refused_text.txt")) == [
        "unable to connect to server: Connection refused"
    ]
    assert "busy" in failures(events("err_busy_text.txt"))[0]
    assert "block size too large" in failures(events("err_bad_length_text.txt"))[0]


def test_text_repeated_interval_before_error_counts_once() -> None:
    evs = events("err_server_killed_text.txt")
    assert len(samples(evs)) == 1
    assert "Connection reset by peer" in failures(evs)[0]
    assert not [e for e in evs if isinstance(e, RunSummary)]


# -- JSON (-J) and --json-stream -----------------------------------------------------------------
@pytest.mark.parametrize(
    "stem", ["tcp_v4", "udp_v6", "tcp_reverse", "tcp_p4", "tcp_bidir", "tcp_omit"]
)
def test_stream_and_document_agree(stem: str) -> None:
    """--json-stream carries the same objects as -J: both parsers give the same events."""
    assert events(f"stream_{stem}.jsonl") == events(f"json_{stem}.json")


def test_json_tcp_values() -> None:
    evs = events("json_tcp_v4.json")
    first = samples(evs)[0]
    assert first.sent_bps == pytest.approx(25384856881.248894)
    assert first.rtt_ms == pytest.approx(0.028)
    assert first.cwnd_bytes == 1047728
    total = summary(evs)
    assert total.rtt_mean_ms == pytest.approx(0.030)
    assert total.rtt_min_ms == pytest.approx(0.028)
    assert total.rtt_max_ms == pytest.approx(0.033)
    assert total.flows[0].receiver_bps == pytest.approx(24896905960.283443)
    assert total.cpu_local_pct == pytest.approx(99.63696518084272)


def test_json_udp_loss_from_receiver() -> None:
    (flow,) = summary(events("json_udp_v6.json")).flows
    assert flow.lost_packets == 6089 and flow.packets == 564460
    assert flow.loss_pct == pytest.approx(1.078730113737023)
    assert flow.receiver_bps == pytest.approx(3144599248.1349616)


def test_json_udp_reverse_and_v4_v6() -> None:
    down = events("json_udp_reverse.json")
    assert {s.flow for s in samples(down)} == {Flow.DOWN}
    assert samples(down)[0].jitter_ms is not None and samples(down)[0].packets
    (flow,) = summary(down).flows
    assert flow.flow is Flow.DOWN and flow.jitter_ms is not None and flow.packets
    assert summary(events("json_udp_v4.json")).flows[0].lost_packets is not None
    assert summary(events("json_tcp_v6.json")).rtt_mean_ms is not None


def test_json_reverse_has_no_rtt() -> None:
    total = summary(events("json_tcp_reverse.json"))
    assert total.flows[0].flow is Flow.DOWN
    assert total.rtt_mean_ms is None  # the server sent; iperf3 reports 0, which means unknown


def test_json_bidir_flows_and_rtt_from_own_sender() -> None:
    evs = events("json_tcp_bidir.json")
    assert [s.flow for s in samples(evs)[:2]] == [Flow.UP, Flow.DOWN]
    assert samples(evs)[1].rtt_ms is None
    total = summary(evs)
    assert [f.flow for f in total.flows] == [Flow.UP, Flow.DOWN]
    assert total.rtt_mean_ms == pytest.approx(0.537)


def test_json_omitted() -> None:
    got = samples(events("json_tcp_omit.json"))
    assert got[0].omitted and not any(s.omitted for s in got[1:])


def test_json_errors() -> None:
    assert failures(events("err_refused.json")) == [
        "unable to connect to server: Connection refused"
    ]
    assert "busy" in failures(events("err_busy.json"))[0]
    assert "Connection refused" in failures(events("stream_err_refused.jsonl"))[0]


def test_json_missing_fields_are_none_not_zero() -> None:
    line = json.dumps({"event": "interval", "data": {"sum": {"start": 0, "end": 1}}})
    (sample,) = list(parse_stream([line]))
    assert isinstance(sample, Sample)
    assert sample.sent_bps is None and sample.received_bps is None
    assert sample.bytes is None and sample.retransmits is None


# -- arbitrary input ------------------------------------------------------------------------------
def _check_values(evs: list[object]) -> None:
    for event in evs:
        values = []
        if isinstance(event, Sample):
            values = list(vars(event).values())
        elif isinstance(event, FarEndIntervals):
            values = [v for s in event.samples for v in vars(s).values()]
        elif isinstance(event, RunSummary):
            values = [v for f in event.flows for v in vars(f).values()] + list(vars(event).values())
        for value in values:
            if isinstance(value, float | int) and not isinstance(value, bool):
                assert math.isfinite(value) and value >= 0, event


_TEXTISH = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)
_TEMPLATE_LINES = st.sampled_from(
    (IPERF / "text_udp_v4.txt").read_text(encoding="utf-8").splitlines()
    + (IPERF / "text_tcp_bidir.txt").read_text(encoding="utf-8").splitlines()
    + (IPERF / "text_udp_bidir_get_server_output.txt").read_text(encoding="utf-8").splitlines()
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(_TEXTISH, _TEMPLATE_LINES, _TEMPLATE_LINES.map(lambda s: s.replace("0", "-9"))),
        max_size=30,
    )
)
def test_text_parser_survives_anything(lines: list[str]) -> None:
    try:
        evs = list(parse_text(lines))
    except ParseError:
        return
    _check_values(evs)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "start",
                    "end",
                    "sum",
                    "streams",
                    "bits_per_second",
                    "bytes",
                    "rtt",
                    "omitted",
                    "sender",
                    "server_output_json",
                    "server_output_text",
                    "intervals",
                    "test_start",
                    "reverse",
                    "bidir",
                    "sum_sent",
                    "sum_received",
                    "jitter_ms",
                    "lost_packets",
                    "packets",
                    "lost_percent",
                    "cpu_utilization_percent",
                    "host_total",
                    "mean_rtt",
                    "sum_bidir_reverse",
                    "snd_cwnd",
                    "retransmits",
                    "receiver",
                ]
            ),
            inner,
            max_size=6,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            _TEXTISH,
            st.builds(
                lambda e, d: json.dumps({"event": e, "data": d}),
                st.sampled_from(["start", "interval", "end", "error", "other"]),
                _JSON_VALUES,
            ),
        ),
        max_size=10,
    )
)
def test_stream_parser_survives_anything(lines: list[str]) -> None:
    try:
        evs = list(parse_stream(lines))
    except (ParseError, ImpossibleValue):
        return
    _check_values(evs)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_TEXTISH, _JSON_VALUES.map(json.dumps)))
def test_document_parser_survives_anything(text: str) -> None:
    try:
        evs = list(parse_document(text.splitlines()))
    except (ParseError, ImpossibleValue):
        return
    _check_values(evs)


# -- values that are no number ------------------------------------------------------------------
_FIGURES = ("bits_per_second", "bytes", "seconds", "start", "end", "jitter_ms", "packets")
_NOT_NUMBERS = st.one_of(
    st.booleans(),
    st.sampled_from(
        ["Infinity", "-Infinity", "NaN", "nan", "inf", "1_0", "0x10", "twelve", "1e999"]
    ),
    st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not math.isfinite(x)),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.integers(max_value=-1),
    st.floats(max_value=-1e-9, allow_infinity=False),
)


def _interval(key: str, value: object) -> str:
    total: dict[str, object] = {"start": 0, "end": 1, "seconds": 1, "bytes": 125_000}
    total["bits_per_second"] = 1e6
    total[key] = value
    return json.dumps({"event": "interval", "data": {"streams": [], "sum": total}})


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_FIGURES), _NOT_NUMBERS)
def test_a_figure_that_is_no_number_is_refused(key: str, value: object) -> None:
    """true, "Infinity", NaN, a list, a negative rate or count: never a sample with the figure
    left empty (which was stored as a good run)."""
    with pytest.raises(ImpossibleValue) as info:
        list(parse_stream([_interval(key, value)]))
    assert "the run is not counted" in str(info.value)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(("bits_per_second", "bytes", "jitter_ms", "packets")),
    st.integers(min_value=0, max_value=10**12) | st.floats(min_value=0, max_value=1e12),
)
def test_a_number_written_as_text_reads_as_that_number(key: str, value: float) -> None:
    as_number = parse_stream([_interval(key, value)])
    as_text = parse_stream([_interval(key, str(value))])
    assert list(as_text) == list(as_number)


def test_a_negative_interval_loss_count_is_unknown() -> None:
    """iperf3 counts a datagram that arrives out of order as one loss fewer."""
    (sample,) = list(parse_stream([_interval("lost_packets", -2)]))
    assert isinstance(sample, Sample) and sample.lost_packets is None
