"""Whether a plan can run: its settings and values against the chosen engine's limits and
capabilities (its driver's), each problem a (field, sentence) pair that the window marks at
its field and the command line prints."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from app.analysis.expectation import MAX_LINK_RATE_BPS, NoExpectation, link_inputs, medium_problem
from app.analysis.overhead import OverheadError, expected
from app.domain.errors import BadOption
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Engine, Medium, Metric, Plan, Security, Variable
from app.domain.plan_fields import ENGINE_SETTINGS, SWEPT, categorical
from app.engine.drivers.registry import DRIVERS, EngineDriver
from app.engine.lan.validate import check_port, is_ipv4_literal, is_ipv6_literal, validate_host
from app.study.sweep.applicability import engines_that, engines_with, sweep_needs, upload_only
from app.study.sweep.describe import METRIC_WORDS

Check = Callable[[bool, str, str], None]


def plan_problems(
    plan: Plan, drivers: Mapping[Engine, EngineDriver] = DRIVERS, *, detect: Collection[str] = ()
) -> list[tuple[str, str]]:
    """(field, sentence) for everything wrong with the plan; empty when it can run. detect:
    the conditions (by DETECTABLE's names) still to be filled from the link to the peer; an
    unknown medium among them is not yet a problem (it is checked once detected)."""
    found: list[tuple[str, str]] = []

    def check(ok: bool, where: str, sentence: str) -> None:
        if not ok:
            found.append((where, sentence))

    driver = drivers[plan.engine]
    found += _peer_problems(plan)
    _structure(plan, check)
    _settings(plan, driver, drivers, check)
    _capabilities(plan, driver, drivers, check)
    found += driver.problems(plan)
    # The loopback to this computer has no medium to detect: a rate stated for it without one
    # is refused here, before any engine or server is looked for.
    _link(plan, check, pending_medium="medium" in detect and not plan.peer.is_this_computer)
    if categorical(plan.variable):
        if not all(isinstance(v, str) for v in plan.values):
            found.append(("values", "Every value must be a name, such as cubic, bbr or reno."))
        parse = SWEPT[plan.variable].parse
        refusals = [r for v in plan.values if parse is not None and (r := _refusal(parse, str(v)))]
        check(not refusals, "values", refusals[0] if refusals else "")
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in plan.values):
        _values(plan, driver, check)
    else:
        found.append(("values", "Every value must be a whole number."))
    return found


def validate_plan(
    plan: Plan, drivers: Mapping[Engine, EngineDriver] = DRIVERS, *, detect: Collection[str] = ()
) -> None:
    """Raise BadOption with the first problem's sentence (and all of them in detail); detect
    as for plan_problems."""
    problems = plan_problems(plan, drivers, detect=detect)
    if problems:
        raise BadOption(problems[0][1], detail="; ".join(s for _, s in problems))


def port_field_key(port_key: str) -> str:
    """The field of a peer's port for an engine's server, as problems name it."""
    return f"{port_key}_port"


def _peer_problems(plan: Plan) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    peer = plan.peer
    try:
        validate_host(peer.host, "peer")
        if peer.host6:
            validate_host(peer.host6, "peer's IPv6 address")
    except BadOption as err:
        found.append(("peer", err.sentence))
    if peer.host6 and not is_ipv6_literal(peer.host6):
        found.append(
            (
                "peer",
                f"{peer.host6} is not an IPv6 address: give the peer's IPv6 address, or leave "
                f"it empty.",
            )
        )
    if IpVersion.V6 in plan.ip_versions and is_ipv4_literal(peer.host) and not peer.host6:
        found.append(
            (
                "peer",
                f"{peer.host} is an IPv4 address, but IPv6 is measured too: give the peer's "
                f"IPv6 address as well (or its name).",
            )
        )
    if IpVersion.V4 in plan.ip_versions and is_ipv6_literal(peer.host):
        found.append(
            (
                "peer",
                f"{peer.host} is an IPv6 address, but IPv4 is measured too: give the peer's "
                f"name or its IPv4 address.",
            )
        )
    for port_field, port in (
        *((port_field_key(key), port) for key, port in sorted(peer.ports.items())),
        ("echo_port", peer.echo_port),
    ):
        try:
            check_port(port)
        except BadOption as err:
            found.append((port_field, err.sentence))
    return found


def _structure(plan: Plan, check: Check) -> None:
    """Series, points and repetitions: what any engine needs."""
    check(bool(plan.protocols), "protocols", "Choose at least one protocol: TCP or UDP.")
    check(bool(plan.ip_versions), "ip_versions", "Choose at least one IP version: 4 or 6.")
    check(
        len(set(plan.protocols)) == len(plan.protocols),
        "protocols",
        "Each protocol may be chosen once.",
    )
    check(
        len(set(plan.ip_versions)) == len(plan.ip_versions),
        "ip_versions",
        "Each IP version may be chosen once.",
    )
    check(
        bool(plan.values),
        "values",
        "Give at least one value to measure (for example the packet sizes 128..1408).",
    )
    check(len(plan.values) <= 1000, "values", "At most 1000 points per sweep.")
    check(
        len(set(plan.values)) == len(plan.values),
        "values",
        "Each value may appear once in the sweep: remove the repeated ones.",
    )
    check(
        1 <= plan.repetitions <= 1000,
        "repetitions",
        "Repetitions must be between 1 and 1000 per point.",
    )
    check(0 <= plan.pause_s <= 3600, "pause", "The pause between runs must be 0..3600 s.")
    check(
        1 <= plan.max_consecutive_failures <= 1000,
        "max_consecutive_failures",
        "Allowed consecutive failures must be between 1 and 1000.",
    )
    check(
        bool(plan.metrics),
        "metrics",
        "Choose at least one metric: throughput, RTT, CPU or working latency.",
    )
    if plan.early_stop is not None:
        check(
            0 < plan.early_stop.relative_ci < 1,
            "early_stop",
            "Early stop needs a CI target between 0 and 100 % of the mean.",
        )
        check(
            2 <= plan.early_stop.min_runs <= plan.repetitions,
            "early_stop",
            "Early stop needs at least 2 runs per point, and no more than the repetitions.",
        )


def _settings(
    plan: Plan, driver: EngineDriver, drivers: Mapping[Engine, EngineDriver], check: Check
) -> None:
    """The fixed settings against the engine's limits; a value the engine would ignore is
    refused where it was set, so nothing is silently dropped."""
    limits, name = driver.limits, driver.name
    check(
        limits.duration_s.holds(plan.duration_s),
        "duration",
        f"Seconds per run must be {limits.duration_s.text()}.",
    )
    check(
        limits.interval_s.holds(plan.interval_s),
        "interval",
        f"The report interval must be {limits.interval_s.text()}.",
    )
    honoured = driver.settings()
    for field in ENGINE_SETTINGS:
        value = getattr(plan, field.name)
        span = getattr(limits, field.limit or "", None)
        words = field.form_label[:1].lower() + field.form_label[1:] or field.words
        if field.key not in honoured:
            check(
                value == field.neutral,
                field.key,
                f"{name} has no {words}: {field.clear_hint}, or use "
                f"{engines_with(field.key, drivers)}.",
            )
        elif value is not None and span is not None:
            size = len(value) if isinstance(value, str) else value  # a name: its length
            check(span.holds(size), field.key, f"The {words} must be {span.text()}.")
        if field.parse is not None and isinstance(value, str):
            refusal = _refusal(field.parse, value)
            check(not refusal, field.key, refusal)
    check(
        plan.omit_s < max(plan.duration_s, 1),
        "omit",
        "The warm-up (omit) must be shorter than the run.",
    )


def _capabilities(
    plan: Plan, driver: EngineDriver, drivers: Mapping[Engine, EngineDriver], check: Check
) -> None:
    for metric in [m for m in plan.metrics if m not in driver.metrics]:
        able = engines_that(lambda d, m=metric: m in d.metrics, drivers)  # type: ignore[misc]
        check(
            False,
            "metrics",
            f"Round-trip time is measured with a request/response test: choose {able}, or "
            f"leave RTT out."
            if metric is Metric.RTT
            else f"{driver.name} does not measure {METRIC_WORDS[metric]}: choose {able}, or "
            f"leave it out.",
        )
    check(plan.direction in driver.directions, "direction", upload_only(driver, drivers))
    if plan.is_monitor:
        _monitor(plan, driver, drivers, check)
    else:
        check(plan.variable in driver.sweeps, "variable", sweep_needs(plan.variable, drivers))
    check(
        plan.variable is not Variable.BITRATE or Protocol.UDP in plan.protocols,
        "variable",
        "Only UDP runs have a target bitrate: choose UDP to sweep it.",
    )
    if plan.concurrent:
        check(
            Metric.LATENCY not in plan.metrics,
            "concurrent",
            "Working latency is measured one run at a time: turn off running the series at "
            "the same time, or leave working latency out.",
        )
        check(
            driver.concurrent,
            "concurrent",
            f"Running series at the same time needs "
            f"{engines_that(lambda d: d.concurrent, drivers)}.",
        )
        check(
            len(plan.series) >= 2,
            "concurrent",
            "Running series at the same time needs at least two series, for example TCP and UDP.",
        )
        check(
            driver.peer_port(plan.peer) + len(plan.series) - 1 <= 65535,
            port_field_key(driver.port_key),
            f"Concurrent series use consecutive ports after the {driver.port_label} port: "
            f"choose a lower port.",
        )
    check(
        not plan.clocks_synchronised or driver.one_way_delay,
        "clocks_synchronised",
        f"{driver.name} does not measure one-way delay: turn off clocks synchronised, or "
        f"choose {engines_that(lambda d: d.one_way_delay, drivers)}.",
    )
    if plan.variable is Variable.LOSS:
        from app.study.host.shaping import unavailable_reason  # nftables and root: Linux only

        reason = unavailable_reason()
        check(reason is None, "variable", reason or "")


def _monitor(
    plan: Plan, driver: EngineDriver, drivers: Mapping[Engine, EngineDriver], check: Check
) -> None:
    """A monitor: one flow of an engine that can run one, over time (nothing swept)."""
    check(
        plan.variable in driver.sweeps,
        "engine",
        f"{driver.name} cannot monitor a link here: choose "
        f"{engines_that(lambda d: Variable.NONE in d.sweeps, drivers)}.",
    )
    check(
        len(plan.series) == 1 and not plan.concurrent,
        "protocols",
        "A monitor measures one flow: choose one protocol and one IP version.",
    )
    check(plan.values == (0,), "values", "A monitor sweeps nothing: its one value is 0.")


def _values(plan: Plan, driver: EngineDriver, check: Check) -> None:
    """The swept values (and the packet size held fixed) against the engine's limits."""
    limits = driver.limits
    values = [v for v in plan.values if not isinstance(v, str)]
    swept = plan.variable
    where = "values"
    lengths = values if swept is Variable.LENGTH else [v for v in [plan.length] if v is not None]
    length_field = "values" if swept is Variable.LENGTH else "length"
    for protocol, length in ((Protocol.UDP, limits.udp_length), (Protocol.TCP, limits.tcp_length)):
        if protocol in plan.protocols:
            word = "UDP packet size" if protocol is Protocol.UDP else "TCP write size"
            check(
                all(length.holds(v) for v in lengths),
                length_field,
                f"A {word} must be {length.text()}.",
            )
    field = SWEPT[swept]
    if field.swept_words and field.limit:
        span = getattr(limits, field.limit)
        if span is not None:
            check(
                all(span.holds(v) for v in values),
                where,
                f"{field.swept_words} must be {span.text()}.",
            )
    if swept is Variable.LOSS:
        check(
            all(0 <= v <= 100 for v in values), where, "Emulated loss must be between 0 and 100 %."
        )


def _refusal(parse: Callable[[str], str], text: str) -> str:
    """What a field's own reading says of a value it refuses ("" when it reads it)."""
    try:
        parse(text)
    except ValueError as err:
        return f"{str(err)[:1].upper()}{str(err)[1:]}."
    return ""


def _link(plan: Plan, check: Check, *, pending_medium: bool = False) -> None:
    """The stated link rate and frame overhead, and what the overhead model needs with them;
    and conditions that contradict each other. pending_medium: the medium is still to be
    detected, so the model's needs wait for it."""
    conditions = plan.conditions
    wifi_security = conditions.security not in (Security.OPEN, Security.UNKNOWN)
    # Only the user's word contradicts the user's: an Ethernet adapter detected here says
    # nothing of a Wi-Fi hop further along the path.
    stated_ethernet = conditions.medium is Medium.ETHERNET and not conditions.medium_detected_by
    if wifi_security and stated_ethernet:
        check(
            False,
            "security",
            f"{conditions.security.value} protects Wi-Fi frames, not Ethernet ones: choose the "
            f"Wi-Fi medium the link uses (802.11n, ac or ax), or set the security to open or "
            f"unknown for an Ethernet link.",
        )
    rate, overhead = conditions.link_rate_bps, conditions.frame_overhead
    check(
        overhead is None or 0 <= overhead <= 10_000,
        "frame_overhead",
        "The frame overhead must be between 0 and 10000 bytes per frame (a Linux tc shaper "
        "counts 14), or empty.",
    )
    if rate is None:
        return
    if not 0 < rate <= MAX_LINK_RATE_BPS:
        check(False, "link_rate", "The link rate must be above 0 and at most 10T, e.g. 100M or 1G.")
        return
    missing = medium_problem(plan)
    if missing is not None:
        if not (pending_medium and missing[0] == "medium"):
            check(False, *missing)
        return
    numbers = [v for v in plan.values if not isinstance(v, str)] or [0]
    ends = {v for v in (min(numbers), max(numbers)) if v >= 1}
    for series in plan.series:  # the model answers for every point, or says why not
        for value in ends:
            try:
                expected(link_inputs(plan, series, value))
            except NoExpectation:
                break  # the session simply has no expected goodput for this series
            except OverheadError as err:
                check(False, "link_rate", str(err))
                return
