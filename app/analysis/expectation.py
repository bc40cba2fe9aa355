"""A session's expected goodput: the overhead model (app.analysis.overhead) fed with what its
plan states (link rate, medium, security, frame overhead) for each series and point, and one
frame's bytes by layer for the window's frame breakdown."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from app.analysis.overhead import WIFI, Expected, LinkInputs, OverheadError, expected
from app.analysis.wifi_overhead import CIPHER_PARTS
from app.domain.metrics import LINK_FIGURES
from app.domain.net import Direction, Protocol
from app.domain.plan import Conditions, Medium, Plan, Security, Series, Variable
from app.domain.plan_fields import point_text, where_set, x_of
from app.domain.units import format_rate, plain_rate

#: The largest link rate a plan may state: 10 Tbit/s.
MAX_LINK_RATE_BPS = 10**13
#: iperf3's TCP write when none is set (-l 128K); TCP's goodput does not depend on it.
DEFAULT_TCP_WRITE = 131_072
#: A rate to count bytes with when none is stated: only air time depends on it.
_NOMINAL_RATE_BPS = 1e9


class NoExpectation(ValueError):
    """The plan does not say enough for the model; the message is a sentence for the user."""


def expectation_problem(plan: Plan) -> str | None:
    """Why the session has no expected goodput, or None when it has one."""
    conditions = plan.conditions
    if conditions.link_rate_bps is None:
        return (
            "The session has no link rate: with one (the Link rate field, or linklab run "
            "--link-rate), LinkLab gives the goodput the link could deliver at best."
        )
    if plan.direction is Direction.BIDIR:
        return (
            "Both directions ran at once: the model gives the best goodput of one direction, "
            "so it is not set beside these results."
        )
    if plan.concurrent:
        return (
            "The series ran at the same time and shared the link: the model gives what one "
            "series could get alone, so it is not set beside these results."
        )
    missing = medium_problem(plan)
    return missing[1] if missing is not None else None


def rate_kind(conditions: Conditions) -> str:
    """Where the link rate came from, as a sentence says it after the rate: 'stated',
    "detected (wlan0's Wi-Fi PHY rate)"."""
    source = conditions.link_rate_detected_by
    return f"detected ({source})" if source else "stated"


def rate_words(conditions: Conditions) -> str:
    """The link rate a sentence is built on, with its kind: 'the 10 Gbit/s link rate
    stated', "the 866.7 Mbit/s link rate detected (wlan0's Wi-Fi PHY rate)"."""
    rate = plain_rate(conditions.link_rate_bps or 0)
    return f"the {rate} link rate {rate_kind(conditions)}"


def is_loopback_host(host: str) -> bool:
    """A host that names this computer's loopback: "localhost", 127.x, ::1 (brackets and a
    zone aside)."""
    text = host.strip("[]").lower()
    if text == "localhost":
        return True
    try:
        return ipaddress.ip_address(text.partition("%")[0]).is_loopback
    except ValueError:
        return False


def on_loopback(plan: Plan) -> bool:
    """The plan's traffic stays on this computer: "This computer", or a loopback address or
    name typed as the peer."""
    return plan.peer.is_this_computer or any(
        is_loopback_host(host) for host in (plan.peer.host, plan.peer.host6) if host
    )


def loopback_note(plan: Plan) -> str | None:
    """With a link rate stated for traffic that stays on this computer: why no share of the
    expected goodput is given (None otherwise)."""
    rate = plan.conditions.link_rate_bps
    if rate is None or not on_loopback(plan):
        return None
    kind = "is stated" if not plan.conditions.link_rate_detected_by else "was detected"
    return (
        f"A {plain_rate(rate)} link rate {kind}, but the traffic never crossed that link "
        f"(it stayed on this computer's loopback): the expected goodput is drawn as a "
        f"reference line only, and no share of it is given. Measure against a peer across "
        f"the link to set the results beside the link's."
    )


def medium_problem(plan: Plan) -> tuple[str, str] | None:
    """What the model needs to know of the link that the plan does not say: (the plan field
    to state it in, a sentence), or None."""
    conditions = plan.conditions
    if conditions.frame_overhead is not None:
        return None
    if conditions.medium not in (*WIFI, Medium.ETHERNET):
        return (
            "medium",
            "The expected goodput needs the medium: choose Ethernet, 802.11n, 802.11ac or "
            "802.11ax (or give the frame overhead), or leave the link rate empty.",
        )
    if conditions.medium in WIFI and conditions.security is Security.UNKNOWN:
        return (
            "security",
            "The expected goodput over Wi-Fi depends on the security: choose it (open, WEP, "
            "WPA, WPA2 or WPA3), or leave the link rate empty.",
        )
    return None


def link_inputs(plan: Plan, series: Series, value: float | str) -> LinkInputs:
    """The model's inputs for one point of a series; NoExpectation when the plan does not
    say the datagram length (UDP with the engine's own choice)."""
    conditions = plan.conditions
    swept = plan.variable is Variable.LENGTH and not isinstance(value, str)
    length = value if swept else plan.length
    if length is None:
        if series.protocol is Protocol.UDP:
            raise NoExpectation(
                "The UDP datagram length was the engine's choice: hold a packet size fixed "
                f"({where_set('length')}) to get the expected goodput."
            )
        length = DEFAULT_TCP_WRITE
    rate = conditions.link_rate_bps
    wifi = conditions.medium in WIFI and conditions.frame_overhead is None
    return LinkInputs(
        link_rate_bps=float(rate if rate is not None else _NOMINAL_RATE_BPS),
        medium=conditions.medium,
        ip_version=series.ip_version,
        protocol=series.protocol,
        length=int(length),
        # Security is Wi-Fi's: it adds nothing to an Ethernet or a shaped link.
        security=conditions.security if wifi else Security.OPEN,
        frame_overhead=conditions.frame_overhead,
    )


@lru_cache(maxsize=4096)
def _expected(spec: LinkInputs) -> Expected:
    return expected(spec)


def expected_at(plan: Plan, series: Series, value: float | str) -> Expected | None:
    """The model's answer for one point, or None when the session has none."""
    if expectation_problem(plan) is not None:
        return None
    if isinstance(value, str):  # a named setting: the packet size held fixed decides
        value = float(plan.length or 0)
    try:
        return _expected(link_inputs(plan, series, value))
    except (NoExpectation, OverheadError):
        return None


def expected_curve(
    plan: Plan, series: Series, values: Iterable[float | str]
) -> list[tuple[float, float]]:
    """(value, expected bit/s) across the sweep, where the session has an expected goodput."""
    curve = []
    for value in values:
        found = expected_at(plan, series, value)
        if found is not None:
            curve.append((x_of(plan, value), found.expected_bps))
    return curve


def share_pct(
    throughput_bps: float | None, expected_bps: float | None, applies: bool = True
) -> float | None:
    """A throughput as a share of the expected goodput, in per cent; None without either, or
    where the link rate does not apply (the traffic stayed on the loopback)."""
    if throughput_bps is None or not expected_bps or not applies:
        return None
    return 100.0 * throughput_bps / expected_bps


def link_figures(
    conditions: Conditions, expected_bps: float | None, share: float | None
) -> dict[str, object]:
    """A point's or a run's link figures by name (app.domain.metrics.LINK_FIGURES): the
    link rate and its kind, the frame overhead, the expected goodput and the share of it."""
    rate = conditions.link_rate_bps
    found: dict[str, object] = {
        "link_rate_bps": rate,
        "link_rate_source": rate_kind(conditions) if rate is not None else None,
        "frame_overhead_bytes": conditions.frame_overhead,
        "expected_bps": expected_bps,
        "efficiency_pct": share,
    }
    assert tuple(found) == tuple(f.name for f in LINK_FIGURES)
    return found


def value_text(plan: Plan, value: float | str) -> str:
    """A swept value as a sentence says it: '1408 B', '30 s', '100 Mbit/s', 'bbr'."""
    if plan.variable is Variable.BITRATE and not isinstance(value, str):
        return format_rate(value)
    return point_text(plan.variable, value)


def values_text(plan: Plan, values: Sequence[float | str]) -> str:
    """ "128 B", "128 B and 384 B", "128 B, 384 B and 640 B"."""
    words = [value_text(plan, v) for v in values]
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


# -- one frame, layer by layer --------------------------------------------------------------


class LayerKind(StrEnum):
    """What a layer's bytes are for: the colour families of the frame breakdown."""

    PAYLOAD = "payload"
    TRANSPORT = "transport"
    IP = "ip"
    LINK = "link"
    SECURITY = "security"
    AIR = "air"  # on the wire or in the air, but no part of the frame's bytes


_KINDS = {
    "TCP header": LayerKind.TRANSPORT,
    "TCP timestamps option": LayerKind.TRANSPORT,
    "UDP header": LayerKind.TRANSPORT,
    "IPv4 header": LayerKind.IP,
    "IPv6 header": LayerKind.IP,
    "IPv6 fragment header": LayerKind.IP,
    "preamble + SFD": LayerKind.AIR,
    "inter-frame gap": LayerKind.AIR,
    "AIFS + backoff": LayerKind.AIR,
    "PHY preamble": LayerKind.AIR,
    "PHY padding": LayerKind.AIR,
    "SIFS + ACK": LayerKind.AIR,
    "SIFS + block ack": LayerKind.AIR,
    "TCP ACKs (air time)": LayerKind.AIR,
    **{part: LayerKind.SECURITY for part in CIPHER_PARTS.values() if part != "security"},
}
#: The layers that follow the payload as the frame passes.
_TRAILING = (
    "Ethernet padding",
    "Ethernet FCS",
    "inter-frame gap",
    "802.11 FCS",
    "PHY padding",
    "SIFS + ACK",
    "SIFS + block ack",
    "TCP ACKs (air time)",
)
#: What only the link rate can say on Wi-Fi: air time, and the aggregation it allows.
_RATE_BOUND = frozenset(
    {name for name, kind in _KINDS.items() if kind is LayerKind.AIR}
    | {"A-MPDU delimiter + padding"}
)


@dataclass(frozen=True)
class Layer:
    name: str
    bytes: float  # Wi-Fi air time counted as the bytes the link rate carries in that time
    kind: LayerKind


@dataclass(frozen=True)
class Breakdown:
    """One TCP segment or UDP datagram on the link, layer by layer, and its arithmetic."""

    series: Series
    value: float
    unit: str  # "segment" or "datagram"
    frames: int
    layers: tuple[Layer, ...]  # in the order they pass, the payload among them
    payload_bytes: int
    expected: Expected | None  # None without a link rate
    arithmetic: str
    notes: tuple[str, ...]  # the model's reasoning, or what it needs to say more

    @property
    def total_bytes(self) -> float:
        return sum(layer.bytes for layer in self.layers)


def layer_kind(name: str) -> LayerKind:
    if name == "payload":
        return LayerKind.PAYLOAD
    return _KINDS.get(name, LayerKind.LINK)


def _ordered(result: Expected, keep: frozenset[str] | None = None) -> tuple[Layer, ...]:
    overhead = [(n, b) for n, b in result.overhead if keep is None or n not in keep]
    leading = [(n, b) for n, b in overhead if n not in _TRAILING]
    link = [(n, b) for n, b in leading if layer_kind(n) not in (LayerKind.IP, LayerKind.TRANSPORT)]
    packet = [(n, b) for n, b in leading if layer_kind(n) in (LayerKind.IP, LayerKind.TRANSPORT)]
    trailing = [(n, b) for n, b in overhead if n in _TRAILING]
    parts = [*link, *packet, ("payload", float(result.payload_bytes)), *trailing]
    return tuple(Layer(name, float(size), layer_kind(name)) for name, size in parts)


def _bytes(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def breakdown(plan: Plan, series: Series, value: float | str) -> Breakdown:
    """The bytes of one segment or datagram at this point, with the arithmetic in words;
    NoExpectation when the model cannot say (the medium or the datagram length unknown)."""
    conditions = plan.conditions
    rate = conditions.link_rate_bps
    bare = conditions.frame_overhead is None and conditions.medium not in (*WIFI, Medium.ETHERNET)
    spec = link_inputs(plan, series, value)
    point = float(spec.length) if isinstance(value, str) else value  # a name: at its length
    if bare:  # no medium stated: the IP packet alone
        spec = replace(spec, frame_overhead=0)
    elif conditions.medium in WIFI and conditions.frame_overhead is None:
        if conditions.security is Security.UNKNOWN:
            raise NoExpectation(
                "The session does not say which security the Wi-Fi link used: the bytes of "
                "every frame depend on it."
            )
    try:
        result = _expected(spec)
    except OverheadError as err:
        raise NoExpectation(str(err)) from None
    wifi = spec.medium in WIFI and spec.frame_overhead is None
    unit = result.unit
    frames = f" in {result.frames} frames" if result.frames > 1 else ""
    if rate is not None and not bare:
        layers = _ordered(result)
        total = sum(layer.bytes for layer in layers)
        where = "of frame and air time" if wifi else "on the wire"
        arithmetic = (
            f"{result.payload_bytes} B of payload in {_bytes(total)} B {where}{frames}: "
            f"{result.efficiency * 100:.2f} % → {plain_rate(rate)} × {result.efficiency:.4f} "
            f"= {format_rate(result.expected_bps, 4)}."
        )
        notes = _model_words(plan, series, result)
        for problem in (expectation_problem(plan), loopback_note(plan)):
            if problem is not None:
                notes = (*notes, problem)
        return Breakdown(
            series,
            point,
            unit,
            result.frames,
            layers,
            result.payload_bytes,
            result,
            arithmetic,
            notes,
        )
    layers = _ordered(result, _RATE_BOUND if wifi else None)
    total = sum(layer.bytes for layer in layers)
    share = result.payload_bytes / total
    where = "of frames" if wifi else "on the wire"
    arithmetic = (
        f"{result.payload_bytes} B of payload in {_bytes(total)} B {where}{frames}: "
        f"{share * 100:.2f} % of the link rate."
    )
    words: list[str] = []
    if bare:
        words.append(
            "The session does not say the medium: only the IP packet is shown, without the "
            "bytes of the link layer, and there is no expected goodput."
        )
    elif wifi:
        words.append(
            "The air time around each frame (waiting for the channel, the PHY preamble, the "
            "acknowledgements) depends on the link rate, so it is left out here."
        )
    if rate is None:
        words.append(
            "The session has no link rate: with one (the Link rate field, or linklab run "
            "--link-rate), this page also gives the expected goodput in Mbit/s."
        )
    return Breakdown(
        series,
        point,
        unit,
        result.frames,
        layers,
        result.payload_bytes,
        None,
        arithmetic,
        tuple(words),
    )


def _model_words(plan: Plan, series: Series, result: Expected) -> tuple[str, ...]:
    """The model's sentences, without a write length the session never set."""
    if series.protocol is not Protocol.TCP or plan.variable is Variable.LENGTH or plan.length:
        return result.explanation
    made_up = f"({DEFAULT_TCP_WRITE}-byte writes coalesce)"
    return tuple(s.replace(made_up, "(the writes coalesce)") for s in result.explanation)
