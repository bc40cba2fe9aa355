"""Comparisons: Welch statistics against scipy, legends from what differs, findings on
sessions with known differences (one significant, one not, one with a single run)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from scipy import stats

from app.analysis.compare import compare, legend_labels, series_data, welch
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Peer, Plan, RunKey, Security
from app.domain.records import RunMetrics, SessionRecord, SessionStatus, utc_now
from app.store.db import Database
from app.store.sessions import SessionStore

A = [45.2, 45.7, 46.2, 45.4, 45.5]
B = [42.1, 43.0, 42.6, 42.2, 42.9]


def test_welch_matches_scipy() -> None:
    difference, low, high, p = welch(A, B)
    result = stats.ttest_ind(B, A, equal_var=False)
    interval = result.confidence_interval(0.95)
    assert difference == pytest.approx(sum(B) / 5 - sum(A) / 5)
    assert (low, high) == (pytest.approx(interval.low), pytest.approx(interval.high))
    assert p == pytest.approx(result.pvalue)
    # By hand: means 45.6 and 42.56, so the difference is -3.04.
    assert difference == pytest.approx(-3.04)


def test_welch_edge_cases() -> None:
    assert welch([], [1.0]) == (None, None, None, None)
    assert welch([5.0], [7.0, 8.0]) == (2.5, None, None, None)  # one run: not testable
    assert welch([3.0, 3.0], [3.0, 3.0]) == (0.0, 0.0, 0.0, 1.0)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with Database(tmp_path / "db.sqlite3") as db:
        yield SessionStore(db)


def make_session(
    store: SessionStore, security: Security, runs: dict[int, list[float]], name: str
) -> SessionRecord:
    values = tuple(sorted(runs))
    plan = Plan(
        peer=Peer("lab-peer"),
        values=values,
        repetitions=max(len(v) for v in runs.values()),
        name=name,
        conditions=Conditions(security=security),
    )
    sid = store.create_session(plan)
    for index, value in enumerate(values):
        for rep, mbit in enumerate(runs[value], start=1):
            store.add_run(
                sid,
                RunKey(Protocol.TCP, IpVersion.V4, index, rep),
                value,
                metrics=RunMetrics(throughput_bps=mbit * 1e6),
                started_at=utc_now(),
                elapsed_s=60.0,
                engine="netperf",
            )
    store.finish(sid, SessionStatus.COMPLETED)
    return store.get(sid)


def test_findings_on_known_differences(store: SessionStore) -> None:
    open_ = make_session(
        store, Security.OPEN, {128: [20.0, 20.5, 19.5, 20.2], 640: A, 1408: [44.0]}, "open"
    )
    wpa2 = make_session(
        store, Security.WPA2, {128: [20.1, 19.8, 20.4, 19.9], 640: B, 1408: [41.2]}, "wpa2"
    )
    items = series_data(open_, store.runs(open_.id), "throughput_bps") + series_data(
        wpa2, store.runs(wpa2.id), "throughput_bps"
    )
    assert legend_labels(items) == ["Open", "WPA2"]
    comparison = compare(items, "throughput_bps")
    (result,) = comparison.results
    by_value = {p.value: p for p in result.points}
    assert by_value[640].significant is True and by_value[640].p_value < 0.001
    assert by_value[640].difference == pytest.approx(-3.04e6)
    assert by_value[640].relative_pct == pytest.approx(-3.04 / 45.6 * 100)
    assert by_value[128].significant is False  # within the noise
    assert by_value[1408].significant is None  # one run a side: untested
    text = " ".join(comparison.findings)
    assert (
        "The largest difference is at 640 B: WPA2 had 3.04 Mbit/s (6.7 %) less throughput" in text
    )
    assert "significant, p < 0.001" in text
    assert "At 128 B the difference between WPA2 and Open is not significant" in text
    assert "At 1408 B a side has a single run" in text
    assert "Overall Open is better than WPA2" in text


def test_lower_is_better_for_rtt(store: SessionStore) -> None:
    fast = make_session(store, Security.OPEN, {128: [1.0, 1.1, 0.9]}, "fast")
    slow = make_session(store, Security.WPA2, {128: [2.0, 2.1, 1.9]}, "slow")
    items = []
    for session in (fast, slow):
        data = series_data(session, store.runs(session.id), "throughput_bps")
        items += data
    # Reuse the throughput numbers as if they were RTTs, to check the wording flips.
    rtt_items = [
        type(i)(i.session, i.series, {k: [v / 1e6 for v in vs] for k, vs in i.values.items()})
        for i in items
    ]
    comparison = compare(rtt_items, "rtt_ms")
    assert any(
        "Overall Open is better than WPA2: lower round-trip time" in s for s in comparison.findings
    )


def test_legend_falls_back_to_session_names(store: SessionStore) -> None:
    one = make_session(store, Security.WPA2, {128: [1.0, 2.0]}, "Monday")
    two = make_session(store, Security.WPA2, {128: [1.0, 2.0]}, "Tuesday")
    items = series_data(one, store.runs(one.id), "throughput_bps") + series_data(
        two, store.runs(two.id), "throughput_bps"
    )
    assert legend_labels(items) == ["Monday · IPv4", "Tuesday · IPv4"]
