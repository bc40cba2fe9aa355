"""A run's totals added up from its intervals (a run Stop cut short): rates over time, counts
added, and the figures the run's metrics are read from, as for any run."""

from __future__ import annotations

import pytest

from app.domain.net import Flow
from app.domain.records import RunMetrics
from app.domain.results import RunResult, Sample
from app.engine.readings.interval_totals import summary_of


def metrics_of(samples: list[Sample]) -> RunMetrics:
    summary = summary_of(samples)
    return RunMetrics.from_result(
        RunResult("iperf3", "3.16", (), summary, tuple(samples), "", 0, 3)
    )


def test_a_tcp_upload_cut_short_is_its_rate_over_the_time_it_measured() -> None:
    samples = [
        Sample(0.0, 1.0, Flow.UP, sent_bps=100e6, bytes=12_500_000, retransmits=2, rtt_ms=4.0),
        Sample(1.0, 2.0, Flow.UP, sent_bps=200e6, bytes=25_000_000, retransmits=1, rtt_ms=6.0),
        Sample(2.0, 2.5, Flow.UP, sent_bps=400e6, bytes=25_000_000, retransmits=0, rtt_ms=5.0),
        Sample(2.5, 3.0, Flow.UP, sent_bps=9e9, omitted=True),  # not measured
    ]
    metrics = metrics_of(samples)
    assert metrics.throughput_bps == pytest.approx(200e6)  # 62.5 MB over 2.5 s
    assert metrics.bytes_sent == 62_500_000 and metrics.bytes_received is None
    assert metrics.retransmits == 3
    assert (metrics.rtt_mean_ms, metrics.rtt_min_ms, metrics.rtt_max_ms) == (5.0, 4.0, 6.0)


def test_a_udp_download_cut_short_has_its_loss_and_jitter() -> None:
    def got(end: float, lost: int) -> Sample:
        return Sample(end - 1, end, Flow.DOWN, received_bps=10e6, jitter_ms=end, lost_packets=lost,
                      packets=100, bytes=1_250_000)  # fmt: skip

    metrics = metrics_of([got(1.0, 0), got(2.0, 5), got(3.0, 1)])
    assert metrics.throughput_bps == pytest.approx(10e6)
    assert (metrics.lost_packets, metrics.packets) == (6, 300)
    assert metrics.loss_pct == pytest.approx(2.0)
    assert metrics.jitter_ms == pytest.approx(2.0)  # the intervals' mean
    assert metrics.retransmits is None


def test_both_ways_at_once_add_up() -> None:
    samples = [
        Sample(0.0, 1.0, Flow.UP, sent_bps=30e6),
        Sample(0.0, 1.0, Flow.DOWN, received_bps=50e6),
    ]
    assert metrics_of(samples).throughput_bps == pytest.approx(80e6)
    assert summary_of([]).flows == ()
