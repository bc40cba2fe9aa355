"""Reading every sentence LinkLab says of a session back against the figures it describes, as a
careful reader would: a test helper, independent of the generators in app.analysis.

The figures are what LinkLab hands out for the session: its `sessions show --json` (status,
conditions, environment, the point summaries) and its runs CSV (`export --format csv`, one
row per run). Each finding, warning and status sentence is parsed (its numbers, the points
and series it names, what it claims) and every number is recomputed from those tables:
within the rounding its text shows, a share below 1 % with its decimal, each claim on the
side of its threshold that the figure shown is on. A sentence of a kind this reader does not
know fails: every sentence said must be one that is checked.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

#: The thresholds the sentences are built on, as the user guide states them.
UDP_LOSS_PCT = 5.0  # "lost more than 5 % of its datagrams"
CPU_CORE_PCT = 90.0  # "busy at or above 90 % of one core"
REACHED_PCT = 90.0  # the rate "still reached" the link's
MIN_RUNS = 3
OVER_PCT = 101.0  # "measured more than the headers allow"
FULL_PCT = 99.0  # "the link is full"
SMALL_SHARE_PCT = 25.0  # "reached only …: probably not the path's bottleneck"
AT_TARGET = 0.9  # UDP "sent at" a target it reached
WIFI_MEDIA = ("802.11n", "802.11ac", "802.11ax")
#: Engines whose CPU figure is the whole computer's (netperf's -c / -C), not their own.
WHOLE_COMPUTER_ENGINES = ("netperf",)

NUMBER = r"\d+(?:\.\d+)?"
RATE = rf"{NUMBER} (?:T|G|M|k)?bit/s"
_SCALE = {"Tbit/s": 1e12, "Gbit/s": 1e9, "Mbit/s": 1e6, "kbit/s": 1e3, "bit/s": 1.0}
LABEL = r"(?:TCP|UDP) · IPv[46]"


class Unread(AssertionError):
    """A sentence of a kind this reader does not know."""


# -- numbers as shown -------------------------------------------------------------------------


def decimals(text: str) -> int:
    return len(text.partition(".")[2])


def shows(text: str, value: float, *, what: str, sentence: str) -> None:
    """The number written is value within the rounding its digits show."""
    written = float(text)
    slack = 0.5 * 10 ** -decimals(text) + 1e-9 * max(1.0, abs(value))
    assert abs(written - value) <= slack, f"{what}: {text} written, {value!r} true: {sentence}"


def shows_pct(text: str, value: float, *, what: str, sentence: str) -> None:
    """A share written as its value rounds; never nothing for something (0.3 %, not 0 %)."""
    shows(text, value, what=what, sentence=sentence)
    if 0 < abs(value) < 1:
        assert "." in text and float(text) != 0, f"{what}: {text} % for {value!r}: {sentence}"


def rate_bps(text: str) -> float:
    number, unit = text.split(" ")
    return float(number) * _SCALE[unit]


def shows_rate(text: str, value: float, *, what: str, sentence: str) -> None:
    number, unit = text.split(" ")
    shows(number, value / _SCALE[unit], what=what, sentence=sentence)


def value_text(value: float) -> str:
    """A packet size as the sentences say it."""
    return f"{value:g} B"


def values_in(text: str) -> list[float]:
    """The packet sizes a part of a sentence names ("at 128 B, 384 B and 640 B")."""
    return [float(v) for v in re.findall(r"(\d+) B\b", text)]


# -- the tables -------------------------------------------------------------------------------


def _number(cell: str) -> float | None:
    if cell in ("", "None"):
        return None
    try:
        return float(cell)
    except ValueError:
        return None


def read_runs_csv(text: str) -> list[dict[str, Any]]:
    """The runs CSV as rows, numbers as floats (None where empty)."""
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    numeric = {"value", "repetition", "attempts", "elapsed_s"}
    out = []
    for row in rows:
        read: dict[str, Any] = dict(row)
        for key, cell in row.items():
            if key in numeric or key.endswith(("_pct", "_bps", "_ms", "_s")):
                read[key] = _number(cell)
        read["label"] = f"{row['protocol'].upper()} · IPv{row['ip_version']}"
        out.append(read)
    return out


@dataclass
class Session:
    """One session's tables as LinkLab hands them out."""

    data: Mapping[str, Any]  # `sessions show --json`
    runs: list[dict[str, Any]]  # the runs CSV, read
    checked: list[str] = field(default_factory=list)  # every sentence read

    @property
    def conditions(self) -> Mapping[str, Any]:
        return self.data["conditions"]

    @property
    def environment(self) -> Mapping[str, Any]:
        return self.data.get("environment") or {}

    @property
    def monitor(self) -> bool:
        return self.data["kind"] == "monitor"

    @property
    def cpus(self) -> int:
        count = self.environment.get("cpu_count")
        return count if isinstance(count, int) and count > 0 else 1

    @property
    def on_loopback(self) -> bool:
        peer = str(self.data["peer"]).strip("[]").lower()
        local = self.environment.get("local_address")
        return (
            peer in ("127.0.0.1", "::1", "localhost")
            or peer.startswith("127.")
            or (bool(local) and local == self.data["peer"])
        )

    def points(self, label: str | None = None) -> list[Mapping[str, Any]]:
        return [
            p
            for p in self.data["points"]
            if label is None or f"{p['protocol'].upper()} · IPv{p['ip_version']}" == label
        ]

    def labels(self) -> list[str]:
        seen = []
        for p in self.data["points"]:
            label = f"{p['protocol'].upper()} · IPv{p['ip_version']}"
            if label not in seen:
                seen.append(label)
        return seen

    def ok_runs(self, label: str) -> list[dict[str, Any]]:
        return [r for r in self.runs if r["status"] == "ok" and r["label"] == label]

    def rate_words(self) -> str:
        """How a sentence names the session's link rate: 'the 10 Gbit/s link rate stated'."""
        bps = self.conditions["link_rate_bps"]
        number, _, unit = _plain(bps).partition(" ")
        source = self.conditions.get("link_rate_detected_by") or ""
        kind = f"detected ({source})" if source else "stated"
        return f"the {number} {unit} link rate {kind}"

    def wifi(self) -> bool:
        return self.conditions["medium"] in WIFI_MEDIA and self.conditions["frame_overhead"] is None


def _plain(bps: float) -> str:
    """A stated rate without trailing zeros, read back: '1 Gbit/s', '144.4 Mbit/s'."""
    for unit, scale in (("Tbit/s", 1e12), ("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:g} bit/s"


def recomputed_mean(session: Session, label: str, value: float, name: str) -> float | None:
    """A point's mean of one figure, from the runs CSV."""
    got = [
        r[name]
        for r in session.ok_runs(label)
        if r["value"] == value and r.get(name) is not None and r["test"] == "stream"
    ]
    return sum(got) / len(got) if got else None


def check_points(session: Session) -> None:
    """The points table agrees with the runs it summarises (n, failed, mean throughput)."""
    for point in session.points():
        label = f"{point['protocol'].upper()} · IPv{point['ip_version']}"
        value = float(point["value"])
        here = [r for r in session.runs if r["label"] == label and r["value"] == value]
        assert point["n"] == sum(r["status"] == "ok" for r in here), point
        assert point["failed"] == sum(r["status"] == "failed" for r in here), point
        mean = recomputed_mean(session, label, value, "throughput_bps")
        shown = point["throughput_bps"]["mean"] if point["throughput_bps"] else None
        if mean is None:
            assert shown is None, point
        else:
            assert shown == pytest.approx(mean, rel=1e-9), (point, mean)


# -- the findings -----------------------------------------------------------------------------

_EFFICIENCY = re.compile(
    rf"^(?P<label>{LABEL}) (?:(?P<over>measured more than)|reached (?P<only>only )?"
    rf"(?P<pct>{NUMBER}) % of what) (?P<allows>the headers(?: and air time)? allow)"
    rf"(?: at (?P<value>\d+) B)? on (?P<rate>the .+? link rate (?:stated|detected \(.*?\))) "
    rf"\(expected (?P<expected>{RATE}), measured (?P<measured>{RATE})"
    rf"(?:, (?P<overpct>{NUMBER}) %)?\)(?P<rest>[:;] .*)$"
)
_LOOPBACK = re.compile(
    rf"^A (?P<rate>{RATE}) link rate (?P<kind>is stated|was detected), but the traffic never "
    r"crossed that link \(it stayed on this computer's loopback\)"
)
_LATENCY = re.compile(
    rf"^(?P<label>{LABEL}): under (?:upload|download) load(?: in both directions)?, a probe "
    rf"waited (?P<loaded>{NUMBER}) ms(?: at packet size (?P<value>\d+) B)? \(mean of the runs' "
    rf"medians\), (?:(?P<times>\d+) times its idle (?P<idle>{NUMBER}) ms|against "
    rf"(?P<idle_short>{NUMBER}) ms idle: the queue stayed short)\.$"
)


def check_efficiency(session: Session, sentence: str, match: re.Match[str]) -> None:
    label = match["label"]
    here = [
        p
        for p in session.points(label)
        if p["expected_bps"] and p["throughput_bps"] and p["efficiency_pct"] is not None
    ]
    assert here, f"a share said where the table has none: {sentence}"
    over = _over(session, label)
    if over:  # the point furthest above the model, the one the warning's "up to" names
        top = max(_shown_pct(p) for p in over)
        named = [p for p in over if _shown_pct(p) == top]
    else:
        named = [max(here, key=lambda p: float(p["value"]))]
    if match["value"] is not None:
        assert float(match["value"]) in [float(p["value"]) for p in named], (
            f"not the point it should name: {sentence}"
        )
        point = _at(session, label, float(match["value"]))
    else:
        assert session.monitor, sentence
        (point,) = named
    expected = float(point["expected_bps"])
    measured = float(point["throughput_bps"]["mean"])
    shows_rate(match["expected"], expected, what="expected", sentence=sentence)
    shows_rate(match["measured"], measured, what="measured", sentence=sentence)
    pct = 100.0 * measured / expected
    assert match["rate"] == session.rate_words(), f"{session.rate_words()!r}: {sentence}"
    wifi_words = "the headers and air time allow" if session.wifi() else "the headers allow"
    assert match["allows"] == wifi_words, sentence
    rest = match["rest"]
    if match["over"]:
        assert over, sentence
        shows_pct(match["overpct"], pct, what="share", sentence=sentence)
        assert float(match["overpct"]) == _shown_pct(point) > OVER_PCT, sentence
        assert "faster than" not in rest, sentence
        return
    written = match["pct"]
    shows_pct(written, pct, what="share", sentence=sentence)
    shown = float(written)
    assert not over and shown <= OVER_PCT, sentence
    bitrate = _target(session, point)
    if shown >= FULL_PCT:
        assert rest == ": the link is full.", sentence
    elif bitrate is not None and bitrate < expected and measured >= AT_TARGET * bitrate:
        said = re.match(rf"^: it was sent at (?P<target>{RATE}) ", rest)
        assert said, sentence
        shows_rate(said["target"], bitrate, what="target", sentence=sentence)
        assert rest.endswith("so the sender's target, not the link, set the pace."), sentence
    elif shown < SMALL_SHARE_PCT:
        assert match["only"], sentence
        assert rest.startswith(
            f": so far below it, {session.rate_words()} is probably not the path's bottleneck"
        ), sentence
        assert "hosts" not in rest, sentence
    else:
        assert not match["only"] and rest.startswith("; the rest is "), sentence
        if not session.wifi() and session.conditions["frame_overhead"] is None:
            assert "on the hosts, not the wire" in rest, sentence


def _target(session: Session, point: Mapping[str, Any]) -> float | None:
    if point["protocol"] != "udp":
        return None
    if session.data["variable"] == "bitrate":
        return float(point["value"]) or None
    bitrate = session.data.get("bitrate_bps")
    return float(bitrate) if bitrate else None


def check_latency(session: Session, sentence: str, match: re.Match[str]) -> None:
    label = match["label"]
    pairs = [
        (p, p["latency_ms"]["mean"], p["latency_idle_ms"]["mean"])
        for p in session.points(label)
        if p.get("latency_ms") and p.get("latency_idle_ms")
    ]
    pairs = [(p, loaded, idle) for p, loaded, idle in pairs if loaded and idle]
    assert pairs, sentence
    point, loaded, idle = max(pairs, key=lambda t: t[1])
    if match["value"] is not None:
        assert float(match["value"]) == float(point["value"]), sentence
    shows(match["loaded"], loaded, what="loaded latency", sentence=sentence)
    if match["times"] is not None:
        shows(match["idle"], idle, what="idle latency", sentence=sentence)
        assert loaded / idle >= 2, sentence
        shows(match["times"], loaded / idle, what="times", sentence=sentence)
    else:
        shows(match["idle_short"], idle, what="idle latency", sentence=sentence)
        assert loaded / idle < 2, sentence


def check_findings(session: Session, findings: Iterable[str]) -> None:
    findings = list(findings)
    efficiency_labels = []
    for sentence in findings:
        session.checked.append(sentence)
        if match := _EFFICIENCY.match(sentence):
            check_efficiency(session, sentence, match)
            efficiency_labels.append(match["label"])
        elif match := _LOOPBACK.match(sentence):
            assert session.on_loopback, sentence
            shows_rate(
                match["rate"], session.conditions["link_rate_bps"], what="rate", sentence=sentence
            )
            detected = bool(session.conditions.get("link_rate_detected_by"))
            assert (match["kind"] == "was detected") == detected, sentence
            assert "%" not in sentence, sentence
        elif match := _LATENCY.match(sentence):
            check_latency(session, sentence, match)
        else:
            raise Unread(f"a finding this reader does not know: {sentence}")
    # Every series with a share of the expected goodput has its sentence, once.
    with_share = [
        label
        for label in session.labels()
        if any(p["efficiency_pct"] is not None for p in session.points(label))
    ]
    assert sorted(efficiency_labels) == sorted(with_share), (findings, with_share)


# -- the warnings -----------------------------------------------------------------------------

#: Points short of the runs planned, then those with too few for a spread (either may be
#: alone); after the first, "It has" names the same series.
_FEW = re.compile(
    rf"^(?:(?P<label>{LABEL}) has|(?P<every>Every series has)) "
    r"(?:fewer successful runs than the (?P<asked>\d+) runs? per point the plan asked for at "
    r"(?P<short>.+?): the others failed or were not measured\. Resume the session \(Resume on "
    r"the Sessions tab, or linklab resume\) to measure them again\.(?: (?:It|Every series) "
    r"has |$))?"
    r"(?:fewer than (?P<min>\d+) successful runs at (?P<few>.+?): with so few the standard "
    r"deviation and the 95 % interval mean little \(with one run, nothing\)\."
    r"(?P<field> Measure (?P<more>\d+) or more runs per point \(the Runs per point field, "
    r"or --runs\)\.)?)?$"
)
_LOSS = re.compile(
    rf"^(?P<label>{LABEL}) lost more than (?P<limit>{NUMBER}) % of its datagrams (?P<where>.+?) "
    rf"\((?P<low>{NUMBER})(?:–(?P<high>{NUMBER}))? % lost, (?P<sent>[^)]*)\): its throughput"
)
_ABOVE = re.compile(
    rf"^(?P<label>{LABEL}) measured more than the model allows on (?P<rate>the .+? link rate "
    rf"(?:stated|detected \(.*?\)))(?P<where> at .+?)? \(up to (?P<top>{NUMBER}) % of the "
    r"expected goodput(?:, at (?P<at>\d+) B)?\): "
)
_CPU = re.compile(
    rf"^In (?P<busy>\d+) of (?P<of>\d+) runs? of (?P<label>{LABEL})(?: \(at (?P<where>[^)]+)\))? "
    rf"the CPU was busy at or above (?P<limit>{NUMBER}) % of one core: (?P<sides>.+?)\. "
    r"(?P<pace>(?:It|They|The traffic|Without).*)$"
)
_LOCAL_ENGINE = re.compile(
    rf"^on this computer (?P<engine>\S+) itself \(LinkLab's engine\) used (?P<up>up to )?"
    rf"(?P<cores>{NUMBER}) % of one core$"
)
_LOCAL_WHOLE = re.compile(
    rf"^this computer's CPU \((?P<cpus>\d+) cores?(?:: (?P<all>\d+) % in all)?\) averaged "
    rf"(?P<up>up to )?(?P<cores>{NUMBER}) % of one core(?: \(peak (?P<peak>{NUMBER}) %\))?"
    rf"(?:: other programs used (?P<others>{NUMBER}) % of it and LinkLab with its engines "
    rf"(?P<own>{NUMBER}) %(?P<busiest> in the busiest run)?(?: \(by LinkLab's own sampling, "
    rf"(?P<sampled>{NUMBER}) % in all\))?|(?P<unknown>; which programs used it, a run stored "
    r"before LinkLab kept that cannot say))?$"
)
_REMOTE = re.compile(
    rf"^on the peer (?P<up>up to )?(?P<cores>{NUMBER}) % of one core \((?P<whose>.+)\)$"
)
_PACE = re.compile(
    rf"^(?:It|They) (?P<still>still )?reached (?P<low>{NUMBER})(?:–(?P<high>{NUMBER}))? % of "
    r"the expected goodput on (?P<rate>the .+? link rate (?:stated|detected \(.*?\))): "
    r"(?P<claim>.*)$"
)


def _point_values(where: str) -> list[float]:
    return values_in(where)


def _named(where: str | None) -> list[tuple[float, int, int]]:
    """The points a part of the sentence names: (value, successful runs, of how many)."""
    found = re.findall(r"(\d+) B \((\d+) of (\d+)\)", where or "")
    return [(float(v), int(n), int(of)) for v, n, of in found]


@dataclass(frozen=True)
class FewSaid:
    """What a warning about runs says: its series (None: every series), the points it names
    short of the runs planned and those with too few for a spread, each (value, n, of)."""

    label: str | None
    short: list[tuple[float, int, int]]
    few: list[tuple[float, int, int]]


def read_few(sentence: str) -> FewSaid | None:
    """The warning about runs read, or None when the sentence is another warning."""
    match = _FEW.match(re.sub(r"^“[^”]*”: ", "", sentence))
    if match is None or not (match["short"] or match["few"]):
        return None
    return FewSaid(match["label"], _named(match["short"]), _named(match["few"]))


def check_few(session: Session, sentence: str, match: re.Match[str]) -> None:
    """Every point short of the runs the plan asked for (none at all included), each with its
    successful runs of those asked for, and Resume to measure them, once the session no
    longer runs; then the points with fewer than MIN_RUNS, and the runs field where the plan
    asked for fewer. Read against the points table, series by series."""
    assert not session.monitor, sentence
    assert match["short"] or match["few"], sentence
    asked = session.data["repetitions"]
    running = session.data["status"] == "running"
    labels = [match["label"]] if match["label"] else session.labels()
    short, few = _named(match["short"]), _named(match["few"])
    assert all(of == asked for _, _, of in short + few), sentence
    if match["asked"]:
        assert int(match["asked"]) == asked, sentence
    for label in labels:
        points = [(float(p["value"]), p["n"]) for p in session.points(label)]
        # While it runs, runs still to come are no shortfall.
        shown_short = [] if running else [(v, n) for v, n in points if n < asked]
        assert [(v, n) for v, n, _ in short] == shown_short, (shown_short, sentence)
        shown_few = [(v, n) for v, n in points if 0 < n < MIN_RUNS]
        assert [(v, n) for v, n, _ in few] == shown_few, (shown_few, sentence)
    if match["few"]:
        assert int(match["min"]) == MIN_RUNS, sentence
        assert bool(match["field"]) == (asked < MIN_RUNS), sentence
        assert match["more"] is None or int(match["more"]) == MIN_RUNS, sentence


def check_loss(session: Session, sentence: str, match: re.Match[str]) -> None:
    label = match["label"]
    assert match["label"].startswith("UDP"), sentence
    assert float(match["limit"]) == UDP_LOSS_PCT, sentence
    emulated = session.data["variable"] == "loss"
    lossy = []
    for point in session.points(label):
        loss = point.get("loss_pct")
        if not loss or loss["mean"] is None:
            continue
        shown = round(loss["mean"], 1)
        given = float(point["value"]) if emulated else 0.0
        if shown - given > UDP_LOSS_PCT:
            lossy.append((float(point["value"]), loss["mean"]))
    assert lossy, f"no point lost more than {UDP_LOSS_PCT} %: {sentence}"
    if not session.monitor:
        assert _point_values(match["where"]) == [v for v, _ in lossy], sentence
    losses = sorted(loss for _, loss in lossy)
    shows(match["low"], losses[0], what="lowest loss", sentence=sentence)
    shows(match["high"] or match["low"], losses[-1], what="highest loss", sentence=sentence)
    rate = session.conditions["link_rate_bps"]
    if rate:
        assert f"Set a UDP bitrate under {session.rate_words()}" in sentence, sentence
    else:
        assert "Set a UDP bitrate under the link's rate" in sentence, sentence


def _shown_pct(point: Mapping[str, Any]) -> float:
    """A point's share of the expected goodput as the table shows it (one decimal)."""
    return round(100.0 * point["throughput_bps"]["mean"] / point["expected_bps"], 1)


def _over(session: Session, label: str) -> list[Mapping[str, Any]]:
    """The points of a series whose share, as shown, is more than the model allows."""
    return [
        p
        for p in session.points(label)
        if p["efficiency_pct"] is not None and p["throughput_bps"] and _shown_pct(p) > OVER_PCT
    ]


def check_above(session: Session, sentence: str, match: re.Match[str]) -> None:
    label = match["label"]
    assert match["rate"] == session.rate_words(), sentence
    over = _over(session, label)
    assert over, sentence
    if not session.monitor:
        assert _point_values(match["where"] or "") == [float(p["value"]) for p in over], sentence
    top = max(_shown_pct(p) for p in over)
    shows_pct(match["top"], top, what="top share", sentence=sentence)
    assert float(match["top"]) == top, f"not the largest share, as shown: {sentence}"
    if len(over) > 1 and not session.monitor:
        # Names the point it is at: the one the finding names.
        assert match["at"] is not None, sentence
        assert _shown_pct(_at(session, label, float(match["at"]))) == top, sentence
    else:
        assert match["at"] is None, sentence


def _at(session: Session, label: str, value: float) -> Mapping[str, Any]:
    (point,) = [p for p in session.points(label) if float(p["value"]) == value]
    return point


def _run_cores(session: Session, run: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """(this computer, the peer) CPU of a run in cores, read as each engine counts."""
    whole = run["engine"] in WHOLE_COMPUTER_ENGINES
    cpus = session.cpus
    local: float | None
    if run.get("cpu_local_pct") is not None:
        local = run["cpu_local_pct"] / 100 * (cpus if whole else 1)
    elif run.get("cpu_host_mean_pct") is not None:
        local = run["cpu_host_mean_pct"] / 100 * cpus
    else:
        local = None
    remote = run.get("cpu_remote_pct")
    peer_cpus = cpus if session.on_loopback else 1
    return local, None if remote is None else remote / 100 * (peer_cpus if whole else 1)


def check_cpu(session: Session, sentence: str, match: re.Match[str]) -> None:
    label = match["label"]
    assert float(match["limit"]) == CPU_CORE_PCT, sentence
    runs = [r for r in session.ok_runs(label)]
    busy = []
    for run in runs:
        local, remote = _run_cores(session, run)
        hot_local = local if local is not None and local * 100 >= CPU_CORE_PCT else None
        hot_remote = remote if remote is not None and remote * 100 >= CPU_CORE_PCT else None
        if hot_local is not None or hot_remote is not None:
            busy.append((run, hot_local, hot_remote))
    assert int(match["busy"]) == len(busy) > 0, sentence
    assert int(match["of"]) == len(runs), sentence
    if not session.monitor:
        values = sorted({r["value"] for r, _, _ in busy})
        assert _point_values(match["where"]) == values, sentence
    sides = match["sides"].split("; on the peer ")
    local_side = sides[0] if not sides[0].startswith("on the peer ") else None
    remote_side = (
        f"on the peer {sides[1]}" if len(sides) > 1 else (sides[0] if local_side is None else None)
    )
    hot_local = [(r, c) for r, c, _ in busy if c is not None]
    hot_remote = [(r, c) for r, _, c in busy if c is not None]
    assert (local_side is not None) == bool(hot_local), sentence
    assert (remote_side is not None) == bool(hot_remote), sentence
    if local_side is not None:
        _check_local(session, sentence, local_side, hot_local)
    if remote_side is not None:
        said = _REMOTE.match(remote_side)
        assert said, sentence
        top = max(c for _, c in hot_remote)
        assert bool(said["up"]) == (len(hot_remote) > 1), sentence
        shows_pct(said["cores"], top * 100, what="peer CPU", sentence=sentence)
    _check_pace(session, sentence, match["pace"], busy)


def _check_local(
    session: Session, sentence: str, side: str, hot: list[tuple[dict[str, Any], float]]
) -> None:
    top_run, top = max(hot, key=lambda t: t[1])
    several = len(hot) > 1
    engine_own = all(
        r.get("cpu_local_pct") is not None and r["engine"] not in WHOLE_COMPUTER_ENGINES
        for r, _ in hot
    )
    if engine_own:
        said = _LOCAL_ENGINE.match(side)
        assert said, sentence
        assert said["engine"] == top_run["engine"], sentence
        assert bool(said["up"]) == several, sentence
        shows_pct(said["cores"], top * 100, what="engine CPU", sentence=sentence)
        return
    said = _LOCAL_WHOLE.match(side)
    assert said, f"{side!r}: {sentence}"
    assert int(said["cpus"]) == session.cpus, sentence
    assert bool(said["up"]) == several, sentence
    shows_pct(said["cores"], top * 100, what="this computer's CPU", sentence=sentence)
    sampled = all(r.get("cpu_local_pct") is None for r, _ in hot)
    peaks = [r.get("cpu_host_peak_pct") for r, _ in hot]
    if sampled and all(p is not None for p in peaks):
        peak = max(p for p in peaks if p is not None) / 100 * session.cpus
        assert said["peak"] is not None, sentence
        shows_pct(said["peak"], peak * 100, what="peak", sentence=sentence)
        # The peak is no lower than the mean it is the peak of.
        assert float(said["peak"]) + 0.5 >= float(said["cores"]) or not sampled, sentence
    else:
        assert said["peak"] is None, sentence
    total = top_run.get("cpu_host_mean_pct")
    own = top_run.get("cpu_linklab_mean_pct")
    if total is None or own is None:
        assert said["unknown"], sentence
        return
    total_cores, own_cores = total / 100 * session.cpus, min(own, total) / 100 * session.cpus
    shows_pct(said["others"], (total_cores - own_cores) * 100, what="others", sentence=sentence)
    shows_pct(said["own"], own_cores * 100, what="LinkLab's", sentence=sentence)
    assert bool(said["busiest"]) == several, sentence
    if said["sampled"] is not None:
        shows_pct(said["sampled"], total_cores * 100, what="sampled", sentence=sentence)


def _check_pace(
    session: Session,
    sentence: str,
    pace: str,
    busy: list[tuple[dict[str, Any], float | None, float | None]],
) -> None:
    if session.on_loopback:
        assert pace.startswith(
            "The traffic stayed on this computer, so its CPU, not a link, set the pace."
        ), sentence
        return
    shares = []
    for run, _, _ in busy:
        points = [
            p
            for p in session.points(run["label"])
            if float(p["value"]) == run["value"] and p["expected_bps"]
        ]
        if not points or run.get("throughput_bps") is None or points[0]["efficiency_pct"] is None:
            shares = []
            break
        shares.append(100.0 * run["throughput_bps"] / float(points[0]["expected_bps"]))
    if not shares:
        assert pace.startswith("Without an expected goodput"), sentence
        assert "cannot be told whether the link or the computer set the pace" in pace, sentence
        return
    said = _PACE.match(pace)
    assert said, sentence
    assert said["rate"] == session.rate_words(), sentence
    shows_pct(said["low"], min(shares), what="lowest share", sentence=sentence)
    shows_pct(said["high"] or said["low"], max(shares), what="highest share", sentence=sentence)
    low, high = float(said["low"]), float(said["high"] or said["low"])
    if low >= REACHED_PCT:
        assert said["still"] and said["claim"] == "the link, not the CPU, set the pace.", sentence
    elif high >= REACHED_PCT:
        assert said["claim"].startswith(
            f"where below {REACHED_PCT:g} %, the computer, not the link, may have set the pace."
        ), sentence
    else:
        assert said["claim"].startswith("the computer, not the link, may have set the pace."), (
            sentence
        )


_NOT_WIFI = re.compile(r"^The session is labelled Wi-Fi \((?P<stated>[^)]+)\), but ")


_PROBES = re.compile(
    rf"^Working latency under load is probed from the engine's first report, (?P<start>{NUMBER}) "
    r"s into each run, to its end: (?P<lasted>.+?) leave its probes less than (?P<least>\d+) "
    r"s, so the loaded latency rests on few probes \(its p90 near its median\)\. Measure for "
    r"(?P<enough>\d+) s or more \(the Seconds per run field, or --duration\)\.$"
)


def check_probes(session: Session, sentence: str, match: re.Match[str]) -> None:
    """The runs named leave their loaded probes (from the first report to the end) less
    than the seconds said, and the seconds advised leave them enough: read against the
    plan's run length and report interval, and the runs' loaded latency."""
    data = session.data
    assert "latency" in data["metrics"] and not session.monitor, sentence
    start, least = float(match["start"]), int(match["least"])
    assert start == data["interval_s"], sentence
    if data["variable"] == "duration":
        named = [float(v) for v in re.findall(rf"({NUMBER}) s", match["lasted"])]
        short = [float(v) for v in data["values"] if float(v) - start < least]
        assert named == short, sentence
    else:
        assert match["lasted"] == f"{data['duration_s']}-s runs", sentence
        assert data["duration_s"] - start < least, sentence
    enough = int(match["enough"])
    assert enough - start >= least > enough - 1 - start, sentence
    loaded = [r for r in session.runs if r.get("latency_ms") is not None]
    assert loaded, sentence  # said only of loaded latency measured


def check_not_wifi(session: Session, sentence: str, match: re.Match[str]) -> None:
    conditions = session.conditions
    medium, security = conditions["medium"], conditions["security"]
    stated = []
    if security not in ("unknown", "open") or (security == "open" and medium != "Ethernet"):
        stated.append(security)
    if medium in WIFI_MEDIA:
        stated.append(medium)
    assert stated, sentence
    assert match["stated"] == " on ".join(stated), sentence
    if "never left this computer" in sentence:
        assert session.on_loopback, sentence
    else:
        environment = session.environment
        interface, speed = environment.get("interface"), environment.get("interface_speed_mbps")
        assert f"over {interface}, a wired interface" in sentence, sentence
        said = re.search(r"a wired interface \((?P<facts>.*?)\): unless", sentence)
        facts = said["facts"].split("; ") if said else []
        if speed:  # the adapter's speed, said as the adapter's
            assert f"adapter speed {speed} Mbit/s" in facts, sentence
        source = (environment.get("wifi_reading") or {}).get("source")
        assert (f"detected by {source}" in facts) == bool(source), sentence
        assert all("Mbit/s" not in f or f.startswith("adapter speed") for f in facts), sentence


def check_warnings(session: Session, warnings: Iterable[str]) -> None:
    for sentence in warnings:
        session.checked.append(sentence)
        # A comparison names the session first: "“name”: ..."
        body = re.sub(r"^“[^”]*”: ", "", sentence)
        if match := _FEW.match(body):
            check_few(session, sentence, match)
        elif match := _LOSS.match(body):
            check_loss(session, sentence, match)
        elif match := _ABOVE.match(body):
            check_above(session, sentence, match)
        elif match := _CPU.match(body):
            check_cpu(session, sentence, match)
        elif match := _NOT_WIFI.match(body):
            check_not_wifi(session, sentence, match)
        elif match := _PROBES.match(body):
            check_probes(session, sentence, match)
        else:
            raise Unread(f"a warning this reader does not know: {sentence}")


# -- the conditions, as a view lists them -----------------------------------------------------


def check_condition_lines(session: Session, lines: Iterable[str]) -> None:
    """ "Conditions: WPA2 · Ethernet (detected) · 10 Gbit/s link" and "Security: WPA2,
    stated": each condition as the session's JSON holds it, a detected one said so and a
    stated one never called detected."""
    conditions = session.conditions
    for line in lines:
        session.checked.append(line)
        if line.startswith("Security: "):
            value = line.removeprefix("Security: ").split(",", 1)[0]
            assert value == conditions["security"], line
            continue
        parts = line.removeprefix("Conditions: ").split(" · ")
        if parts == ["not stated"]:
            parts = []
        medium, rate = conditions["medium"], conditions["link_rate_bps"]
        if medium != "unknown":
            marked = " (detected)" if conditions.get("medium_detected_by") else ""
            assert f"{medium}{marked}" in parts, line
        if rate is not None:
            marked = " (detected)" if conditions.get("link_rate_detected_by") else ""
            rates = [p for p in parts if p.endswith(f" link{marked}")]
            assert len(rates) == 1, line
            shows_rate(rates[0].removesuffix(f" link{marked}"), rate, what="rate", sentence=line)
        else:
            assert not any(p.endswith((" link", " link (detected)")) for p in parts), line


# -- the status -------------------------------------------------------------------------------

_FAILED_SOME = re.compile(r"^(?P<failed>\d+) of (?P<of>\d+) runs failed\. The first failure: ")
_FAILED_ALL = re.compile(r"^All (?P<of>\d+) runs failed\. The first failure: ")
_GAVE_UP = re.compile(
    r"^Stopped after (?P<row>\d+) failures? in a row(?:, (?P<good>\d+) of (?P<of>\d+) runs? "
    r"good)?\. The last error: "
)

_MONITORED = re.compile(
    r"^Monitored for .+?, in (?P<runs>\d+) runs? of up to \d+ s chained back to back"
    r"(?: \((?P<failed>\d+) failed\))?\. Stopped by the user\."
)


def check_status(session: Session) -> None:
    """The status and its reason against the runs: counts, and which status they make."""
    data = session.data
    reason, status, text = data["status_reason"] or "", data["status"], data["status_text"]
    session.checked.append(f"{text}. {reason}")
    finished = [r for r in session.runs if r["status"] in ("ok", "failed")]
    failed = [r for r in finished if r["status"] == "failed"]
    assert data["runs_done"] == len(finished), data
    assert data["runs_failed"] == len(failed), data
    if status == "completed":
        assert text == ("completed with failures" if failed else "completed"), data
    if match := _GAVE_UP.match(reason):
        row = int(match["row"])
        assert row <= len(failed), reason
        tail = finished[-row:]
        assert all(r["status"] == "failed" for r in tail), reason
        # Stopped for failures in a row only while runs were left to try.
        assert len(finished) < data["total_runs"], (reason, len(finished), data["total_runs"])
        if match["good"] is None:
            assert status == "failed" and not len(finished) - len(failed), reason
        else:
            assert status == "completed", reason
            assert int(match["good"]) == len(finished) - len(failed), reason
            assert int(match["of"]) == len(finished), reason
    elif match := _FAILED_ALL.match(reason):
        assert status == "failed" and len(failed) == len(finished) == int(match["of"]), reason
        assert reason.split("The first failure: ", 1)[1].startswith(failed[0]["error"]), reason
    elif match := _FAILED_SOME.match(reason):
        assert status == "completed", reason
        assert int(match["failed"]) == len(failed) and int(match["of"]) == len(finished), reason
        assert reason.split("The first failure: ", 1)[1].startswith(failed[0]["error"]), reason
    elif reason.startswith("The run failed: "):
        assert status == "failed" and len(finished) == len(failed) == 1, reason
    elif reason.startswith("Stopped by the user."):
        assert status in ("stopped", "completed"), reason
    elif match := _MONITORED.match(reason):
        assert session.monitor and status == "completed", reason
        assert int(match["failed"] or 0) == len(failed), reason
        assert int(match["runs"]) >= len(finished), reason
    else:
        assert not failed or status == "stopped", f"failures left unsaid: {reason!r}"


#: What follows a failed run, as the progress says it (RunFailed.then_words).
_THEN = re.compile(
    r"(?P<goes>The sweep goes on\.)|(?P<last>It was the sweep's last run\.)|"
    r"(?:That is (?P<row>\d+) failures? in a row: the sweep stops here\.)$"
)


def check_failure_lines(session: Session, lines: Sequence[str]) -> None:
    """The command line's 'Run failed: …' lines, in order, against the runs that failed for
    good: what each says follows is what followed."""
    said = [line for line in lines if line.startswith("Run failed: ")]
    finished = [r for r in session.runs if r["status"] in ("ok", "failed")]
    failed_at = [i for i, r in enumerate(finished) if r["status"] == "failed"]
    assert len(said) == len(failed_at), (said, failed_at)
    for line, index in zip(said, failed_at, strict=True):
        session.checked.append(line)
        match = _THEN.search(line)
        if match is None:
            continue  # runs of one moment: the runner could not know yet
        if match["last"]:
            assert index == len(finished) - 1 and len(finished) == session.data["total_runs"]
        elif match["goes"]:
            assert index < len(finished) - 1, line
        else:
            assert index == len(finished) - 1 < session.data["total_runs"] - 1, line


def check_session(
    data: Mapping[str, Any],
    runs_csv: str,
    *,
    findings: Iterable[str] | None = None,
    warnings: Iterable[str] | None = None,
    conditions: Iterable[str] = (),
) -> Session:
    """Every sentence of a session against its tables: those of its JSON, or those a view
    showed (findings, warnings) against the JSON's figures. Returns what was read."""
    session = Session(data, read_runs_csv(runs_csv))
    check_points(session)
    check_findings(session, data["findings"] if findings is None else findings)
    check_warnings(session, data["warnings"] if warnings is None else warnings)
    check_condition_lines(session, conditions)
    check_status(session)
    return session
