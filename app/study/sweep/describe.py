"""Plans in words: each setting as a user reads it, what changed between two plans, and a
default session name, so that a preset or an exercise can say what it set."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import (
    Conditions,
    EarlyStop,
    Medium,
    Metric,
    Plan,
    Security,
    Variable,
)
from app.domain.plan_fields import (
    BY_NAME,
    RUN_FIELDS,
    SWEPT,
    VARIABLE_LABELS,
    Kind,
    categorical,
    variable_words,
)
from app.domain.records import RunRecord
from app.domain.tags import tag_text
from app.domain.units import counted, format_rate, plain_rate
from app.engine.drivers.registry import phrase
from app.engine.latency.latency import METHOD_SENTENCE
from app.engine.latency.probe_results import LatencyMethod
from app.study.host.wifi_reading import WifiReading, WifiState

#: Plan field -> how the window labels it (peer and conditions are described elsewhere).
FIELD_LABELS = {name: field.words for name, field in BY_NAME.items()}

DIRECTION_WORDS = {
    Direction.UP: "upload",
    Direction.DOWN: "download",
    Direction.BIDIR: "both at once",
}
METRIC_WORDS = {
    Metric.THROUGHPUT: "throughput",
    Metric.RTT: "RTT",
    Metric.CPU: "CPU",
    Metric.LATENCY: "working latency",
}


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def protocols_text(protocols: tuple[Protocol, ...]) -> str:
    return _and([p.value.upper() for p in protocols]) if protocols else "none"


def ip_versions_text(versions: tuple[IpVersion, ...]) -> str:
    return _and([f"IPv{int(v)}" for v in versions]) if versions else "none"


def values_text(plan: Plan, limit: int = 6) -> str:
    if categorical(plan.variable):
        more = " …" if len(plan.values) > limit else ""
        return ", ".join(str(v) for v in plan.values[:limit]) + more
    unit = VARIABLE_LABELS[plan.variable][1]
    rates = SWEPT[plan.variable].kind is Kind.RATE  # each says its own unit: "30 Mbit/s"
    shown = [
        format_rate(v) if rates and not isinstance(v, str) else str(v) for v in plan.values[:limit]
    ]
    more = " …" if len(plan.values) > limit else ""
    suffix = f" {unit}" if unit and not rates else ""
    count = f" ({counted(len(plan.values), 'value')})" if len(plan.values) > 1 else ""
    return ", ".join(shown) + more + suffix + count


def setting_text(plan: Plan, name: str) -> str:
    """One plan field as the window shows it: "TCP and UDP", "60 s", "default"."""
    value: Any = getattr(plan, name)
    if name == "protocols":
        return protocols_text(value)
    if name == "ip_versions":
        return ip_versions_text(value)
    if name == "direction":
        return DIRECTION_WORDS[value]
    if name == "variable":
        return variable_words(value)
    if name == "values":
        return values_text(plan)
    if name == "metrics":
        return _and([METRIC_WORDS[m] for m in value]) if value else "none"
    if name == "early_stop":
        if not isinstance(value, EarlyStop):
            return "off"
        return f"within {value.relative_ci * 100:g} % after {counted(value.min_runs, 'run')}"
    field = BY_NAME.get(name)
    kind = field.kind if field is not None else Kind.OTHER
    if kind is Kind.RATE:
        return "unlimited" if not value else format_rate(value)
    if kind is Kind.SIZE:
        return "engine default" if value is None else f"{value} B"
    if field is not None and field.unit == "s":
        return f"{value:g} s"
    if kind is Kind.FLAG:
        return "yes" if value else "no"
    if kind is Kind.TEXT:
        return repr(value) if value else "none"
    if kind is Kind.NAME and value is None:  # left to the system
        return field.placeholder if field is not None and field.placeholder else "default"
    return str(getattr(value, "value", value))


def changes(before: Plan, after: Plan) -> list[str]:
    """What differs, field by field: "engine iperf3 → netperf"."""
    found = []
    for name in FIELD_LABELS:
        if getattr(before, name) != getattr(after, name):
            found.append(
                f"{FIELD_LABELS[name]} {setting_text(before, name)} → {setting_text(after, name)}"
            )
    return found


def duration_text(seconds: float) -> str:
    """'about 16 h 00 min', 'about 3 min 20 s', 'about 40 s'."""
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"about {hours} h {minutes:02d} min"
    if minutes:
        return f"about {minutes} min {secs:02d} s"
    return f"about {secs} s"


def clock_text(seconds: float) -> str:
    """Seconds since a start as a clock reads: '0:45', '12:05', '2:03:09'."""
    whole = max(round(seconds), 0)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def extent_text(plan: Plan) -> str:
    """'1,920 runs, about 16 h 00 min'; with early stop, the most it can take ('at most 5,760
    runs, about 16 h 00 min, less as points become precise enough')."""
    runs = plan.total_runs
    text = f"{counted(runs, 'run')}, {duration_text(plan.estimated_seconds())}"
    if plan.early_stop is None:
        return text
    return f"at most {text}, less as points become precise enough"


def default_name(plan: Plan) -> str:
    """A name that tells sessions apart in a list: 'TCP and UDP · IPv4 · 128–1408 B · WPA2'."""
    if plan.is_monitor:  # 'Monitor · TCP · IPv4 · upload'
        words = [protocols_text(plan.protocols), ip_versions_text(plan.ip_versions)]
        return " · ".join(["Monitor", *words, DIRECTION_WORDS[plan.direction]])
    unit, said = VARIABLE_LABELS[plan.variable][1], variable_words(plan.variable)
    numbers = [v for v in plan.values if not isinstance(v, str)]
    if categorical(plan.variable):
        sweep = f"{said} {' vs '.join(str(v) for v in plan.values)}"
    elif numbers:
        low, high = min(numbers), max(numbers)
        span = f"{low:g}" if low == high else f"{low:g}–{high:g}"
        if SWEPT[plan.variable].kind is Kind.RATE:
            span = format_rate(low) if low == high else f"{format_rate(low)}–{format_rate(high)}"
        elif unit:
            span += f" {unit}"
        sweep = span if plan.variable is Variable.LENGTH else f"{said} {span}"
    else:
        sweep = said
    parts = [protocols_text(plan.protocols), ip_versions_text(plan.ip_versions), sweep]
    if plan.direction is not Direction.UP:
        parts.append(DIRECTION_WORDS[plan.direction])
    if plan.conditions.security is not Security.UNKNOWN:
        parts.append(plan.conditions.security.value)
    return " · ".join(parts)


def local_time(stamp: str | None) -> str:
    """'2026-11-21T11:48:42.123Z' -> '2026-11-21 12:48' in this computer's time zone."""
    if not stamp:
        return "—"
    try:
        moment = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def describe_conditions(conditions: Conditions) -> str:
    """Security, medium, link rate and tags in one short line
    ('WPA2 · 802.11n · 300 Mbit/s link · room=B12'); a medium or rate the system detected,
    not the user stated, says so ('Ethernet (detected)')."""
    parts = []
    if conditions.security is not Security.UNKNOWN:
        parts.append(conditions.security.value)
    detected = " (detected)"
    if conditions.medium is not Medium.UNKNOWN:
        parts.append(conditions.medium.value + (detected if conditions.medium_detected_by else ""))
    if conditions.link_rate_bps is not None:
        rate = f"{plain_rate(conditions.link_rate_bps)} link"
        parts.append(rate + (detected if conditions.link_rate_detected_by else ""))
    if conditions.frame_overhead is not None:
        parts.append(f"{conditions.frame_overhead} B per frame")
    parts += [tag_text(key, value) for key, value in conditions.tags]
    return " · ".join(parts)


#: Outcomes that say why the Wi-Fi security was not detected (the others need no word).
_NOT_READ = frozenset(
    {
        WifiState.REFUSED_LOCATION,
        WifiState.SERVICE_OFF,
        WifiState.UNREADABLE,
        WifiState.RADIO_OFF,
        WifiState.DISCONNECTED,
    }
)


def describe_security(conditions: Conditions, environment: Mapping[str, Any]) -> str | None:
    """Where the session's security came from, in a line: detected (by which tool or API),
    stated by the user (and why LinkLab could not detect it), or unknown and why; None when
    there is nothing to say (no security stated, nor any reason recorded)."""
    reading = WifiReading.from_dict(environment.get("wifi_reading"))
    detected = environment.get("detected_security")
    by = f" by {reading.source}" if reading is not None and reading.source else ""
    value = conditions.security.value
    if conditions.security is Security.UNKNOWN:
        if reading is not None and reading.state in _NOT_READ:
            return f"Security: unknown, not stated; not detected: {reading.sentence()}"
        return None
    if conditions.security_detected:
        return f"Security: {value}, detected{by} (not confirmed)"
    said = f"Security: {value}, stated"
    if reading is not None and reading.state in _NOT_READ:
        return f"{said}; not detected: {reading.sentence()}"
    if isinstance(detected, str) and detected:
        agrees = "as" if detected == value else f"while {detected} was"
        return f"{said} ({agrees} detected{by})"
    return said


def variable_label(plan: Plan) -> str:
    """'Packet size (B)', 'Parallel streams'."""
    name, unit = VARIABLE_LABELS[plan.variable]
    return f"{name} ({unit})" if unit else name


def describe_plan(plan: Plan) -> str:
    """'iperf3 · TCP/UDP · IPv4/IPv6 · upload · 6 points × 3 runs of 10 s'."""
    protocols = "/".join(p.value.upper() for p in plan.protocols)
    versions = "/".join(f"IPv{int(v)}" for v in plan.ip_versions)
    head = f"{plan.engine.value} · {protocols} · {versions} · {DIRECTION_WORDS[plan.direction]}"
    if plan.is_monitor:
        runs = counted(plan.repetitions, "run")
        return f"{head} · monitor: {runs} of up to {plan.duration_s} s, back to back"
    # A duration sweep's runs last as long as its values say.
    each = "" if plan.variable is Variable.DURATION else f" of {plan.duration_s} s"
    # The settings by name held fixed: "· TCP congestion control bbr", "· DSCP / … VO".
    named = [
        f" · {f.words} {value}"
        for f in RUN_FIELDS
        if f.kind is Kind.NAME
        and f.variable is not plan.variable
        and (value := getattr(plan, f.name)) is not None
    ]
    return (
        f"{head} · {counted(len(plan.values), 'point')} × {counted(plan.repetitions, 'run')}{each}"
        + "".join(named)
    )


def describe_environment(environment: Mapping[str, Any]) -> list[str]:
    """The environment snapshot in lines a person reads: this computer, the link, the
    engines, and the Wi-Fi as detected; empty when nothing was recorded."""
    lines = []
    os_name = environment.get("os_name")
    if os_name:
        version = environment.get("os_version")
        host = environment.get("hostname")
        cpu = environment.get("cpu_model")
        words = f"{os_name}" + (f" ({version})" if version else "")
        words += f" on {host}" if host else ""
        words += f", {cpu}" if cpu else ""
        lines.append(f"This computer: {words}")
    interface = environment.get("interface")
    if interface:
        parts = [str(interface)]
        if environment.get("local_address"):
            parts.append(str(environment["local_address"]))
        if environment.get("interface_speed_mbps"):  # the adapter's, never the path's
            parts.append(f"adapter speed {environment['interface_speed_mbps']} Mbit/s")
        if environment.get("interface_mtu"):
            parts.append(f"MTU {environment['interface_mtu']}")
        lines.append("Interface: " + ", ".join(parts))
    engines = environment.get("engine_versions")
    if isinstance(engines, Mapping) and engines:
        lines.append("Engines: " + ", ".join(f"{k} {v}" for k, v in sorted(engines.items())))
    wifi = environment.get("wifi")
    if isinstance(wifi, Mapping) and any(v not in (None, "") for v in wifi.values()):
        shown = [
            (key, wifi.get(key))
            for key in ("ssid", "security", "standard", "channel", "frequency_mhz", "phy_rate_mbps")
        ]
        said: list[str] = []
        for key, value in shown:
            if value in (None, ""):
                continue
            unit = {"frequency_mhz": " MHz", "phy_rate_mbps": " Mbit/s"}.get(key, "")
            prefix = {"channel": "channel "}.get(key, "")
            said.append(f"{prefix}{value}{unit}")
        signal = wifi.get("signal_dbm")
        if signal is not None:
            said.append(f"signal {signal} dBm")
        lines.append("Wi-Fi: " + ", ".join(said))
    return lines


#: How working latency was measured, in words (the methods of app.engine.latency.probe_results).
LATENCY_METHOD_WORDS: dict[str, str] = {
    LatencyMethod.UDP_ECHO: "LinkLab's UDP echo on the peer",
    LatencyMethod.TCP_CONNECT: "TCP connection time to the peer's server",
    LatencyMethod.REQUEST_RESPONSE: phrase("rr_latency"),
}


def latency_methods(runs: Sequence[RunRecord]) -> dict[str, int]:
    """Each latency method the runs used, with how many runs used it."""
    found: dict[str, int] = {}
    for run in runs:
        method = run.metrics.latency_method
        if method:
            found[method] = found.get(method, 0) + 1
    return found


def reason_shown(reason: str) -> str:
    """A session's status reason as its header says it: without the sentences that name
    how working latency was measured (the details say that, run by run), which the stored
    reason ends with."""
    start = reason.find(METHOD_SENTENCE)
    while start > 0 and reason[start - 1] != " ":
        start = reason.find(METHOD_SENTENCE, start + 1)
    return reason if start < 0 else reason[:start].strip()


def describe_latency(runs: Sequence[RunRecord]) -> str:
    """'Working latency by tcp-connect (TCP connection time to the peer's server), 6 runs';
    empty when no run measured it."""
    parts = [
        f"{method} ({LATENCY_METHOD_WORDS.get(method, method)}), {counted(count, 'run')}"
        for method, count in latency_methods(runs).items()
    ]
    return f"Working latency by {'; '.join(parts)}" if parts else ""
