"""The sentence a responsiveness result adds where its idle latency is above the latency
under every load (load adds waiting, so something else delayed the idle probes), judged on
the figures the card shows, over random latencies."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.analysis.responsiveness import Rating
from app.analysis.saturation import Confidence
from app.study.responsiveness.results import (
    LoadResult,
    Phase,
    idle_above_loaded,
    latency_number,
    latency_text,
)

latency = st.floats(0.01, 500.0, allow_nan=False)


def load(phase: Phase, ms: float | None) -> LoadResult:
    return LoadResult(phase, ms, None, Rating.EXCELLENT, Confidence.LOW, None, 1, 10, 0, False, ())


@given(latency, st.lists(st.one_of(st.none(), latency), min_size=1, max_size=3))
def test_the_note_says_an_idle_latency_above_every_loaded_one(
    idle: float, loaded: list[float | None]
) -> None:
    phases = (Phase.DOWNLOAD, Phase.UPLOAD, Phase.BOTH)
    loads = [load(phase, ms) for phase, ms in zip(phases, loaded, strict=False)]
    said = idle_above_loaded(idle, loads)
    figures = [ms for ms in loaded if ms is not None]
    if not figures:
        assert said == ""
        return
    top = max(figures)
    above = float(latency_number(idle)) > float(latency_number(top))
    assert bool(said) == above, (idle, loaded, said)
    if above:
        assert said.startswith(
            f"The idle latency ({latency_text(idle)}) is above the latency under every load "
            f"(up to {latency_text(top)}): "
        )
        assert said.endswith("Test again when both are otherwise idle.")
