"""The range of one series over its sweep in a sentence: where its mean was highest and lowest,
said as a difference only when the runs tell the two apart (Welch's t-test), and as one figure
when the two are the same to the digits shown."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from app.analysis.pair_words import format_value
from app.analysis.pairs import METRIC_INFO
from app.analysis.significance import ALPHA, welch_test
from app.domain.plan import PointValue, Variable
from app.domain.plan_fields import VARIABLE_LABELS, point_text, variable_words


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _places(variable: Variable, values: Sequence[PointValue]) -> str:
    """ "1, 4 and 8 streams" read as "1, 4 and 8" with the unit once."""
    texts = [point_text(variable, v) for v in values]
    unit = VARIABLE_LABELS[variable][1]
    if unit:
        texts = [t.removesuffix(f" {unit}") for t in texts]
    listed = texts[0] if len(texts) == 1 else f"{', '.join(texts[:-1])} and {texts[-1]}"
    return f"{listed} {unit}".strip()


def _p(p: float) -> str:
    """A p-value with the digits that keep it on its side of ALPHA (0.0496 is not "0.05")."""
    for digits in range(2, 7):
        text = f"{p:.{digits}g}"
        if (float(text) < ALPHA) == (p < ALPHA):
            return text
    return f"{p:.6g}"


def range_finding(
    label: str, metric: str, variable: Variable, runs: Mapping[PointValue, Sequence[float]]
) -> str | None:
    """One sentence on the series `label`: its mean `metric` per swept value, from each
    point's runs. None when no point has a run."""
    means = {value: _mean(values) for value, values in runs.items() if values}
    if not means:
        return None
    name = METRIC_INFO[metric][0]
    swept = variable_words(variable)
    values = list(means)
    if len(values) == 1:
        (value,) = values
        return (
            f"{label}: a mean {name} of {format_value(metric, means[value])} at {swept} "
            f"{point_text(variable, value)}, the one point measured."
        )
    top = max(values, key=means.__getitem__)
    low = min(values, key=means.__getitem__)
    high_text, low_text = format_value(metric, means[top]), format_value(metric, means[low])
    if high_text == low_text:
        return (
            f"{label}: the mean {name} was {high_text} at every point measured ({swept} "
            f"{_places(variable, values)}); the highest and the lowest are the same to the "
            f"figures shown."
        )
    at_top = f"{swept} {point_text(variable, top)}"
    at_low = point_text(variable, low)
    test = welch_test(runs[low], runs[top])
    if test.p_value is None:
        return (
            f"{label}: the mean {name} ranged from {low_text} at {swept} {at_low} to "
            f"{high_text} at {point_text(variable, top)}; with a single run at one of them, "
            f"that difference cannot be told from the runs' noise."
        )
    if test.p_value >= ALPHA:
        return (
            f"{label}: the mean {name} ranged from {low_text} at {swept} {at_low} to "
            f"{high_text} at {point_text(variable, top)}, a difference within the runs' noise "
            f"(Welch's t-test, p = {_p(test.p_value)})."
        )
    return (
        f"{label} reached its highest mean {name}, {high_text}, at {at_top}; its lowest was "
        f"{low_text} at {at_low} (a difference larger than the runs' noise, p = "
        f"{_p(test.p_value)})."
    )
