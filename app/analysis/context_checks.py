"""Context checks: before any number of a session is read, the ways its numbers cannot mean
what its labels say. Each check is a sentence that says what to do; the window's session view,
`linklab sessions show` and the comparison banner show them."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.analysis.expectation import expected_at, rate_words, value_text
from app.analysis.expected_findings import OVER_PCT, above_model_causes
from app.analysis.overhead import WIFI
from app.analysis.points import PointSummary, point_summaries
from app.domain.net import Protocol
from app.domain.plan import Medium, Plan, Security, Series, Variable
from app.domain.plan_fields import where_set
from app.domain.records import RunRecord, SessionRecord
from app.domain.units import percent_text, plain_rate
from app.engine.drivers.registry import DRIVERS

#: Above this share of datagrams lost at a point, UDP's figure is the link's discard rate.
UDP_LOSS_PCT = 5.0
#: At or above this share of one core, the computer may have set the pace, not the link.
CPU_CORE_PCT = 90.0
#: Below this many successful runs at a point, its standard deviation means little.
MIN_RUNS = 3


class Check(StrEnum):
    """Which check found something (what callers and tests sort the sentences by)."""

    NOT_WIFI = "not-wifi"  # Wi-Fi stated, but the traffic never crossed a Wi-Fi link
    UDP_LOSS = "udp-loss"
    CPU_BOUND = "cpu-bound"
    ABOVE_MODEL = "above-model"
    FEW_RUNS = "few-runs"


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
        add(Check.CPU_BOUND, cpu_bound(plan, series, runs, session.environment), series)
        add(Check.ABOVE_MODEL, above_model(plan, series, here), series)
    # Said once when every series has the same few runs at the same points (a plan of one
    # or two repetitions), else series by series.
    alike = len({tuple(_few(here)) for here in by_series.values()}) == 1
    if plan.is_monitor:
        pass  # a monitor's runs are stretches of one flow over time, not repetitions
    elif alike and len(by_series) > 1:
        add(Check.FEW_RUNS, few_runs(plan, None, next(iter(by_series.values()))))
    else:
        for series, here in by_series.items():
            add(Check.FEW_RUNS, few_runs(plan, series, here), series)
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


def _loopback(plan: Plan, environment: Mapping[str, Any]) -> bool:
    if plan.peer.is_this_computer:
        return True
    local = environment.get("local_address")
    for host in (plan.peer.host, plan.peer.host6, local):
        if isinstance(host, str) and host:
            if host.strip("[]").lower() == "localhost":
                return True
            try:
                if ipaddress.ip_address(host.strip("[]").partition("%")[0]).is_loopback:
                    return True
            except ValueError:
                continue
    # The peer is one of this computer's own addresses: the system routes it over loopback.
    return isinstance(local, str) and bool(local) and local == plan.peer.host


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
    return _loopback(plan, environment)


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
    if _loopback(plan, environment):
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


def _values(plan: Plan, values: Sequence[float | str]) -> str:
    """ "128 B", "128 B and 384 B", "128 B, 384 B and 640 B"."""
    words = [value_text(plan, v) for v in values]
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


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
    where = _values(plan, [p.value for p in lossy])
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


def run_cpu_cores(
    run: RunRecord, environment: Mapping[str, Any], peer_is_local: bool
) -> tuple[float | None, float | None]:
    """(this computer, the peer) CPU of one run, in cores: 1.0 is one core fully busy.

    The engines count differently. iperf3's host_total and remote_total are its own
    process's CPU time over the run's wall time (getrusage), so 100 % is one core, and a
    busy single-threaded iperf3 tops out there however many cores the computer has.
    netperf's -c/-C figure, and LinkLab's own psutil sampling, are the whole system's share
    of all its CPUs (0-100 % regardless of their number): 50 % on two cores is one core's
    worth. Those are turned into cores with the CPU count the snapshot recorded; the peer's
    count is unknown unless the peer is this computer, so there one CPU is assumed, which
    never overstates the load."""
    metrics = run.metrics
    count = environment.get("cpu_count")
    local_cpus = count if isinstance(count, int) and not isinstance(count, bool) else 1
    local_cpus = max(local_cpus, 1)
    remote_cpus = local_cpus if peer_is_local else 1
    driver = next((d for d in DRIVERS.values() if d.name == run.engine), None)
    all_cpus = driver is not None and driver.cpu_of_all_cores
    local: float | None
    if metrics.cpu_local_pct is not None:
        local = metrics.cpu_local_pct / 100 * (local_cpus if all_cpus else 1)
    elif metrics.cpu_host_mean_pct is not None:
        local = metrics.cpu_host_mean_pct / 100 * local_cpus
    else:
        local = None
    remote = metrics.cpu_remote_pct
    return local, (None if remote is None else remote / 100 * (remote_cpus if all_cpus else 1))


def _core_pct(cores: float) -> str:
    return f"{percent_text(cores * 100)} %"


#: At or above this share of what the headers allow, the rate reached the link's.
REACHED_PCT = 90.0


@dataclass(frozen=True)
class _Busy:
    """A run whose CPU was busy: its figures in cores (None where not busy or not known)."""

    run: RunRecord
    local: float | None
    remote: float | None
    cpus: int

    @property
    def engine_own(self) -> bool:
        """This computer's figure is the engine's own process's (iperf3's), not the whole
        computer's (netperf's, or LinkLab's sampling)."""
        metrics = self.run.metrics
        driver = next((d for d in DRIVERS.values() if d.name == self.run.engine), None)
        all_cpus = driver is None or driver.cpu_of_all_cores
        return metrics.cpu_local_pct is not None and not all_cpus

    @property
    def sampled(self) -> bool:
        """This computer's figure is LinkLab's own sampling (psutil) of the whole computer."""
        return self.run.metrics.cpu_local_pct is None

    def cores(self, pct: float | None) -> float | None:
        """A share of all this computer's CPUs (psutil's) in cores."""
        return None if pct is None else pct / 100 * self.cpus

    @property
    def shares(self) -> tuple[float, float] | None:
        """(LinkLab and its engines, other programs) of the whole computer's mean, in cores,
        as LinkLab sampled them; None for a run stored before it kept them."""
        metrics = self.run.metrics
        total, own = self.cores(metrics.cpu_host_mean_pct), self.cores(metrics.cpu_linklab_mean_pct)
        if total is None or own is None:
            return None
        own = min(own, total)
        return own, total - own


def _local_side(busy: list[_Busy]) -> str | None:
    """Whose CPU this computer's busy figure is, with its peak and, sampled by LinkLab, how
    much of it was LinkLab's own processes and how much other programs'."""
    hot = [b for b in busy if b.local is not None]
    if not hot:
        return None
    top = max(hot, key=lambda b: b.local or 0.0)
    up_to = "up to " if len(hot) > 1 else ""
    if all(b.engine_own for b in hot):
        return (
            f"on this computer {top.run.engine} itself (LinkLab's engine) used {up_to}"
            f"{_core_pct(top.local or 0.0)} of one core"
        )
    every = f"{top.cpus} cores: {top.cpus * 100} % in all" if top.cpus > 1 else "1 core"
    said = (
        f"this computer's CPU ({every}) averaged {up_to}{_core_pct(top.local or 0.0)} of one core"
    )
    peaks = [b.cores(b.run.metrics.cpu_host_peak_pct) for b in hot]
    if all(b.sampled for b in hot) and all(p is not None for p in peaks):
        said += f" (peak {_core_pct(max(p or 0.0 for p in peaks))})"
    shares = top.shares
    if shares is None:
        return f"{said}; which programs used it, a run stored before LinkLab kept that cannot say"
    own, others = shares
    busiest = " in the busiest run" if len(hot) > 1 else ""
    source = (
        "" if top.sampled else f" (by LinkLab's own sampling, {_core_pct(own + others)} in all)"
    )
    return (
        f"{said}: other programs used {_core_pct(others)} of it and LinkLab with its engines "
        f"{_core_pct(own)}{busiest}{source}"
    )


def _remote_side(busy: list[_Busy]) -> str | None:
    hot = [b for b in busy if b.remote is not None]
    if not hot:
        return None
    top = max(hot, key=lambda b: b.remote or 0.0)
    up_to = "up to " if len(hot) > 1 else ""
    driver = next((d for d in DRIVERS.values() if d.name == top.run.engine), None)
    whose = (
        "the whole peer, by its own count"
        if driver is None or driver.cpu_of_all_cores
        else f"the {top.run.engine} server itself"
    )
    return f"on the peer {up_to}{_core_pct(top.remote or 0.0)} of one core ({whose})"


def _pace(plan: Plan, series: Series, busy: list[_Busy], loopback: bool) -> str:
    """Whether the runs' rate reached the link's (then the link set the pace, whoever's CPU
    was busy), or what to do before reading them as the link's."""
    these = "this monitor's figures" if plan.is_monitor else "these points"
    advice = (
        "Use larger packets or fewer parallel streams, close other programs, or measure "
        f"between faster computers before reading {these} as the link's."
    )
    shares = [b.shares for b in busy if b.local is not None]
    if shares and all(s is not None and s[1] > s[0] for s in shares):
        advice = (
            "Close the other programs that kept it busy, or measure when this computer is "
            f"idle, before reading {these} as the link's."
        )
    if loopback:
        return (
            f"The traffic stayed on this computer, so its CPU, not a link, set the pace. {advice}"
        )
    reached: list[float] = []
    for b in busy:
        expected = expected_at(plan, series, b.run.value)
        measured = b.run.metrics.throughput_bps
        if expected is None or not expected.expected_bps or measured is None:
            reached = []
            break
        reached.append(100.0 * measured / expected.expected_bps)
    if not reached:
        return (
            "Without an expected goodput (a link rate, the medium), it cannot be told whether "
            f"the link or the computer set the pace. {advice}"
        )
    low, high = percent_text(min(reached)), percent_text(max(reached))
    span = low if low == high else f"{low}–{high}"
    allows = f"of the expected goodput on {rate_words(plan.conditions)}"
    it = "It" if len(busy) == 1 else "They"
    if float(low) >= REACHED_PCT:  # judged on the figure shown
        return f"{it} still reached {span} % {allows}: the link, not the CPU, set the pace."
    if float(high) >= REACHED_PCT:
        return (
            f"{it} reached {span} % {allows}: where below {REACHED_PCT:g} %, the computer, not "
            f"the link, may have set the pace. {advice}"
        )
    return (
        f"{it} reached {span} % {allows}: the computer, not the link, may have set the pace. "
        f"{advice}"
    )


def cpu_bound(
    plan: Plan, series: Series, runs: Sequence[RunRecord], environment: Mapping[str, Any]
) -> str | None:
    """Runs of a series in which this computer's or the peer's CPU was at or above
    CPU_CORE_PCT of one core: whose CPU it was (the engine's own process, or the whole
    computer with LinkLab's part and other programs'), its peak, and whether the rate still
    reached the link's."""
    here = [r for r in runs if r.ok and r.key.series == series]
    local_peer = _loopback(plan, environment)
    count = environment.get("cpu_count")
    cpus = max(count if isinstance(count, int) and not isinstance(count, bool) else 1, 1)
    busy: list[_Busy] = []
    for run in here:
        local, remote = run_cpu_cores(run, environment, local_peer)
        hot_local = local if local is not None and local * 100 >= CPU_CORE_PCT else None
        hot_remote = remote if remote is not None and remote * 100 >= CPU_CORE_PCT else None
        if hot_local is not None or hot_remote is not None:
            busy.append(_Busy(run, hot_local, hot_remote, cpus))
    if not busy:
        return None
    values = sorted({b.run.value for b in busy})
    sides = [side for side in (_local_side(busy), _remote_side(busy)) if side]
    runs_word = "run" if len(here) == 1 else "runs"
    at = "" if plan.is_monitor else f" (at {_values(plan, values)})"
    return (
        f"In {len(busy)} of {len(here)} {runs_word} of {series.label}{at} the CPU was busy "
        f"at or above {CPU_CORE_PCT:g} % of one core: {'; '.join(sides)}. "
        f"{_pace(plan, series, busy, local_peer)}"
    )


# -- how far the numbers can be trusted ---------------------------------------------------------


def above_model(plan: Plan, series: Series, points: Sequence[PointSummary]) -> str | None:
    """Points that measured more than the overhead model allows on the stated link."""
    # Judged on the figure shown, as the session's finding is: never "up to 101 %" above 101.
    over = [
        p
        for p in points
        if p.efficiency_pct is not None and float(percent_text(p.efficiency_pct)) > OVER_PCT
    ]
    if not over:
        return None
    top = max(p.efficiency_pct or 0.0 for p in over)
    return (
        f"{series.label} measured more than the model allows on {rate_words(plan.conditions)}"
        f"{'' if plan.is_monitor else ' at ' + _values(plan, [p.value for p in over])} "
        f"(up to {percent_text(top)} % of the expected "
        f"goodput): {above_model_causes(plan)}."
    )


def _few(points: Sequence[PointSummary]) -> list[tuple[float | str, int]]:
    """(value, successful runs) of the points measured by fewer than MIN_RUNS (unmeasured
    ones aside)."""
    return [(p.value, p.n) for p in points if 0 < p.n < MIN_RUNS]


def few_runs(plan: Plan, series: Series | None, points: Sequence[PointSummary]) -> str | None:
    """Points measured by fewer than MIN_RUNS successful runs; series None: every series
    alike (points holds one series' points)."""
    few = _few(points)
    if not few:
        return None
    where = ", ".join(f"{value_text(plan, value)} ({n})" for value, n in few)
    who = f"{series.label} has" if series is not None else "Every series has"
    return (
        f"{who} fewer than {MIN_RUNS} successful runs at {where}: with so few the standard "
        "deviation and the 95 % interval mean little (with one run, nothing). Measure "
        f"{MIN_RUNS} or more runs per point ({where_set('repetitions')})."
    )
