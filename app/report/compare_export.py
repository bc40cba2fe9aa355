"""The comparison's difference table and standard-deviation table as spreadsheet-safe CSV."""

from __future__ import annotations

import io

from app.analysis.compare import Comparison
from app.report.csv_export import write_rows

COMPARISON_COLUMNS = (
    "metric",
    "variable",
    "value",
    "baseline",
    "other",
    "baseline_n",
    "other_n",
    "baseline_mean",
    "other_mean",
    "difference",
    "relative_difference_pct",
    "ci95_low",
    "ci95_high",
    "p_value_welch",
    "significant_at_0.05",
)


def comparison_csv(comparison: Comparison) -> str:
    out = io.StringIO()
    rows = []
    for result in comparison.results:
        for p in result.points:
            rows.append(
                [
                    comparison.metric,
                    comparison.variable_label,
                    p.value,
                    comparison.baseline.label,
                    result.other.label,
                    p.baseline.n,
                    p.other.n,
                    p.baseline.mean,
                    p.other.mean,
                    p.difference,
                    p.relative_pct,
                    p.ci_low,
                    p.ci_high,
                    p.p_value,
                    "" if p.significant is None else ("yes" if p.significant else "no"),
                ]
            )
    write_rows(out, COMPARISON_COLUMNS, rows)
    return out.getvalue()


def std_table(comparison: Comparison) -> tuple[list[str], list[list[object]]]:
    """Like the papers' Table 1: rows are the swept values, columns the series' std dev."""
    curves = [comparison.baseline] + [r.other for r in comparison.results]
    values = sorted({v for c in curves for v in c.values})
    from app.analysis.stats import summarize

    header = [comparison.variable_label] + [c.label for c in curves]
    rows: list[list[object]] = [
        [value] + [summarize(c.values.get(value, [])).std for c in curves] for value in values
    ]
    return header, rows
