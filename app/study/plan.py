"""The study plan: what to measure, against which peer, under which stated conditions."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

from app.engine.errors import BadOption
from app.engine.validate import check_port, is_ipv4_literal, is_ipv6_literal, validate_host
from app.models import Direction, IpVersion, NetperfTest, Protocol

PLAN_FORMAT = 1


class Engine(StrEnum):
    IPERF3 = "iperf3"
    NETPERF = "netperf"


class Variable(StrEnum):
    """What changes from point to point of a sweep."""

    LENGTH = "length"  # packet / message size, bytes
    DURATION = "duration"  # seconds per run
    WINDOW = "window"  # TCP window (socket buffer), bytes
    PARALLEL = "parallel"  # parallel streams
    BITRATE = "bitrate"  # UDP target bitrate, bit/s
    LOSS = "loss"  # emulated packet loss, % (nftables on this computer)


VARIABLE_LABELS = {
    Variable.LENGTH: ("Packet size", "B"),
    Variable.DURATION: ("Run duration", "s"),
    Variable.WINDOW: ("TCP window", "B"),
    Variable.PARALLEL: ("Parallel streams", ""),
    Variable.BITRATE: ("Target bitrate", "bit/s"),
    Variable.LOSS: ("Emulated loss", "%"),
}


class Order(StrEnum):
    SEQUENTIAL = "sequential"  # series by series, point by point, all repetitions together
    SHUFFLED = "shuffled"  # every run in a random (seeded, recorded) order
    INTERLEAVED = "interleaved"  # series alternate run by run: drift hits every series alike


class Metric(StrEnum):
    THROUGHPUT = "throughput"
    RTT = "rtt"
    CPU = "cpu"


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


#: The peer that is this computer: LinkLab's own servers on the loopback.
THIS_COMPUTER = "This computer"


@dataclass(frozen=True)
class Peer:
    host: str
    iperf3_port: int = 5201
    netperf_port: int = 12865
    name: str = ""
    host6: str = ""  # the IPv6 address, when host is an IPv4 address and IPv6 is measured too

    @classmethod
    def this_computer(cls, iperf3_port: int = 5201, netperf_port: int = 12865) -> Peer:
        return cls("127.0.0.1", iperf3_port, netperf_port, THIS_COMPUTER, host6="::1")

    @property
    def is_this_computer(self) -> bool:
        return self.name == THIS_COMPUTER

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

    def with_tags(self, tags: dict[str, str]) -> Conditions:
        return replace(self, tags=tuple(sorted(tags.items())))

    @property
    def tag_dict(self) -> dict[str, str]:
        return dict(self.tags)


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
    engine: Engine = Engine.IPERF3
    protocols: tuple[Protocol, ...] = (Protocol.TCP,)
    ip_versions: tuple[IpVersion, ...] = (IpVersion.V4,)
    direction: Direction = Direction.UP
    variable: Variable = Variable.LENGTH
    values: tuple[int, ...] = (128, 384, 640, 896, 1152, 1408)
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
    interval_s: float = 1.0
    early_stop: EarlyStop | None = None
    max_consecutive_failures: int = 5
    # Run the series at the same time (one iperf3 server per series on the peer, on
    # consecutive ports): how the link is shared between, say, TCP and UDP.
    concurrent: bool = False
    seed: int = 0  # for the shuffled order; recorded so the order can be reproduced
    name: str = ""
    conditions: Conditions = field(default_factory=Conditions)

    # -- structure -----------------------------------------------------------------------------
    @property
    def series(self) -> list[Series]:
        return [Series(p, ip) for p in self.protocols for ip in self.ip_versions]

    @property
    def kinds(self) -> list[RunKind]:
        kinds = []
        if Metric.THROUGHPUT in self.metrics or Metric.CPU in self.metrics:
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
            duration = value if self.variable is Variable.DURATION else self.duration_s
            per_point.append(duration + self.omit_s + self.pause_s + overhead_s)
        return sum(per_point) * len(self.series) * self.repetitions * len(self.kinds)

    def iperf3_port(self, key: RunKey) -> int:
        """Concurrent series each talk to their own server: port, port + 1, ..."""
        if not self.concurrent:
            return self.peer.iperf3_port
        return self.peer.iperf3_port + self.series.index(key.series)

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

    def setting(self, key: RunKey) -> dict[str, int | None]:
        """The engine settings of one run: the fixed ones with the swept variable applied."""
        value = self.values[key.value_index]
        settings: dict[str, int | None] = {
            "length": self.length,
            "window": self.window,
            "parallel": self.parallel,
            "bitrate": self.bitrate_bps if key.protocol is Protocol.UDP else None,
            "duration": self.duration_s,
        }
        if self.variable is not Variable.LOSS:  # loss is set on this computer, not the engine
            settings[self.variable.value] = value
        return settings

    def netperf_test(self, key: RunKey) -> NetperfTest:
        if key.kind is RunKind.RR:
            return NetperfTest.UDP_RR if key.protocol is Protocol.UDP else NetperfTest.TCP_RR
        return NetperfTest.UDP_STREAM if key.protocol is Protocol.UDP else NetperfTest.TCP_STREAM

    # -- validation ----------------------------------------------------------------------------
    def problems(self) -> list[tuple[str, str]]:
        """(field, sentence) for everything wrong with the plan; empty when it can run."""
        found: list[tuple[str, str]] = []

        def check(ok: bool, where: str, sentence: str) -> None:
            if not ok:
                found.append((where, sentence))

        try:
            validate_host(self.peer.host, "peer")
            if self.peer.host6:
                validate_host(self.peer.host6, "peer's IPv6 address")
        except BadOption as err:
            found.append(("peer", err.sentence))
        if self.peer.host6 and not is_ipv6_literal(self.peer.host6):
            found.append(
                (
                    "peer",
                    f"{self.peer.host6} is not an IPv6 address: give the peer's "
                    f"IPv6 address, or leave it empty.",
                )
            )
        if (
            IpVersion.V6 in self.ip_versions
            and is_ipv4_literal(self.peer.host)
            and not self.peer.host6
        ):
            found.append(
                (
                    "peer",
                    f"{self.peer.host} is an IPv4 address, but IPv6 is measured "
                    f"too: give the peer's IPv6 address as well (or its name).",
                )
            )
        if IpVersion.V4 in self.ip_versions and is_ipv6_literal(self.peer.host):
            found.append(
                (
                    "peer",
                    f"{self.peer.host} is an IPv6 address, but IPv4 is measured "
                    f"too: give the peer's name or its IPv4 address.",
                )
            )
        for port_field, port in (
            ("port", self.peer.iperf3_port),
            ("netperf_port", self.peer.netperf_port),
        ):
            try:
                check_port(port)
            except BadOption as err:
                found.append((port_field, err.sentence))
        check(bool(self.protocols), "protocols", "Choose at least one protocol: TCP or UDP.")
        check(bool(self.ip_versions), "ip_versions", "Choose at least one IP version: 4 or 6.")
        check(
            len(set(self.protocols)) == len(self.protocols),
            "protocols",
            "Each protocol may be chosen once.",
        )
        check(
            len(set(self.ip_versions)) == len(self.ip_versions),
            "ip_versions",
            "Each IP version may be chosen once.",
        )
        check(
            bool(self.values),
            "values",
            "Give at least one value to measure (for example the packet sizes 128..1408).",
        )
        check(len(self.values) <= 1000, "values", "At most 1000 points per sweep.")
        check(
            len(set(self.values)) == len(self.values),
            "values",
            "Each value may appear once in the sweep: remove the repeated ones.",
        )
        check(
            1 <= self.repetitions <= 1000,
            "repetitions",
            "Repetitions must be between 1 and 1000 per point.",
        )
        check(
            1 <= self.duration_s <= 3600, "duration", "Seconds per run must be between 1 and 3600."
        )
        check(
            0 <= self.omit_s <= 600 and self.omit_s < max(self.duration_s, 1),
            "omit",
            "The warm-up (omit) must be between 0 and 600 s and shorter than the run.",
        )
        check(0 <= self.pause_s <= 3600, "pause", "The pause between runs must be 0..3600 s.")
        check(0.1 <= self.interval_s <= 60, "interval", "The report interval must be 0.1..60 s.")
        check(1 <= self.parallel <= 128, "parallel", "Parallel streams must be between 1 and 128.")
        check(
            0 <= self.bitrate_bps <= 10**14,
            "bitrate",
            "The UDP bitrate must be 0 (unlimited) or a positive rate.",
        )
        check(
            1 <= self.max_consecutive_failures <= 1000,
            "max_consecutive_failures",
            "Allowed consecutive failures must be between 1 and 1000.",
        )
        check(bool(self.metrics), "metrics", "Choose at least one metric: throughput, RTT or CPU.")
        check(
            Metric.RTT not in self.metrics or self.engine is Engine.NETPERF,
            "metrics",
            "Round-trip time is measured with netperf's request/response test: choose the "
            "netperf engine, or leave RTT out.",
        )
        if self.early_stop is not None:
            check(
                0 < self.early_stop.relative_ci < 1,
                "early_stop",
                "Early stop needs a CI target between 0 and 100 % of the mean.",
            )
            check(
                2 <= self.early_stop.min_runs <= self.repetitions,
                "early_stop",
                "Early stop needs at least 2 runs per point, and no more than the repetitions.",
            )
        from app.study.plan_checks import value_problems  # checks of the swept values

        found.extend(value_problems(self))
        return found

    def validate(self) -> None:
        """Raise BadOption with the first problem's sentence (and all of them in detail)."""
        problems = self.problems()
        if problems:
            raise BadOption(problems[0][1], detail="; ".join(s for _, s in problems))

    # -- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["format"] = PLAN_FORMAT
        data["conditions"]["tags"] = dict(self.conditions.tags)
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Plan:
        try:
            data = json.loads(text)
        except ValueError as err:
            raise BadOption(f"The plan file is not valid JSON ({err}): check the file.") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: object) -> Plan:
        """Build a plan from stored or hand-written JSON, with a sentence for what is wrong."""
        from app.study.plan_codec import decode_field  # the codec needs this module's types

        if not isinstance(data, dict):
            raise BadOption("The plan must be a JSON object: check the file.")
        fmt = data.get("format", PLAN_FORMAT)
        if not isinstance(fmt, int) or fmt > PLAN_FORMAT:
            raise BadOption(
                f"The plan was written by a newer LinkLab (format {fmt}): update LinkLab."
            )
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(data) - known - {"format"})
        if unknown:
            raise BadOption(f"The plan has unknown fields: {', '.join(unknown)}: remove them.")
        try:
            kwargs = {k: decode_field(k, v) for k, v in data.items() if k != "format"}
            if "peer" not in kwargs:
                raise BadOption('The plan names no peer: add "peer": {"host": ...}.')
            return cls(**kwargs)
        except BadOption:
            raise
        except (TypeError, ValueError, KeyError) as err:
            raise BadOption(
                f"The plan has a value LinkLab cannot use ({err}): check the file."
            ) from None
