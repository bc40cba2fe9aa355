"""`linklab responsiveness`: how responsive a link stays under load, printed the way Apple's
networkQuality prints it (or as JSON), and kept in the database like a session."""

from __future__ import annotations

import argparse
import json
import signal
from types import FrameType
from typing import TextIO

from app.cli.args import EXIT_CODES_HELP, EXIT_OK, add_port_arguments, number, peer_ports
from app.cli.environment import Environment
from app.cli.study_cmds import add_db_argument
from app.domain.plan import Peer
from app.domain.stream import drive
from app.domain.units import counted, format_rate
from app.engine.drivers.registry import registry, responsiveness_driver
from app.engine.lan.validate import validate_host
from app.engine.latency.echo import DEFAULT_ECHO_PORT
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.results import (
    MAX_FLOWS,
    IdleMeasured,
    LoadResult,
    Phase,
    PhaseStarted,
    ResponsivenessEvent,
    ResponsivenessResult,
    ResponsivenessSettings,
    StepMeasured,
    TestStarted,
)
from app.study.responsiveness.run import ResponsivenessTest

#: Names that mean this computer, measured against LinkLab's own servers on the loopback.
THIS_COMPUTER_NAMES = ("this-computer", "localhost")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    loads = responsiveness_driver()  # the engine whose parallel flows load the link
    cmd = sub.add_parser(
        "responsiveness",
        help="how responsive the link stays under load: idle and working latency, RPM, rating",
        description="Idle latency, then download, upload and both at once, each loaded with "
        f"parallel TCP flows ({loads.label}) added one per step until goodput and latency are "
        "stable, while LinkLab's prober measures the working latency. Rated as in "
        "draft-ietf-ippm-responsiveness: RPM = 60000 / working latency in ms; Poor < 300, "
        "Fair < 1000, Good <= 6000 < Excellent.",
        epilog=EXIT_CODES_HELP,
    )
    cmd.add_argument(
        "--peer",
        required=True,
        metavar="HOST",
        help=f"the computer running `linklab serve` (or {loads.server_command}); this-computer or "
        "localhost: this computer, with LinkLab's own servers on its loopback",
    )
    add_port_arguments(cmd)
    cmd.add_argument(
        "--echo-port",
        type=number(int, 1, 65535),
        default=DEFAULT_ECHO_PORT,
        metavar="N",
        help=f"UDP port of LinkLab's latency responder on the peer (default {DEFAULT_ECHO_PORT})",
    )
    cmd.add_argument(
        "--max-flows",
        type=number(int, 1, 64),
        default=MAX_FLOWS,
        metavar="N",
        help=f"the most parallel TCP flows per direction (default {MAX_FLOWS})",
    )
    cmd.add_argument(
        "--phase-seconds",
        type=number(float, 1, 600),
        default=ResponsivenessSettings.phase_s,
        metavar="S",
        help="the longest each load phase runs (default %(default)g)",
    )
    cmd.add_argument(
        "--step-seconds",
        type=number(int, 1, 60),
        default=ResponsivenessSettings.step_s,
        metavar="S",
        help="seconds before the ramp adds a flow (default %(default)s)",
    )
    cmd.add_argument(
        "--idle-seconds",
        type=number(float, 0.5, 60),
        default=ResponsivenessSettings.idle_s,
        metavar="S",
        help="seconds of idle latency first (default %(default)g)",
    )
    cmd.add_argument("--no-both", action="store_true", help="leave out download and upload at once")
    cmd.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_db_argument(cmd)
    cmd.set_defaults(handler=cmd_responsiveness)


def peer_from_args(args: argparse.Namespace) -> Peer:
    if args.peer.strip().lower() in THIS_COMPUTER_NAMES:
        return Peer.this_computer()
    host = validate_host(args.peer.strip(), "peer")
    return Peer(host, peer_ports(args))


class ProgressLines:
    """The test's progress on stderr, one line per step."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def __call__(self, event: ResponsivenessEvent) -> None:
        if isinstance(event, TestStarted):
            self._say(event.method_sentence)
        elif isinstance(event, PhaseStarted):
            self._say(f"{event.phase.label}…")
        elif isinstance(event, IdleMeasured):
            self._say(f"  idle latency {event.latency_ms:.2f} ms ({event.answered} probes)")
        elif isinstance(event, StepMeasured):
            step = event.step
            latency = f"{step.latency_ms:.2f} ms" if step.latency_ms is not None else "no reply"
            stable = " (stable)" if event.goodput_stable and event.latency_stable else ""
            # The colons aligned: "  1 flow:", "16 flows:".
            flows = f"{counted(step.flows, 'flow'):>8}"
            rate = format_rate(step.goodput_bps)
            self._say(f"  {flows}: {rate}, latency {latency}{stable}")

    def _say(self, line: str) -> None:
        print(line, file=self._out, flush=True)


def _load_line(name: str, load: LoadResult | None) -> list[str]:
    if load is None:
        return []
    latency = (
        f"{load.loaded_latency_ms:.2f} ms"
        if load.loaded_latency_ms is not None
        else "no probe came back"
    )
    rpm = f"{load.rpm:,.0f} RPM" if load.rpm is not None else "- RPM"
    return [
        f"{name} responsiveness: {load.rating.value} ({latency} | {rpm}), "
        f"confidence {load.confidence.value}",
        f"{name} capacity: {format_rate(load.goodput_bps)} with {load.flows} flows",
    ]


def print_result(result: ResponsivenessResult, out: TextIO) -> None:
    lines = ["==== SUMMARY ===="]
    lines += _load_line("Downlink", result.load(Phase.DOWNLOAD))
    lines += _load_line("Uplink", result.load(Phase.UPLOAD))
    both = result.load(Phase.BOTH)
    if both is not None:
        lines += _load_line("Both-ways", both)
    lines.append(f"Idle latency: {result.idle_latency_ms:.2f} ms")
    lines.append(result.method_sentence)
    lines += list(result.notes)
    print("\n".join(lines), file=out)


def _stop_on_signals(test: ResponsivenessTest) -> None:
    def stop(signum: int, _frame: FrameType | None) -> None:
        if test.stopping and signum == signal.SIGINT:
            raise KeyboardInterrupt
        test.stop()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def cmd_responsiveness(args: argparse.Namespace, env: Environment) -> int:
    peer = peer_from_args(args)
    settings = ResponsivenessSettings(
        max_flows=args.max_flows,
        phase_s=max(args.phase_seconds, args.step_seconds),
        step_s=args.step_seconds,
        idle_s=args.idle_seconds,
        both=not args.no_both,
    )
    door = FrontDoor(env.db(getattr(args, "db", None)), drivers=registry(env.engine_settings))
    test = door.responsiveness(peer, settings, echo_port=args.echo_port)
    _stop_on_signals(test)
    try:
        result = drive(test.events(), ProgressLines(env.stderr))
    finally:
        door.loopback.stop()
    kept = door.results().keep(result, settings)
    print(
        f"Kept as {kept.short_id} (“{kept.name}”): `linklab sessions show {kept.short_id}` "
        f"shows it, `linklab export {kept.short_id} --format csv|json|png|html` exports it.",
        file=env.stderr,
    )
    if args.json:
        print(json.dumps({**result.to_dict(), "session_id": kept.id}, indent=2), file=env.stdout)
    else:
        print_result(result, env.stdout)
    return EXIT_OK
