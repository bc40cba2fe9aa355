"""The CPU check of a session's runs: where this computer's or the peer's CPU was at or above
90 % of one core, whose load it was (an engine's own process, or the whole computer with
LinkLab's part and other programs'), its peak, and whether the rate still reached the
link's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.analysis.expectation import (
    expected_at,
    is_loopback_host,
    on_loopback,
    rate_words,
    share_pct,
    values_text,
)
from app.analysis.points import efficiency_text
from app.domain.plan import Plan, Series
from app.domain.records import RunRecord
from app.domain.units import percent_text
from app.engine.drivers.registry import DRIVERS

#: At or above this share of one core, the computer may have set the pace, not the link.
CPU_CORE_PCT = 90.0


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


def peer_is_local(plan: Plan, environment: Mapping[str, Any]) -> bool:
    """Whether the session's peer was this computer (its traffic on the loopback): as the
    plan says it (on_loopback), or as the snapshot's local address does: a loopback one, or
    the peer's own address (the system routes this computer's own addresses over loopback)."""
    if on_loopback(plan):
        return True
    local = environment.get("local_address")
    return (
        isinstance(local, str)
        and bool(local)
        and (is_loopback_host(local) or local == plan.peer.host)
    )


def cpu_busy(run: RunRecord, environment: Mapping[str, Any], peer_is_local: bool) -> bool:
    """Whether this computer's or the peer's CPU was at or above CPU_CORE_PCT of one core in
    the run (as the CPU warning counts it)."""
    return any(
        cores is not None and cores * 100 >= CPU_CORE_PCT
        for cores in run_cpu_cores(run, environment, peer_is_local)
    )


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
        bps = None if expected is None else expected.expected_bps
        share = share_pct(b.run.metrics.throughput_bps, bps)
        if share is None:
            reached = []
            break
        reached.append(share)
    if not reached:
        return (
            "Without an expected goodput (a link rate, the medium), it cannot be told whether "
            f"the link or the computer set the pace. {advice}"
        )
    # As the results table shows a share (one decimal), and judged on that figure.
    low, high = efficiency_text(min(reached)), efficiency_text(max(reached))
    span = low if low == high else f"{low}–{high}"
    allows = f"of the expected goodput on {rate_words(plan.conditions)}"
    it = "It" if len(busy) == 1 else "They"
    if float(low) >= REACHED_PCT:
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
    plan: Plan,
    series: Series,
    runs: Sequence[RunRecord],
    environment: Mapping[str, Any],
    local_peer: bool,
) -> str | None:
    """Runs of a series in which this computer's or the peer's CPU was at or above
    CPU_CORE_PCT of one core: whose CPU it was (the engine's own process, or the whole
    computer with LinkLab's part and other programs'), its peak, and whether the rate still
    reached the link's."""
    here = [r for r in runs if r.ok and r.key.series == series]
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
    at = "" if plan.is_monitor else f" (at {values_text(plan, values)})"
    return (
        f"In {len(busy)} of {len(here)} {runs_word} of {series.label}{at} the CPU was busy "
        f"at or above {CPU_CORE_PCT:g} % of one core: {'; '.join(sides)}. "
        f"{_pace(plan, series, busy, local_peer)}"
    )
