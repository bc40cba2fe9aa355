"""`linklab monitor`: one flow against a peer until Ctrl+C, a line per interval; the monitor
is stored as a session (every interval), as the window's Monitor stores it."""

from __future__ import annotations

import argparse
import time
from typing import TextIO

from app.analysis.monitor_trace import flow_name
from app.cli.args import EXIT_OK, add_port_arguments, number, peer_ports
from app.cli.environment import Environment
from app.cli.study_cmds import (
    THIS_COMPUTER_ARG,
    _install_stop,
    add_condition_arguments,
    add_db_argument,
    left_to_detection,
    open_door,
    stated_conditions,
)
from app.domain.errors import BadOption
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Conditions, Peer
from app.domain.records import status_words
from app.domain.stream import drive
from app.domain.units import format_rate, parse_rate
from app.study.sweep.describe import clock_text
from app.study.sweep.events import (
    LatencyNote,
    MonitorResumed,
    MonitorWaiting,
    RunFailed,
    RunStarted,
    SampleArrived,
    ServerNote,
    SessionFinished,
    SessionStarted,
    StudyEvent,
    StudyPrepared,
)
from app.study.sweep.monitor import DEFAULT_RUN_S, MAX_RUN_S, UDP_RUN_S, monitor_plan
from app.study.sweep.plan_checks import validate_plan


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "monitor",
        help="measure one flow until Ctrl+C, a line per interval, stored as a session",
        description="Runs one flow (TCP or UDP; upload, download or both at once) against "
        "the peer until Ctrl+C, as engine runs chained back to back, printing a line per "
        "interval. A peer that stops answering is tried again until it answers. Every "
        "interval is stored: the monitor is a session (`linklab sessions`, `linklab export`).",
    )
    cmd.add_argument(
        "--peer",
        metavar="HOST",
        required=True,
        help=f"the computer to measure against ({THIS_COMPUTER_ARG}: this computer, with "
        f"LinkLab's own servers on its loopback)",
    )
    cmd.add_argument("--protocol", choices=("tcp", "udp"), default="tcp")
    cmd.add_argument("--direction", choices=("up", "down", "bidir"), default="up")
    cmd.add_argument("--ip", choices=("4", "6"), default="4", help="the IP version (default 4)")
    cmd.add_argument(
        "--bitrate", metavar="RATE", default="100M", help="a UDP flow's rate (default 100M)"
    )
    cmd.add_argument("--latency", action="store_true", help="measure working latency too")
    cmd.add_argument(
        "--interval",
        type=number(float, 0.1, 60.0),
        default=1.0,
        metavar="S",
        help="seconds per interval (default 1)",
    )
    cmd.add_argument(
        "--run-seconds",
        type=number(int, 2, MAX_RUN_S),
        metavar="S",
        help=f"seconds per chained run (default {DEFAULT_RUN_S}, a UDP flow {UDP_RUN_S})",
    )
    add_port_arguments(cmd)
    add_condition_arguments(cmd)
    add_db_argument(cmd)
    cmd.set_defaults(handler=cmd_monitor)


def cmd_monitor(args: argparse.Namespace, env: Environment) -> int:
    protocol = Protocol(args.protocol)
    try:
        bitrate = parse_rate(args.bitrate) if protocol is Protocol.UDP else 0
    except ValueError as err:
        raise BadOption(f"argument --bitrate: {err}.") from None
    if args.peer == THIS_COMPUTER_ARG:
        peer = Peer.this_computer(peer_ports(args))
    else:
        peer = Peer(args.peer, peer_ports(args))
    plan = monitor_plan(
        peer,
        protocol=protocol,
        ip_version=IpVersion(int(args.ip)),
        direction=Direction(args.direction),
        run_s=args.run_seconds or (UDP_RUN_S if protocol is Protocol.UDP else DEFAULT_RUN_S),
        bitrate_bps=bitrate,
        latency=args.latency,
        interval_s=args.interval,
        conditions=stated_conditions(args, Conditions()),
    )
    detect = left_to_detection(args)  # the medium and rate no flag states, as `run` detects
    validate_plan(plan, detect=detect)
    door = open_door(args, env)
    try:
        studies = door.studies()
        study = studies.start(studies.prepare(plan, detect=detect))
        _install_stop(study)
        drive(study.events(), IntervalPrinter(env.stdout, env.stderr))
    finally:
        door.loopback.stop()
    return EXIT_OK


class IntervalPrinter:
    """A line per interval on `out` ('0:05  upload  94.1 Mbit/s  retransmits 0'); what
    happens to the monitor on `notes`."""

    def __init__(self, out: TextIO, notes: TextIO) -> None:
        self._out = out
        self._notes = notes
        self._t0 = time.monotonic()
        self._offset = 0.0
        self._protocol = Protocol.TCP

    def _note(self, text: str) -> None:
        print(text, file=self._notes, flush=True)

    def __call__(self, event: StudyEvent) -> None:
        if isinstance(event, StudyPrepared):
            self._protocol = event.plan.protocols[0]
            for note in event.notes:
                self._note(note)
        elif isinstance(event, SessionStarted):
            self._t0 = time.monotonic()
            self._note(f"Monitor {event.session_id[:8]} started: Ctrl+C stops it.")
        elif isinstance(event, RunStarted):
            self._offset = time.monotonic() - self._t0
        elif isinstance(event, SampleArrived):
            self._interval(event)
        elif isinstance(event, RunFailed) and event.will_retry:
            self._note(f"Note: {event.retry_note}")
        elif isinstance(event, RunFailed):
            self._note(f"Run {event.key.repetition} failed: {event.sentence}")
        elif isinstance(event, MonitorWaiting | MonitorResumed | LatencyNote | ServerNote):
            self._note(event.sentence)
        elif isinstance(event, SessionFinished):
            words = status_words(event.status, event.runs_failed)  # as sessions lists it
            self._note(f"Monitor saved as session {event.session_id[:8]} ({words}). {event.reason}")

    def _interval(self, event: SampleArrived) -> None:
        sample = event.sample
        # What the receiver got, or said as the sender's rate (as the window's legend says).
        rate = sample.received_bps
        words = [clock_text(self._offset + sample.end_s), flow_name(sample.flow)]
        if rate is not None:
            words.append(format_rate(rate))
        elif sample.sent_bps is not None:
            words.append(f"{format_rate(sample.sent_bps)} sent")
        if sample.retransmits is not None:
            words.append(f"retransmits {sample.retransmits}")
        if sample.lost_packets is not None and sample.packets:
            words.append(f"loss {100.0 * sample.lost_packets / sample.packets:.2f} %")
        if sample.rtt_ms is not None:
            words.append(f"rtt {sample.rtt_ms:.2f} ms")
        print("  ".join(words), file=self._out, flush=True)
