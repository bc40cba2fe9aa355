"""Findings say what is true where a side has no figure (Hypothesis over random comparison
tables built from runs: points not in one side's plan, points without a successful run, and
metrics a side's runs do not report, as TCP reports no loss): every point in exactly one
statement, the statement naming the same reason as the table's status column, and the Metric
list offering only what both sides of a pair measured."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from app.analysis.compare import Mode, compare, offered_metrics
from app.analysis.pair_findings import pair_findings
from app.analysis.pair_words import point_status
from app.analysis.pairs import (
    METRIC_INFO,
    Absence,
    PairComparison,
    SeriesData,
    compare_pair,
    measured_metrics,
    series_data,
)
from app.domain.metrics import BY_NAME
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey, Series
from app.domain.records import RunMetrics, RunRecord, SessionRecord
from tests.analysis.findings_text import covered_points, statement_points, statement_verdicts
from tests.records_made import session_record

BASE, OTHER = "Base side", "Other side"
VALUES = (128, 384, 640, 896, 1152, 1408)
METRICS = ("throughput_bps", "loss_pct", "jitter_ms", "rtt_ms", "owd_ms")


def _session(values: tuple[int, ...], protocol: Protocol, number: int = 0) -> SessionRecord:
    plan = Plan(peer=Peer("lab-peer"), values=values, protocols=(protocol,))
    return session_record(plan, f"{number:x}{protocol.value}{len(values)}".ljust(32, "0"), "gen")


def _run(
    session: SessionRecord, run_id: int, key: RunKey, ok: bool, metrics: RunMetrics
) -> RunRecord:
    return RunRecord(
        id=run_id,
        session_id=session.id,
        key=key,
        value=float(session.plan.values[key.value_index]),
        ok=ok,
        error_kind="" if ok else "engine",
        error="" if ok else "It failed.",
        attempts=1,
        started_at="",
        ended_at="",
        elapsed_s=1.0,
        engine="iperf3",
        engine_version="3.12",
        argv=(),
        metrics=metrics if ok else RunMetrics(),
    )


def _reports(metric: str, protocol: Protocol) -> bool:
    """Whether a run of protocol can carry metric at all (TCP has no loss, UDP no retransmits)."""
    spec = BY_NAME[metric]
    return spec.protocol is None or spec.protocol is protocol


@st.composite
def sides(draw: st.DrawFn, metric: str) -> SeriesData:
    """One side from runs: its planned points, and at each none, failed, figureless or
    measured runs (a metric its protocol cannot report is never measured)."""
    protocol = draw(st.sampled_from([Protocol.TCP, Protocol.UDP]))
    planned = tuple(sorted(draw(st.sets(st.sampled_from(VALUES), min_size=1, max_size=6))))
    session = _session(planned, protocol)
    series = Series(protocol, IpVersion.V4)
    runs = []
    attribute = BY_NAME[metric].read
    for index, _value in enumerate(planned):
        kind = draw(st.sampled_from(["none", "failed", "figureless", "measured"]))
        count = draw(st.integers(1, 4))
        for repetition in range(count if kind != "none" else 0):
            figure = draw(st.floats(0.5, 1e3)) if kind == "measured" else None
            if not _reports(metric, protocol):
                figure = None
            metrics = RunMetrics(**{"throughput_bps": 1.0, attribute: figure})
            key = RunKey(protocol, IpVersion.V4, index, repetition + 1)
            runs.append(_run(session, len(runs) + 1, key, kind != "failed", metrics))
    (found,) = series_data(session, runs, metric)
    assert found.series == series
    return replace(found, label=BASE)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[PairComparison, str]:
    metric = draw(st.sampled_from(METRICS))
    base = draw(sides(metric))
    other = replace(draw(sides(metric)), label=OTHER)
    return compare_pair(base, other), metric


def _table_verdict(status: str) -> str:
    if status in ("yes", "no"):
        return "significant" if status == "yes" else "same"
    return "untested" if status.startswith("untested") else "unmeasured"


@settings(max_examples=300, deadline=None)
@given(drawn=pairs())
def test_every_missing_figure_is_said_as_the_table_says_it(
    drawn: tuple[PairComparison, str],
) -> None:
    pair, metric = drawn
    findings = pair_findings(pair, metric, "B", "Packet size")
    values = [p.value for p in pair.points]
    assert covered_points(findings, values, "B") == values, findings
    higher_is_better = METRIC_INFO[metric][2]
    said = statement_verdicts(
        findings, BASE, OTHER, "B", higher_is_better=higher_is_better, values=values
    )
    by_value = {p.value: p for p in pair.points}
    sentences = dict(
        (value, sentence)
        for covered, sentence in statement_points(findings, values, "B")
        for value in covered
    )
    name = METRIC_INFO[metric][0]
    for value, point in by_value.items():
        status = point_status(pair, point, metric)
        verdict = _table_verdict(status)
        found = said[value]
        assert found == verdict or (verdict == "significant" and found in ("higher", "lower"))
        sentence = sentences[value]
        if verdict != "unmeasured":
            assert "successful run" not in status and "plan" not in status
            continue
        base, other = point.missing
        # What the table says of each side, the sentence says of it by name.
        for absence, label, side in (
            (base, BASE, pair.baseline),
            (other, OTHER, pair.other),
        ):
            protocol = side.series.protocol.value.upper()
            if absence is Absence.NOT_PLANNED:
                assert f"not in the plan of {label}" in sentence, sentence
                assert "plan" in status, status
            elif absence is Absence.NO_RUN:
                assert "successful run" in sentence and label in sentence, sentence
                assert "no successful run" in status, status
            elif absence is Absence.NOT_MEASURED:
                assert f"figure of {name}" in sentence and label in sentence, sentence
                assert "not measured" in status, status
                if not _reports(metric, side.series.protocol):
                    assert f"{protocol} reports no {name}" in sentence, sentence
                    assert f"{protocol} reports no {name}" in status, status
            else:
                assert side.values[value], (status, sentence)
        # Never a failure where runs succeeded, never a plan where the point was planned.
        if Absence.NO_RUN not in (base, other):
            assert "successful run" not in sentence + status, (sentence, status)
        if Absence.NOT_PLANNED not in (base, other):
            assert "plan" not in sentence + status, (sentence, status)


@settings(max_examples=150, deadline=None)
@given(
    protocols=st.lists(st.sampled_from([Protocol.TCP, Protocol.UDP]), min_size=2, max_size=2),
    measured=st.lists(
        st.sets(st.sampled_from(sorted(METRIC_INFO)), max_size=len(METRIC_INFO)),
        min_size=2,
        max_size=2,
    ),
)
def test_the_metric_list_offers_what_both_sides_of_a_pair_measured(
    protocols: list[Protocol], measured: list[set[str]]
) -> None:
    items = [
        replace(
            SeriesData(_session(VALUES, protocol, index), Series(protocol, IpVersion.V4), {}),
            label=f"side {index}",
        )
        for index, protocol in enumerate(protocols)
    ]
    figures = {item.key: frozenset(m) for item, m in zip(items, measured, strict=True)}
    offered = offered_metrics(items, figures, Mode.PICKED)
    both = measured[0] & measured[1]
    assert offered == ([m for m in METRIC_INFO if m in both] or ["throughput_bps"])


def test_tcp_against_tcp_by_loss_says_tcp_reports_no_loss() -> None:
    """The newcomer's case: two TCP sessions compared by loss, each with successful runs."""
    sessions = [_session((128, 640, 1408), Protocol.TCP) for _ in range(2)]
    sessions[1] = replace(sessions[1], id="1" * 32)
    items = []
    for session in sessions:
        runs = [
            _run(
                session,
                i + 1,
                RunKey(Protocol.TCP, IpVersion.V4, i % 3, i // 3 + 1),
                True,
                RunMetrics(throughput_bps=1e6 + i),
            )
            for i in range(9)
        ]
        items += series_data(session, runs, "loss_pct")
        assert "loss_pct" not in measured_metrics(session, runs)[items[-1].key]
    comparison = compare(items, "loss_pct", mode=Mode.PICKED)
    (pair,) = comparison.pairs
    assert any(
        s.startswith("At 128–1408 B (3 points) neither")
        and "has a figure of loss (TCP reports no loss)" in s
        for s in comparison.findings
    ), comparison.findings
    assert not any("successful run" in s for s in comparison.findings), comparison.findings
    assert {point_status(pair, p, "loss_pct") for p in pair.points} == {
        "not measured: TCP reports no loss"
    }
