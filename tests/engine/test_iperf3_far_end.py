"""The server's interval reports (--get-server-output) against real iperf3 3.12 captures: read
from its output text or its JSON, in text, -J and --json-stream client output, and joined to the
client's intervals so that each sample has the receiver's figures and the sender's rate."""

from __future__ import annotations

import statistics

import pytest

from app.domain.net import Flow, Protocol
from app.domain.results import FarEndIntervals, RunSummary, Sample
from app.engine.drivers.iperf3.parse_json import parse_document, parse_stream
from app.engine.drivers.iperf3.parse_text import parse_text
from app.engine.readings import intervals
from tests.conftest import DATA

IPERF = DATA / "iperf3"
K, M = 1e3, 1e6


def parsed(name: str) -> tuple[list[Sample], list[Sample], RunSummary]:
    """(this end's samples, the far end's, the summary) of one capture."""
    lines = (IPERF / name).read_text().splitlines()
    parse = parse_text
    if name.endswith(".jsonl"):
        parse = parse_stream
    elif name.endswith(".json"):
        parse = parse_document
    own: list[Sample] = []
    far: list[Sample] = []
    summaries = []
    for event in parse(lines):
        if isinstance(event, Sample):
            own.append(event)
        elif isinstance(event, FarEndIntervals):
            far.extend(event.samples)
        elif isinstance(event, RunSummary):
            summaries.append(event)
    (summary,) = summaries
    return own, far, summary


def joined(name: str) -> tuple[tuple[Sample, ...], RunSummary]:
    own, far, summary = parsed(name)
    assert far, "the capture has the server's report"
    return intervals.join(own, far), summary


def test_text_udp_upload_gets_what_the_server_received() -> None:
    own, far, _ = parsed("text_udp_get_server_output.txt")
    assert [s.sent_bps for s in own] == [399901 * K, 212382 * K, 195761 * K]
    assert all(s.received_bps is None for s in own)  # live: the sender's count only
    assert [(s.start_s, s.end_s) for s in far] == [(0.0, 1.03), (1.03, 2.0), (2.0, 3.01)]
    assert [s.received_bps for s in far] == [187 * M, 75.4 * M, 65.8 * M]
    assert [(s.lost_packets, s.packets) for s in far] == [
        (18765, 35813),
        (12453, 18976),
        (10969, 16881),
    ]
    assert all(s.flow is Flow.UP and s.sent_bps is None for s in far)
    samples, summary = joined("text_udp_get_server_output.txt")
    assert [(s.sent_bps, s.received_bps) for s in samples] == [
        (399901 * K, 187 * M),
        (212382 * K, 75.4 * M),
        (195761 * K, 65.8 * M),
    ]
    (flow,) = summary.flows
    assert flow.receiver_bps == 109801 * K and flow.sender_bps == 270668 * K
    mean = statistics.fmean(s.received_bps or 0.0 for s in samples)
    assert mean == pytest.approx(flow.receiver_bps, rel=0.05)


def test_text_udp_download_gets_what_the_server_sent() -> None:
    """-R: the client received (its live figures are already the receiver's); the server's
    TX-S lines give the sender's rate, and its extra 3.00-3.00 line has no receiver's match."""
    own, far, _ = parsed("text_udp_reverse_get_server_output.txt")
    assert all(s.flow is Flow.DOWN and s.sent_bps is None for s in own)
    assert [s.sent_bps for s in far] == [267 * M, 306 * M, 327 * M, 780 * M]
    samples, _ = joined("text_udp_reverse_get_server_output.txt")
    assert [s.received_bps for s in samples] == [191330 * K, 172683 * K, 184680 * K]
    # The sender's rate over each of the receiver's intervals: the server's intervals
    # weighted by how much of them falls inside (its times are a hundredth of a second off).
    assert [s.sent_bps for s in samples] == pytest.approx([267 * M, 306 * M, 327 * M], rel=0.01)
    assert samples[0].lost_packets == 6161 and samples[0].jitter_ms == 0.003


def test_text_udp_bidir_sorts_the_servers_roles_by_flow() -> None:
    """RX-S received the upload, TX-S sent the download; iperf3 3.12 prints the client's
    RX-C totals after the server's report, and they still make the download's summary."""
    _, far, summary = parsed("text_udp_bidir_get_server_output.txt")
    assert {s.flow for s in far if s.received_bps is not None} == {Flow.UP}
    assert {s.flow for s in far if s.sent_bps is not None} == {Flow.DOWN}
    flows = {f.flow: f for f in summary.flows}
    assert flows[Flow.DOWN].receiver_bps == 21724 * K
    assert flows[Flow.DOWN].sender_bps == 157058 * K
    samples, _ = joined("text_udp_bidir_get_server_output.txt")
    up = [s for s in samples if s.flow is Flow.UP]
    down = [s for s in samples if s.flow is Flow.DOWN]
    assert [s.sent_bps for s in up] == pytest.approx([155079 * K, 149232 * K, 183627 * K], rel=0.01)
    # The server's last RX-S line (3.00-3.06, 0.06 s) is added to the one before it.
    assert up[-1].start_s == 2.03 and up[-1].end_s == 3.06
    assert up[-1].received_bps == pytest.approx((23.4 * M * 0.97 + 16.8 * M * 0.06) / 1.03)
    assert up[-1].lost_packets == 13112 + 840 and up[-1].packets == 15135 + 932
    assert [s.received_bps for s in down] == [20529 * K, 22119 * K, 23124 * K]
    assert [s.sent_bps for s in down] == pytest.approx([158 * M, 141 * M, 170 * M], rel=0.02)
    for flow in (Flow.UP, Flow.DOWN):
        mean = statistics.fmean(s.received_bps or 0.0 for s in samples if s.flow is flow)
        assert mean == pytest.approx(flows[flow].receiver_bps, rel=0.05)


def test_text_parallel_streams_read_the_servers_sum_lines() -> None:
    _, far, _ = parsed("text_udp_p2_get_server_output.txt")
    assert [s.received_bps for s in far] == [341 * M, 739 * M, 102 * M, 68.7 * M]
    samples, summary = joined("text_udp_p2_get_server_output.txt")
    assert len(samples) == 3 and samples[-1].end_s == 3.02  # the 0.02 s tail added in
    mean = statistics.fmean(s.received_bps or 0.0 for s in samples)
    assert mean == pytest.approx(summary.flows[0].receiver_bps, rel=0.05)


def test_text_omitted_intervals_of_the_server_are_left_out() -> None:
    own, far, _ = parsed("text_udp_omit_get_server_output.txt")
    assert [s.omitted for s in own] == [True, False, False, False]
    assert [s.start_s for s in far] == [0.0, 1.0, 2.01, 3.0]
    assert far[0].received_bps == 71.7 * M  # not the omitted 437 Mbit/s
    samples, _ = joined("text_udp_omit_get_server_output.txt")
    sent = [213127 * K, 183004 * K, 186748 * K]
    assert [s.sent_bps for s in samples] == pytest.approx(sent, rel=0.01)


def test_text_tcp_upload_gets_the_servers_count() -> None:
    samples, summary = joined("text_tcp_get_server_output.txt")
    assert all(s.received_bps and s.sent_bps for s in samples)
    # The sender's socket figures stay, each counted once: Retr 4, 0 and 1.
    assert [s.retransmits for s in samples] == [4, 0, 1]
    assert samples[0].cwnd_bytes == round(4.25 * 2**20)
    (flow,) = summary.flows
    mean = statistics.fmean(s.goodput_bps(Protocol.TCP) or 0.0 for s in samples)
    assert mean == pytest.approx(flow.receiver_bps, rel=0.05)


def test_text_client_with_a_json_server_reads_its_json() -> None:
    """A server started with -J sends its report as JSON ("Server JSON output:")."""
    _, far, summary = parsed("text_udp_get_server_output_json.txt")
    assert len(far) == 3 and all(s.flow is Flow.UP and s.received_bps for s in far)
    assert far[0].received_bps == pytest.approx(76.2 * M, rel=0.01)
    samples, _ = joined("text_udp_get_server_output_json.txt")
    mean = statistics.fmean(s.received_bps or 0.0 for s in samples)
    assert mean == pytest.approx(summary.flows[0].receiver_bps, rel=0.05)


@pytest.mark.parametrize(
    "name",
    [
        "json_udp_get_server_output_text.json",
        "json_udp_get_server_output_json.json",
        "json_udp_bidir_get_server_output_text.json",
        "json_udp_bidir_get_server_output_json.json",
        "json_udp_reverse_get_server_output_text.json",
        "stream_udp_get_server_output_json.jsonl",
        "stream_udp_get_server_output_text.jsonl",
    ],
)
def test_json_and_stream_get_the_receivers_figures(name: str) -> None:
    """-J and --json-stream carry the server's report as server_output_json (a server run
    with -J) or server_output_text: either way every flow ends with the receiver's figures
    and the sender's rate, and their mean is the receiver's total."""
    samples, summary = joined(name)
    for flow in summary.flows:
        mine = [s for s in samples if s.flow is flow.flow]
        assert mine and all(s.received_bps is not None for s in mine)
        assert all(s.sent_bps is not None for s in mine)
        mean = statistics.fmean(s.received_bps or 0.0 for s in mine)
        assert flow.receiver_bps is not None
        assert mean == pytest.approx(flow.receiver_bps, rel=0.05)


def test_stream_and_document_agree_on_the_servers_report() -> None:
    for kind in ("json", "text"):
        stream = parsed(f"stream_udp_get_server_output_{kind}.jsonl")
        document = parsed(f"json_udp_get_server_output_{kind}.json")
        assert stream == document


def test_join_keeps_unpaired_intervals_and_folds_only_a_short_tail() -> None:
    sent = [Sample(float(i), i + 1.0, Flow.UP, sent_bps=10e6) for i in range(3)]
    got = [
        Sample(0.0, 1.0, Flow.UP, received_bps=4e6, bytes=500_000),
        Sample(1.0, 2.0, Flow.UP, received_bps=6e6, bytes=750_000),
        Sample(2.0, 3.0, Flow.UP, received_bps=5e6, bytes=625_000),
        Sample(3.0, 3.6, Flow.UP, received_bps=5e6, bytes=375_000),  # not short: kept
    ]
    samples = intervals.join(sent, got)
    assert [(s.sent_bps, s.received_bps) for s in samples] == [
        (10e6, 4e6),
        (10e6, 6e6),
        (10e6, 5e6),
        (None, 5e6),  # the sender had stopped: nothing sent in that time
    ]
    tail = [*got[:3], Sample(3.0, 3.1, Flow.UP, received_bps=1e6, bytes=12_500)]
    folded = intervals.join(sent, tail)
    assert len(folded) == 3 and folded[-1].end_s == 3.1
    assert folded[-1].bytes == 625_000 + 12_500
    assert folded[-1].received_bps == pytest.approx((5e6 * 1.0 + 1e6 * 0.1) / 1.1)
    # A far end that did not say what it received leaves this end's samples as they were.
    assert intervals.join(sent, sent) == tuple(sent)


def test_join_to_a_server_reporting_at_another_interval() -> None:
    """A server reporting at a finer interval than the client: its intervals set the samples,
    with the sender's rate over each and its retransmits added up."""
    sent = [
        Sample(i * 1.0, (i + 1) * 1.0, Flow.UP, sent_bps=(i + 1) * 1e6, retransmits=i)
        for i in range(2)
    ]
    got = [Sample(i * 0.8, (i + 1) * 0.8, Flow.UP, received_bps=1e6) for i in range(2)]
    samples = intervals.join(sent, got)
    assert [s.sent_bps for s in samples] == pytest.approx([1e6, (1e6 * 0.2 + 2e6 * 0.6) / 0.8])
    assert [s.retransmits for s in samples] == [0, 1]


def test_a_server_reporting_coarser_than_the_study_leaves_the_clients_samples() -> None:
    """A server that reports every second whatever the client's -i (iperf3 -s without -i):
    a 0.1-s study keeps its own 0.1-s samples rather than the server's one-second ones."""
    sent = [Sample(i / 10, (i + 1) / 10, Flow.UP, sent_bps=1e6 + i) for i in range(30)]
    got = [Sample(float(i), i + 1.0, Flow.UP, received_bps=1e6) for i in range(3)]
    assert intervals.join(sent, got) == tuple(sent)
    # Slightly uneven intervals of the same width are still the same interval.
    even = [Sample(i * 1.02, (i + 1) * 1.02, Flow.UP, received_bps=1e6) for i in range(3)]
    whole = [Sample(float(i), i + 1.0, Flow.UP, sent_bps=1e6) for i in range(3)]
    assert [s.received_bps for s in intervals.join(whole, even)] == [1e6] * 3


def test_a_servers_json_report_cut_short_leaves_the_clients_samples() -> None:
    lines = (IPERF / "text_udp_get_server_output_json.txt").read_text().splitlines()
    cut = lines.index("Server JSON output:") + 20
    events = list(parse_text([*lines[:cut], "iperf Done."]))
    assert not [e for e in events if isinstance(e, FarEndIntervals)]
    assert [e for e in events if isinstance(e, RunSummary)]
    assert all(e.sent_bps for e in events if isinstance(e, Sample))
