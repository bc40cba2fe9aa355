"""Argument converters shared by the commands: numbers in range, sizes, rates, lists."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from app.domain.errors import BadOption
from app.domain.plan_fields import PLAN_FIELDS, Kind
from app.domain.tags import TagError, parse_tag
from app.domain.units import parse_rate, parse_size
from app.engine.drivers import registry

#: What `linklab run` and `resume` (and every command) exit with: documented in --help and
#: the README. 3: the study completed but some of its runs failed.
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SOME_FAILED, EXIT_STOPPED = 0, 1, 2, 3, 130
EXIT_CODES_HELP = (
    "exit status: 0 every run ok (or the command succeeded); 1 failed: every run failed, the "
    "study was refused before its first run, or an error; 2 a wrong option or value; 3 the "
    "study completed but some runs failed; 130 stopped (Ctrl+C)"
)


def number(kind: Callable[[str], Any], low: float, high: float) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a valid number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is outside {low:g}..{high:g}")
        return value

    return convert


def person(kind: Callable[[str], str]) -> Callable[[str], str]:
    """A --student or --group value, bounded as everywhere a name is taken (student_name,
    group_name): refused with the sentence, never cut short."""

    def convert(text: str) -> str:
        try:
            return kind(text)
        except BadOption as err:
            raise argparse.ArgumentTypeError(err.sentence) from None

    return convert


def add_port_arguments(parser: argparse.ArgumentParser, first_help: str | None = None) -> None:
    """The port of each engine's server (--port for iperf3, --netserver-port, …), named the
    same by every command that reaches a peer; first_help replaces the first one's help (its
    {label}: that engine's port label)."""
    for index, driver in enumerate(registry.DRIVERS.values()):
        text = f"{driver.port_label} port (default {driver.default_port})"
        parser.add_argument(
            *driver.port_options,
            dest=driver.port_dest,
            type=number(int, 1, 65535),
            help=first_help.format(label=driver.port_label) if index == 0 and first_help else text,
        )


def peer_ports(args: argparse.Namespace) -> dict[str, int]:
    """The ports given on the command line, by the engines' port keys."""
    return {
        d.port_key: port
        for d in registry.DRIVERS.values()
        if (port := getattr(args, d.port_dest, None))
    }


def add_echo_port_argument(parser: argparse.ArgumentParser, text: str) -> None:
    """--echo-port: the UDP port of LinkLab's latency responder on the peer."""
    parser.add_argument("--echo-port", type=number(int, 1, 65535), metavar="N", help=text)


def within(span: str, kind: Callable[[str], Any] = int) -> Callable[[str], Any]:
    """A number within what some engine accepts for this setting (the chosen engine's own
    limit is checked with the plan): the limits come from the engines' drivers."""
    widest = registry.widest(span)
    return number(kind, widest.low, widest.high)


def add_field_options(parser: argparse.ArgumentParser) -> None:
    """The plan settings the command line sets one by one (--runs, --duration, --window, …),
    from the plan's field table: a number within what some engine accepts (the chosen
    engine's own limit is checked with the plan), a size, a rate or a name."""
    for field in PLAN_FIELDS:
        cli = field.cli
        if cli is None:
            continue
        kind: Callable[[str], Any]
        if field.kind is Kind.FLAG:
            # None when not given, so a plan file's or preset's value stands.
            parser.add_argument(
                cli.flag,
                dest=field.name,
                action="store_true",
                default=None,
                help=registry.phrased(cli.help),
            )
            continue
        if field.kind is Kind.SIZE:
            kind = size
        elif field.kind is Kind.RATE:
            kind = rate
        elif field.kind is Kind.NAME:
            kind = read_name(field.parse) if field.parse else str
        elif field.limit is not None:
            kind = within(field.limit, float if field.kind is Kind.DECIMAL else int)
        else:
            assert cli.low is not None and cli.high is not None
            kind = number(float if field.kind is Kind.DECIMAL else int, cli.low, cli.high)
        parser.add_argument(
            cli.flag,
            dest=field.name,
            type=kind,
            metavar=cli.metavar or None,
            help=registry.phrased(cli.help) or None,
        )


def read_name(parse: Callable[[str], str]) -> Callable[[str], str]:
    """A name as its field reads it, its refusal said as argparse says a wrong value."""

    def convert(text: str) -> str:
        try:
            return parse(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    return convert


def field_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The plan settings given as options, by the plan's attribute (None: not given)."""
    return {f.name: getattr(args, f.name, None) for f in PLAN_FIELDS if f.cli is not None}


def size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 1408, 64K or 2M") from None


def rate(text: str) -> int:
    try:
        return parse_rate(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate like 0, 100M or 1G") from None


def choices_list(allowed: tuple[str, ...]) -> Callable[[str], list[str]]:
    """'tcp,udp' -> ['tcp', 'udp'], each checked against allowed."""

    def convert(text: str) -> list[str]:
        items = [item.strip().lower() for item in text.split(",") if item.strip()]
        bad = [item for item in items if item not in allowed]
        if not items or bad:
            raise argparse.ArgumentTypeError(
                f"{text!r}: choose from {', '.join(allowed)} (comma-separated)"
            )
        return list(dict.fromkeys(items))

    return convert


def value_list(parse: Callable[[str], int]) -> Callable[[str], list[int]]:
    """'128:1408:256' (from:to:step, inclusive) or '128,384,1408' -> a list of values."""

    def convert(text: str) -> list[int]:
        try:
            if ":" in text:
                parts = text.split(":")
                if len(parts) != 3:
                    raise ValueError(text)
                start, stop, step = (parse(p) for p in parts)
                if step <= 0 or stop < start:
                    raise ValueError(text)
                if (stop - start) // step >= 1000:
                    raise argparse.ArgumentTypeError(f"{text!r} gives more than 1000 values")
                return list(range(start, stop + 1, step))
            return [parse(p) for p in text.split(",") if p.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a list like 128,384,1408 or a range like 128:1408:256"
            ) from None

    return convert


def key_value(text: str) -> tuple[str, str]:
    """A tag: KEY=VALUE, or a plain label (kept with an empty value)."""
    try:
        return parse_tag(text)
    except TagError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_submit_arguments(parser: argparse.ArgumentParser) -> None:
    """--submit, --token, --token-file and --no-submit: a step's runs pushed to the class's
    collector."""
    parser.add_argument(
        "--submit",
        metavar="URL",
        help="push each finished run and the answers to the class's collector at URL (default: "
        "the collector the exercise names)",
    )
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        help="the class token, with --submit (other users of this computer can see a command "
        "line: prefer --token-file or LINKLAB_CLASS_TOKEN)",
    )
    parser.add_argument(
        "--token-file", metavar="FILE", help="the class token's file, with --submit"
    )
    parser.add_argument(
        "--no-submit", action="store_true", help="do not push, even where the exercise says"
    )


def add_station_arguments(run: argparse.ArgumentParser) -> None:
    """--wait-for-start: a station of a class measuring together."""
    run.add_argument(
        "--wait-for-start",
        nargs="?",
        const=0,
        type=number(int, 0, 1000),
        metavar="N",
        help="with --exercise: check in with the class's collector and wait for the "
        "instructor's Start together, then measure each round with the other stations at "
        "once; again for every Start together until Ctrl+C (or N of them, then end)",
    )
