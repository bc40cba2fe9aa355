"""The study plan: what to measure, against which peer, under which stated conditions.

Pure data and its structure (series, runs in order); whether a plan can run is for
app.study.sweep.plan_checks to say, with the engines' limits."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

from app.domain.net import Direction, IpVersion, Protocol

#: 2: a peer's ports are a mapping by engine ("ports"); format 1's iperf3_port and
#: netperf_port are read into it.
PLAN_FORMAT = 2
#: Format 1's port fields of a peer, and the engine port keys they became.
OLD_PORT_FIELDS = {"iperf3_port": "iperf3", "netperf_port": "netperf"}
#: A peer's two ports as the window's settings once kept them, a list in this order, and the
#: engine port keys they became.
OLD_PORT_ORDER = ("iperf3", "netperf")
#: The metadata of a plan attribute that LinkLabs from before it do not know: the plan's JSON
#: leaves it out at its default, so that a plan that asks nothing of it reads in those too.
LATER: Mapping[str, bool] = {"left_out_at_default": True}


class Engine(StrEnum):
    IPERF3 = "iperf3"
    NETPERF = "netperf"
    IPERF2 = "iperf2"


#: The engine of a plan, a monitor and `linklab measure` unless told otherwise.
DEFAULT_ENGINE = Engine.IPERF3


class Variable(StrEnum):
    """What changes from point to point of a sweep."""

    LENGTH = "length"  # packet / message size, bytes
    DURATION = "duration"  # seconds per run
    WINDOW = "window"  # TCP window (socket buffer), bytes
    PARALLEL = "parallel"  # parallel streams
    BITRATE = "bitrate"  # UDP target bitrate, bit/s
    LOSS = "loss"  # emulated packet loss, % (nftables on this computer)
    CONGESTION = "congestion"  # TCP congestion control, by name (cubic, bbr, reno)
    DSCP = "dscp"  # the traffic's DSCP mark, by access category or class (BK, VO, AF41)
    # Nothing swept: one flow measured over time until the user stops it (a monitor). Its
    # plan has the one value 0; its runs are the engine runs chained back to back, numbered
    # as repetitions.
    NONE = "none"


#: What a sweep can vary (a monitor varies nothing).
SWEEPS = tuple(v for v in Variable if v is not Variable.NONE)


#: One swept value: a number, or a name for a variable whose values are names (a congestion
#: control). Plans hold whole numbers or names; points and runs hold them as floats or names.
PointValue = float | str


def as_point(value: float | str) -> PointValue:
    """A plan's value as a point holds it: a float, or the name as it is."""
    return value if isinstance(value, str) else float(value)


class Order(StrEnum):
    SEQUENTIAL = "sequential"  # series by series, point by point, all repetitions together
    SHUFFLED = "shuffled"  # every run in a random (seeded, recorded) order
    INTERLEAVED = "interleaved"  # series alternate run by run: drift hits every series alike


class Metric(StrEnum):
    THROUGHPUT = "throughput"
    RTT = "rtt"
    CPU = "cpu"
    # Working latency: probes on a flow of their own before each run (idle) and during it
    # (loaded), to LinkLab's echo on the peer, or by a fallback where it has none.
    LATENCY = "latency"


class RunKind(StrEnum):
    """Which engine test a run is: a bulk transfer (throughput) or request/response (RTT)."""

    STREAM = "stream"
    RR = "rr"


class Security(StrEnum):
    OPEN = "open"
    WEP = "WEP"
    WPA = "WPA"
    WPA2 = "WPA2"
    WPA3 = "WPA3"
    UNKNOWN = "unknown"


class Medium(StrEnum):
    N = "802.11n"
    AC = "802.11ac"
    AX = "802.11ax"
    ETHERNET = "Ethernet"
    OTHER = "other"
    UNKNOWN = "unknown"


#: Conditions that a plan's JSON carries only when they are stated (or, for where a medium
#: or a rate came from, detected).
LINK_FIELDS = ("link_rate_bps", "frame_overhead", "medium_detected_by", "link_rate_detected_by")

#: The peer that is this computer: LinkLab's own servers on the loopback.
THIS_COMPUTER = "This computer"
#: LinkLab's latency responder's UDP port (`linklab serve --echo-port`). Outside the block of
#: iperf3 servers `linklab serve --count` opens from 5201 (up to 5216): an iperf3 UDP test
#: binds its server's port for UDP too, and would collide with the responder.
DEFAULT_ECHO_PORT = 5200
#: Seconds of idle latency probes before each run of a plan that measures working latency.
LATENCY_IDLE_S = 2.0


class Ports(dict[str, int]):
    """A peer's server ports by engine ({"iperf3": 5201, "netperf": 12865}): read-only and
    hashable, as a frozen Peer needs. An engine without an entry uses its default port."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def __reduce__(self) -> tuple[type[Ports], tuple[dict[str, int]]]:
        return Ports, (dict(self),)

    def _read_only(self, *_args: object, **_kwargs: object) -> None:
        raise TypeError("a peer's ports are read-only: use Peer.with_port")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _read_only  # type: ignore[assignment]


@dataclass(frozen=True)
class Peer:
    host: str
    #: The port of each engine's server on the peer, by the engine's port key.
    ports: Mapping[str, int] = field(default_factory=Ports)
    name: str = ""
    host6: str = ""  # the IPv6 address, when host is an IPv4 address and IPv6 is measured too
    echo_port: int = DEFAULT_ECHO_PORT  # LinkLab's latency responder (UDP) on the peer

    def __post_init__(self) -> None:
        if not isinstance(self.ports, Ports):
            object.__setattr__(self, "ports", Ports(self.ports))

    @classmethod
    def this_computer(
        cls, ports: Mapping[str, int] | None = None, echo_port: int = DEFAULT_ECHO_PORT
    ) -> Peer:
        return cls("127.0.0.1", ports or {}, THIS_COMPUTER, host6="::1", echo_port=echo_port)

    @property
    def is_this_computer(self) -> bool:
        return self.name == THIS_COMPUTER

    def port(self, key: str, default: int) -> int:
        """The port of one engine's server (its driver gives the key and the default)."""
        return self.ports.get(key, default)

    def with_port(self, key: str, port: int) -> Peer:
        return replace(self, ports={**self.ports, key: port})

    def host_for(self, ip_version: IpVersion) -> str:
        if ip_version is IpVersion.V6 and self.host6:
            return self.host6
        return self.host


@dataclass(frozen=True)
class Conditions:
    """What the user states about the link; detection may pre-fill, the user's word wins."""

    security: Security = Security.UNKNOWN
    medium: Medium = Medium.UNKNOWN
    tags: tuple[tuple[str, str], ...] = ()
    notes: str = ""
    security_detected: bool = False  # True while the value is the detected one, unconfirmed
    # The link's rate (Ethernet: the line rate; Wi-Fi: the PHY rate) and, for a shaped link,
    # the bytes its shaper counts per frame: what the expected goodput is worked out from.
    link_rate_bps: int | None = None
    frame_overhead: int | None = None
    # Where the medium and the link rate came from when the system said them, not the user:
    # what said it ("wlan0's Wi-Fi PHY rate"); "" when the user stated it (or it is unknown).
    medium_detected_by: str = ""
    link_rate_detected_by: str = ""

    def with_tags(self, tags: dict[str, str]) -> Conditions:
        return replace(self, tags=tuple(sorted(tags.items())))

    @property
    def tag_dict(self) -> dict[str, str]:
        return dict(self.tags)


@dataclass(frozen=True)
class Assignment:
    """Who measured a session, for which step of which exercise."""

    exercise_id: str
    exercise_title: str
    step: int  # 1-based
    student: str
    group: str = ""


def assignment_from_dict(value: object) -> Assignment | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValueError("assignment must be an object")
    step = value.get("step")
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= 20:
        raise ValueError("assignment step must be a whole number from 1")
    student = clean_text(value.get("student"), 200)
    if not student:
        raise ValueError("assignment names no student")
    return Assignment(
        clean_text(value.get("exercise_id"), 64),
        clean_text(value.get("exercise_title"), 200),
        step,
        student,
        clean_text(value.get("group", ""), 200),
    )


def clean_text(value: object, cap: int) -> str:
    """Text as typed, without control characters (a name may reach a file name or a report)."""
    if value is None:
        return ""
    text = str(value)
    return "".join(c for c in text if c in "\n\t" or c.isprintable()).strip()[:cap]


@dataclass(frozen=True)
class EarlyStop:
    """Stop repeating a point once the 95 % CI half-width is below this fraction of the mean."""

    relative_ci: float = 0.05
    min_runs: int = 5


@dataclass(frozen=True)
class Series:
    protocol: Protocol
    ip_version: IpVersion

    @property
    def label(self) -> str:
        return f"{self.protocol.value.upper()} · IPv{int(self.ip_version)}"


@dataclass(frozen=True, order=True)
class RunKey:
    """One run of the plan: a series, a point (by index), a repetition and a test kind."""

    protocol: Protocol
    ip_version: IpVersion
    value_index: int
    repetition: int  # 1-based
    kind: RunKind = RunKind.STREAM

    @property
    def series(self) -> Series:
        return Series(self.protocol, self.ip_version)


@dataclass(frozen=True)
class Plan:
    peer: Peer
    engine: Engine = DEFAULT_ENGINE
    protocols: tuple[Protocol, ...] = (Protocol.TCP,)
    ip_versions: tuple[IpVersion, ...] = (IpVersion.V4,)
    direction: Direction = Direction.UP
    variable: Variable = Variable.LENGTH
    values: tuple[int | str, ...] = (128, 384, 640, 896, 1152, 1408)
    repetitions: int = 3
    duration_s: int = 10
    omit_s: int = 0
    pause_s: float = 0.0
    order: Order = Order.SEQUENTIAL
    metrics: tuple[Metric, ...] = (Metric.THROUGHPUT,)
    # Settings held fixed while another variable is swept (None: the engine's default).
    length: int | None = None
    window: int | None = None
    parallel: int = 1
    bitrate_bps: int = 0  # UDP target; 0 = unlimited, as throughput studies want
    congestion: str | None = None  # TCP congestion control by name; None: the system's
    # The DSCP mark ("VO", "AF41", "46"); None: unmarked.
    dscp: str | None = field(default=None, metadata=LATER)
    interval_s: float = 1.0
    early_stop: EarlyStop | None = None
    max_consecutive_failures: int = 5
    # Run the series at the same time (one iperf3 server per series on the peer, on
    # consecutive ports): how the link is shared between, say, TCP and UDP.
    concurrent: bool = False
    # The user states the two computers' clocks are synchronised (PTP, NTP): one-way delay
    # (iperf 2 --trip-times) is measured only then, as it reads one clock against the other.
    clocks_synchronised: bool = False
    seed: int = 0  # for the shuffled order; recorded so the order can be reproduced
    name: str = ""
    conditions: Conditions = field(default_factory=Conditions)
    # Who measured it for which step of which lab exercise (None: no exercise).
    assignment: Assignment | None = field(default=None, metadata=LATER)

    # -- structure -----------------------------------------------------------------------------
    @property
    def is_monitor(self) -> bool:
        """One flow over time until stopped, not a sweep (app.study.sweep.monitor)."""
        return self.variable is Variable.NONE

    @property
    def series(self) -> list[Series]:
        return [Series(p, ip) for p in self.protocols for ip in self.ip_versions]

    @property
    def kinds(self) -> list[RunKind]:
        kinds = []
        # Working latency is measured under the load of the stream runs.
        if {Metric.THROUGHPUT, Metric.CPU, Metric.LATENCY} & set(self.metrics):
            kinds.append(RunKind.STREAM)
        if Metric.RTT in self.metrics:
            kinds.append(RunKind.RR)
        return kinds

    def run_keys(self) -> list[RunKey]:
        """Every run of the plan, in the order it will be executed."""
        reps = range(1, self.repetitions + 1)
        points = range(len(self.values))
        if self.order is Order.INTERLEAVED:
            keys = [
                RunKey(s.protocol, s.ip_version, i, r, k)
                for i in points
                for r in reps
                for s in self.series
                for k in self.kinds
            ]
        else:
            keys = [
                RunKey(s.protocol, s.ip_version, i, r, k)
                for s in self.series
                for i in points
                for r in reps
                for k in self.kinds
            ]
        if self.order is Order.SHUFFLED:
            random.Random(self.seed).shuffle(keys)  # noqa: S311 - run order, not security
        return keys

    @property
    def total_runs(self) -> int:
        return len(self.series) * len(self.values) * self.repetitions * len(self.kinds)

    def estimated_seconds(self, overhead_s: float = 1.0) -> float:
        """Wall time the plan should take: run time plus warm-up, pause and per-run overhead."""
        per_point = []
        for value in self.values:
            duration = (
                float(value)
                if self.variable is Variable.DURATION and not isinstance(value, str)
                else self.duration_s
            )
            per_point.append(duration + self.omit_s + self.pause_s + overhead_s)
        total = sum(per_point) * len(self.series) * self.repetitions * len(self.kinds)
        if Metric.LATENCY in self.metrics:  # the idle probes before each stream run
            total += LATENCY_IDLE_S * len(self.series) * len(self.values) * self.repetitions
        return total

    def concurrent_groups(self) -> list[list[RunKey]]:
        """The runs that go together: every series of one point and repetition at once
        (concurrent plans), else each run alone."""
        keys = self.run_keys()
        if not self.concurrent:
            return [[k] for k in keys]
        groups: dict[tuple[int, int, RunKind], list[RunKey]] = {}
        for key in keys:
            groups.setdefault((key.value_index, key.repetition, key.kind), []).append(key)
        return list(groups.values())

    # -- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["format"] = PLAN_FORMAT
        data["conditions"]["tags"] = dict(self.conditions.tags)
        for attribute in fields(self):
            later = attribute.metadata.get("left_out_at_default", False)
            if later and getattr(self, attribute.name) == attribute.default:
                del data[attribute.name]  # plans that ask nothing of it keep their old shape
        for key in LINK_FIELDS:
            if data["conditions"][key] in (None, ""):
                del data["conditions"][key]  # without them, a plan reads in earlier LinkLabs
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)
