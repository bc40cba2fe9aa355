"""The report's throughput over time reads what the receiver got, as its tables do: never the
sender's rate of a UDP run that lost most of what it sent."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from app.domain.net import Flow, Protocol
from app.domain.results import Sample
from app.report.html_report import without_line
from app.report.report_data import Timeline

LABELS = ("UDP · IPv4 · open", "UDP · IPv4 · WPA2", "TCP · IPv6 · open", "UDP · IPv6 · WPA3")


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


def test_a_runs_last_sliver_is_no_interval_of_its_own() -> None:
    """A 1-s run gives its one interval and what the engine counted after it (1.00-1.01 s):
    one interval to draw, not a trend."""
    one = (
        Sample(0.0, 1.0, Flow.UP, received_bps=9e8),
        Sample(1.0, 1.01, Flow.UP, received_bps=2e8),
    )
    assert Timeline("TCP", 1408, 1, one, Protocol.TCP).intervals() == 1
    two = (*one[:1], Sample(1.0, 2.0, Flow.UP, received_bps=9e8), Sample(2.0, 2.3, Flow.UP))
    assert Timeline("TCP", 1408, 1, two, Protocol.TCP).intervals() == 2


def test_the_report_says_which_side_has_no_line() -> None:
    received = (Sample(0.0, 1.0, Flow.UP, sent_bps=9e7, received_bps=2e7),)
    sent_only = (Sample(0.0, 1.0, Flow.UP, sent_bps=9e7),)
    drawn = Timeline("UDP · IPv4 · open", 1408, 1, received, Protocol.UDP)
    missing = Timeline("UDP · IPv4 · WPA2", 1408, 1, sent_only, Protocol.UDP)
    assert without_line([drawn]) == ""
    sentence = without_line([drawn, missing])
    assert sentence.startswith(" UDP · IPv4 · WPA2 has no line: only the sender's rate")
    assert "open" not in sentence
    both = without_line([missing, replace(missing, label="UDP · IPv6 · WPA2")])
    assert "UDP · IPv4 · WPA2 and UDP · IPv6 · WPA2 have no line" in both


SIDES = st.lists(
    st.tuples(st.sampled_from(LABELS), st.booleans()), max_size=4, unique_by=lambda t: t[0]
)


@given(SIDES)
def test_the_no_line_sentence_names_exactly_the_sides_without_one(
    sides: list[tuple[str, bool]],
) -> None:
    lines = [
        Timeline(label, 1408, 1, (Sample(0.0, 1.0, sent_bps=9e7, received_bps=rate),), Protocol.UDP)
        for label, has in sides
        for rate in [2e7 if has else None]
    ]
    sentence = without_line(lines)
    missing = [label for label, has in sides if not has]
    assert (sentence == "") == (not missing)
    if missing:
        named = sentence.split(" ha", 1)[0].strip()
        assert named.split(" and ") == missing
        assert (" has no line" in sentence) == (len(missing) == 1)
