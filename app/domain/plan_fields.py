"""Every setting of a plan described once: its name, how sentences and the form call it, its
unit and kind, the command line's option, the exercise's lock, whether it can be swept, its
neutral value and which engine limit bounds it. The form, the command line, the plan codec,
the descriptions, the applicability rules, the exercise locks and the confounds read it."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from app.domain.dscp import dscp_name
from app.domain.plan import Plan, Variable


class Kind(StrEnum):
    CHOICE = "choice"  # one of an enum's values
    CHOICES = "choices"  # several of them
    COUNT = "count"  # a whole number
    DECIMAL = "decimal"  # a number with decimals
    SIZE = "size"  # bytes, K/M in 1024s; None: the engine's default
    RATE = "rate"  # bit/s, K/M/G in 1000s
    NAME = "name"  # a word chosen from what the system has (a congestion control)
    FLAG = "flag"  # yes or no
    TEXT = "text"
    OTHER = "other"  # a structure of its own (values, early stop)


@dataclass(frozen=True)
class Cli:
    """The option of `linklab run` that sets the field."""

    flag: str
    metavar: str = ""
    help: str = ""
    low: float | None = None  # bounds, where no engine limit gives them
    high: float | None = None


@dataclass(frozen=True)
class PlanField:
    name: str  # the plan's attribute ("conditions.security" for a stated condition; "" none)
    words: str  # in sentences: "TCP window"
    key: str  # the form's and the plan checks' name for it: "window"
    kind: Kind = Kind.OTHER
    unit: str = ""
    cli: Cli | None = None
    lock: str | None = None  # the exercise's lock (the `linklab run` option without dashes)
    lock_words: str = ""  # "the TCP window"
    form_keys: tuple[str, ...] = ()  # the form's fields a lock greys out (default: key)
    form_label: str = ""  # the form's label where it differs from the words
    variable: Variable | None = None  # when the field can be swept
    sweep_label: str = ""  # the sweep choice's label: "Packet size"
    swept_words: str = ""  # the swept values' check: "A TCP window must be …"
    neutral: object = None  # the value that asks nothing of the engine
    limit: str | None = None  # the engines' Limits attribute (None: any engine takes it)
    clear_hint: str = ""  # how to ask nothing: "clear the window", "set them to 1"
    missing: str = ""  # why an engine without it cannot take it ({name}, {engines})
    confound: str = ""  # why sessions differing in it may not compare
    confound_words: str = ""  # what the confound calls it, where not the words
    udp_only: bool = False  # only UDP runs have it (a fixed value; a swept one reaches all)
    tcp_only: bool = False  # only TCP runs have it, fixed or swept
    run: bool = False  # an engine setting of each run (app.domain.run_settings.RunSettings)
    examples: tuple[str, ...] = ()  # for a field of names: the values a new sweep starts with
    sweep_range: tuple[int, int, int] = (0, 0, 0)  # a new sweep's from, to, step (0: doubling)
    #: A name's own reading: the value as the plan keeps it; ValueError says what is wrong.
    parse: Callable[[str], str] | None = None
    placeholder: str = ""  # the form's empty field: "system default"
    example: str = ""  # values as the form's sentence for a wrong one gives them: "64K or 262144"
    bounds: tuple[int, int] | None = None  # a number's range where no limit or option gives one
    tip: str = ""  # the form's tooltip, where the command line's help is not enough

    @property
    def label(self) -> str:
        """The form's label: "TCP window", "Warm-up (omit)"."""
        return self.form_label or self.words[:1].upper() + self.words[1:]

    @property
    def locked_keys(self) -> tuple[str, ...]:
        return self.form_keys or (self.key,)

    @property
    def attributes(self) -> tuple[str, ...]:
        return (self.name,) if self.name else ()


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
    PlanField("order", "order", "order", Kind.CHOICE, lock="order", lock_words="the run order"),
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
        example="0, 30M or 1G",
        tip="UDP target bitrate ({bitrate}): 0 sends as fast as possible, e.g. 30M for 30 Mbit/s.",
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
    PlanField("early_stop", "early stop", "early_stop"),
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

#: The plan's own fields (not its stated conditions), by attribute.
BY_NAME: Mapping[str, PlanField] = {
    f.name: f for f in PLAN_FIELDS if f.name and not f.name.startswith("conditions.")
}
BY_KEY: Mapping[str, PlanField] = {f.key: f for f in PLAN_FIELDS}
#: What each variable sweeps.
SWEPT: Mapping[Variable, PlanField] = {f.variable: f for f in PLAN_FIELDS if f.variable}
#: The settings an engine may lack: each driver says how it passes them, or why it cannot.
ENGINE_SETTINGS: tuple[PlanField, ...] = tuple(f for f in PLAN_FIELDS if f.clear_hint)
#: The engine settings of each run, as app.domain.run_settings.RunSettings holds them.
RUN_FIELDS: tuple[PlanField, ...] = tuple(f for f in PLAN_FIELDS if f.run)
#: Each variable's label and unit, as the sweep choice and the charts' axes read them.
VARIABLE_LABELS: Mapping[Variable, tuple[str, str]] = {
    variable: (SWEPT[variable].sweep_label, SWEPT[variable].unit) for variable in Variable
}


def label_words(label: str) -> str:
    """A variable's label as a sentence says it: 'packet size'; an acronym keeps its
    capitals: 'DSCP / access category', 'TCP window'."""
    return label if label[:2].isupper() else label.lower()


def variable_words(variable: Variable) -> str:
    """The variable's label as a sentence says it (see label_words)."""
    return label_words(VARIABLE_LABELS[variable][0])


def categorical(variable: Variable) -> bool:
    """Whether the variable's values are names (charted as categories), not numbers."""
    return SWEPT[variable].kind is Kind.NAME


def x_of(plan: Plan, value: float | str) -> float:
    """Where a value sits on a chart's x axis: the number, or a name's place in the sweep."""
    if isinstance(value, str):
        return float(plan.values.index(value)) if value in plan.values else 0.0
    return float(value)


def categories(plan: Plan) -> list[str] | None:
    """The names along the x axis of a sweep over names, in the plan's order; else None."""
    return [str(v) for v in plan.values] if categorical(plan.variable) else None


#: A name the system knows a setting by ("cubic", "bbr"): as the plan codec accepts one.
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")


def parse_names(text: str) -> list[str]:
    """'cubic, bbr,reno' -> ['cubic', 'bbr', 'reno']; ValueError naming one that is no name."""
    names = [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]
    for name in names:
        if not NAME.match(name):
            raise ValueError(f"{name!r} is not a name such as cubic (letters, digits, _ . -)")
    return list(dict.fromkeys(names))


def swept_names(variable: Variable, text: str) -> list[str]:
    """The names of a sweep over names, each as its field reads it ("vo, bk" -> VO, BK for
    the DSCP mark); ValueError names one that is none."""
    parse = SWEPT[variable].parse
    return list(dict.fromkeys(parse(n) if parse else n for n in parse_names(text)))


def value_word(value: float | str) -> str:
    """A swept value as it is written: "1408", "2.5", "bbr"."""
    return value if isinstance(value, str) else f"{value:g}"


def point_text(variable: Variable, value: float | str) -> str:
    """One swept value as a person reads it: "1408 B", "4", "bbr"."""
    if isinstance(value, str):
        return value
    unit = VARIABLE_LABELS[variable][1]
    return f"{value:g} {unit}" if unit else f"{value:g}"


def where_set(key: str, flag: str = "") -> str:
    """Where a sentence sends the user to set a field: its label on the form, as shown there,
    and its `linklab run` option: "the UDP bitrate field, or --bitrate"."""
    field = BY_KEY[key]
    flag = flag or (field.cli.flag if field.cli is not None else "")
    return f"the {field.label} field" + (f", or {flag}" if flag else "")
