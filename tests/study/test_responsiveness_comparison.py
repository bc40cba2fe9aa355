"""Two kept results compared, over random results: the table the window and the CSV show and
the sentences under it say the same, and each side's loaded latency and RPM are the ones its
own card shows."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.analysis.responsiveness_compare import DirectionInput, compare_directions
from app.domain.units import relative_text
from app.study.responsiveness.comparison import (
    TABLE_HEADERS,
    ResponsivenessComparison,
    compare_results,
)
from app.study.responsiveness.kept import KeptResult, from_row, to_row
from app.study.responsiveness.results import Phase, rpm_number
from tests.responsiveness_made import SETTINGS, made_result

latency = st.floats(min_value=0.5, max_value=400.0, allow_nan=False)
spread = st.floats(min_value=0.01, max_value=30.0, allow_nan=False)


@st.composite
def kept_pair(draw: st.DrawFn) -> tuple[KeptResult, KeptResult]:
    phases = draw(st.lists(st.sampled_from(list(Phase)[1:]), min_size=1, max_size=3, unique=True))
    sides = []
    for side in range(2):
        chosen = {phase: draw(latency) for phase in phases}
        result = made_result(
            chosen,
            spread_ms=draw(spread),
            probes=draw(st.integers(min_value=2, max_value=40)),
            seed=draw(st.integers(min_value=0, max_value=10_000)),
        )
        sides.append(from_row(to_row(result, SETTINGS, created_at=f"2026-01-0{side + 1}")))
    return sides[0], sides[1]


def _figure(text: str) -> str:
    return text.replace(",", "")


@settings(max_examples=60, deadline=None)
@given(kept_pair())
def test_table_sentences_and_cards_agree(pair: tuple[KeptResult, KeptResult]) -> None:
    baseline, other = pair
    comparison = compare_results(baseline, other)
    table = comparison.table()
    assert len(table) == len(comparison.findings) == len(comparison.rows)
    for cells, sentence in zip(table, comparison.findings, strict=True):
        assert sentence.startswith(cells[0])
        verdict = cells[-1]
        if verdict == "yes":
            assert "beyond the probes' noise" in sentence
        elif verdict == "no":
            assert "within the probes' noise" in sentence
        elif verdict == "untested":
            assert "not tested" in sentence
        else:
            assert verdict.startswith("not compared") and "not compared" in sentence
            continue
        # Each side's figures are its card's: the loaded latency the test measured, its RPM.
        phase = {"Download": Phase.DOWNLOAD, "Upload": Phase.UPLOAD}.get(cells[0], Phase.BOTH)
        for kept, rpm_cell, latency_cell in ((baseline, 1, 5), (other, 2, 6)):
            load = kept.result.load(phase)
            assert load is not None and load.loaded_latency_ms is not None
            # The card's whole RPM; the table's the same, to the places that show the change.
            card = float(_figure(rpm_number(load.rpm)))
            assert float(_figure(cells[rpm_cell])) == pytest.approx(card, abs=0.5)
            assert float(cells[latency_cell]) == round(load.loaded_latency_ms, 3)
        moved = re.search(r"RPM (?:rose|fell) from ([\d,.]+) to ([\d,.]+) \(", sentence)
        if moved is not None:
            assert _figure(moved.group(1)) == _figure(cells[1])
            assert _figure(moved.group(2)) == _figure(cells[2])


@st.composite
def close_directions(draw: st.DrawFn) -> list[DirectionInput]:
    """Directions whose two sides are often within a fraction of a per cent of each other:
    the relative RPM change then falls below 1 %, where a fixed decimal reads as nothing."""
    found = []
    for label in ("Download", "Upload", "Both at once")[: draw(st.integers(1, 3))]:
        base = draw(st.lists(latency, min_size=1, max_size=30))
        scale = draw(st.sampled_from([1e-5, 1e-4, 1e-3, 1e-2, 0.3]))
        factor = 1 + draw(st.floats(-1.0, 1.0, allow_nan=False)) * scale
        other = [v * factor for v in base] if draw(st.booleans()) else draw(st.lists(latency))
        found.append(DirectionInput(label, tuple(base), tuple(other)))
    return found


def _percent(text: str) -> float:
    return float(text.replace("−", "-").replace("+", ""))


@settings(max_examples=300, deadline=None)
@given(close_directions())
# Latencies a float's last bit apart: RPM computed from them is the same on both sides.
@example([DirectionInput("Download", (90.49155158729168,), (90.49155158729167,), True, True)])
def test_the_sentences_relative_rpm_change_is_the_tables(inputs: list[DirectionInput]) -> None:
    rows = tuple(compare_directions(inputs))
    comparison = ResponsivenessComparison(_named("a"), _named("b"), rows)
    for row, cells, sentence in zip(rows, comparison.table(), comparison.findings, strict=True):
        relative = row.rpm_relative_pct
        moved = re.search(
            r"RPM (rose|fell) from [\d,.]+ to [\d,.]+ \([−+±][\d,.]+, (\S+) %\)", sentence
        )
        if not row.compared or row.unchanged:
            assert moved is None
            # Unchanged: no difference shows, in the table either.
            assert not row.compared or cells[TABLE_HEADERS.index("RPM %")] == "0.0"
            continue
        assert moved is not None and relative is not None, sentence
        shown = moved.group(2)
        # The one rule of relative changes: the table's cell, written once.
        assert shown == cells[TABLE_HEADERS.index("RPM %")] == relative_text(relative)
        # A change is never read as nothing, its sign is the way RPM moved, and the figure
        # is the relative change to the decimals it shows.
        decimals = len(shown.partition(".")[2])
        assert decimals >= 1 and _percent(shown) != 0
        assert (shown[0] == "+") == (moved.group(1) == "rose") == (relative > 0)
        assert abs(_percent(shown) - relative) <= 0.5 * 10**-decimals + 1e-9


def _named(name: str) -> KeptResult:
    return KeptResult(
        name * 32, name, "2026-01-01T10:00:00Z", "1", made_result({Phase.DOWNLOAD: 8.0})
    )


def test_two_results_of_one_peer_are_named_apart() -> None:
    """The same peer tested twice: each kept name carries its time, and a comparison of two
    results named alike (renamed so, or kept on two days at the same time) tells them apart by
    when each was kept; its sentences name the two differently."""
    made = made_result({Phase.DOWNLOAD: 10.0}, spread_ms=1.0, probes=10, seed=1)
    first = from_row(to_row(made, SETTINGS, created_at="2026-03-02T09:15:01Z"))
    second = from_row(to_row(made, SETTINGS, created_at="2026-03-02T09:15:42Z"))
    assert first.name != second.name
    assert first.name.startswith(f"Responsiveness to {made.host} at ")
    baseline, other = compare_results(first, second).names
    assert (baseline, other) == (first.name, second.name)

    alike = [
        from_row(to_row(made, SETTINGS, name="Lab", created_at=f"2026-03-0{day}T09:15:01Z"))
        for day in (2, 3)
    ]
    comparison = compare_results(*alike)
    baseline, other = comparison.names
    assert baseline != other and baseline.startswith("Lab (2026-03-0")
    (sentence,) = comparison.findings
    assert f"“{baseline}”" in sentence and f"“{other}”" in sentence
