"""Two responsiveness results compared: the sentences say what the table says (every direction
named once, the same verdict, the same sign and the same figures) over random probes, and a
real difference is found beyond the noise while a repeat of the same link is not."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.analysis.responsiveness_compare import DirectionInput, compare_directions, kept_rtts
from app.engine.latency.probe_results import trimmed_mean
from app.study.responsiveness.comparison import compare_results
from app.study.responsiveness.kept import KeptResult
from tests.responsiveness_made import three_ways

LABELS = ("Download", "Upload", "Both at once")
rtt = st.floats(min_value=0.05, max_value=2000.0, allow_nan=False)
probes = st.lists(rtt, min_size=0, max_size=40)


@st.composite
def directions(draw: st.DrawFn) -> list[DirectionInput]:
    count = draw(st.integers(1, 3))
    found = []
    for label in LABELS[:count]:
        base = draw(probes)
        if draw(st.booleans()):  # often a near copy: the verdicts must go both ways
            other = [max(0.05, v + draw(st.floats(-0.5, 0.5))) for v in base] or draw(probes)
        else:
            other = draw(probes)
        found.append(DirectionInput(label, tuple(base), tuple(other)))
    if draw(st.booleans()):
        last = found[-1]
        found[-1] = DirectionInput(last.label, last.baseline_rtts, (), True, False)
    return found


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-").replace("±", "").replace("+", ""))


@settings(max_examples=300, deadline=None)
@given(directions())
def test_each_sentence_agrees_with_its_row(inputs: list[DirectionInput]) -> None:
    rows = compare_directions(inputs)
    assert [r.label for r in rows] == [d.label for d in inputs]
    sentences = [row.sentence("“A”", "“B”") for row in rows]
    for row, sentence in zip(rows, sentences, strict=True):
        # Named first, and only in its own sentence.
        assert sentence.startswith(row.label)
        assert (
            sum(s.startswith(row.label + " ") or s.startswith(row.label + ":") for s in sentences)
            == 1
        )
        if not row.compared:
            assert "not compared" in sentence and row.significant is None
            continue
        d = row.latency_difference_ms
        assert d is not None
        if row.significant is True:
            assert "beyond the probes' noise" in sentence and "within" not in sentence
        elif row.significant is False:
            assert "within the probes' noise" in sentence and "beyond" not in sentence
        else:
            assert "not tested" in sentence
        if d > 0:
            assert "loaded latency rose" in sentence and "RPM fell" in sentence
            assert (row.rpm_difference or 0) < 0
        elif d < 0:
            assert "loaded latency fell" in sentence and "RPM rose" in sentence
            assert (row.rpm_difference or 0) > 0
        else:
            assert "stayed at" in sentence
        # The figures of the row: both RPMs as the table rounds them, and a change that
        # reads as one (never "600 to 600 (−0)" for 599.76).
        if d != 0:
            shown = re.search(
                r"RPM (?:rose|fell) from ([\d,.]+) to ([\d,.]+) \(([−+±])([\d,.]+),", sentence
            )
            assert shown is not None, sentence
            k = row.rpm_places
            assert _number(shown.group(1)) == round(row.baseline_rpm or 0, k)
            assert _number(shown.group(2)) == round(row.other_rpm or 0, k)
            change = _number(shown.group(4))
            assert change == round(abs(row.rpm_difference or 0), k), sentence
            if k < 2:  # fewer places only where they show the change: never "600 to 600 (−0)"
                assert change > 0 and shown.group(1) != shown.group(2), sentence
            if k > 0:  # more places only where fewer would not show it
                fewer = f"{row.baseline_rpm:,.{k - 1}f}" == f"{row.other_rpm:,.{k - 1}f}"
                assert fewer or not float(f"{abs(row.rpm_difference or 0):.{k - 1}f}"), sentence
            assert shown.group(3) == ("−" if (row.rpm_difference or 0) < 0 else "+"), sentence
        # Each side's mean is the trimmed mean its loaded latency is.
        base = next(r for r in inputs if r.label == row.label)
        assert row.baseline_latency_ms == pytest.approx(trimmed_mean(base.baseline_rtts))


@settings(max_examples=100, deadline=None)
@given(st.lists(rtt, min_size=1, max_size=200))
def test_the_kept_probes_average_to_the_trimmed_mean(values: list[float]) -> None:
    kept = kept_rtts(values)
    assert sum(kept) / len(kept) == pytest.approx(trimmed_mean(values))


def _kept(name: str, result: object) -> KeptResult:
    return KeptResult(name * 32, name, "2025-03-01T10:00:00Z", "1", result)  # type: ignore[arg-type]


def test_a_deeper_queue_is_beyond_the_noise_and_a_repeat_is_not() -> None:
    before = _kept("a", three_ways(8.0, 12.0, 20.0, seed=1))
    deeper = _kept("b", three_ways(8.0, 30.0, 20.0, seed=2))
    comparison = compare_results(before, deeper)
    table = {row[0]: row for row in comparison.table()}
    assert table["Upload"][-1] == "yes" and table["Upload"][7].startswith("+")
    assert table["Download"][-1] == "no" and table["Both at once"][-1] == "no"
    upload = next(s for s in comparison.findings if s.startswith("Upload"))
    assert "rose from 12" in upload and ", Good to" not in upload  # 5,000 and 2,000: Good
    assert "beyond the probes' noise" in upload
    assert comparison.to_dict()["directions"][1]["significant"] is True


def test_a_direction_only_one_result_measured_is_named_and_not_compared() -> None:
    from app.study.responsiveness.results import Phase
    from tests.responsiveness_made import made_result

    two = _kept("a", made_result({Phase.DOWNLOAD: 8.0, Phase.UPLOAD: 12.0}))
    three = _kept("b", three_ways(8.0, 12.0, 20.0))
    comparison = compare_results(two, three)
    assert [row[0] for row in comparison.table()] == list(LABELS)
    both = comparison.findings[2]
    assert both.startswith("Both at once: not compared (measured in the other result only)")


def test_a_change_under_one_rpm_is_shown_in_the_decimals_that_say_it() -> None:
    """As found: 100.00 ms against 100.04 ms read "RPM fell from 600 to 600 (−0, −0.04 %)"."""
    (row,) = compare_directions(
        [DirectionInput("Download", (99.0, 100.0, 101.0), (99.04, 100.04, 101.04))]
    )
    assert row.rpm_places == 1 and -0.5 < (row.rpm_difference or 0) < -0.05
    assert row.baseline_rpm is not None and row.other_rpm is not None
    sentence = row.sentence("a", "b")
    said = f"RPM fell from {row.baseline_rpm:,.1f} to {row.other_rpm:,.1f} (−0.2, −0.04 %)"
    assert said in sentence, sentence
