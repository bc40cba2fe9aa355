"""Whether two sides' runs differ: Welch's t-test of one against the other, and Holm's step-down
over a family of such tests (the points of a pair): the p-values adjusted, and each test's
interval at the level of its Holm step, so that a verdict is significant exactly where its
interval excludes zero."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.analysis.stats import t_cdf, t_quantile

ALPHA = 0.05


@dataclass(frozen=True)
class WelchTest:
    """Welch's t-test of other − baseline: the difference of means, its standard error, the
    Welch-Satterthwaite degrees of freedom and the two-sided p-value. se and df are None
    where a side has fewer than two runs; se is 0 where every run of each side is the same
    (the difference is then exact)."""

    difference: float | None
    se: float | None = None
    df: float | None = None
    p_value: float | None = None

    def interval(self, level: float) -> tuple[float | None, float | None]:
        """The confidence interval of the difference at level (0.95 for 95 %)."""
        if self.difference is None or self.se is None or self.df is None:
            return None, None
        half = 0.0 if self.se == 0 else t_quantile(self.df, 0.5 + level / 2) * self.se
        return self.difference - half, self.difference + half


def welch_test(baseline: Sequence[float], other: Sequence[float]) -> WelchTest:
    """Welch's t-test (unequal variances) of other − baseline."""
    import numpy as np  # on first use, with SciPy: only what compares needs them

    a = np.asarray(baseline, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.size == 0 or b.size == 0:
        return WelchTest(None)
    difference = float(b.mean() - a.mean())
    if a.size < 2 or b.size < 2:
        return WelchTest(difference)
    va = float(a.var(ddof=1)) / a.size
    vb = float(b.var(ddof=1)) / b.size
    if va == 0 and vb == 0:
        # Identical runs on each side: the difference is exact (the t-test is undefined).
        return WelchTest(difference, 0.0, math.inf, 1.0 if difference == 0 else 0.0)
    se = math.sqrt(va + vb)
    # Welch-Satterthwaite, in shares of the total so that tiny variances cannot underflow.
    sa, sb = va / (va + vb), vb / (va + vb)
    df = 1 / (sa**2 / (a.size - 1) + sb**2 / (b.size - 1))
    if not (math.isfinite(se) and math.isfinite(df) and se > 0 and df > 0):
        return WelchTest(difference)
    p = 2 * t_cdf(df, -abs(difference) / se)
    if not math.isfinite(p):
        return WelchTest(difference)
    return WelchTest(difference, se, df, min(1.0, p))


def welch(
    baseline: Sequence[float], other: Sequence[float], level: float = 1 - ALPHA
) -> tuple[float | None, float | None, float | None, float | None]:
    """Difference of means (other − baseline), its CI at level and the two-sided p-value, by
    Welch's t-test (unequal variances). None where there are fewer than two runs a side."""
    test = welch_test(baseline, other)
    low, high = test.interval(level)
    return test.difference, low, high, test.p_value


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of the p-values of one family (the points of a pair),
    keeping the family-wise error at alpha; None stays None. SciPy has no Holm correction
    (its false_discovery_control controls the false discovery rate instead)."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (len(indexed) - rank) * p))
        adjusted[i] = running
    return adjusted


def excludes_zero(low: float | None, high: float | None) -> bool | None:
    """Whether an interval lies wholly on one side of zero (None: no interval)."""
    if low is None or high is None:
        return None
    return low > 0 or high < 0


def holm_intervals(
    tests: Sequence[WelchTest],
) -> list[tuple[float | None, float | None, float | None]]:
    """Per test, (level, low, high): the interval each verdict rests on. Holm's step-down
    takes the tested points from the smallest p-value up; the point at step r of m is tested
    at α / (m − r + 1), so its interval is at level 1 − α / (m − r + 1) and excludes zero
    exactly where the step rejects. At the first step that does not reject, Holm stops: that
    point and every later one keep that step's level, at which none of them excludes zero (their
    p-values are no smaller). Untestable points get None."""
    order = sorted(
        (t.p_value, i) for i, t in enumerate(tests) if t.p_value is not None and t.se is not None
    )
    found: list[tuple[float | None, float | None, float | None]] = [(None, None, None)] * len(tests)
    m = len(order)
    stopped: float | None = None
    for rank, (_, i) in enumerate(order):
        level = stopped if stopped is not None else 1 - ALPHA / (m - rank)
        low, high = tests[i].interval(level)
        found[i] = (level, low, high)
        if stopped is None and not excludes_zero(low, high):
            stopped = level
    return found
