"""Whether a plan can run: its settings and values against the engines' limits, each problem
a (field, sentence) pair the window marks at its field and the command line prints."""

from __future__ import annotations

from app.domain.errors import BadOption
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import VARIABLE_LABELS, Engine, Metric, Plan, Variable
from app.engine.validate import check_port, is_ipv4_literal, is_ipv6_literal, validate_host


def value_problems(plan: Plan) -> list[tuple[str, str]]:
    """Problems with the swept values and the settings held fixed, at their fields."""
    found: list[tuple[str, str]] = []
    values = list(plan.values)
    fixed_length = [] if plan.length is None else [plan.length]
    lengths = values if plan.variable is Variable.LENGTH else fixed_length
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return [("values", "Every value must be a whole number.")]
    if Protocol.UDP in plan.protocols and any(not 16 <= v <= 65507 for v in lengths):
        found.append(
            (
                "values" if plan.variable is Variable.LENGTH else "length",
                "A UDP packet size must be between 16 and 65507 bytes.",
            )
        )
    if Protocol.TCP in plan.protocols and any(not 1 <= v <= 1024 * 1024 for v in lengths):
        found.append(
            (
                "values" if plan.variable is Variable.LENGTH else "length",
                "A TCP write size must be between 1 byte and 1 MiB (1048576 bytes).",
            )
        )
    if plan.variable is Variable.DURATION and any(not 1 <= v <= 3600 for v in values):
        found.append(("values", "Run durations must be between 1 and 3600 s."))
    windows = (
        values
        if plan.variable is Variable.WINDOW
        else ([] if plan.window is None else [plan.window])
    )
    if any(not 1024 <= v <= 1024**3 for v in windows):
        found.append(
            (
                "values" if plan.variable is Variable.WINDOW else "window",
                "A TCP window must be between 1 KiB and 1 GiB.",
            )
        )
    if plan.variable is Variable.PARALLEL and any(not 1 <= v <= 128 for v in values):
        found.append(("values", "Parallel streams must be between 1 and 128."))
    if plan.variable is Variable.LOSS:
        from app.study.shaping import unavailable_reason

        if any(not 0 <= v <= 100 for v in values):
            found.append(("values", "Emulated loss must be between 0 and 100 %."))
        reason = unavailable_reason()
        if reason:
            found.append(("variable", reason))
    if plan.variable is Variable.BITRATE and any(not 0 <= v <= 10**14 for v in values):
        found.append(("values", "Bitrates must be 0 (unlimited) or positive."))
    if plan.engine is Engine.NETPERF and plan.variable in (
        Variable.WINDOW,
        Variable.PARALLEL,
        Variable.BITRATE,
    ):
        label = VARIABLE_LABELS[plan.variable][0].lower()
        found.append(("variable", f"Sweeping the {label} needs the iperf3 engine."))
    if plan.concurrent and plan.engine is not Engine.IPERF3:
        found.append(("concurrent", "Running series at the same time needs the iperf3 engine."))
    if plan.concurrent and len(plan.series) < 2:
        found.append(
            (
                "concurrent",
                "Running series at the same time needs at least two "
                "series, for example TCP and UDP.",
            )
        )
    if plan.concurrent and plan.peer.iperf3_port + len(plan.series) - 1 > 65535:
        found.append(
            (
                "port",
                "Concurrent series use consecutive ports after the iperf3 "
                "port: choose a lower port.",
            )
        )
    if plan.variable is Variable.BITRATE and Protocol.UDP not in plan.protocols:
        found.append(("variable", "Only UDP runs have a target bitrate: choose UDP to sweep it."))
    if plan.engine is Engine.NETPERF:
        # Values netperf would silently ignore are refused where the user set them.
        for where, ignored, sentence in (
            (
                "bitrate",
                plan.bitrate_bps != 0,
                "netperf sends UDP as fast as it can: set the UDP bitrate to 0, or use iperf3.",
            ),
            (
                "window",
                plan.window is not None,
                "LinkLab sets the TCP window for iperf3 only: clear the window, or use iperf3.",
            ),
            (
                "parallel",
                plan.parallel != 1,
                "netperf runs one stream per test: set parallel streams to 1, or use iperf3.",
            ),
            (
                "omit",
                plan.omit_s != 0,
                "netperf has no warm-up to leave out: set the warm-up to 0, or use iperf3.",
            ),
        ):
            if ignored:
                found.append((where, sentence))
    if plan.engine is Engine.NETPERF and plan.direction is not Direction.UP:
        found.append(
            (
                "direction",
                "netperf measures upload only here: choose iperf3 for download or both directions.",
            )
        )
    return found


def plan_problems(plan: Plan) -> list[tuple[str, str]]:
    """(field, sentence) for everything wrong with the plan; empty when it can run."""
    found: list[tuple[str, str]] = []

    def check(ok: bool, where: str, sentence: str) -> None:
        if not ok:
            found.append((where, sentence))

    try:
        validate_host(plan.peer.host, "peer")
        if plan.peer.host6:
            validate_host(plan.peer.host6, "peer's IPv6 address")
    except BadOption as err:
        found.append(("peer", err.sentence))
    if plan.peer.host6 and not is_ipv6_literal(plan.peer.host6):
        found.append(
            (
                "peer",
                f"{plan.peer.host6} is not an IPv6 address: give the peer's "
                f"IPv6 address, or leave it empty.",
            )
        )
    if IpVersion.V6 in plan.ip_versions and is_ipv4_literal(plan.peer.host) and not plan.peer.host6:
        found.append(
            (
                "peer",
                f"{plan.peer.host} is an IPv4 address, but IPv6 is measured "
                f"too: give the peer's IPv6 address as well (or its name).",
            )
        )
    if IpVersion.V4 in plan.ip_versions and is_ipv6_literal(plan.peer.host):
        found.append(
            (
                "peer",
                f"{plan.peer.host} is an IPv6 address, but IPv4 is measured "
                f"too: give the peer's name or its IPv4 address.",
            )
        )
    for port_field, port in (
        ("port", plan.peer.iperf3_port),
        ("netperf_port", plan.peer.netperf_port),
    ):
        try:
            check_port(port)
        except BadOption as err:
            found.append((port_field, err.sentence))
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
    check(1 <= plan.duration_s <= 3600, "duration", "Seconds per run must be between 1 and 3600.")
    check(
        0 <= plan.omit_s <= 600 and plan.omit_s < max(plan.duration_s, 1),
        "omit",
        "The warm-up (omit) must be between 0 and 600 s and shorter than the run.",
    )
    check(0 <= plan.pause_s <= 3600, "pause", "The pause between runs must be 0..3600 s.")
    check(0.1 <= plan.interval_s <= 60, "interval", "The report interval must be 0.1..60 s.")
    check(1 <= plan.parallel <= 128, "parallel", "Parallel streams must be between 1 and 128.")
    check(
        0 <= plan.bitrate_bps <= 10**14,
        "bitrate",
        "The UDP bitrate must be 0 (unlimited) or a positive rate.",
    )
    check(
        1 <= plan.max_consecutive_failures <= 1000,
        "max_consecutive_failures",
        "Allowed consecutive failures must be between 1 and 1000.",
    )
    check(bool(plan.metrics), "metrics", "Choose at least one metric: throughput, RTT or CPU.")
    check(
        Metric.RTT not in plan.metrics or plan.engine is Engine.NETPERF,
        "metrics",
        "Round-trip time is measured with netperf's request/response test: choose the "
        "netperf engine, or leave RTT out.",
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
    from app.study.plan_checks import value_problems  # checks of the swept values

    found.extend(value_problems(plan))
    return found


def validate_plan(plan: Plan) -> None:
    """Raise BadOption with the first problem's sentence (and all of them in detail)."""
    problems = plan_problems(plan)
    if problems:
        raise BadOption(problems[0][1], detail="; ".join(s for _, s in problems))
