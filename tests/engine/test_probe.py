"""The prober: matching by sequence (reordering, duplicates, loss, late replies) on a synthetic
clock, then real probes against the responder on the loopback."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from app.domain.errors import BadOption
from app.domain.net import IpVersion
from app.engine.errors import HostUnresolved
from app.engine.lan.netinfo import ipv6_available
from app.engine.latency.echo import LOOPBACK, SEQ_MODULO, EchoResponder
from app.engine.latency.probe import Prober, UdpProber
from app.engine.latency.probe_results import LatencyMethod, ProbeMatcher, ProbeRecord
from tests.conftest import free_port, under_wine

#: The longest probe timeout a prober takes (its check_range).
MAX_TIMEOUT_S = 60.0

MS = 1_000_000


@pytest.fixture
def responder() -> Iterator[EchoResponder]:
    echo = EchoResponder(0, LOOPBACK)
    echo.start()
    try:
        yield echo
    finally:
        echo.stop()


def test_matcher_reordering_duplicates_and_loss() -> None:
    matcher = ProbeMatcher(timeout_s=1.0)
    for seq in range(5):
        matcher.on_sent(seq, seq * 10 * MS)
    # Replies arrive 0, 2, 1, 3, then 2 again; 4 never does.
    got = [
        matcher.on_reply(0, 5 * MS),
        matcher.on_reply(2, 26 * MS),
        matcher.on_reply(1, 27 * MS),
        matcher.on_reply(3, 35 * MS),
        matcher.on_reply(2, 36 * MS),
    ]
    assert got[4] is None  # the duplicate is ignored
    assert [(r.seq, r.rtt_ms, r.reordered) for r in got[:4] if r] == [
        (0, 5.0, False),
        (2, 6.0, False),
        (1, 17.0, True),  # came after probe 2's reply
        (3, 5.0, False),
    ]
    assert matcher.expire(900 * MS) == []
    (lost,) = matcher.expire(1040 * MS)
    assert lost == ProbeRecord(4, 0.04, None, False) and lost.lost
    assert matcher.on_reply(4, 1100 * MS) is None  # too late: stays lost
    assert (matcher.sent, matcher.received, matcher.lost) == (5, 4, 1)
    assert (matcher.reordered, matcher.duplicates, matcher.late) == (1, 1, 1)
    summary = matcher.summary(LatencyMethod.UDP_ECHO, "peer", 1, 0.01)
    assert summary.loss_pct == pytest.approx(20.0)
    assert summary.min_ms == 5.0 and summary.max_ms == 17.0
    assert summary.mean_ms == pytest.approx((5 + 6 + 17 + 5) / 4)
    assert summary.median_ms == pytest.approx(5.5)
    assert [r.seq for r in matcher.records()] == [0, 1, 2, 3, 4]


def test_matcher_prefers_a_plausible_precise_round_trip() -> None:
    matcher = ProbeMatcher()
    matcher.on_sent(0, 0)
    matcher.on_sent(1, 0)
    matcher.on_sent(2, 0)
    assert matcher.on_reply(0, 3 * MS, rtt_ns=2 * MS).rtt_ms == 2.0  # type: ignore[union-attr]
    # A kernel stamp longer than what was measured here, or negative, is a clock step.
    assert matcher.on_reply(1, 3 * MS, rtt_ns=9 * MS).rtt_ms == 3.0  # type: ignore[union-attr]
    assert matcher.on_reply(2, 3 * MS, rtt_ns=-5).rtt_ms == 3.0  # type: ignore[union-attr]


def test_matcher_keeps_a_bounded_window_and_adapts_its_timeout() -> None:
    matcher = ProbeMatcher(timeout_s=1.0, keep=100)
    for seq in range(1000):
        matcher.on_sent(seq, seq * MS)
        matcher.on_reply(seq, seq * MS + 400 * MS)  # a deep queue: 400 ms round trips
    assert len(matcher.records()) == 100 and matcher.received == 1000
    assert matcher.timeout_ns == 1600 * MS  # 4 x the median, above the 1 s floor
    summary = matcher.summary(LatencyMethod.UDP_ECHO, "peer", 1, 0.001)
    assert summary.window == 100 and summary.received == 1000


def test_matcher_unwraps_32_bit_sequence_numbers() -> None:
    matcher = ProbeMatcher()
    first = SEQ_MODULO - 2
    for seq in range(first, first + 4):
        matcher.on_sent(seq, 0)
    assert matcher.unwrap((first + 3) % SEQ_MODULO) == first + 3
    assert matcher.unwrap(first % SEQ_MODULO) == first


def test_discarded_probes_are_not_counted() -> None:
    matcher = ProbeMatcher()
    matcher.on_sent(0, 0)
    matcher.on_sent(1, 0)
    matcher.on_reply(0, MS)
    matcher.discard_outstanding()
    assert (matcher.sent, matcher.received, matcher.lost) == (1, 1, 0)


#: Answered probes the loopback test waits for: enough for a median and a 90th percentile.
ANSWERED = 40


@pytest.mark.parametrize("kernel", [True, False])
def test_loopback_probes_all_answered(responder: EchoResponder, kernel: bool) -> None:
    """On the loopback every probe sent is answered, once. The prober skips the probes whose
    time passed while its thread waited for a core, so a busy computer sends fewer in a given
    time: the test probes until ANSWERED have come back rather than for a fixed time, and
    gives each the longest timeout, so that only a probe really dropped counts as lost."""
    records: list[ProbeRecord] = []
    prober = UdpProber(
        "127.0.0.1",
        responder.port,
        timeout_s=MAX_TIMEOUT_S,
        kernel_timestamps=kernel,
        on_record=records.append,
    )
    prober.start()
    try:
        while prober.received < ANSWERED:
            assert prober.wait(0.05) is False, prober.error
    finally:
        prober.stop()
    summary = prober.summary()
    assert summary.method is LatencyMethod.UDP_ECHO
    assert summary.sent >= ANSWERED and summary.received == summary.sent and summary.lost == 0
    assert summary.loss_pct == 0.0 and summary.duplicates == 0
    assert summary.min_ms is not None and summary.max_ms is not None
    assert summary.median_ms is not None and summary.trimmed_mean_ms is not None
    assert 0 < summary.min_ms <= summary.median_ms <= summary.p90_ms <= summary.max_ms  # type: ignore[operator]
    assert summary.median_ms < 20.0  # the loopback, even on a busy machine
    assert len(records) == summary.received
    if not kernel:
        assert not summary.kernel_timestamps


class HeldUp(Prober):
    """A prober whose thread is held up between the loop's look at the clock and the probe's
    stamp (as a busy computer holds it) from its second probe on, then answers itself."""

    def _send(self, seq: int) -> None:
        if seq:
            time.sleep(0.03)
        at = time.perf_counter_ns()
        self._sent(seq, at)
        self._answered(seq, at + MS)


def test_no_probe_lies_past_the_end_of_a_held_up_prober() -> None:
    """Idle probes are placed before the run they precede by their time since the first
    probe: one stamped after the prober's end would land inside the run."""
    prober = HeldUp("127.0.0.1", 9, interval_s=0.01, duration_s=0.1)
    summary = prober.run()
    records = prober.records()
    assert summary.sent == summary.received == len(records) > 0
    assert all(record.sent_s < 0.1 for record in records), records


@pytest.mark.skipif(not ipv6_available(), reason="IPv6 is not available on this computer")
def test_loopback_probes_over_ipv6(responder: EchoResponder) -> None:
    summary = UdpProber("::1", responder.port, duration_s=0.2, ip_version=IpVersion.V6).run()
    assert summary.received == summary.sent > 0


def test_loss_when_the_responder_stops_midway() -> None:
    echo = EchoResponder(0, ["127.0.0.1"])
    echo.start()
    prober = UdpProber("127.0.0.1", echo.port, duration_s=0.6, timeout_s=0.2)
    prober.start()
    try:
        while prober.received < 10:
            assert prober.wait(0.01) is False
    finally:
        echo.stop()
    assert prober.wait(10)
    summary = prober.summary()
    assert summary.received >= 10 and summary.lost > 0
    assert summary.received + summary.lost == summary.sent
    records = prober.records()
    first_lost = next(r.seq for r in records if r.lost)
    assert all(not r.lost for r in records if r.seq < first_lost)


@pytest.mark.skipif(
    under_wine(),
    reason="Wine gap: Wine does not pass on the loopback's ICMP port unreachable, which Windows "
    "reports to the next receive (WSAECONNRESET)",
)
def test_no_responder_everything_lost() -> None:
    prober = UdpProber("127.0.0.1", free_port(), duration_s=0.1, timeout_s=0.1)
    summary = prober.run()
    assert summary.received == 0 and summary.lost == summary.sent > 0
    assert summary.loss_pct == 100.0 and summary.median_ms is None
    assert prober.refused  # the loopback says "port unreachable"


def test_stop_from_another_thread(responder: EchoResponder) -> None:
    prober = UdpProber("127.0.0.1", responder.port)  # no duration: until stopped
    prober.start()
    threading.Timer(0.2, prober.stop).start()
    assert prober.wait(10)
    summary = prober.summary()
    assert summary.sent > 0 and summary.received == summary.sent


def test_bad_options_are_sentences() -> None:
    with pytest.raises(BadOption):
        UdpProber("-oops", 5200)
    with pytest.raises(BadOption):
        UdpProber("127.0.0.1", 5200, interval_s=0.0)
    with pytest.raises(BadOption):
        UdpProber("127.0.0.1", 5200, size=4096)
    with pytest.raises(BadOption, match="needs a duration"):
        UdpProber("127.0.0.1", 5200).run()
    with pytest.raises(HostUnresolved):
        UdpProber("no-such-host.invalid", 5200).start()
