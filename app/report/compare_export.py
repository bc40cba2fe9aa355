"""The comparison as CSV a spreadsheet opens correctly (UTF-8 with BOM, whole sizes as whole
numbers, the conditions and tags as columns, the JSON keys as column names, formulas
defused), and the papers' mean ± SD tables of each pair."""

from __future__ import annotations

import io

from app.analysis.compare import Comparison, PairComparison, SeriesData
from app.analysis.pairs import in_order
from app.analysis.points import plain_number
from app.analysis.stats import summarize
from app.domain.tags import tags_text
from app.report.csv_export import write_rows

_SIDE = ("session_id", "name", "protocol", "ip_version", "direction", "series")
_CONDITIONS = ("security", "medium", "tags")
COMPARISON_COLUMNS = (
    "metric",
    "variable",
    "value",
    *_SIDE,
    *_CONDITIONS,
    *(f"baseline_{k}" for k in (*_SIDE, *_CONDITIONS)),
    "baseline_n",
    "other_n",
    "baseline_mean",
    "other_mean",
    "baseline_std",
    "other_std",
    "difference",
    "relative_pct",
    "ci_low",
    "ci_high",
    "ci_level",
    "p_value",
    "p_holm",
    "significant",
)


def _side(item: SeriesData) -> list[object]:
    conditions = item.session.plan.conditions
    return [
        item.session.id,
        item.session.name,
        item.series.protocol.value,
        int(item.series.ip_version),
        item.direction.value,
        item.label,
        conditions.security.value,
        conditions.medium.value,
        tags_text(conditions.tags, "; "),
    ]


def comparison_csv(comparison: Comparison) -> str:
    out = io.StringIO()
    rows = []
    for pair in comparison.pairs:
        for p in pair.points:
            rows.append(
                [
                    comparison.metric,
                    comparison.variable_label,
                    plain_number(p.value),
                    *_side(pair.other),
                    *_side(pair.baseline),
                    p.baseline.n,
                    p.other.n,
                    p.baseline.mean,
                    p.other.mean,
                    p.baseline.std,
                    p.other.std,
                    p.difference,
                    p.relative_pct,
                    p.ci_low,
                    p.ci_high,
                    p.ci_level,
                    p.p_value,
                    p.p_holm,
                    "" if p.significant is None else ("yes" if p.significant else "no"),
                ]
            )
    write_rows(out, COMPARISON_COLUMNS, rows)
    return out.getvalue()


def std_table(comparison: Comparison) -> tuple[list[str], list[list[object]]]:
    """Like the papers' tables: rows are the swept values, columns each curve's std dev."""
    curves = comparison.curves
    values = in_order([v for c in curves for v in c.values])
    header = [comparison.variable_label] + [c.label for c in curves]
    rows: list[list[object]] = [
        [plain_number(value)] + [summarize(c.values.get(value, [])).std for c in curves]
        for value in values
    ]
    return header, rows


def pair_table(pair: PairComparison) -> tuple[list[str], list[list[object]]]:
    """One pair as the papers print it: per value, mean ± SD of each side."""
    header = ["value", f"{pair.baseline.label} mean", "SD", f"{pair.other.label} mean", "SD"]
    rows: list[list[object]] = [
        [plain_number(p.value), p.baseline.mean, p.baseline.std, p.other.mean, p.other.std]
        for p in pair.points
    ]
    return header, rows
