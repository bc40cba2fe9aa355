"""What a class measured together, in sentences and in the figures' one written form (the
Class tab, the command line and the reports all say it with these, so that a sentence and the
table beside it agree to the digit)."""

from __future__ import annotations

from app.analysis.fairness import least_index
from app.analysis.stats import Summary
from app.domain.together import StationStatus
from app.domain.units import counted, format_rate
from app.study.lab.together_results import SlotResult, StationSummary, TogetherResult
from app.study.lab.together_station import (
    CheckedIn,
    Scheduled,
    SlotBegins,
    StationEvent,
    StationWaits,
)

__all__ = [
    "bounds_text",
    "findings",
    "index_text",
    "interval_text",
    "mbit_text",
    "ms_text",
    "percent_text",
    "rate_text",
    "slot_status_text",
    "station_words",
]


def index_text(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def percent_text(fraction: float | None) -> str:
    return "—" if fraction is None else f"{fraction * 100:.1f} %"


def rate_text(bps: float | None) -> str:
    return format_rate(bps)


def ms_text(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.0f} ms"


def mbit_text(bps: float | None) -> str:
    """A throughput in a column of Mbit/s: two decimals."""
    return "—" if bps is None else f"{bps / 1e6:.2f}"


def bounds_text(summary: Summary, *, kind: str = "index") -> str:
    """ "0.995 to 1.000": the 95 % interval alone, for a table's column ("—" without one)."""
    write = {"index": index_text, "share": percent_text, "mbit": mbit_text}[kind]
    if summary.ci_low is None or summary.ci_high is None:
        return "—"
    high = min(summary.ci_high, 1.0) if kind in ("index", "share") else summary.ci_high
    return f"{write(max(summary.ci_low, 0.0))} to {write(high)}"


def interval_text(summary: Summary, *, kind: str = "index") -> str:
    """ "0.998 (95 % interval 0.995 to 1.000)", or the mean alone when there is no interval."""
    write = {"index": index_text, "share": percent_text, "rate": rate_text}[kind]
    if summary.mean is None:
        return "—"
    if summary.ci_low is None or summary.ci_high is None:
        return write(summary.mean)
    high = min(summary.ci_high, 1.0) if kind == "index" else summary.ci_high
    low = max(summary.ci_low, 0.0)
    return f"{write(summary.mean)} (95 % interval {write(low)} to {write(high)})"


def slot_status_text(slot: SlotResult, student: str) -> str:
    found = next((s for s in slot.stations if s.student == student), None)
    if found is None:
        return ""
    if found.status is StationStatus.OK:
        return rate_text(found.mean_bps)
    if found.status is StationStatus.RUNNING:
        return f"{rate_text(found.mean_bps)} so far"
    if found.status is StationStatus.WAITING:
        return "waiting"
    return f"left out: {found.reason}"


def _rounds(n: int) -> str:
    return "the one round together" if n == 1 else f"{counted(n, 'round')} together"


def _station_words(station: StationSummary) -> str:
    share = percent_text(station.share.mean)
    return f"{station.student}, {rate_text(station.throughput.mean)} ({share} of the total)"


def findings(result: TogetherResult) -> list[str]:
    """The results in sentences, each naming its figures as the tables write them."""
    together = result.together
    said: list[str] = []
    stations = len(together.stations)
    if result.state == "waiting":
        said.append(f"{counted(stations, 'station')} will start together ({together.plan.words}).")
    elif result.state == "running":
        said.append(f"The class is measuring together ({together.plan.words}).")
    settled = [r for r in result.rounds if r.settled and r.index is not None]
    if settled:
        said.append(
            f"Over {_rounds(len(settled))}, Jain's fairness index was "
            f"{interval_text(result.index)}: 1 is an even share, "
            f"{index_text(least_index(len(together.stations)))} one station of "
            f"{len(together.stations)} taking it all."
        )
        total = interval_text(result.total, kind="rate")
        said.append(f"Each round, the stations got {total} in all.")
    slowest, fastest = result.slowest(), result.fastest()
    if slowest is not None and fastest is not None and slowest is not fastest:
        said.append(f"Slowest: {_station_words(slowest)}; fastest: {_station_words(fastest)}.")
    if result.start_spread_s is not None:
        said.append(
            f"The stations' engines started within {ms_text(result.start_spread_s)} of each "
            f"other (on the collector's clock: each station's own clock corrected by the offset "
            f"it measured when it checked in)."
        )
    for station in result.stations:
        loss = station.contention_loss
        if loss is None:
            continue
        change = f"{percent_text(abs(loss))} {'less' if loss >= 0 else 'more'}"
        said.append(
            f"{station.student} got {rate_text(station.alone_bps)} alone and "
            f"{rate_text(station.throughput.mean)} together: {change} under contention."
        )
    for who, _status, why in together.left_out:
        said.append(f"{who} did not take part: {why}.")
    for station in result.stations:
        for label, _status, why in station.left_out:
            said.append(f"{station.student} is left out of {label}: {why}.")
    return said


def station_words(event: StationEvent) -> str:
    """What a station says of what it does (the command line's lines, the Exercise tab)."""
    if isinstance(event, CheckedIn):
        return f"Checked in with the class at {event.url}: {event.offset.words}."
    if isinstance(event, StationWaits):
        return event.sentence
    if isinstance(event, Scheduled):
        slots = len(event.slots)
        return (
            f"The class measures together: {event.plan.words}; this station has "
            f"{counted(slots, 'slot')} to measure."
        )
    if isinstance(event, SlotBegins):
        return f"{event.slot.label.capitalize()} starts in {max(event.in_s, 0):.1f} s."
    if event.status is StationStatus.OK:
        started = (
            f", its engine started {ms_text(event.start_error_s)} after the class's start"
            if event.start_error_s is not None
            else ""
        )
        return f"{event.slot.label}: {rate_text(event.mean_bps)}{started}."
    return f"{event.slot.label}: {event.status.value}: {event.reason.rstrip('.')}."
