"""Summary statistics of repeated measurements: mean, spread and a Student-t 95 % interval."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

CONFIDENCE = 0.95


def t_quantile(df: float, q: float) -> float:
    """The q-quantile of Student's t with df degrees of freedom (SciPy: imported on first use,
    by what compares; it takes about a second and 45 MiB that a study does not need)."""
    from scipy import special

    return float(special.stdtrit(df, q))


def t_cdf(df: float, t: float) -> float:
    """P(T ≤ t) for Student's t with df degrees of freedom."""
    from scipy import special

    return float(special.stdtr(df, t))


def preload() -> None:
    """Import what comparisons need now (the window calls this from a background thread)."""
    from scipy import special  # noqa: F401


def _central_probability(t: float, df: int) -> float:
    """P(|T| ≤ t) for Student's t with a whole number of degrees of freedom, by the finite
    series of Abramowitz & Stegun 26.7.3–4 (exact up to rounding)."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2:
        term = total = 0.0
        if df > 1:
            term = total = s * math.cos(theta)
            for k in range(3, df - 1, 2):
                term *= c2 * (k - 1) / k
                total += term
        return 2 / math.pi * (theta + total)
    term = total = 1.0
    for k in range(2, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return s * total


@cache
def t_interval_factor(df: int) -> float:
    """The two-sided 95 % quantile of Student's t with df (whole) degrees of freedom: what a
    point's standard error is multiplied by for its confidence interval.

    Written out rather than taken from SciPy because every study needs it at every point,
    and importing SciPy costs a study about a second and 45 MiB before its first summary;
    tests check it against scipy.special.stdtrit for 1 to 2,000 degrees of freedom."""
    if df < 1:
        raise ValueError("Student's t needs at least one degree of freedom")
    log_density = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    t = 1.959963984540054  # the normal quantile, a little below the answer for every df
    for _ in range(100):
        # Newton's method on P(|T| ≤ t) = CONFIDENCE; the curve is concave for t > 0, so
        # starting below the root every step stays below it and rises to it.
        density = math.exp(log_density - (df + 1) / 2 * math.log1p(t * t / df))
        step = (_central_probability(t, df) - CONFIDENCE) / (2 * density)
        t -= step
        if abs(step) <= 1e-15 * t:
            break
    return t


@dataclass(frozen=True)
class Summary:
    """n, mean, sample standard deviation (ddof=1), min, max, median, the half-width of the
    95 % confidence interval of the mean (Student t) and the coefficient of variation."""

    n: int
    mean: float | None
    std: float | None
    min: float | None
    max: float | None
    median: float | None
    ci95: float | None
    cv: float | None

    @property
    def ci_low(self) -> float | None:
        return None if self.mean is None or self.ci95 is None else self.mean - self.ci95

    @property
    def ci_high(self) -> float | None:
        return None if self.mean is None or self.ci95 is None else self.mean + self.ci95

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "mean": self.mean,
            "std": self.std,
            "min": self.min,
            "max": self.max,
            "median": self.median,
            "ci95": self.ci95,
            "cv": self.cv,
            "n": self.n,
        }


EMPTY = Summary(0, None, None, None, None, None, None, None)


def summarize(values: Iterable[float | None]) -> Summary:
    """Statistics of the known values (None and non-finite values are left out)."""
    data = sorted(float(v) for v in values if v is not None and math.isfinite(v))
    n = len(data)
    if n == 0:
        return EMPTY
    mean = statistics.fmean(data)
    std: float | None = None
    ci95: float | None = None
    if n > 1:
        spread = math.sqrt(math.fsum((x - mean) ** 2 for x in data) / (n - 1))
        std, ci95 = spread, t_interval_factor(n - 1) * spread / math.sqrt(n)
    cv = std / mean if std is not None and mean != 0 else None
    return Summary(
        n=n,
        mean=mean,
        std=std,
        min=data[0],
        max=data[-1],
        median=statistics.median(data),
        ci95=ci95,
        cv=cv,
    )


def precise_enough(summary: Summary, relative_ci: float, min_runs: int) -> bool:
    """True once a point has min_runs runs and its 95 % CI half-width is within relative_ci
    of the mean: more repetitions would not change the conclusion."""
    if summary.n < max(2, min_runs) or summary.mean is None or summary.ci95 is None:
        return False
    if summary.mean == 0:
        return summary.ci95 == 0
    return summary.ci95 <= relative_ci * abs(summary.mean)
