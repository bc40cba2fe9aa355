"""Summary statistics of repeated measurements: mean, spread and a Student-t 95 % interval."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

CONFIDENCE = 0.95


def scipy_stats() -> Any:
    """scipy.stats, imported on first use: it takes most of a second, which every command
    and the window's start would otherwise pay before doing anything (see preload())."""
    from scipy import stats

    return stats


def t_quantile(df: float, q: float) -> float:
    """The q-quantile of Student's t with df degrees of freedom."""
    from scipy import special

    return float(special.stdtrit(df, q))


def t_cdf(df: float, t: float) -> float:
    """P(T ≤ t) for Student's t with df degrees of freedom."""
    from scipy import special

    return float(special.stdtr(df, t))


def preload() -> None:
    """Import scipy.stats now (the window calls this from a background thread at start)."""
    scipy_stats()


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
    data = np.array([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    n = int(data.size)
    if n == 0:
        return EMPTY
    mean = float(np.mean(data))
    if n > 1:
        std = float(np.std(data, ddof=1))
        t = float(scipy_stats().t.ppf(0.5 + CONFIDENCE / 2, df=n - 1))
        ci95: float | None = t * std / math.sqrt(n)
    else:
        std, ci95 = None, None
    cv = std / mean if std is not None and mean != 0 else None
    return Summary(
        n=n,
        mean=mean,
        std=std,
        min=float(np.min(data)),
        max=float(np.max(data)),
        median=float(np.median(data)),
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
