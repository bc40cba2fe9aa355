"""What a class measured together, worked out from random reports: every round's index and
total are those of the stations that count (never a zero share for one that does not), the
intervals are the project's Student-t intervals over the rounds, and every sentence, the JSON
and the grades table say the same figures."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.analysis.fairness import jain_index
from app.analysis.stats import summarize
from app.domain.exercise import Exercise
from app.domain.together import StationStatus, TogetherPlan
from app.report.class_export import grades_csv
from app.report.together_export import TOGETHER_COLUMNS, together_json
from app.study.lab.classroom import ClassView
from app.study.lab.together import FINAL, StationAt, Together, schedule
from app.study.lab.together_results import LAST_WORD_S, together_result
from app.study.lab.together_words import (
    findings,
    index_text,
    interval_text,
    ms_text,
    percent_text,
    rate_text,
)
from tests.classlive import short_exercise

#: What a station's report of one slot may be.
OUTCOMES = ("ok", "ok", "ok", "failed", "failed late", "late", "dropped", "silent")


@st.composite
def measured(draw: st.DrawFn) -> tuple[Together, list[dict[str, Any]]]:
    n = draw(st.integers(2, 7))
    names = [f"Station {k}" for k in range(1, n + 1)]
    plan = TogetherPlan(
        seconds=draw(st.integers(2, 5)), rounds=draw(st.integers(1, 4)), alone=draw(st.booleans())
    )
    slots = schedule(plan, names, 1_000_000.0)
    left_out = ()
    if draw(st.booleans()):
        left_out = (
            ("Station 99", StationStatus.NO_CLOCK, "its clock offset could not be measured (x)"),
        )
    stations = tuple(
        StationAt(name, draw(st.floats(-5, 5)), draw(st.floats(0, 0.4)), "", "10.0.0.2", 5300 + k)
        for k, name in enumerate(names)
    )
    together = Together(
        "t1",
        "",
        plan,
        slots,
        stations,
        left_out,
        "",
        slots[0].start_at,
        slots[-1].start_at + plan.seconds,
    )
    rows: list[dict[str, Any]] = []
    for slot in slots:
        for name in slot.stations:
            outcome = draw(st.sampled_from(OUTCOMES))
            if outcome == "silent":
                continue
            rate = draw(st.floats(1e5, 1e9))
            heard = (
                plan.seconds if outcome in ("ok", "late") else draw(st.integers(1, plan.seconds))
            )
            figures = [[float(t), rate * draw(st.floats(0.8, 1.2))] for t in range(1, heard + 1)]
            for part, figure in enumerate(figures):
                rows.append(_row(slot.number, name, part, {"figures": [figure]}))
            if outcome == "dropped":
                continue
            error = draw(st.floats(-0.05, 0.05)) if outcome != "late" else draw(st.floats(0.6, 3))
            status = {"ok": "ok", "late": "ok", "failed": "failed", "failed late": "failed"}[
                outcome
            ]
            final = {
                "figures": figures
                if status == "ok"
                else figures[: draw(st.integers(0, len(figures)))],
                "status": status,
                "reason": "" if status == "ok" else "the server went away.",
                "started_at": slot.start_at + error,
                "mean_bps": math.fsum(f[1] for f in figures) / len(figures)
                if status == "ok"
                else None,
                "receiver": True,
                "session_id": "s",
            }
            rows.append(_row(slot.number, name, FINAL, final))
    return together, rows


def _row(slot: int, student: str, part: int, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "slot": slot,
        "student": student,
        "part": part,
        "body_json": json.dumps(body),
        "received_at": "",
    }


@settings(max_examples=60, deadline=None)
@given(measured())
def test_the_index_and_shares_count_only_the_stations_that_count(
    case: tuple[Together, list[dict[str, Any]]],
) -> None:
    together, rows = case
    result = together_result(together, rows, together.end_at + LAST_WORD_S + 1)
    assert result.state == "done"
    for slot in result.slots:
        counted = [s for s in slot.stations if s.status is StationStatus.OK]
        assert all(s.reason for s in slot.stations if s.status is not StationStatus.OK)
        means = [s.mean_bps for s in counted if s.mean_bps is not None]
        assert slot.total_bps == (pytest.approx(math.fsum(means)) if counted else None)
        if len(means) > 1:
            assert slot.index == pytest.approx(jain_index(means))
            assert math.fsum(slot.share(s.student) or 0 for s in counted) == pytest.approx(1.0)
        else:
            assert slot.index is None
        for s in slot.stations:
            if s.status is not StationStatus.OK:
                assert slot.share(s.student) is None  # never a zero share
        if counted:
            fastest = max(counted, key=lambda s: s.mean_bps or 0)
            assert slot.fastest == fastest.student
    indices = [r.index for r in result.rounds if r.index is not None]
    assert result.index == summarize(indices)
    for station in result.stations:
        mine = [next(s for s in r.stations if s.student == station.student) for r in result.rounds]
        ok = [s.mean_bps for s in mine if s.status is StationStatus.OK]
        assert station.throughput == summarize(ok)
        assert station.rounds_counted == len(ok)


@settings(max_examples=60, deadline=None)
@given(measured())
def test_the_sentences_json_and_grades_say_the_same_figures(
    case: tuple[Together, list[dict[str, Any]]],
) -> None:
    together, rows = case
    result = together_result(together, rows, together.end_at + LAST_WORD_S + 1)
    said = findings(result)
    data = together_json(result)
    assert data["findings"] == said
    text = "\n".join(said)
    if result.index.mean is not None:
        assert f"Jain's fairness index was {interval_text(result.index)}" in text
        assert data["index"]["mean"] == result.index.mean
    else:
        assert "Jain's fairness index" not in text
    slowest, fastest = result.slowest(), result.fastest()
    if slowest is not None and fastest is not None and slowest is not fastest:
        assert (
            f"Slowest: {slowest.student}, {rate_text(slowest.throughput.mean)} "
            f"({percent_text(slowest.share.mean)} of the total)" in text
        )
        means = [s.throughput.mean for s in result.stations if s.throughput.mean is not None]
        assert slowest.throughput.mean == min(means) and fastest.throughput.mean == max(means)
    if result.start_spread_s is not None:
        assert f"started within {ms_text(result.start_spread_s)}" in text
        spreads = [s["start_spread_s"] for s in data["slots"] if s["kind"] == "together"]
        assert result.start_spread_s == max(x for x in spreads if x is not None)
    for station in result.stations:
        loss = station.contention_loss
        if loss is not None:
            assert f"{station.student} got {rate_text(station.alone_bps)} alone" in text
            assert percent_text(abs(loss)) in text
        for label, _status, why in station.left_out:
            assert f"{station.student} is left out of {label}: {why}." in text
    for who, _status, why in together.left_out:
        assert f"{who} did not take part: {why}." in text
    # The grades table: one row per station (and per station left out), the same figures.
    view = ClassView(short_exercise(), (), (), (None, None))
    table = list(csv.DictReader(io.StringIO(grades_csv(view, result).lstrip("\ufeff"))))
    by_name = {row["student"]: row for row in table}
    assert set(by_name) == {s.student for s in result.stations} | {
        w for w, _, _ in together.left_out
    }
    for station in data["stations"]:
        row = by_name[station["student"]]
        assert set(TOGETHER_COLUMNS) <= set(row)
        mean = station["throughput_bps"]["mean"]
        assert row["together_mbit_s"] == ("" if mean is None else str(round(mean / 1e6, 3)))
        assert row["together_rounds_counted"] == str(station["rounds_counted"])


def test_the_figures_written_once() -> None:
    assert index_text(0.99849) == "0.998" and index_text(None) == "—"
    assert percent_text(0.1234) == "12.3 %" and ms_text(0.0123) == "12 ms"
    assert interval_text(summarize([0.9, 1.0])) == "0.950 (95 % interval 0.315 to 1.000)"
    assert interval_text(summarize([0.5])) == "0.500"
    assert isinstance(short_exercise(), Exercise)
