"""The report's throughput over time reads what the receiver got, as its tables do: never the
sender's rate of a UDP run that lost most of what it sent."""

from __future__ import annotations

from app.domain.net import Flow, Protocol
from app.domain.results import Sample
from app.report.report_data import Timeline


def test_udp_timeline_is_what_was_received_not_what_was_sent() -> None:
    samples = tuple(
        Sample(float(i), i + 1.0, Flow.UP, sent_bps=6.2e9, received_bps=1.84e9) for i in range(3)
    )
    line = Timeline("UDP · IPv4 · open", 1408, 1, samples, Protocol.UDP)
    assert line.points() == [(1.0, 1.84e9), (2.0, 1.84e9), (3.0, 1.84e9)]


def test_a_udp_run_with_only_the_senders_rate_draws_nothing() -> None:
    """netperf's UDP intervals are counted where it sends: no received figure to draw."""
    samples = (Sample(0.0, 1.0, Flow.UP, sent_bps=6.2e9),)
    assert Timeline("UDP", 1408, 1, samples, Protocol.UDP).points() == []


def test_tcp_stands_the_senders_rate_in_and_prefers_the_upload() -> None:
    samples = (
        Sample(0.0, 1.0, Flow.UP, sent_bps=9e8),
        Sample(0.0, 1.0, Flow.DOWN, received_bps=5e8),
        Sample(1.0, 2.0, Flow.UP, sent_bps=9.1e8, received_bps=9e8),
    )
    line = Timeline("TCP", 1408, 1, samples, Protocol.TCP)
    assert line.points() == [(1.0, 9e8), (2.0, 9e8)]
    download = Timeline("TCP", 1408, 1, samples[1:2], Protocol.TCP)
    assert download.points() == [(1.0, 5e8)]
