"""Two responsiveness results side by side: per load direction the loaded latency and RPM of
each, their difference, and whether it is beyond the probes' noise — Welch's t-test over the
round trips each loaded latency was averaged from (the slowest share trimmed, as the trimmed
mean does), with Holm's correction across the directions, as runs are compared. One sentence
per direction says what its row of the table says."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.analysis.responsiveness import TRIM_SLOWEST, rating
from app.analysis.significance import ALPHA, holm, welch_test
from app.domain.units import format_p, relative_text

__all__ = ["ALPHA", "DirectionDifference", "DirectionInput", "compare_directions", "kept_rtts"]


def kept_rtts(values: Sequence[float], slowest: float = TRIM_SLOWEST) -> list[float]:
    """The round trips a trimmed mean averages: sorted, the slowest share cut
    (app.engine.latency.probe_results.trimmed_mean's cut)."""
    data = sorted(v for v in values if math.isfinite(v))
    cut = int(slowest * len(data))
    return data[: len(data) - cut]


@dataclass(frozen=True)
class DirectionInput:
    """One load direction of both results: its label and each side's window of probes (the
    round trips of the steps the loaded latency comes from; empty where there is none)."""

    label: str
    baseline_rtts: tuple[float, ...]
    other_rtts: tuple[float, ...]
    in_baseline: bool = True  # whether the result measured this direction at all
    in_other: bool = True


@dataclass(frozen=True)
class DirectionDifference:
    label: str
    baseline_latency_ms: float | None
    other_latency_ms: float | None
    baseline_n: int
    other_n: int
    latency_difference_ms: float | None  # other − baseline
    ci_low_ms: float | None  # 95 % interval of the latency difference (Welch)
    ci_high_ms: float | None
    p_value: float | None
    p_holm: float | None
    significant: bool | None  # None: not tested (a side without probes, or one probe)
    missing: str = ""  # why the direction is not compared ("" when it is)

    @property
    def baseline_rpm(self) -> float | None:
        return _rpm(self.baseline_latency_ms)

    @property
    def other_rpm(self) -> float | None:
        return _rpm(self.other_latency_ms)

    @property
    def rpm_difference(self) -> float | None:
        a, b = self.baseline_rpm, self.other_rpm
        return None if a is None or b is None else b - a

    @property
    def rpm_places(self) -> int:
        """The decimals the RPMs are shown to, here and in the table: the fewest (none to
        two) at which the two RPMs read apart and their change reads as one, never "600 to
        600 (−0)"; two where even those do not."""
        a, b, d = self.baseline_rpm, self.other_rpm, self.rpm_difference
        if a is None or b is None or not d:
            return 0
        for places in (0, 1, 2):
            if f"{a:,.{places}f}" != f"{b:,.{places}f}" and float(f"{abs(d):.{places}f}"):
                return places
        return 2

    @property
    def rpm_relative_pct(self) -> float | None:
        a, d = self.baseline_rpm, self.rpm_difference
        return None if a is None or d is None or a == 0 else 100.0 * d / a

    @property
    def compared(self) -> bool:
        return self.latency_difference_ms is not None

    @property
    def unchanged(self) -> bool:
        """Compared, and nothing moved: the latencies alike, or so nearly alike (a float's
        last bit) that RPM, computed from them, is the same on both sides."""
        return self.compared and (self.latency_difference_ms == 0 or self.rpm_difference == 0)

    @property
    def verdict(self) -> str:
        """ "beyond the noise", "within the noise", "untested" or "not compared"."""
        if not self.compared:
            return "not compared"
        return {True: "beyond the noise", False: "within the noise", None: "untested"}[
            self.significant
        ]

    def sentence(self, baseline: str, other: str) -> str:
        """What the row says, in words: the direction, which way latency and RPM moved, by
        how much, and whether that is beyond the probes' noise."""
        if not self.compared:
            return f"{self.label}: not compared ({self.missing})."
        a, b = self.baseline_latency_ms, self.other_latency_ms
        d, ra, rb = self.latency_difference_ms, self.baseline_rpm, self.other_rpm
        assert a is not None and b is not None and d is not None
        assert ra is not None and rb is not None
        if self.unchanged:
            moved = f"the loaded latency stayed at {_ms(a)} ms and RPM at {ra:,.0f}"
        else:
            rose = d > 0
            rpm_change = self.rpm_difference or 0.0
            relative = relative_text(self.rpm_relative_pct)  # as the table's RPM % column
            k = self.rpm_places  # as the table's RPM columns
            moved = (
                f"the loaded latency {'rose' if rose else 'fell'} from {_ms(a)} ms to "
                f"{_ms(b)} ms ({_signed_ms(d)} ms), so RPM {'fell' if rose else 'rose'} from "
                f"{ra:,.{k}f} to {rb:,.{k}f} ({_signed(rpm_change, k)}, {relative} %)"
            )
        grades = ""
        if rating(ra) is not rating(rb):
            grades = f", {rating(ra).value} to {rating(rb).value}"
        if self.significant is None:
            why = "one side has a single probe" if min(self.baseline_n, self.other_n) < 2 else ""
            tail = f"not tested ({why or 'no spread to test'})"
        else:
            p = format_p(self.p_holm)
            p_text = f"p {p}" if p.startswith("<") else f"p = {p}"
            word = "beyond" if self.significant else "within"
            tail = f"{word} the probes' noise (Welch's t-test, {p_text} after Holm)"
        return f"{self.label} ({other} against {baseline}): {moved}{grades}; {tail}."


def _rpm(latency_ms: float | None) -> float | None:
    return None if latency_ms is None or latency_ms <= 0 else 60_000.0 / latency_ms


def _ms(value: float) -> str:
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"


def _signed_ms(value: float) -> str:
    return ("+" if value > 0 else "−") + _ms(abs(value))


def _signed(value: float, places: int = 0) -> str:
    return ("+" if value > 0 else "−" if value < 0 else "±") + f"{abs(value):,.{places}f}"


def compare_directions(directions: Sequence[DirectionInput]) -> list[DirectionDifference]:
    """Each direction's difference (other − baseline) with its Welch test; the p-values of
    the directions compared are adjusted together by Holm's method."""
    tests = []
    for d in directions:
        a, b = kept_rtts(d.baseline_rtts), kept_rtts(d.other_rtts)
        tests.append((d, a, b, welch_test(a, b) if a and b else None))
    adjusted = holm([t.p_value if t is not None else None for *_, t in tests])
    found = []
    for (d, a, b, test), p_holm in zip(tests, adjusted, strict=True):
        missing = ""
        if not d.in_baseline or not d.in_other:
            missing = f"measured in the {'other' if d.in_other else 'baseline'} result only"
        elif not a or not b:
            missing = "no probe came back under this load in " + (
                "either result" if not a and not b else "the baseline" if not a else "the other"
            )
        low, high = test.interval(1 - ALPHA) if test is not None else (None, None)
        found.append(
            DirectionDifference(
                label=d.label,
                baseline_latency_ms=sum(a) / len(a) if a else None,
                other_latency_ms=sum(b) / len(b) if b else None,
                baseline_n=len(a),
                other_n=len(b),
                latency_difference_ms=None if missing or test is None else test.difference,
                ci_low_ms=low,
                ci_high_ms=high,
                p_value=None if test is None else test.p_value,
                p_holm=p_holm,
                significant=None if p_holm is None or missing else p_holm < ALPHA,
                missing=missing,
            )
        )
    return found
