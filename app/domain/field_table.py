"""The plan-field table: every setting of a plan described once (its name, how sentences and
the form call it, its unit and kind, the command line's option, the exercise's lock, whether
it can be swept, its neutral value, which engine limit bounds it), with the vocabulary of a
field of names where the table reads it (the DSCP marks: the Wi-Fi access categories as RFC
8325 maps them, the DSCP classes, or a number 0-63)."""

from __future__ import annotations

from collections.abc import Mapping

from app.domain.field_types import Cli, Kind, PlanField
from app.domain.plan import DEFAULT_ECHO_PORT, Order, Variable

#: The Wi-Fi access categories by the DSCP RFC 8325 maps each to (section 4.3).
ACCESS_CATEGORIES: Mapping[str, int] = {"BK": 8, "BE": 0, "VI": 34, "VO": 46}
#: The DSCP classes by name (RFC 2474's class selectors, RFC 2597's AF, RFC 3246's EF).
DSCP_CLASSES: Mapping[str, int] = {
    **{f"CS{n}": 8 * n for n in range(8)},
    **{f"AF{c}{d}": 8 * c + 2 * d for c in range(1, 5) for d in range(1, 4)},
    "EF": 46,
}


def dscp_name(text: str) -> str:
    """A DSCP mark as a plan keeps it: an access category or class in capitals ("VO",
    "AF41"), or a number 0-63 ("46"); ValueError says what is wrong."""
    word = text.strip().upper()
    if word in ACCESS_CATEGORIES or word in DSCP_CLASSES:
        return word
    if word.isdigit() and int(word) <= 63:
        return str(int(word))
    raise ValueError(
        f"{text!r} is no DSCP mark: write an access category (BK, BE, VI, VO), a class "
        f"(CS1, AF41, EF) or a number 0-63"
    )


def dscp_code(name: str) -> int:
    """The DSCP (0-63) of a mark as the plan keeps it."""
    word = dscp_name(name)
    codes = {**ACCESS_CATEGORIES, **DSCP_CLASSES}
    return codes[word] if word in codes else int(word)


def tos_byte(name: str) -> int:
    """The IP TOS byte (IPv6: traffic class) of a mark, as the engines' options take it: the
    DSCP in its upper six bits, the two ECN bits left clear."""
    return dscp_code(name) << 2


PLAN_FIELDS: tuple[PlanField, ...] = (
    PlanField("engine", "engine", "engine", Kind.CHOICE, lock="engine", lock_words="the engine"),
    PlanField(
        "protocols",
        "protocol",
        "protocols",
        Kind.CHOICES,
        lock="protocol",
        lock_words="the protocols",
    ),
    PlanField(
        "ip_versions",
        "IP version",
        "ip_versions",
        Kind.CHOICES,
        lock="ip",
        lock_words="the IP versions",
    ),
    PlanField(
        "direction",
        "direction",
        "direction",
        Kind.CHOICE,
        lock="direction",
        lock_words="the direction",
    ),
    PlanField(
        "variable",
        "what is swept",
        "variable",
        Kind.CHOICE,
        lock="vary",
        lock_words="the swept variable",
    ),
    PlanField("values", "values", "values", lock="sizes", lock_words="the swept values"),
    PlanField(
        "repetitions",
        "runs per point",
        "repetitions",
        Kind.COUNT,
        cli=Cli("--runs", "N", "runs per point", 1, 1000),
        lock="runs",
        lock_words="the runs per point",
    ),
    PlanField(
        "duration_s",
        "seconds per run",
        "duration",
        Kind.COUNT,
        "s",
        cli=Cli("--duration", "S", "seconds per run"),
        lock="duration",
        lock_words="the seconds per run",
        variable=Variable.DURATION,
        sweep_label="Run duration",
        swept_words="Run durations",
        limit="duration_s",
        run=True,
        sweep_range=(10, 60, 10),
        confound="short runs weigh the start of TCP's ramp-up more.",
        confound_words="run duration",
    ),
    PlanField(
        "omit_s",
        "warm-up",
        "omit",
        Kind.COUNT,
        "s",
        cli=Cli("--omit", "S", "warm-up seconds"),
        lock="omit",
        lock_words="the warm-up seconds",
        form_label="Warm-up (omit)",
        neutral=0,
        limit="omit_s",
        tip="Warm-up seconds left out of the results ({omit}).",
        clear_hint="set it to 0",
    ),
    PlanField(
        "pause_s",
        "pause between runs",
        "pause",
        Kind.DECIMAL,
        "s",
        cli=Cli("--pause", "S", "", 0, 3600),
        lock="pause",
        lock_words="the pause between runs",
        tip="A pause between runs, to let the link settle.",
    ),
    PlanField(
        "order",
        "order",
        "order",
        Kind.CHOICE,
        lock="order",
        lock_words="the run order",
        choices=(
            (Order.SEQUENTIAL, "Sequential"),
            (Order.INTERLEAVED, "Interleaved across series"),
            (Order.SHUFFLED, "Shuffled"),
        ),
        tip="The order of runs: interleaved alternates the series run by run, "
        "so drift in the link hits every series alike.",
    ),
    PlanField(
        "metrics",
        "metrics",
        "metrics",
        Kind.CHOICES,
        lock="metric",
        lock_words="the metrics",
        form_keys=("metrics", "rtt"),
    ),
    PlanField(
        "length",
        "packet size",
        "length",
        Kind.SIZE,
        "B",
        cli=Cli("--length", "BYTES", "fixed size when not swept"),
        lock="length",
        lock_words="the packet size",
        form_label="Packet size (when not swept)",
        variable=Variable.LENGTH,
        sweep_label="Packet size",
        run=True,
        sweep_range=(128, 1408, 256),
        placeholder="engine default",
        example="1408 or 64K",
        tip="The packet (write) size held fixed while something else is swept ({length}), "
        "e.g. 1408 or 64K.",
        confound="per-packet overhead weighs more on small packets.",
    ),
    PlanField(
        "window",
        "TCP window",
        "window",
        Kind.SIZE,
        "B",
        cli=Cli("--window", "BYTES"),
        lock="window",
        lock_words="the TCP window",
        variable=Variable.WINDOW,
        sweep_label="TCP window",
        swept_words="A TCP window",
        limit="window",
        clear_hint="clear the window",
        run=True,
        sweep_range=(2048, 524288, 0),
        placeholder="system default",
        example="64K or 262144",
        tip="TCP window / socket buffer size ({window}), e.g. 64K.",
        confound="the window caps TCP.",
    ),
    PlanField(
        "parallel",
        "parallel streams",
        "parallel",
        Kind.COUNT,
        cli=Cli("--parallel", "N"),
        lock="parallel",
        lock_words="the parallel streams",
        variable=Variable.PARALLEL,
        sweep_label="Parallel streams",
        swept_words="Parallel streams",
        neutral=1,
        limit="parallel",
        clear_hint="set them to 1",
        run=True,
        sweep_range=(1, 8, 1),
        tip="Parallel streams per run ({parallel}).",
        confound="several streams fill a link differently from one.",
    ),
    PlanField(
        "bitrate_bps",
        "UDP bitrate",
        "bitrate",
        Kind.RATE,
        "bit/s",
        cli=Cli("--bitrate", "RATE", "UDP target (0 = unlimited)"),
        lock="bitrate",
        lock_words="the UDP bitrate",
        variable=Variable.BITRATE,
        sweep_label="Target bitrate",
        swept_words="Bitrates",
        neutral=0,
        limit="bitrate_bps",
        clear_hint="set it to 0",
        confound="UDP throughput follows the rate it is sent at.",
        udp_only=True,
        run=True,
        sweep_range=(10_000_000, 100_000_000, 10_000_000),
        placeholder="unlimited",
        example="30M or 1G",
        tip="UDP target bitrate ({bitrate}): empty (or 0) sends as fast as possible, e.g. 30M "
        "for 30 Mbit/s.",
    ),
    PlanField(
        "congestion",
        "TCP congestion control",
        "congestion",
        Kind.NAME,
        cli=Cli("--congestion", "NAME", "TCP congestion control (cubic, bbr, reno, …)"),
        lock="congestion",
        lock_words="the TCP congestion control",
        variable=Variable.CONGESTION,
        sweep_label="Congestion control",
        limit="congestion",
        clear_hint="clear it",
        confound="congestion controls share a link and fill queues differently.",
        tcp_only=True,
        run=True,
        examples=("cubic", "reno"),
        placeholder="system default",
        tip="TCP's congestion control by name ({congestion}), e.g. bbr, "
        "cubic or reno: one the systems at both ends have.",
    ),
    PlanField(
        "dscp",
        "DSCP / access category",
        "dscp",
        Kind.NAME,
        cli=Cli(
            "--dscp",
            "MARK",
            "the DSCP mark of the test traffic: a Wi-Fi access category (BK, BE, VI, VO, "
            "as RFC 8325 maps them), a class (CS1, AF41, EF) or a number 0-63",
        ),
        lock="dscp",
        lock_words="the DSCP mark",
        variable=Variable.DSCP,
        sweep_label="DSCP / access category",
        clear_hint="clear it",
        confound="a network may queue, police or re-mark each DSCP class differently.",
        confound_words="DSCP mark",
        run=True,
        examples=("BK", "BE", "VI", "VO"),
        parse=dscp_name,
        engine_value=tos_byte,
        placeholder="unmarked",
        tip="The DSCP mark of the test traffic (its IP TOS / traffic class): a Wi-Fi access "
        "category as RFC 8325 maps it, BK background (CS1), BE best effort (0), VI video "
        "(AF41), VO voice (EF); a class name such as AF21; or a number 0-63. Empty: "
        "unmarked, as the system sends.",
    ),
    PlanField(
        "",
        "emulated loss",
        "loss",
        Kind.COUNT,
        "%",
        variable=Variable.LOSS,
        sweep_label="Emulated loss",
        sweep_range=(0, 25, 5),
    ),
    # A monitor sweeps nothing: one flow over time until stopped (app.study.sweep.monitor).
    PlanField("", "nothing swept", "monitor", variable=Variable.NONE, sweep_label="Monitor"),
    PlanField(
        "interval_s",
        "report interval",
        "interval",
        Kind.DECIMAL,
        "s",
        limit="interval_s",
        tip="How often the engine reports ({interval}).",
    ),
    # Early stop is off (None) or a share and a number of runs: a check box and the two
    # numbers below, each drawn from its part (the share shown in per cent, as it is set).
    PlanField(
        "early_stop",
        "early stop",
        "early_stop",
        form_label="Stop a point early when precise enough",
        tip="Stop repeating a point once its 95 % confidence interval "
        "is within the chosen share of the mean.",
        parts=(
            PlanField(
                "early_stop.relative_ci",
                "early-stop precision",
                "early_fraction",
                Kind.DECIMAL,
                "% of the mean",
                bounds=(0.1, 50),
                start=2.0,
                tip="The confidence-interval target for early stop.",
            ),
            PlanField(
                "early_stop.min_runs",
                "early-stop minimum runs",
                "early_min",
                Kind.COUNT,
                bounds=(2, 1000),
                start=5,
                tip="Runs a point always gets before it may stop early.",
            ),
        ),
    ),
    PlanField(
        "max_consecutive_failures",
        "consecutive failures allowed",
        "max_consecutive_failures",
        Kind.COUNT,
        form_label="Failures in a row allowed",
        bounds=(1, 1000),
        tip="After this many failed runs in a row the session stops (a peer that went away).",
    ),
    PlanField(
        "concurrent",
        "series at the same time",
        "concurrent",
        Kind.FLAG,
        lock="concurrent",
        lock_words="running the series at the same time",
        form_label="Run the series at the same time",
        tip="TCP and UDP (or IPv4 and IPv6) share the link at once, each against its own "
        "{main_server} on consecutive ports (linklab serve --count 2 on the peer): shows how "
        "the link is divided.",
    ),
    PlanField(
        "clocks_synchronised",
        "clocks synchronised",
        "clocks_synchronised",
        Kind.FLAG,
        cli=Cli(
            "--clocks-synchronised",
            help="state that both computers' clocks are synchronised (PTP, NTP): {owd_engine} "
            "then measures the one-way delay ({owd_option})",
        ),
        lock="clocks-synchronised",
        lock_words="the stated clock synchronisation",
        tip="State that the clocks of this computer and the peer are synchronised (PTP, or "
        "NTP to a common server): {owd_engine} then measures the one-way delay, each packet's "
        "arrival time less its send time ({owd_option}). That difference reads one clock "
        "against the other, so unsynchronised clocks give a figure off by their offset; "
        "left off, no one-way delay is measured.",
    ),
    PlanField(
        "seed",
        "shuffle seed",
        "seed",
        Kind.COUNT,
        bounds=(0, 2**31 - 1),
        tip="The seed of the shuffled order: the same seed gives the same order again.",
    ),
    PlanField("name", "name", "name", Kind.TEXT),
    # The peer's: where its latency responder listens (the peer itself is described elsewhere).
    PlanField(
        "peer.echo_port",
        "latency responder port",
        "echo_port",
        Kind.COUNT,
        bounds=(1, 65535),
        start=DEFAULT_ECHO_PORT,
        tip="The UDP port of LinkLab's latency responder on the peer (linklab serve "
        "--echo-port), for working latency. Against this computer LinkLab runs its own, "
        "on this port when it is free.",
    ),
    # Conditions the user states: lockable by an exercise, described elsewhere.
    PlanField(
        "conditions.security",
        "security",
        "security",
        lock="security",
        lock_words="the stated security",
    ),
    PlanField(
        "conditions.medium", "medium", "medium", lock="medium", lock_words="the stated medium"
    ),
    PlanField(
        "conditions.link_rate_bps",
        "link rate",
        "link_rate",
        lock="link-rate",
        lock_words="the stated link rate",
    ),
    PlanField(
        "conditions.frame_overhead",
        "frame overhead",
        "frame_overhead",
        lock="frame-overhead",
        lock_words="the frame overhead",
        form_label="Frame overhead (bytes)",
    ),
)
