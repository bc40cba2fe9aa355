"""Context checks: before any number of a session is read, the ways its numbers cannot mean
what its labels say. Each check is a sentence that says what to do; the window's session view,
`linklab sessions show` and the comparison banner show them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.analysis.cpu_check import cpu_bound, peer_is_local
from app.analysis.expectation import rate_words, value_text, values_text
from app.analysis.expected_findings import above_model_causes, above_model_points, worst_point
from app.analysis.overhead import WIFI
from app.analysis.points import PointSummary, point_summaries
from app.analysis.stats import precise_enough
from app.domain.net import Protocol
from app.domain.plan import Medium, Metric, Plan, RunKind, Security, Series, Variable
from app.domain.plan_fields import where_set
from app.domain.records import RunRecord, SessionRecord, SessionStatus
from app.domain.units import counted, plain_rate

#: Above this share of datagrams lost at a point, UDP's figure is the link's discard rate.
UDP_LOSS_PCT = 5.0
#: Below this many successful runs at a point, its standard deviation means little.
MIN_RUNS = 3
#: Working latency under load is probed from the engine's first report to the run's end;
#: below this many seconds of that, a run's loaded latency rests on a probe or two.
MIN_LOADED_S = 1.0


class Check(StrEnum):
    """Which check found something (what callers and tests sort the sentences by)."""

    NOT_WIFI = "not-wifi"  # Wi-Fi stated, but the traffic never crossed a Wi-Fi link
    UDP_LOSS = "udp-loss"
    CPU_BOUND = "cpu-bound"
    ABOVE_MODEL = "above-model"
    FEW_RUNS = "few-runs"  # short of the runs planned, or too few for a spread
    FEW_PROBES = "few-probes"  # working latency under load from runs too short to probe


@dataclass(frozen=True)
class ContextWarning:
    """One check's finding for one session: the sentence, and the series it is about (None
    when it is about the whole session)."""

    check: Check
    session_id: str
    sentence: str
    series: Series | None = None


def context_checks(session: SessionRecord, runs: Sequence[RunRecord]) -> list[ContextWarning]:
    """Every context check of a session, in the order a reader needs them: what the link was,
    then what limited the runs, then how far the numbers can be trusted."""
    plan = session.plan
    points = point_summaries(plan, runs)
    found: list[ContextWarning] = []

    def add(check: Check, sentence: str | None, series: Series | None = None) -> None:
        if sentence:
            found.append(ContextWarning(check, session.id, sentence, series))

    add(Check.NOT_WIFI, not_wifi(plan, session.environment))
    by_series = {s: [p for p in points if p.series == s] for s in plan.series}
    for series, here in by_series.items():
        add(Check.UDP_LOSS, udp_loss(plan, series, here), series)
        loopback = peer_is_local(plan, session.environment)
        add(Check.CPU_BOUND, cpu_bound(plan, series, runs, session.environment, loopback), series)
        add(Check.ABOVE_MODEL, above_model(plan, series, here), series)
    # Said once when every series is short of the same runs at the same points (a plan of
    # one or two repetitions, a sweep stopped), else series by series.
    running = session.status is SessionStatus.RUNNING
    said_of = {s: (tuple(_few(here)), tuple(_short(plan, here))) for s, here in by_series.items()}
    alike = len(set(said_of.values())) == 1
    if plan.is_monitor:
        pass  # a monitor's runs are stretches of one flow over time, not repetitions
    elif alike and len(by_series) > 1:
        first = next(iter(by_series.values()))
        add(Check.FEW_RUNS, few_runs(plan, None, first, running=running))
    else:
        for series, here in by_series.items():
            add(Check.FEW_RUNS, few_runs(plan, series, here, running=running), series)
    add(Check.FEW_PROBES, few_probes(plan, points))
    return found


# -- where the traffic went ---------------------------------------------------------------------


def wifi_stated(plan: Plan) -> str | None:
    """What the session states of Wi-Fi ("WPA2", "open", "802.11ac", "WPA2 on 802.11ac"), or
    None. Open on an Ethernet link is no Wi-Fi claim: Ethernet has no security to state."""
    conditions = plan.conditions
    medium = conditions.medium.value if conditions.medium in WIFI else None
    security = conditions.security
    if security is Security.UNKNOWN:
        said = None
    elif security is Security.OPEN:
        said = None if conditions.medium is Medium.ETHERNET else "open"
    else:
        said = security.value
    if said and medium:
        return f"{said} on {medium}"
    return said or medium


#: Systems whose snapshot never asks about Wi-Fi (LinkLab queries it on Linux and Windows
#: only): there, no Wi-Fi facts does not mean a wired interface.
_NO_WIFI_QUERY = ("macOS", "Darwin", "FreeBSD", "OpenBSD", "NetBSD", "SunOS")


@dataclass(frozen=True)
class Wired:
    """The interface a session reached its peer by, found wired: its name, its line rate
    where the system gave one, and what said it is not Wi-Fi (None: judged by the old rule)."""

    interface: str
    speed_mbps: int | None
    said_by: str | None


def _wired(environment: Mapping[str, Any]) -> Wired | None:
    """The interface to the peer, when the snapshot found it wired.

    Snapshots since format 2 say whether the interface is wireless (the adapter's medium:
    Windows' IfType, Linux's sysfs or iw) and which tool said it; where that was not said
    (Windows refused to read the Wi-Fi, say), no claim is made. Older snapshots are judged
    as they were: no Wi-Fi facts on a system where LinkLab asks, and a line rate (Wi-Fi
    interfaces report none of their own on Linux, and on Windows netsh names every wireless
    one)."""
    interface = environment.get("interface")
    speed = environment.get("interface_speed_mbps")
    system = environment.get("os_name")
    if not isinstance(interface, str) or not interface:
        return None
    rate = speed if isinstance(speed, int) and not isinstance(speed, bool) and speed > 0 else None
    reading = environment.get("wifi_reading")
    if isinstance(reading, Mapping):
        if environment.get("interface_wireless") is not False:
            return None
        source = reading.get("source")
        return Wired(interface, rate, source if isinstance(source, str) and source else None)
    if not isinstance(system, str) or system.startswith(_NO_WIFI_QUERY):
        return None
    if environment.get("wifi") or rate is None:
        return None
    return Wired(interface, rate, None)


def measured_on_loopback(plan: Plan, environment: Mapping[str, Any]) -> bool:
    """The traffic never left this computer ("This computer", a loopback address)."""
    return peer_is_local(plan, environment)


def wifi_over_wire(plan: Plan, environment: Mapping[str, Any]) -> str | None:
    """Where a session labelled Wi-Fi (a Wi-Fi security or medium) went by wire, in words
    ("over Ethernet", "over eth0, a wired interface"), or None."""
    if wifi_stated(plan) is None:
        return None
    conditions = plan.conditions
    if conditions.medium is Medium.ETHERNET and not conditions.medium_detected_by:
        return "over Ethernet (its medium says so)"  # then only a security said Wi-Fi
    wired = _wired(environment)
    return f"over {wired.interface}, a wired interface" if wired is not None else None


def not_wifi(plan: Plan, environment: Mapping[str, Any]) -> str | None:
    """Wi-Fi stated for traffic that never left this computer, or that left it by wire."""
    stated = wifi_stated(plan)
    if stated is None:
        return None
    if peer_is_local(plan, environment):
        return (
            f"The session is labelled Wi-Fi ({stated}), but its traffic never left this "
            "computer (the loopback): the traffic never crossed a Wi-Fi link, so the security "
            "and medium stated say nothing about these numbers. Measure against a peer across "
            "the Wi-Fi link, or set the security and medium to unknown."
        )
    wired = _wired(environment)
    if wired is not None:
        # The adapter's nominal speed, never the path's.
        facts = [f"adapter speed {wired.speed_mbps} Mbit/s"] if wired.speed_mbps else []
        if wired.said_by:
            facts.append(f"detected by {wired.said_by}")
        how = f" ({'; '.join(facts)})" if facts else ""
        return (
            f"The session is labelled Wi-Fi ({stated}), but this computer reached the peer "
            f"over {wired.interface}, a wired interface{how}: unless the peer itself "
            "is on Wi-Fi, the traffic never crossed a Wi-Fi link. Measure from a computer "
            "on the Wi-Fi link, or correct the security and medium."
        )
    return None


# -- what limited the runs ----------------------------------------------------------------------


def _span(numbers: Sequence[str]) -> str:
    """ "62.0 %" or "55.1–78.3 %" (the lowest and the highest, as shown)."""
    low, high = numbers[0], numbers[-1]
    return f"{low} %" if low == high else f"{low}–{high} %"


def shown_loss(point: PointSummary) -> float | None:
    """A point's mean loss as the sentence shows it (one decimal), or None."""
    mean = point.metrics["loss_pct"].mean if "loss_pct" in point.metrics else None
    return None if mean is None else round(mean, 1)


def udp_loss(plan: Plan, series: Series, points: Sequence[PointSummary]) -> str | None:
    """UDP points that lost more than UDP_LOSS_PCT of their datagrams (beyond the loss
    emulated, in a sweep of emulated loss: that part is meant)."""
    if series.protocol is not Protocol.UDP:
        return None
    emulated = plan.variable is Variable.LOSS

    def excess(point: PointSummary) -> float:
        # Judged on the figure shown, so that "more than 5 %" never sits beside "5.0 %".
        loss = shown_loss(point)
        given = point.value if emulated and not isinstance(point.value, str) else 0.0
        return -1.0 if loss is None else loss - given

    lossy = [p for p in points if excess(p) > UDP_LOSS_PCT]
    if not lossy:
        return None
    shown = sorted(shown_loss(p) or 0.0 for p in lossy)
    losses = [f"{loss:.1f}" for loss in shown]
    where = values_text(plan, [p.value for p in lossy])
    rate = plan.conditions.link_rate_bps
    under = f"under {rate_words(plan.conditions)}" if rate else "under the link's rate"
    if plan.variable is Variable.BITRATE:
        sent = "at these target bitrates"
    elif plan.bitrate_bps:
        sent = f"at the {plain_rate(plan.bitrate_bps)} it was sent at"
    else:
        sent = "sent without a bitrate limit"
    where = f"beyond the {where} emulated" if emulated else f"at {where}"
    if plan.is_monitor:
        where = "over the monitor"
    return (
        f"{series.label} lost more than {UDP_LOSS_PCT:g} % of its datagrams {where} "
        f"({_span(losses)} lost, {sent}): its throughput "
        "there is what the link let through while it discarded the rest, not the link's "
        f"capacity. Set a UDP bitrate {under} ({where_set('bitrate')}) to measure what the "
        "link carries."
    )


# -- how far the numbers can be trusted ---------------------------------------------------------


def above_model(plan: Plan, series: Series, points: Sequence[PointSummary]) -> str | None:
    """Points that measured more than the overhead model allows on the stated link, and the
    one furthest above it (the point the session's finding names)."""
    # Judged on the figure shown, as the session's finding is: never "up to 101.0 %" above 101.
    over = above_model_points(points)
    if not over:
        return None
    top = worst_point(over)
    where = "" if plan.is_monitor else " at " + values_text(plan, [p.value for p in over])
    at_top = "" if plan.is_monitor or len(over) == 1 else f", at {value_text(plan, top.value)}"
    return (
        f"{series.label} measured more than the model allows on {rate_words(plan.conditions)}"
        f"{where} (up to {top.efficiency_text} % of the expected goodput{at_top}): "
        f"{above_model_causes(plan)}."
    )


def _few(points: Sequence[PointSummary]) -> list[tuple[float | str, int]]:
    """(value, successful runs) of the points measured by fewer than MIN_RUNS (unmeasured
    ones aside: no standard deviation to doubt)."""
    return [(p.value, p.n) for p in points if 0 < p.n < MIN_RUNS]


def _settled(plan: Plan, point: PointSummary) -> bool:
    """The plan's early stop found the point precise enough: its other runs were skipped."""
    rule = plan.early_stop
    if rule is None:
        return False
    metric = "throughput_bps" if RunKind.STREAM in plan.kinds else "rtt_ms"
    summary = point.metrics.get(metric)
    return summary is not None and precise_enough(summary, rule.relative_ci, rule.min_runs)


def _short(plan: Plan, points: Sequence[PointSummary]) -> list[tuple[float | str, int]]:
    """(value, successful runs) of the points with fewer successful runs than the plan asked
    for, none at all included (failed or never measured), those early stop settled aside."""
    return [(p.value, p.n) for p in points if p.n < plan.repetitions and not _settled(plan, p)]


def few_runs(
    plan: Plan, series: Series | None, points: Sequence[PointSummary], *, running: bool = False
) -> str | None:
    """The points short of the runs the plan asked for (each with its count, none included),
    and the way to them: Resume, once the session no longer runs; then those measured by
    fewer than MIN_RUNS successful runs, whose spread means little, and where the plan asked
    for fewer, the field to ask for more. Series None: every series alike (points holds one
    series' points)."""
    short = [] if running else _short(plan, points)
    few = _few(points)
    if not short and not few:
        return None
    asked = plan.repetitions

    def where(found: Sequence[tuple[float | str, int]]) -> str:
        return ", ".join(f"{value_text(plan, value)} ({n} of {asked})" for value, n in found)

    who = f"{series.label} has" if series is not None else "Every series has"
    said = []
    if short:
        said.append(
            f"{who} fewer successful runs than the {counted(asked, 'run')} per point the plan "
            f"asked for at {where(short)}: the others failed or were not measured. Resume the "
            "session (Resume on the Sessions tab, or linklab resume) to measure them again."
        )
        who = "It has" if series is not None else "Every series has"
    if few:
        said.append(
            f"{who} fewer than {MIN_RUNS} successful runs at {where(few)}: with so few the "
            "standard deviation and the 95 % interval mean little (with one run, nothing)."
        )
        if asked < MIN_RUNS:
            said.append(f"Measure {MIN_RUNS} or more runs per point ({where_set('repetitions')}).")
    return " ".join(said)


def few_probes(plan: Plan, points: Sequence[PointSummary]) -> str | None:
    """Where working latency under load was measured by runs that leave its probes less
    than MIN_LOADED_S: they begin with the engine's first report (one report interval into
    the run, after any omitted seconds), so a 1-s run's loaded latency is a probe or two and
    its p90 no more than its median."""
    if plan.is_monitor or Metric.LATENCY not in plan.metrics:
        return None
    measured = {p.value for p in points if "latency_ms" in p.metrics}
    if not measured:
        return None
    start = plan.interval_s
    if plan.variable is Variable.DURATION:
        short = sorted((v for v in measured if float(v) - start < MIN_LOADED_S), key=float)
        if not short:
            return None
        lasted = f"runs of {values_text(plan, short)}"
    elif plan.duration_s - start < MIN_LOADED_S:
        lasted = f"{plan.duration_s}-s runs"
    else:
        return None
    least = math.ceil(start + MIN_LOADED_S)
    return (
        f"Working latency under load is probed from the engine's first report, {start:g} s "
        f"into each run, to its end: {lasted} leave its probes less than "
        f"{MIN_LOADED_S:g} s, so the loaded latency rests on few probes (its p90 near its "
        f"median). Measure for {least} s or more ({where_set('duration')})."
    )
