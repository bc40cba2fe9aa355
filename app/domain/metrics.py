"""Every measured figure described once. FIGURES are the figures engines report and runs keep,
with their physical bounds and where each is stored (per run, per interval, per flow);
POINT_METRICS are what a point summarises over its runs, with the words, unit, which way is
better and where each is shown. Storage and its migrations, the bounds checks, point
summaries, comparisons, the results tables, the CSV, HTML and exchange files and the import
checks loop over them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from app.domain.net import Protocol


class Better(StrEnum):
    HIGHER = "higher"
    LOWER = "lower"


#: Faster than any link an engine on a desktop can drive, by orders of magnitude.
MAX_BPS = 10e12
#: Longer than any run lasts: the longest run a plan allows (a day) with its warm-up, waits
#: and retries, several times over.
MAX_SECONDS = 7 * 86_400.0


@dataclass(frozen=True)
class Figure:
    """One figure an engine reports or a run keeps, with its physical bounds (0 to largest),
    which every figure must keep before a run is stored, an import is taken or a stored value
    is trusted. Where it lives follows from the flags: a RunMetrics field and a column of the
    runs table, the runs CSV and exchange files (run); a Sample field and a column of the
    samples table, the samples CSV and exchange files (interval); a FlowSummary field (flow)."""

    name: str
    what: str  # in the sentence that refuses a value: "lost datagram count"
    unit: str = ""
    largest: float = math.inf
    kind: type = float  # float, int or str (words: no bounds)
    run: bool = False
    interval: bool = False
    flow: bool = False
    #: A count of events: adds up over a run's flows and over intervals.
    count: bool = False
    #: The database schema it arrived in: older runs have none (absent, never 0). From
    #: schema 11 on, its columns are added by the migration to that version (app.store.schema).
    since_schema: int = 1


def _bps(name: str, *, run: bool = False, interval: bool = False, flow: bool = False) -> Figure:
    return Figure(name, "throughput", "bit/s", MAX_BPS, run=run, interval=interval, flow=flow)


def _bytes(name: str, *, run: bool = False, interval: bool = False, flow: bool = False) -> Figure:
    return Figure(name, "byte count", "bytes", kind=int, run=run, interval=interval, flow=flow)


def _rtt(name: str, *, run: bool = False, interval: bool = False, since: int = 1) -> Figure:
    return Figure(name, "round-trip time", "ms", run=run, interval=interval, since_schema=since)


def _cpu(name: str) -> Figure:
    # Not capped at 100 %: iperf3 adds up the CPU time of all its threads.
    return Figure(name, "CPU load", "%", run=True)


#: Every figure, in the order of the runs table's metric columns (and of the runs CSV) and,
#: among those per interval, of the samples CSV. A new metric is a line here (and its field
#: in app.domain.results and app.domain.records); storage, its migration, the CSV, the CLI,
#: exchange files and the import checks follow.
FIGURES: tuple[Figure, ...] = (
    Figure("start_s", "interval time", "s", MAX_SECONDS),
    Figure("end_s", "interval time", "s", MAX_SECONDS),
    Figure("elapsed_s", "run time", "s", MAX_SECONDS),
    # A sample's one rate in exchange files of format 1 (now sent_bps and received_bps).
    _bps("bits_per_second"),
    _bps("throughput_bps", run=True),
    _bps("sender_bps", run=True, flow=True),
    _bps("receiver_bps", run=True, flow=True),
    _bps("received_bps", interval=True),
    _bps("sent_bps", interval=True),
    _bytes("bytes_sent", run=True),
    _bytes("bytes_received", run=True),
    _bytes("sender_bytes", flow=True),
    _bytes("receiver_bytes", flow=True),
    _bytes("bytes", interval=True),
    Figure(
        "retransmits", "retransmit count", kind=int, run=True, interval=True, flow=True, count=True
    ),
    _rtt("rtt_ms", interval=True),
    Figure("cwnd_bytes", "congestion window", "bytes", kind=int, interval=True),
    _rtt("rtt_mean_ms", run=True),
    _rtt("rtt_min_ms", run=True),
    _rtt("rtt_max_ms", run=True),
    Figure("jitter_ms", "jitter", "ms", run=True, interval=True, flow=True),
    Figure(
        "lost_packets",
        "lost datagram count",
        kind=int,
        run=True,
        interval=True,
        flow=True,
        count=True,
    ),
    Figure("packets", "datagram count", kind=int, run=True, interval=True, flow=True, count=True),
    Figure("loss_pct", "loss", "%", 100.0, run=True, flow=True),
    _cpu("cpu_local_pct"),
    _cpu("cpu_remote_pct"),
    _cpu("cpu_host_mean_pct"),
    _cpu("cpu_host_peak_pct"),
    Figure("transactions_per_s", "transaction rate", "per second", run=True),
    # Working latency (schema 4): the median probe round trip before the run (idle) and
    # during it (loaded), the loaded p90, the share of probes lost and the method used.
    _rtt("latency_idle_ms", run=True, since=4),
    _rtt("latency_ms", run=True, since=4),
    _rtt("latency_p90_ms", run=True, since=4),
    Figure("latency_loss_pct", "loss", "%", 100.0, run=True, since_schema=4),
    Figure("latency_method", "latency method", kind=str, run=True, since_schema=4),
    # One-way delay (schema 7): iperf 2's --trip-times, with the clocks stated synchronised.
    # Ten minutes: far beyond any path, yet an offset between clocks stays within it.
    Figure(
        "owd_ms",
        "one-way delay",
        "ms",
        600_000.0,
        run=True,
        interval=True,
        flow=True,
        since_schema=7,
    ),
    # UDP datagrams that arrived after one sent later (schema 11), as the receiver counted.
    Figure(
        "out_of_order",
        "out-of-order datagram count",
        "datagrams",
        kind=int,
        run=True,
        interval=True,
        flow=True,
        count=True,
        since_schema=11,
    ),
    # The part of this computer's CPU (cpu_host_mean_pct, all its CPUs) that LinkLab's own
    # processes used, its engines and servers among them (schema 13): the rest was other
    # programs'.
    Figure("cpu_linklab_mean_pct", "CPU load", "%", run=True, since_schema=13),
)
FIGURE: Mapping[str, Figure] = {f.name: f for f in FIGURES}
#: A run's stored figures (RunMetrics, the runs table), in order.
COLUMNS: tuple[Figure, ...] = tuple(f for f in FIGURES if f.run)
#: An interval sample's figures (Sample, the samples table), in order.
SAMPLE_FIGURES: tuple[Figure, ...] = tuple(f for f in FIGURES if f.interval)


@dataclass(frozen=True)
class Shown:
    """Where a point metric appears: its rank among the others (None: not there)."""

    #: (rank, header, digits, tooltip); the tooltip's {key}s are the engines' phrases
    #: (app.engine.drivers.registry.phrased fills them in).
    results: tuple[int, str, int, str] | None = None
    report: tuple[int, str] | None = None  # (rank, the report's table title)
    csv: bool = True  # a column of the points CSV
    terminal: tuple[int, str, int] | None = None  # the CLI's points table: (rank, header, digits)


@dataclass(frozen=True)
class PointMetric:
    name: str  # in --json, the CSV and comparisons: "rtt_ms"
    label: str  # in sentences: "round-trip time"
    unit: str
    read: str  # the RunMetrics attribute a run gives it from
    better: Better = Better.LOWER
    user_name: str | None = None  # what a user types to compare it (`--metric rtt`); None: not
    percent_points: bool = False  # differences said in percentage points
    loaded: bool = False  # measured under the run's load (findings say which load)
    protocol: Protocol | None = None  # only runs of this protocol have it
    since_schema: int = 1
    shown: Shown = Shown()
    #: The words by which an exercise's question asks about it (a regular expression).
    asked_by: str | None = None


POINT_METRICS: tuple[PointMetric, ...] = (
    PointMetric(
        "throughput_bps",
        "throughput",
        "bit/s",
        "throughput_bps",
        Better.HIGHER,
        "throughput",
        shown=Shown(report=(0, "Throughput")),
        asked_by=r"throughput|goodput|bandwidth|mbit|bit/s|delivered",
    ),
    PointMetric(
        "rtt_ms",
        "round-trip time",
        "ms",
        "rtt_mean_ms",
        user_name="rtt",
        shown=Shown((3, "RTT ms", 3, "Round-trip time, mean per run."), (4, "Round-trip time")),
        asked_by=r"round[- ]trip|\brtt\b",
    ),
    PointMetric(
        "cpu_local_pct",
        "CPU on this computer",
        "%",
        "cpu_local",
        user_name="cpu",
        percent_points=True,
        shown=Shown(report=(9, "CPU on this computer")),
        asked_by=r"\bcpu\b",
    ),
    PointMetric(
        "cpu_remote_pct",
        "CPU on the peer",
        "%",
        "cpu_remote_pct",
        user_name="cpu-peer",
        percent_points=True,
        shown=Shown(report=(10, "CPU on the peer")),
        asked_by=r"\bcpu\b",
    ),
    PointMetric(
        "jitter_ms",
        "jitter",
        "ms",
        "jitter_ms",
        user_name="jitter",
        protocol=Protocol.UDP,
        shown=Shown(
            (2, "Jitter ms", 3, "UDP jitter (RFC 3550), mean per run."),
            (2, "UDP jitter"),
            terminal=(1, "jitter ms", 3),
        ),
        asked_by=r"\bjitter",
    ),
    PointMetric(
        "loss_pct",
        "loss",
        "%",
        "loss_pct",
        user_name="loss",
        percent_points=True,
        protocol=Protocol.UDP,
        shown=Shown(
            (1, "Loss %", 2, "UDP datagrams lost, mean per run."),
            (1, "UDP loss"),
            terminal=(0, "UDP loss %", 2),
        ),
        asked_by=r"\bloss\b|\blost\b",
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
            terminal=(2, "retransmits", 1),
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
        asked_by=r"responsive|bufferbloat",
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
        user_name="owd",
        since_schema=7,
        shown=Shown(
            (
                7,
                "One-way delay ms",
                3,
                "{owd_engine}'s one-way delay ({owd_option}) between clocks stated synchronised: "
                "the receiver's mean per run, mean over the runs.",
            ),
            (8, "One-way delay"),
            terminal=(3, "one-way ms", 3),
        ),
        asked_by=r"one-way",
    ),
    PointMetric(
        "latency_loss_pct",
        "latency probes lost",
        "%",
        "latency_loss_pct",
        percent_points=True,
        since_schema=4,
    ),
    PointMetric(
        "out_of_order",
        "out of order",
        "datagrams",
        "out_of_order",
        user_name="out-of-order",
        protocol=Protocol.UDP,
        since_schema=11,
        shown=Shown(
            (
                8,
                "Out of order",
                1,
                "UDP datagrams that arrived after one sent later, as the receiver counted them; "
                "mean per run.",
            ),
            (11, "UDP datagrams out of order"),
            terminal=(4, "reordered", 1),
        ),
        asked_by=r"out[- ]of[- ]order|reorder",
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
        "out_of_order",
    )
)
assert {m.name for m in COMPARABLE} == {m.name for m in POINT_METRICS if m.user_name}


def ranked(where: str) -> list[PointMetric]:
    """The metrics shown in the results table ("results"), the report ("report") or the CLI's
    points table ("terminal"), in order."""
    shown = [m for m in POINT_METRICS if getattr(m.shown, where) is not None]
    return sorted(shown, key=lambda m: getattr(m.shown, where)[0])


@dataclass(frozen=True)
class LinkFigure:
    """A figure the link rate (stated or detected) gives a point or a run: the rate and where
    it came from, the frame overhead stated, the overhead model's expected goodput and the
    share of it reached. The runs and points CSVs carry each (a column by its name); the
    results table and the report show those with a header, beside the throughput."""

    name: str  # the CSV column and --json key: "expected_bps"
    label: str  # in sentences: "expected goodput"
    unit: str
    #: (header, tooltip) in the results table and the report's throughput table; None: not.
    shown: tuple[str, str] | None = None


#: In the order of the CSVs' columns and the tables' (after the throughput's).
LINK_FIGURES: tuple[LinkFigure, ...] = (
    LinkFigure("link_rate_bps", "link rate", "bit/s"),
    # "stated", or "detected (wlan0's Wi-Fi PHY rate)": what said the rate.
    LinkFigure("link_rate_source", "where the link rate came from", ""),
    LinkFigure("frame_overhead_bytes", "frame overhead", "bytes"),
    LinkFigure(
        "expected_bps",
        "expected goodput",
        "bit/s",
        (
            "Expected",
            "The goodput the link allows at its link rate: what the headers (and on Wi-Fi the "
            "air time) leave of it.",
        ),
    ),
    LinkFigure(
        "efficiency_pct",
        "share of the expected goodput",
        "%",
        ("Of expected %", "The mean throughput as a share of the expected goodput."),
    ),
)
LINK_FIGURE: Mapping[str, LinkFigure] = {f.name: f for f in LINK_FIGURES}
#: The link figures the results table and the report show, in order.
SHOWN_LINK_FIGURES: tuple[LinkFigure, ...] = tuple(f for f in LINK_FIGURES if f.shown)
