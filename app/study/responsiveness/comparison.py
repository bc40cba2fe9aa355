"""Two kept responsiveness results compared: the baseline, the other, and per load direction
the difference of RPM and loaded latency with its test (app/analysis/responsiveness_compare.py);
the table's rows and the findings' sentences come from the same differences."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.analysis.responsiveness_compare import (
    ALPHA,
    DirectionDifference,
    DirectionInput,
    compare_directions,
)
from app.analysis.saturation import STABLE_STEPS
from app.domain.errors import BadOption
from app.domain.units import DASH, format_p, relative_text
from app.study.responsiveness.kept import KeptResult
from app.study.responsiveness.results import LOAD_PHASES, LoadResult, Phase

#: The directions as a comparison names them.
DIRECTION_LABELS = {Phase.DOWNLOAD: "Download", Phase.UPLOAD: "Upload", Phase.BOTH: "Both at once"}
TABLE_HEADERS = (
    "Direction",
    "Baseline RPM",
    "RPM",
    "RPM difference",
    "RPM %",
    "Baseline loaded latency (ms)",
    "Loaded latency (ms)",
    "Latency difference (ms)",
    "95 % CI of the latency difference (ms)",
    "p (Welch)",
    "p (Holm)",
    "Beyond the noise (α = 0.05)",
)


def window_rtts(load: LoadResult | None) -> tuple[float, ...]:
    """The probes the loaded latency comes from: those of the last STABLE_STEPS steps."""
    if load is None:
        return ()
    return tuple(rtt for step in load.steps[-STABLE_STEPS:] for rtt in step.rtts_ms)


@dataclass(frozen=True)
class ResponsivenessComparison:
    baseline: KeptResult
    other: KeptResult
    rows: tuple[DirectionDifference, ...]

    @property
    def names(self) -> tuple[str, str]:
        """The two results' names, told apart where they are the same (renamed alike, or
        kept by an older LinkLab): by when each was kept, else by its short id."""
        baseline, other = _name(self.baseline), _name(self.other)
        if baseline != other:
            return baseline, other
        first, second = _kept_when(self.baseline), _kept_when(self.other)
        if first == second:
            first, second = self.baseline.short_id, self.other.short_id
        return f"{baseline} ({first})", f"{other} ({second})"

    @property
    def findings(self) -> list[str]:
        """One sentence per direction, in the table's order."""
        baseline, other = self.names
        return [row.sentence(f"“{baseline}”", f"“{other}”") for row in self.rows]

    def table(self) -> list[list[str]]:
        """The rows as shown (the window, the CLI and the CSV)."""
        return [_cells(row) for row in self.rows]

    def to_dict(self) -> dict[str, Any]:
        def side(kept: KeptResult) -> dict[str, Any]:
            return {"session_id": kept.id, "name": kept.name, "created_at": kept.created_at}

        return {
            "kind": "responsiveness",
            "alpha": ALPHA,
            "correction": "holm",
            "test": "welch",
            "baseline": side(self.baseline),
            "other": side(self.other),
            "directions": [
                {
                    "direction": row.label,
                    "baseline_rpm": _round(row.baseline_rpm, 1),
                    "other_rpm": _round(row.other_rpm, 1),
                    "rpm_difference": _round(row.rpm_difference, 1),
                    "rpm_relative_pct": _round(row.rpm_relative_pct, 2),
                    "baseline_loaded_latency_ms": _round(row.baseline_latency_ms, 4),
                    "other_loaded_latency_ms": _round(row.other_latency_ms, 4),
                    "latency_difference_ms": _round(row.latency_difference_ms, 4),
                    "ci_low_ms": _round(row.ci_low_ms, 4),
                    "ci_high_ms": _round(row.ci_high_ms, 4),
                    "baseline_probes": row.baseline_n,
                    "other_probes": row.other_n,
                    "p_value": row.p_value,
                    "p_holm": row.p_holm,
                    "significant": row.significant,
                    "verdict": row.verdict,
                }
                for row in self.rows
            ],
            "findings": self.findings,
        }


def compare_results(baseline: KeptResult, other: KeptResult) -> ResponsivenessComparison:
    """Every direction either result measured, in the test's order (each read whole, with
    its steps: a listed result has none)."""
    if baseline.id == other.id:
        raise BadOption("A result compared with itself has no difference: choose two results.")
    phases = [p for p in LOAD_PHASES if baseline.result.load(p) or other.result.load(p)]
    inputs = [
        DirectionInput(
            DIRECTION_LABELS[phase],
            window_rtts(baseline.result.load(phase)),
            window_rtts(other.result.load(phase)),
            baseline.result.load(phase) is not None,
            other.result.load(phase) is not None,
        )
        for phase in phases
    ]
    return ResponsivenessComparison(baseline, other, tuple(compare_directions(inputs)))


def _name(kept: KeptResult) -> str:
    return kept.name or kept.short_id


def _kept_when(kept: KeptResult) -> str:
    """When a result was kept, on this computer's clock: "2026-11-28 14:02:31"."""
    try:
        moment = datetime.fromisoformat(kept.created_at)
    except ValueError:
        return kept.created_at
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _number(value: float | None, pattern: str, *, sign: bool = False) -> str:
    if value is None:
        return DASH
    text = format(abs(value) if sign else value, pattern)
    if not sign:
        return text
    return ("+" if value > 0 else "−" if value < 0 else "±") + text


def _cells(row: DirectionDifference) -> list[str]:
    interval = DASH
    if row.ci_low_ms is not None and row.ci_high_ms is not None:
        interval = (
            f"{_number(row.ci_low_ms, '.3f', sign=True)} to "
            f"{_number(row.ci_high_ms, '.3f', sign=True)}"
        )
    verdict = {True: "yes", False: "no", None: "untested"}[row.significant]
    return [
        row.label,
        _number(row.baseline_rpm, f",.{row.rpm_places}f"),
        _number(row.other_rpm, f",.{row.rpm_places}f"),
        _number(row.rpm_difference, f",.{row.rpm_places}f", sign=True),
        relative_text(row.rpm_relative_pct),
        _number(row.baseline_latency_ms, ".3f"),
        _number(row.other_latency_ms, ".3f"),
        _number(row.latency_difference_ms, ".3f", sign=True),
        interval,
        format_p(row.p_value),
        format_p(row.p_holm),
        verdict if row.compared else f"not compared: {row.missing}",
    ]
