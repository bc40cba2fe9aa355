"""Every measured figure described once. COLUMNS are a run's stored figures (the runs table, the
exchange files, the runs CSV); POINT_METRICS are what a point summarises over its runs, with
the words, unit, which way is better, physical bounds and where each is shown. Point
summaries, comparisons, the results table, the CSV and HTML exports and the import checks
loop over them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from app.domain.net import Protocol


class Better(StrEnum):
    HIGHER = "higher"
    LOWER = "lower"


@dataclass(frozen=True)
class Column:
    """One stored figure of a run (a RunMetrics field and a column of the runs table)."""

    name: str
    kind: type = float  # float, int or str
    since_schema: int = 1  # the database schema it arrived in (older runs have none)


COLUMNS: tuple[Column, ...] = (
    Column("throughput_bps"),
    Column("sender_bps"),
    Column("receiver_bps"),
    Column("bytes_sent", int),
    Column("bytes_received", int),
    Column("retransmits", int),
    Column("rtt_mean_ms"),
    Column("rtt_min_ms"),
    Column("rtt_max_ms"),
    Column("jitter_ms"),
    Column("lost_packets", int),
    Column("packets", int),
    Column("loss_pct"),
    Column("cpu_local_pct"),
    Column("cpu_remote_pct"),
    Column("cpu_host_mean_pct"),
    Column("cpu_host_peak_pct"),
    Column("transactions_per_s"),
    # Working latency (schema 4): the median probe round trip before the run (idle) and
    # during it (loaded), the loaded p90, the share of probes lost and the method used.
    Column("latency_idle_ms", since_schema=4),
    Column("latency_ms", since_schema=4),
    Column("latency_p90_ms", since_schema=4),
    Column("latency_loss_pct", since_schema=4),
    Column("latency_method", str, since_schema=4),
    # One-way delay (schema 7): iperf 2's --trip-times, with the clocks stated synchronised.
    Column("owd_ms", since_schema=7),
)


@dataclass(frozen=True)
class Shown:
    """Where a point metric appears: its rank among the others (None: not there)."""

    results: tuple[int, str, int, str] | None = None  # (rank, header, digits, tooltip)
    report: tuple[int, str] | None = None  # (rank, the report's table title)
    csv: bool = True  # a column of the points CSV


@dataclass(frozen=True)
class PointMetric:
    name: str  # in --json, the CSV and comparisons: "rtt_ms"
    label: str  # in sentences: "round-trip time"
    unit: str
    read: str  # the RunMetrics attribute a run gives it from
    better: Better = Better.LOWER
    largest: float = math.inf  # the physical bound of a figure
    user_name: str | None = None  # what a user types to compare it (`--metric rtt`); None: not
    percent_points: bool = False  # differences said in percentage points
    loaded: bool = False  # measured under the run's load (findings say which load)
    protocol: Protocol | None = None  # only runs of this protocol have it
    since_schema: int = 1
    shown: Shown = Shown()


#: Faster than any link an engine on a desktop can drive, by orders of magnitude.
MAX_BPS = 10e12

POINT_METRICS: tuple[PointMetric, ...] = (
    PointMetric(
        "throughput_bps",
        "throughput",
        "bit/s",
        "throughput_bps",
        Better.HIGHER,
        MAX_BPS,
        "throughput",
        shown=Shown(report=(0, "Throughput")),
    ),
    PointMetric(
        "rtt_ms",
        "round-trip time",
        "ms",
        "rtt_mean_ms",
        user_name="rtt",
        shown=Shown((3, "RTT ms", 3, "Round-trip time, mean per run."), (4, "Round-trip time")),
    ),
    PointMetric(
        "cpu_local_pct",
        "CPU on this computer",
        "%",
        "cpu_local",
        user_name="cpu",
        percent_points=True,
        shown=Shown(report=(9, "CPU on this computer")),
    ),
    PointMetric(
        "cpu_remote_pct",
        "CPU on the peer",
        "%",
        "cpu_remote_pct",
        user_name="cpu-peer",
        percent_points=True,
        shown=Shown(report=(10, "CPU on the peer")),
    ),
    PointMetric(
        "jitter_ms",
        "jitter",
        "ms",
        "jitter_ms",
        user_name="jitter",
        protocol=Protocol.UDP,
        shown=Shown((2, "Jitter ms", 3, "UDP jitter (RFC 3550), mean per run."), (2, "UDP jitter")),
    ),
    PointMetric(
        "loss_pct",
        "loss",
        "%",
        "loss_pct",
        largest=100.0,
        user_name="loss",
        percent_points=True,
        protocol=Protocol.UDP,
        shown=Shown((1, "Loss %", 2, "UDP datagrams lost, mean per run."), (1, "UDP loss")),
    ),
    PointMetric(
        "retransmits",
        "retransmits",
        "",
        "retransmits",
        protocol=Protocol.TCP,
        shown=Shown(
            (0, "Retransmits", 1, "TCP segments sent again, mean per run."),
            (3, "TCP retransmits per run"),
            csv=False,
        ),
    ),
    PointMetric(
        "latency_idle_ms",
        "idle latency",
        "ms",
        "latency_idle_ms",
        user_name="latency-idle",
        since_schema=4,
        shown=Shown(
            (
                4,
                "Idle latency ms",
                3,
                "Working latency probes before each run: the median round trip, mean over the "
                "runs.",
            ),
            (5, "Idle latency (median per run)"),
        ),
    ),
    PointMetric(
        "latency_ms",
        "working latency",
        "ms",
        "latency_ms",
        user_name="latency",
        loaded=True,
        since_schema=4,
        shown=Shown(
            (
                5,
                "Loaded latency ms",
                3,
                "Working latency probes during each run: the median round trip, mean over the "
                "runs.",
            ),
            (6, "Working latency under load (median per run)"),
        ),
    ),
    PointMetric(
        "latency_p90_ms",
        "working latency (p90)",
        "ms",
        "latency_p90_ms",
        user_name="latency-p90",
        loaded=True,
        since_schema=4,
        shown=Shown(
            (
                6,
                "Loaded p90 ms",
                3,
                "The 90th percentile of the probes' round trips during each run, mean over "
                "the runs.",
            ),
            (7, "Working latency under load (90th percentile per run)"),
        ),
    ),
    PointMetric(
        "owd_ms",
        "one-way delay",
        "ms",
        "owd_ms",
        largest=600_000.0,
        user_name="owd",
        since_schema=7,
        shown=Shown(
            (
                7,
                "One-way delay ms",
                3,
                "iperf 2's one-way delay (--trip-times) between clocks stated synchronised: "
                "the receiver's mean per run, mean over the runs.",
            ),
            (8, "One-way delay"),
        ),
    ),
    PointMetric(
        "latency_loss_pct",
        "latency probes lost",
        "%",
        "latency_loss_pct",
        largest=100.0,
        percent_points=True,
        since_schema=4,
    ),
)

BY_NAME: Mapping[str, PointMetric] = {m.name: m for m in POINT_METRICS}
#: The metrics a comparison can set side by side (those a user can name), in the order the
#: Compare tab offers them.
COMPARABLE: tuple[PointMetric, ...] = tuple(
    BY_NAME[name]
    for name in (
        "throughput_bps",
        "rtt_ms",
        "cpu_local_pct",
        "cpu_remote_pct",
        "jitter_ms",
        "loss_pct",
        "latency_ms",
        "latency_idle_ms",
        "latency_p90_ms",
        "owd_ms",
    )
)
assert {m.name for m in COMPARABLE} == {m.name for m in POINT_METRICS if m.user_name}


def ranked(where: str) -> list[PointMetric]:
    """The metrics shown in the results table ("results") or the report ("report"), in order."""
    shown = [m for m in POINT_METRICS if getattr(m.shown, where) is not None]
    return sorted(shown, key=lambda m: getattr(m.shown, where)[0])
