"""A monitor's figures live and stored agree, over random monitors: live, each run's sender's
figures are held until its receiver's come as it ends (or kept when none do), and its
seconds of working latency come as each completes; stored, the same runs are read back with
their final intervals. Every column's mean, lowest and highest are the same, its last value
too where live had one now; the receiver's count is never given as the sender's."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from app.analysis.latency_seconds import SecondBins
from app.analysis.monitor_trace import MonitorTraces, figures, stored_traces
from app.domain.net import Flow, Protocol
from app.domain.records import iso_from_epoch
from app.domain.results import LatencySecond, Sample

rates = st.floats(1e6, 1e9, allow_nan=False)
run = st.tuples(
    st.lists(st.tuples(rates, rates, st.integers(0, 50)), min_size=1, max_size=6),
    st.booleans(),  # whether its receiver's figures come when it ends
    st.lists(st.tuples(st.floats(0, 8), st.one_of(st.none(), st.floats(0.1, 500))), max_size=30),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(run, min_size=1, max_size=4), st.sampled_from([Protocol.TCP, Protocol.UDP]))
def test_live_and_stored_figures_agree(
    runs: list[tuple[list[tuple[float, float, int]], bool, list[tuple[float, float | None]]]],
    protocol: Protocol,
) -> None:
    live = MonitorTraces(protocol)
    kept: list[tuple[str, list[Sample], list[LatencySecond]]] = []
    start = 1_700_000_000.0
    for intervals, received, probes in runs:
        offset = start - 1_700_000_000.0
        sent = [
            Sample(
                float(i),
                float(i + 1),
                Flow.UP,
                sent_bps=s,
                retransmits=None if protocol is Protocol.UDP else retr,
                packets=100 if protocol is Protocol.UDP else None,
            )
            for i, (s, _r, retr) in enumerate(intervals)
        ]
        for sample in sent:
            live.add_sample(offset, sample, provisional=True)
        bins = SecondBins()
        seconds = bins.add([t for t, _ in probes], [r for _, r in probes]) + bins.close()
        live.add_seconds(offset, seconds)
        final = sent
        if received:
            final = [
                replace(s, received_bps=r, lost_packets=retr if protocol is Protocol.UDP else None)
                for s, (_s, r, retr) in zip(sent, intervals, strict=True)
            ]
            final = [replace(s, lost_packets=min(s.lost_packets or 0, 100)) for s in final]
            live.revise(offset, final)
        live.settle()
        kept.append((iso_from_epoch(start), final, seconds))
        start += len(intervals) + 3.0  # the next run starts after a gap
    stored = stored_traces(
        protocol, 1.0, [(started, samples) for started, samples, _ in kept], [s for *_, s in kept]
    )
    now, last = figures(live), figures(stored, live=False)
    assert [c.what for c in now] == [c.what for c in last]
    for a, b in zip(now, last, strict=True):
        for x, y in ((a.mean, b.mean), (a.low, b.low), (a.high, b.high)):
            assert (x is None and y is None) or abs(x - y) <= 1e-9 * max(abs(y), 1), (a, b)
        assert a.now is None or a.now == b.now, (a, b)
    # A flow's receiver's count is in its received column only, never in the sent one.
    for column in now:
        if column.what.endswith("(sent)"):
            held = [s for _, samples, _ in kept for s in samples if s.received_bps is None]
            assert held and column.high == max(s.sent_bps or 0 for s in held)
