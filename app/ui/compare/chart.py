"""The Compare tab's chart drawn from a comparison: each curve shown, its means with error bars
(the 95 % confidence interval or one standard deviation) over the planned values, and the
goodput expected of the link beside a rate."""

from __future__ import annotations

from app.analysis.compare import METRIC_INFO, Comparison
from app.analysis.stats import summarize
from app.domain.plan_fields import categories, x_of
from app.ui.common.chart_style import comparison_styles
from app.ui.common.charts import SweepChart, add_expected, sweep_point, x_title


def draw_comparison(
    chart: SweepChart,
    comparison: Comparison | None,
    metric: str,
    *,
    use_ci: bool,
    shown: set[str],
) -> None:
    """The metric's curves whose labels are `shown` (an empty chart without a comparison)."""
    label, unit, _ = METRIC_INFO[metric]
    is_rate = metric == "throughput_bps"
    chart.set_metric(label if is_rate else f"{label} ({unit})", is_rate=is_rate)
    chart.clear_points()
    chart.getPlotItem().setTitle(f"{label.capitalize()}: mean ± {'95 % CI' if use_ci else '1 SD'}")
    if comparison is None:
        chart.redraw()
        return
    plan = comparison.curves[0].session.plan
    chart.set_x_label(x_title(plan.variable), categories(plan))
    chart.set_planned(
        [x_of(c.session.plan, v) for c in comparison.curves for v in c.session.plan.values]
    )
    styles = comparison_styles(comparison)
    for curve in comparison.curves:
        if curve.label not in shown:
            continue
        points = []
        for value, runs in curve.values.items():
            s = summarize(runs)
            points.append(sweep_point(x_of(plan, value), s, ci=use_ci))
        chart.set_series(curve.label, points, styles.get(curve.label))
    if is_rate:
        add_expected(chart, [c for c in comparison.curves if c.label in shown])
    chart.redraw()
