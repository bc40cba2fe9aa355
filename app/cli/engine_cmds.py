"""Engine commands: `linklab doctor`, `measure`, and the loopback demo (`serve` is serve_cmd)."""

from __future__ import annotations

import argparse
import getpass
import json
from functools import partial
from typing import Any

from app import __version__
from app.cli import db_doctor
from app.cli.args import EXIT_FAILED, EXIT_OK, add_port_arguments, number, rate, size, within
from app.cli.environment import Environment
from app.domain.errors import BadOption, LinkLabError
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Engine
from app.domain.results import Derivation, EngineMessage, FlowSummary, RunResult, Sample
from app.domain.units import format_rate, format_received
from app.engine.drivers.options import SingleRun
from app.engine.drivers.registry import (
    DRIVERS,
    PROGRAMS,
    default_driver,
    find_tool,
    main_server,
    password_variable,
    phrase,
    program_engine,
)
from app.engine.lan import netinfo
from app.engine.process.tools import EngineSettings, Tool
from app.engine.readings.run import EngineRun
from app.study.host.wifi_query import WifiTools
from app.study.host.wifi_reading import WifiReading


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    doctor = sub.add_parser(
        "doctor",
        help="show the engines, their capabilities and addresses; with --db, check the database",
    )
    doctor.add_argument("--json", action="store_true", help="print one JSON object")
    db_doctor.add_arguments(doctor)
    doctor.set_defaults(handler=cmd_doctor)

    measure = sub.add_parser("measure", help="one run against a peer, printed live")
    measure.add_argument("--peer", required=True, metavar="HOST")
    measure.add_argument(
        "--engine", choices=[engine.value for engine in DRIVERS], default=default_driver().name
    )
    add_port_arguments(measure)
    measure.add_argument("--protocol", choices=("tcp", "udp"), default="tcp")
    measure.add_argument("--ip", choices=("4", "6"), help="IP version (default: either)")
    measure.add_argument("--duration", type=within("duration_s"), default=5, metavar="S")
    measure.add_argument("--omit", type=within("omit_s"), default=0, metavar="S")
    measure.add_argument("--interval", type=within("interval_s", float), default=1.0, metavar="S")
    measure.add_argument("--length", type=size, metavar="BYTES", help="packet/write size")
    measure.add_argument("--window", type=size, metavar="BYTES", help="socket buffer size")
    measure.add_argument("--parallel", type=within("parallel"), default=1, metavar="N")
    measure.add_argument("--direction", choices=("up", "down", "bidir"), default="up")
    measure.add_argument("--bitrate", type=rate, metavar="RATE", help="UDP target, 0=unlimited")
    measure.add_argument("--connect-timeout", type=number(int, 100, 600_000), metavar="MS")
    measure.add_argument("--bind", metavar="ADDRESS")
    measure.add_argument("--username", help=phrase("username"))
    measure.add_argument("--rsa-public-key", metavar="FILE", help="the server's public key")
    measure.add_argument(
        "--test",
        choices=[test for d in DRIVERS.values() for test in d.run_tests],
        help=phrase("test"),
    )
    measure.add_argument(
        "--no-live", action="store_true", help=f"{phrase('no_live')}, no live intervals"
    )
    measure.add_argument("--json", action="store_true", help="print the result as JSON")
    measure.set_defaults(handler=cmd_measure)

    demo = sub.add_parser("demo", help="a short loopback measurement against a local server")
    demo.add_argument("--duration", type=number(int, 1, 60), default=3, metavar="S")
    demo.set_defaults(handler=cmd_demo)


# -- doctor ------------------------------------------------------------------------------------
def wifi_report(reading: WifiReading) -> dict[str, Any]:
    """One Wi-Fi interface as doctor reports it: the outcome, who said it, what to do, and the
    association where one was read."""
    info = reading.info
    return {
        "interface": reading.interface,
        "state": reading.state.value,
        "source": reading.source,
        "wireless": reading.wireless,
        "sentence": reading.sentence(),
        "needs_location": reading.needs_location,
        "security": reading.security,
        "association": info.to_dict() if info is not None else None,
        "facts": reading.facts(),
    }


def doctor_report(
    settings: EngineSettings | None = None, wifi: WifiTools | None = None
) -> dict[str, Any]:
    engines: dict[str, Any] = {}
    for name in PROGRAMS:
        try:
            tool = find_tool(name, settings=settings)
        except LinkLabError as err:
            engines[name] = {"found": False, "problem": err.sentence}
            continue
        driver = program_engine(name)
        client = driver is not None and driver.programs[0].name == name
        reported = driver.reported_capabilities if driver is not None and client else ()
        engines[name] = {
            "found": True,
            "path": tool.path,
            "source": tool.source.value,
            "version": tool.version_string,
            "version_text": tool.version_text,
            "capabilities": {str(cap): tool.has(cap) for cap in reported},
        }
        if driver is not None and name == driver.server_program and not driver.serve_optional:
            engines[name]["server_warning"] = driver.server_note(tool)
    return {
        "linklab": __version__,
        "engines": engines,
        "ipv6": netinfo.ipv6_available(),
        "addresses": [
            {"interface": a.interface, "address": a.address, "version": a.version, "scope": a.scope}
            for a in netinfo.local_addresses()
        ],
        "wifi": [wifi_report(reading) for reading in (wifi or WifiTools()).survey()],
    }


def _needed_found(report: dict[str, Any]) -> bool:
    """Whether the program LinkLab cannot do without (the default engine's) was found."""
    found: bool = report["engines"][default_driver().programs[0].name]["found"]
    return found


def cmd_doctor(args: argparse.Namespace, env: Environment) -> int:
    if args.db is not None:
        return db_doctor.cmd_db_doctor(args, env)
    if args.recover_to is not None:
        raise BadOption("--recover-to goes with --db: linklab doctor --db PATH --recover-to NEW")
    report = doctor_report(env.engine_settings, env.wifi)
    if args.json:
        print(json.dumps(report, indent=2), file=env.stdout)
        return EXIT_OK if _needed_found(report) else EXIT_FAILED
    print(f"LinkLab {report['linklab']}", file=env.stdout)
    for name, info in report["engines"].items():
        if not info["found"]:
            print(f"  {name:<10} missing: {info['problem']}", file=env.stdout)
            continue
        caps = ", ".join(c for c, ok in info["capabilities"].items() if ok) or "-"
        print(
            f"  {name:<10} {info['version']:<8} {info['path']} ({info['source']})", file=env.stdout
        )
        print(f"  {'':<10} capabilities: {caps}", file=env.stdout)
        if info.get("server_warning"):
            print(f"  {'':<10} note: {info['server_warning']}", file=env.stdout)
    print(f"  IPv6 on this computer: {'yes' if report['ipv6'] else 'no'}", file=env.stdout)
    print("  Addresses a peer can use:", file=env.stdout)
    for addr in report["addresses"] or [{"address": "(none: no network interface is up)"}]:
        where = f"  ({addr['interface']}, {addr['scope']})" if "interface" in addr else ""
        print(f"    {addr['address']}{where}", file=env.stdout)
    print("  Wi-Fi, as LinkLab reads it:", file=env.stdout)
    for wifi in report["wifi"]:
        print(f"    {wifi['sentence']}", file=env.stdout)
        if wifi["facts"]:
            print(f"      {', '.join(wifi['facts'])}", file=env.stdout)
    return EXIT_OK if _needed_found(report) else EXIT_FAILED


# -- measure -----------------------------------------------------------------------------------
def _password(args: argparse.Namespace, env: Environment) -> str | None:
    if args.username is None:
        return None
    variable = password_variable()
    if variable in env.variables:
        return env.variables[variable]
    if env.stdin.isatty():
        return getpass.getpass(f"{phrase('password')} for {args.username}: ", stream=env.stderr)
    return None


def prepare_run(args: argparse.Namespace, env: Environment) -> EngineRun:
    driver = type(DRIVERS[Engine(args.engine)])(env.engine_settings)
    run = SingleRun(
        host=args.peer,
        port=getattr(args, driver.port_dest) or args.port or driver.default_port,
        protocol=Protocol(args.protocol),
        ip_version=IpVersion(int(args.ip)) if args.ip else None,
        duration_s=args.duration,
        omit_s=args.omit,
        interval_s=args.interval,
        length=args.length,
        window=args.window,
        parallel=args.parallel,
        direction=Direction(args.direction),
        bitrate_bps=args.bitrate,
        connect_timeout_ms=args.connect_timeout,
        bind_address=args.bind,
        username=args.username,
        password=_password(args, env),
        rsa_public_key_path=args.rsa_public_key,
        test=args.test,
        live=not args.no_live,
    )
    handle = driver.single_run(run)
    assert isinstance(handle, EngineRun)
    return handle


def print_event(event: Sample | EngineMessage, env: Environment) -> None:
    if isinstance(event, Sample):
        note = " (warm-up, not counted)" if event.omitted else ""
        shown = format_received(event.received_bps, event.sent_bps)
        extra = f"  rtt {event.rtt_ms:.2f} ms" if event.rtt_ms is not None else ""
        if event.lost_packets is not None and event.packets:
            extra += f"  lost {event.lost_packets}/{event.packets}"
        arrow = "↑" if event.flow.value == "up" else "↓"
        print(
            f"  {event.start_s:6.2f}-{event.end_s:6.2f} s {arrow} {shown:>12}{extra}{note}",
            file=env.stdout,
        )
    env.stdout.flush()


def throughput_of(result: RunResult) -> str:
    """Whose count the run's throughput is: the receiver's as the engine stated it, the
    receiver's as LinkLab worked it out (how), or the sender's, where no receiver reported."""
    flows = result.summary.flows
    if any(flow.receiver_bps is None for flow in flows):
        return "sender"
    derived = [flow.receiver_derived for flow in flows if flow.receiver_derived is not None]
    return f"receiver, worked out from the {derived[0].value}" if derived else "receiver"


def received_words(flow: FlowSummary) -> str:
    """What the receiver got, as measure says it: the engine's own total, one worked out
    (and from what), or none, when only the sender's rate is known (never said as received)."""
    if flow.receiver_bps is None:
        return (
            "received: not reported (the engine gave only the sender's rate, and a datagram "
            "sent is not one received)"
            if flow.packets is not None
            else "received: not reported"
        )
    rate = format_rate(flow.receiver_bps)
    if flow.receiver_derived is Derivation.LOSS_COUNTERS:
        return (
            f"received {rate} (worked out as the sender's rate for the datagrams not lost: "
            f"the engine gave no receiver total)"
        )
    if flow.receiver_derived is Derivation.INTERVALS:
        return (
            f"received {rate} (added up from this end's interval reports: the engine gave no "
            f"receiver total)"
        )
    return f"received {rate}"


def result_dict(result: RunResult) -> dict[str, Any]:
    summary = result.summary
    return {
        "engine": result.engine,
        "engine_version": result.engine_version,
        "argv": list(result.argv),
        "throughput_bps": result.throughput_bps,
        "throughput_of": throughput_of(result),
        "flows": [
            {k: (v.value if hasattr(v, "value") else v) for k, v in vars(flow).items()}
            for flow in summary.flows
        ],
        "rtt_mean_ms": summary.rtt_mean_ms,
        "rtt_min_ms": summary.rtt_min_ms,
        "rtt_max_ms": summary.rtt_max_ms,
        "cpu_local_pct": summary.cpu_local_pct,
        "cpu_remote_pct": summary.cpu_remote_pct,
        "transactions_per_s": summary.transactions_per_s,
        "samples": len(result.samples),
        "elapsed_s": round(result.elapsed_s, 3),
    }


def print_result(result: RunResult, env: Environment) -> None:
    summary = result.summary
    print(f"Result ({result.engine} {result.engine_version}):", file=env.stdout)
    for flow in summary.flows:
        sent = format_rate(flow.sender_bps)
        line = f"  {flow.flow.value:>4}: sent {sent}, {received_words(flow)}"
        if flow.retransmits is not None:
            line += f", {flow.retransmits} retransmits"
        if flow.loss_pct is not None:
            line += f", loss {flow.loss_pct:.2f} % ({flow.lost_packets}/{flow.packets})"
        if flow.jitter_ms is not None:
            line += f", jitter {flow.jitter_ms:.3f} ms"
        print(line, file=env.stdout)
    if summary.rtt_mean_ms is not None:
        low, high = summary.rtt_min_ms, summary.rtt_max_ms
        span = f" (min {low:.3f}, max {high:.3f})" if low is not None and high is not None else ""
        print(f"  RTT: {summary.rtt_mean_ms:.3f} ms{span}", file=env.stdout)
    if summary.transactions_per_s is not None:
        print(f"  Transactions: {summary.transactions_per_s:.0f}/s", file=env.stdout)
    cpu = [
        f"{label} {value:.1f} %"
        for label, value in (("local", summary.cpu_local_pct), ("remote", summary.cpu_remote_pct))
        if value is not None
    ]
    if cpu:
        print(f"  CPU: {', '.join(cpu)}", file=env.stdout)


def cmd_measure(args: argparse.Namespace, env: Environment) -> int:
    run = prepare_run(args, env)
    if not args.json:
        print("$ " + " ".join(run.argv), flush=True, file=env.stdout)
    result = run.run(None if args.json else partial(print_event, env=env))
    if args.json:
        print(json.dumps(result_dict(result), indent=2), file=env.stdout)
    else:
        print_result(result, env)
    return EXIT_OK


# -- demo: a first measurement in the terminal ----------------------------------------------------
def cmd_demo(args: argparse.Namespace, env: Environment) -> int:
    port = netinfo.free_port(0)
    print(f"LinkLab {__version__}: a {args.duration}-second loopback measurement.", file=env.stdout)
    from app.cli.serve_cmd import start_servers  # a command of its own

    servers = start_servers(port, stderr=env.stderr)
    tool: Tool = servers[0].tool
    try:
        print(f"Local {tool.name} {tool.version_string} server on port {port}.", file=env.stdout)
        main = main_server()
        timeout = main.connect_timeout_ms
        run = main.single_run(
            SingleRun("127.0.0.1", port, duration_s=args.duration, connect_timeout_ms=timeout)
        )
        assert isinstance(run, EngineRun)
        print("$ " + " ".join(run.argv), flush=True, file=env.stdout)
        print_result(run.run(partial(print_event, env=env)), env)
    finally:
        for server in servers:
            server.stop()
    print("To measure another computer: run `linklab serve` there, then", file=env.stdout)
    print("  linklab measure --peer ADDRESS   (see `linklab measure --help`).", file=env.stdout)
    return EXIT_OK
