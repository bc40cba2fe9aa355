"""Point summaries: per series and swept value, the statistics of every metric."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.analysis.expectation import expected_at, link_figures, on_loopback, share_pct
from app.analysis.stats import Summary, summarize
from app.domain.metrics import POINT_METRICS
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Plan, PointValue, RunKind, Series, Variable, as_point
from app.domain.records import RunRecord
from app.domain.units import percent_text


def efficiency_text(pct: float) -> str:
    """A share of the expected goodput as the results table shows it, without the sign: one
    decimal, never 0.0 for something (0.04)."""
    return percent_text(pct, 1)


#: (name in --json and CSV, how to read it from a run), from the metric table.
def _reader(attribute: str) -> Callable[[RunRecord], float | None]:
    def read(run: RunRecord) -> float | None:
        value: float | None = getattr(run.metrics, attribute)
        return value

    return read


METRICS: tuple[tuple[str, Callable[[RunRecord], float | None]], ...] = tuple(
    (metric.name, _reader(metric.read)) for metric in POINT_METRICS
)


@dataclass(frozen=True)
class PointSummary:
    protocol: Protocol
    ip_version: IpVersion
    direction: Direction
    variable: Variable
    value: PointValue  # a number, or a name (a congestion control)
    n: int  # successful runs at this point
    failed: int
    metrics: dict[str, Summary]
    expected_bps: float | None = None  # the overhead model's best goodput, with a link rate
    #: False where the traffic stayed on the loopback: the link rate stated does not apply,
    #: the expected goodput is a reference line only and no share of it is given.
    share_applies: bool = True

    @property
    def series(self) -> Series:
        return Series(self.protocol, self.ip_version)

    @property
    def efficiency_pct(self) -> float | None:
        """The mean throughput as a share of the expected goodput, in per cent."""
        mean = self.metrics["throughput_bps"].mean if "throughput_bps" in self.metrics else None
        return share_pct(mean, self.expected_bps, self.share_applies)

    def link_figures(self, plan: Plan) -> dict[str, object]:
        """The link figures by name (LINK_FIGURES): the plan's link rate, its kind and frame
        overhead, this point's expected goodput and its mean's share of it."""
        return link_figures(plan.conditions, self.expected_bps, self.efficiency_pct)

    @property
    def efficiency_text(self) -> str | None:
        """The share as the results table shows it (one decimal, never 0.0 for something):
        the figure every sentence about it writes and is judged on."""
        pct = self.efficiency_pct
        return None if pct is None else efficiency_text(pct)

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "protocol": self.protocol.value,
            "ip_version": int(self.ip_version),
            "direction": self.direction.value,
            "variable": self.variable.value,
            "value": plain_number(self.value),
            "n": self.n,
            "failed": self.failed,
        }
        for name, summary in self.metrics.items():
            data[name] = (
                None
                if summary.n == 0
                else {
                    "mean": summary.mean,
                    "std": summary.std,
                    "min": summary.min,
                    "max": summary.max,
                    "ci95": summary.ci95,
                }
            )
        data["expected_bps"] = self.expected_bps
        data["efficiency_pct"] = self.efficiency_pct
        return data


def plain_number(value: float | str) -> int | float | str:
    """1408.0 -> 1408: whole values as integers (JSON, CSV), others (and names) as they are."""
    if isinstance(value, str):
        return value
    return int(value) if float(value).is_integer() else value


def point_summaries(plan: Plan, runs: Sequence[RunRecord]) -> list[PointSummary]:
    """One summary per series and value, in plan order; RTT from request/response runs when
    the plan has them, otherwise from the stream runs' own RTT (iperf3 JSON); the expected
    goodput when the session states a link rate."""
    points = []
    share_applies = not on_loopback(plan)
    for series in plan.series:
        for index, value in enumerate(plan.values):
            here = [r for r in runs if r.key.series == series and r.key.value_index == index]
            n, metrics = summarize_point(here)
            found = expected_at(plan, series, value)
            points.append(
                PointSummary(
                    protocol=series.protocol,
                    ip_version=series.ip_version,
                    direction=plan.direction,
                    variable=plan.variable,
                    value=as_point(value),
                    n=n,
                    failed=sum(1 for r in here if not r.ok),
                    metrics=metrics,
                    expected_bps=found.expected_bps if found is not None else None,
                    share_applies=share_applies,
                )
            )
    return points


def run_link_figures(plan: Plan, run: RunRecord) -> dict[str, object]:
    """A run's link figures by name (LINK_FIGURES): the plan's link rate, its kind and frame
    overhead, the expected goodput at the run's point (as its point summary has it) and, for
    a successful run, its throughput's share of it: the shares of a point's successful runs
    average to the share its summary gives."""
    index = run.key.value_index
    value = plan.values[index] if 0 <= index < len(plan.values) else run.value
    found = expected_at(plan, run.key.series, value)
    expected = found.expected_bps if found is not None else None
    throughput = run.metrics.throughput_bps if run.ok else None
    share = share_pct(throughput, expected, not on_loopback(plan))
    return link_figures(plan.conditions, expected, share)


def summarize_point(runs: Sequence[RunRecord]) -> tuple[int, dict[str, Summary]]:
    """The successful runs of one point and the statistics of every metric over them."""
    ok = [r for r in runs if r.ok]
    stream = [r for r in ok if r.key.kind is RunKind.STREAM]
    rr = [r for r in ok if r.key.kind is RunKind.RR]
    metrics = {}
    for name, read in METRICS:
        source = rr if name == "rtt_ms" and rr else (stream or rr)
        metrics[name] = summarize(read(r) for r in source)
    return len(stream or rr), metrics
