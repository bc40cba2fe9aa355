"""Findings beside the expected goodput: how close each series of a session came to what the
headers allow, and where the rest went. (Between sessions, what the extra bytes of a security
setting explain is said with the comparison's findings, in app.analysis.findings.)"""

from __future__ import annotations

from collections.abc import Sequence

from app.analysis.expectation import (
    expectation_problem,
    loopback_note,
    rate_words,
    value_text,
)
from app.analysis.overhead import WIFI
from app.analysis.points import PointSummary, efficiency_text
from app.domain.net import Protocol
from app.domain.plan import Plan, Variable
from app.domain.plan_fields import where_set
from app.domain.units import format_rate

#: Above this share of the expected goodput, a measurement is more than the link allows.
OVER_PCT = 101.0
_FULL = 99.0
#: Below this share of what the headers allow at the largest point, the link rate is probably
#: not the path's: hosts that lose three quarters of a link's goodput at its largest packets
#: are rare, a slower hop or a shaper on the way is not (a 10 Gbit/s adapter on a 100 Mbit/s
#: switch port, a rate limit at the router).
SMALL_SHARE_PCT = 25.0
#: At or above this share of the target bitrate, the sender's target set the pace.
AT_TARGET = 0.9
#: The bytes Linux tc (tbf, htb, netem's rate) counts per frame: the Ethernet header alone,
#: where a real Ethernet link also carries preamble, FCS and the gap between frames (38 B).
TC_FRAME_OVERHEAD = 14
ETHERNET_FRAME_OVERHEAD = 38


def above_model_causes(plan: Plan) -> str:
    """What makes a measurement exceed the model on the link the plan states, most likely
    first, each with what to do; never that the link is simply faster than stated."""
    conditions = plan.conditions
    if plan.peer.is_this_computer:
        return (
            "the traffic never crossed that link (it stayed on this computer's loopback), so "
            "the rate is only a reference line: measure against a peer across the link"
        )
    causes = []
    overhead = conditions.frame_overhead
    tc_flag = f"--frame-overhead {TC_FRAME_OVERHEAD}"
    if overhead is None and conditions.medium not in WIFI:
        causes.append(
            f"a shaper sets the rate and counts fewer bytes per frame than Ethernet's "
            f"{ETHERNET_FRAME_OVERHEAD} (Linux tc counts {TC_FRAME_OVERHEAD}): state its "
            f"frame overhead ({where_set('frame_overhead', tc_flag)})"
        )
    elif overhead is None:
        causes.append(
            f"a shaper, not the Wi-Fi link, sets the rate: state its frame overhead (Linux "
            f"tc counts {TC_FRAME_OVERHEAD} B; {where_set('frame_overhead', '--frame-overhead')})"
        )
    elif overhead > TC_FRAME_OVERHEAD:
        causes.append(
            f"the shaper counts fewer than the {overhead} B per frame stated (Linux tc "
            f"counts {TC_FRAME_OVERHEAD}): correct {where_set('frame_overhead')}"
        )
    causes.append(
        f"or {rate_words(conditions)} is below the rate the link really runs at: "
        f"check it and correct {where_set('link_rate')}"
    )
    if len(causes) == 1:
        return causes[0].removeprefix("or ")
    return "; ".join(causes)


def _rest(plan: Plan, protocol: Protocol) -> str:
    """Where the goodput the headers leave went, on this kind of link."""
    conditions = plan.conditions
    if conditions.frame_overhead is not None:
        return "the shaper's timing, the hosts' CPU or loss"
    if conditions.medium in WIFI:
        return (
            "air time the best-case model leaves out: other stations, collisions and retries, "
            "a PHY rate below the one stated"
        )
    if protocol is Protocol.TCP:
        return "on the hosts, not the wire: pacing, CPU, the TCP window or loss"
    return "on the hosts, not the wire: the sender's pacing, CPU or loss"


def target_bps(plan: Plan, point: PointSummary) -> float | None:
    """The rate the sender was asked for at a point (UDP's target bitrate), or None: sent as
    fast as it could."""
    return offered_bps(plan, point.series.protocol, point.value)


def offered_bps(plan: Plan, protocol: Protocol, value: float | str) -> float | None:
    """The rate a series of the plan was asked to send at one of its values (UDP's target
    bitrate: the plan's, or the value itself when the bitrate is swept), or None: sent as fast
    as it could."""
    if protocol is not Protocol.UDP:
        return None
    if plan.variable is Variable.BITRATE and not isinstance(value, str):
        return float(value) or None
    return float(plan.bitrate_bps) if plan.bitrate_bps else None


def shown_share(point: PointSummary) -> float | None:
    """A point's share of the expected goodput as the table shows it, or None: what every
    sentence judges, so that "more than" never sits beside a figure that is not."""
    shown = point.efficiency_text
    return None if shown is None else float(shown)


def above_model_points(points: Sequence[PointSummary]) -> list[PointSummary]:
    """The points whose share, as shown, is more than the model allows, in their order."""
    return [p for p in points if (shown_share(p) or 0.0) > OVER_PCT]


def worst_point(points: Sequence[PointSummary]) -> PointSummary:
    """Of points with a share, the one with the largest (the first of equals): the point a
    sentence about going above the model names, finding and warning alike."""
    return max(points, key=lambda p: p.efficiency_pct or 0.0)


def efficiency_findings(plan: Plan, points: Sequence[PointSummary]) -> list[str]:
    """Per series, at its largest measured point: the share of the expected goodput reached
    on the link rate stated or detected (said which), and where the rest went; where some
    point measured more than the model allows, at the point furthest above it (the one the
    warning's "up to" names). Empty when the session has no expected goodput."""
    if expectation_problem(plan) is not None:
        return []
    note = loopback_note(plan)
    if note is not None:
        return [note]
    allows = "the headers and air time allow" if _wifi(plan) else "the headers allow"
    on = f" on {rate_words(plan.conditions)}"
    sentences = []
    for series in plan.series:
        here = [
            p
            for p in points
            if p.series == series and p.efficiency_pct is not None and p.expected_bps
        ]
        if not here:
            continue
        over = above_model_points(here)
        point = worst_point(over) if over else max(here, key=lambda p: p.value)
        expected = point.expected_bps or 0.0
        measured = point.metrics["throughput_bps"].mean or 0.0
        target = target_bps(plan, point)
        # A monitor has one point, its whole span: no "at 0" to say.
        where = "" if plan.is_monitor else f" at {value_text(plan, point.value)}"
        numbers = f"expected {format_rate(expected)}, measured {format_rate(measured)}"
        label, shown = series.label, efficiency_text(point.efficiency_pct or 0.0)
        pct = float(shown)  # judged on the figure shown: never "99.0 %" beside "the rest is"
        if pct > OVER_PCT:
            sentences.append(
                f"{label} measured more than {allows}{where}{on} ({numbers}, {shown} %): "
                f"{above_model_causes(plan)}."
            )
        elif pct >= _FULL:
            sentences.append(
                f"{label} reached {shown} % of what {allows}{where}{on} ({numbers}): the "
                "link is full."
            )
        elif target is not None and target < expected and measured >= AT_TARGET * target:
            sentences.append(
                f"{label} reached {shown} % of what {allows}{where}{on} ({numbers}): it was "
                f"sent at {format_rate(target)} ({where_set('bitrate')}), so the sender's "
                "target, not the link, set the pace."
            )
        elif pct < SMALL_SHARE_PCT:
            sentences.append(
                f"{label} reached only {shown} % of what {allows}{where}{on} ({numbers}): so "
                f"far below it, {rate_words(plan.conditions)} is probably not the path's "
                "bottleneck: a slower hop or a shaper on the way set the pace. State the "
                f"slowest hop's rate ({where_set('link_rate', '--link-rate')}) to set the "
                "results beside it."
            )
        else:
            sentences.append(
                f"{label} reached {shown} % of what {allows}{where}{on} ({numbers}); the "
                f"rest is {_rest(plan, series.protocol)}."
            )
    return sentences


def _wifi(plan: Plan) -> bool:
    return plan.conditions.medium in WIFI and plan.conditions.frame_overhead is None
