"""Engine commands: `linklab doctor`, `serve`, `measure`, and the loopback demo."""

from __future__ import annotations

import argparse
import getpass
import ipaddress
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from app import __version__
from app.cli import db_doctor
from app.cli.args import EXIT_FAILED, EXIT_OK, add_port_arguments, number, rate, size, within
from app.cli.class_live_cmds import add_pool_arguments, tell_collector
from app.cli.discover_cmd import start_echo
from app.domain.errors import BadOption, LinkLabError
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.results import EngineMessage, RunResult, Sample
from app.domain.units import format_rate, format_received
from app.engine import netinfo
from app.engine.echo import DEFAULT_ECHO_PORT, EchoResponder
from app.engine.errors import EngineMissing
from app.engine.iperf3 import start_iperf3
from app.engine.netperf import start_netperf
from app.engine.options import Iperf3Options, NetperfOptions, NetperfTest
from app.engine.run import EngineRun
from app.engine.server_records import stop_left_behind
from app.engine.servers import (
    EXPOSED_IDLE_TIMEOUT_S,
    EXPOSED_MAX_DURATION_S,
    LocalServer,
    ServerOptions,
    iperf3_server,
    netserver,
)
from app.engine.servers import security_warning as server_warning
from app.engine.tools import ENGINES, Capability, Tool, find_tool
from app.study.server_pool import pool_ports


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    doctor = sub.add_parser(
        "doctor",
        help="show the engines, their capabilities and addresses; with --db, check the database",
    )
    doctor.add_argument("--json", action="store_true", help="print one JSON object")
    db_doctor.add_arguments(doctor)
    doctor.set_defaults(handler=cmd_doctor)

    serve = sub.add_parser(
        "serve",
        help="run a local iperf3 server, netserver and LinkLab's latency responder until Ctrl+C",
    )
    add_port_arguments(serve, "iperf3 port (default 5201; with --count, the first)")
    serve.set_defaults(port=5201, netserver_port=12865)
    serve.add_argument("--bind", metavar="ADDRESS", help="listen on this address only")
    serve.add_argument("--no-netserver", action="store_true", help="start only iperf3")
    add_pool_arguments(serve)  # --count, and the class's --collector
    serve.add_argument(
        "--idle-timeout",
        type=number(int, 0, 86400),
        default=EXPOSED_IDLE_TIMEOUT_S,
        metavar="S",
        help=f"restart an iperf3 server left idle (stuck) this long (default "
        f"{EXPOSED_IDLE_TIMEOUT_S}; 0: never)",
    )
    serve.add_argument(
        "--max-duration",
        type=number(int, 0, 86400),
        default=EXPOSED_MAX_DURATION_S,
        metavar="S",
        help=f"the longest test the iperf3 server runs for a client (default "
        f"{EXPOSED_MAX_DURATION_S}; 0: no limit; needs iperf3 3.20 or newer)",
    )
    serve.add_argument("--one-off", action="store_true", help="serve one test, then exit")
    serve.add_argument(
        "--echo-port",
        type=number(int, 1, 65535),
        default=DEFAULT_ECHO_PORT,
        metavar="N",
        help=f"UDP port of LinkLab's latency responder (default {DEFAULT_ECHO_PORT})",
    )
    serve.add_argument(
        "--no-echo", action="store_true", help="do not start LinkLab's latency responder"
    )
    serve.set_defaults(handler=cmd_serve)

    measure = sub.add_parser("measure", help="one run against a peer, printed live")
    measure.add_argument("--peer", required=True, metavar="HOST")
    measure.add_argument("--engine", choices=("iperf3", "netperf"), default="iperf3")
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
    measure.add_argument("--username", help="iperf3 authentication user")
    measure.add_argument("--rsa-public-key", metavar="FILE", help="the server's public key")
    measure.add_argument(
        "--test",
        choices=[t.value for t in NetperfTest],
        help="netperf test (default: TCP_STREAM or UDP_STREAM by --protocol)",
    )
    measure.add_argument("--no-live", action="store_true", help="iperf3 -J, no live intervals")
    measure.add_argument("--json", action="store_true", help="print the result as JSON")
    measure.set_defaults(handler=cmd_measure)

    demo = sub.add_parser("demo", help="a short loopback measurement against a local server")
    demo.add_argument("--duration", type=number(int, 1, 60), default=3, metavar="S")
    demo.set_defaults(handler=cmd_demo)


# -- doctor ------------------------------------------------------------------------------------
def doctor_report() -> dict[str, Any]:
    engines: dict[str, Any] = {}
    for name in ENGINES:
        try:
            tool = find_tool(name)
        except LinkLabError as err:
            engines[name] = {"found": False, "problem": err.sentence}
            continue
        engines[name] = {
            "found": True,
            "path": tool.path,
            "source": tool.source.value,
            "version": tool.version_string,
            "version_text": tool.version_text,
            "capabilities": {cap.value: tool.has(cap) for cap in _relevant_caps(name)},
        }
        if name == "iperf3":
            engines[name]["server_warning"] = server_warning(tool)
    return {
        "linklab": __version__,
        "engines": engines,
        "ipv6": netinfo.ipv6_available(),
        "addresses": [
            {"interface": a.interface, "address": a.address, "version": a.version, "scope": a.scope}
            for a in netinfo.local_addresses()
        ],
    }


def _relevant_caps(name: str) -> list[Capability]:
    if name == "iperf3":
        return [
            Capability.JSON_STREAM,
            Capability.BIDIR,
            Capability.AUTHENTICATION,
            Capability.CONNECT_TIMEOUT,
            Capability.RCV_TIMEOUT,
            Capability.SND_TIMEOUT,
            Capability.IDLE_TIMEOUT,
            Capability.ONE_OFF,
        ]
    return [Capability.INTERIM] if name == "netperf" else []


def cmd_doctor(args: argparse.Namespace) -> int:
    if args.db is not None:
        return db_doctor.cmd_db_doctor(args)
    if args.recover_to is not None:
        raise BadOption("--recover-to goes with --db: linklab doctor --db PATH --recover-to NEW")
    report = doctor_report()
    if args.json:
        print(json.dumps(report, indent=2))
        return EXIT_OK if report["engines"]["iperf3"]["found"] else EXIT_FAILED
    print(f"LinkLab {report['linklab']}")
    for name, info in report["engines"].items():
        if not info["found"]:
            print(f"  {name:<10} missing: {info['problem']}")
            continue
        caps = ", ".join(c for c, ok in info["capabilities"].items() if ok) or "-"
        print(f"  {name:<10} {info['version']:<8} {info['path']} ({info['source']})")
        print(f"  {'':<10} capabilities: {caps}")
        if info.get("server_warning"):
            print(f"  {'':<10} note: {info['server_warning']}")
    print(f"  IPv6 on this computer: {'yes' if report['ipv6'] else 'no'}")
    print("  Addresses a peer can use:")
    for addr in report["addresses"] or [{"address": "(none: no network interface is up)"}]:
        where = f"  ({addr['interface']}, {addr['scope']})" if "interface" in addr else ""
        print(f"    {addr['address']}{where}")
    return EXIT_OK if report["engines"]["iperf3"]["found"] else EXIT_FAILED


# -- serve -------------------------------------------------------------------------------------
def start_servers(
    port: int,
    netserver_port: int | None,
    bind: str | None = None,
    idle_timeout_s: int | None = None,
    one_off: bool = False,
    on_log: Callable[[str], None] | None = None,
    count: int = 1,
    max_duration_s: int | None = None,
) -> list[LocalServer]:
    """Start iperf3 (required; count servers on consecutive ports) and netserver (when
    installed and asked for)."""
    tool = find_tool("iperf3")
    if port + count - 1 > 65535:
        raise BadOption(f"{count} servers from port {port} would pass port 65535.")
    options = [
        ServerOptions(p, bind, idle_timeout_s or None, one_off, max_duration_s or None)
        for p in pool_ports("iperf3", port, count)
    ]
    servers = [iperf3_server(tool, option, on_log) for option in options]
    if netserver_port is not None:
        try:
            servers.append(netserver(find_tool("netserver"), ServerOptions(netserver_port, bind)))
        except EngineMissing as err:
            print(f"linklab: {err.sentence} Serving iperf3 only.", file=sys.stderr)
    started: list[LocalServer] = []
    try:
        for server in servers:
            server.start()
            started.append(server)
    except BaseException:
        for server in started:
            server.stop()
        raise
    return started


def serve_limits(args: argparse.Namespace, servers: list[LocalServer]) -> str:
    """What a stranger can do with these servers, in one line."""
    where = f"on {args.bind} only" if args.bind else "on every address of this computer"
    capped = any("--server-max-duration" in server.argv for server in servers)
    longest = f"tests of up to {args.max_duration} s" if capped else "tests of any length"
    idle = (
        f", an iperf3 server idle for {args.idle_timeout} s restarts"
        if args.idle_timeout and not args.one_off
        else ""
    )
    return f"Limits: listening {where}; {longest}{idle}."


def _stop_on_signals() -> None:
    """SIGINT and SIGTERM stop the servers cleanly. SIGINT's handler is set explicitly: a
    shell starts a background job (`linklab serve &`) with SIGINT ignored, and Python then
    leaves it ignored."""

    def stop(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def cmd_serve(args: argparse.Namespace) -> int:
    def log(line: str) -> None:
        print(f"  [{time.strftime('%H:%M:%S')}] {line}", flush=True)

    _stop_on_signals()
    for sentence in stop_left_behind():
        print(f"linklab: {sentence}", file=sys.stderr)

    servers = start_servers(
        args.port,
        None if args.no_netserver else args.netserver_port,
        args.bind,
        None if args.one_off else args.idle_timeout,  # an idle one-off server would just end
        args.one_off,
        on_log=log,
        count=args.count,
        max_duration_s=args.max_duration,
    )
    echo: EchoResponder | None = None
    try:
        for server in servers:
            print(f"{server.name} listening on port {server.port} (pid {server.pid})")
            if server.tool.name == "iperf3" and (warning := server_warning(server.tool)):
                print(f"Note: {warning}")
        print(serve_limits(args, servers))
        for note in dict.fromkeys(n for server in servers for n in server.notes):
            print(f"Note: {note}")
        if not args.no_echo:
            echo, why_off = start_echo(args.echo_port, args.bind, servers)
            if echo is not None:
                print(f"LinkLab latency responder listening on UDP port {echo.port}")
            else:
                print(f"linklab: {why_off}", file=sys.stderr, flush=True)
        for line in _peer_addresses(args.bind):
            print(line)
        if args.collector:
            print(tell_collector(args, servers), flush=True)
        print("Press Ctrl+C to stop.", flush=True)
        while all(server.running for server in servers):
            time.sleep(0.2)
        stopped = [server.name for server in servers if not server.running]
        print(f"linklab: the {', '.join(stopped)} stopped.", file=sys.stderr)
        return EXIT_OK if args.one_off else EXIT_FAILED
    except KeyboardInterrupt:
        print("Stopping the servers.", file=sys.stderr)
        return EXIT_OK
    finally:
        if echo is not None:
            echo.stop()
        for server in servers:
            server.stop()


def _peer_addresses(bind: str | None) -> list[str]:
    """What to type on the other computer: this computer's addresses, or only the one the
    servers are bound to (none, when that is a loopback address no other computer reaches)."""
    if bind is None:
        lines = ["On the other computer, use one of these addresses as the peer:"]
        for addr in netinfo.local_addresses():
            lines.append(f"  {addr.address}  ({addr.interface}, IPv{addr.version}, {addr.scope})")
        return lines
    try:
        loopback = ipaddress.ip_address(bind.partition("%")[0]).is_loopback
    except ValueError:
        loopback = bind.lower() == "localhost"
    if loopback:
        return [
            f"The servers listen on {bind} only, which no other computer can reach: measure "
            f"from this computer, or start them without --bind (or bound to a network address)."
        ]
    return [f"On the other computer, use {bind} as the peer (the servers listen there only)."]


# -- measure -----------------------------------------------------------------------------------
def _password(args: argparse.Namespace) -> str | None:
    if args.username is None:
        return None
    if "IPERF3_PASSWORD" in os.environ:
        return os.environ["IPERF3_PASSWORD"]
    if sys.stdin.isatty():
        return getpass.getpass(f"iperf3 password for {args.username}: ")
    return None


def prepare_run(args: argparse.Namespace) -> EngineRun:
    ip = IpVersion(int(args.ip)) if args.ip else None
    if args.engine == "netperf":
        test = (
            NetperfTest(args.test)
            if args.test
            else (NetperfTest.UDP_STREAM if args.protocol == "udp" else NetperfTest.TCP_STREAM)
        )
        nopts = NetperfOptions(
            host=args.peer,
            port=args.netserver_port or args.port or 12865,
            test=test,
            ip_version=ip,
            duration_s=args.duration,
            message_size=args.length,
            interval_s=args.interval,
        )
        return start_netperf(find_tool("netperf"), nopts)
    opts = Iperf3Options(
        host=args.peer,
        port=args.port or 5201,
        protocol=Protocol(args.protocol),
        ip_version=ip,
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
        password=_password(args),
        rsa_public_key_path=args.rsa_public_key,
    )
    return start_iperf3(find_tool("iperf3"), opts, live=not args.no_live)


def print_event(event: Sample | EngineMessage) -> None:
    if isinstance(event, Sample):
        note = " (warm-up, not counted)" if event.omitted else ""
        shown = format_received(event.received_bps, event.sent_bps)
        extra = f"  rtt {event.rtt_ms:.2f} ms" if event.rtt_ms is not None else ""
        if event.lost_packets is not None and event.packets:
            extra += f"  lost {event.lost_packets}/{event.packets}"
        arrow = "↑" if event.flow.value == "up" else "↓"
        print(f"  {event.start_s:6.2f}-{event.end_s:6.2f} s {arrow} {shown:>12}{extra}{note}")
    sys.stdout.flush()


def result_dict(result: RunResult) -> dict[str, Any]:
    summary = result.summary
    return {
        "engine": result.engine,
        "engine_version": result.engine_version,
        "argv": list(result.argv),
        "throughput_bps": result.throughput_bps,
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


def print_result(result: RunResult) -> None:
    summary = result.summary
    print(f"Result ({result.engine} {result.engine_version}):")
    for flow in summary.flows:
        line = (
            f"  {flow.flow.value:>4}: sent {format_rate(flow.sender_bps)}, "
            f"received {format_rate(flow.receiver_bps)}"
        )
        if flow.retransmits is not None:
            line += f", {flow.retransmits} retransmits"
        if flow.loss_pct is not None:
            line += f", loss {flow.loss_pct:.2f} % ({flow.lost_packets}/{flow.packets})"
        if flow.jitter_ms is not None:
            line += f", jitter {flow.jitter_ms:.3f} ms"
        print(line)
    if summary.rtt_mean_ms is not None:
        low, high = summary.rtt_min_ms, summary.rtt_max_ms
        span = f" (min {low:.3f}, max {high:.3f})" if low is not None and high is not None else ""
        print(f"  RTT: {summary.rtt_mean_ms:.3f} ms{span}")
    if summary.transactions_per_s is not None:
        print(f"  Transactions: {summary.transactions_per_s:.0f}/s")
    cpu = [
        f"{label} {value:.1f} %"
        for label, value in (("local", summary.cpu_local_pct), ("remote", summary.cpu_remote_pct))
        if value is not None
    ]
    if cpu:
        print(f"  CPU: {', '.join(cpu)}")


def cmd_measure(args: argparse.Namespace) -> int:
    run = prepare_run(args)
    if not args.json:
        print("$ " + " ".join(run.argv), flush=True)
    result = run.run(None if args.json else print_event)
    if args.json:
        print(json.dumps(result_dict(result), indent=2))
    else:
        print_result(result)
    return EXIT_OK


# -- demo: a first measurement in the terminal ----------------------------------------------------
def cmd_demo(args: argparse.Namespace) -> int:
    port = netinfo.free_port(0)
    print(f"LinkLab {__version__}: a {args.duration}-second loopback measurement.")
    servers = start_servers(port, None)
    tool: Tool = servers[0].tool
    try:
        print(f"Local iperf3 {tool.version_string} server on port {port}.")
        opts = Iperf3Options(host="127.0.0.1", port=port, duration_s=args.duration)
        run = start_iperf3(tool, opts)
        print("$ " + " ".join(run.argv), flush=True)
        print_result(run.run(print_event))
    finally:
        for server in servers:
            server.stop()
    print("To measure another computer: run `linklab serve` there, then")
    print("  linklab measure --peer ADDRESS   (see `linklab measure --help`).")
    return EXIT_OK
