"""`linklab serve`: the engines' servers (iperf3, netserver, iperf 2 when asked) and LinkLab's
latency responder, listening until Ctrl+C, with the addresses a peer should use."""

from __future__ import annotations

import argparse
import ipaddress
import signal
import time
from collections.abc import Callable
from types import FrameType
from typing import TextIO

from app.cli.args import EXIT_FAILED, EXIT_OK, add_port_arguments, number
from app.cli.class_live_cmds import add_pool_arguments, pool_token, tell_collector
from app.cli.discover_cmd import start_echo
from app.cli.environment import Environment
from app.domain.errors import BadOption
from app.engine.drivers.driver import EngineDriver
from app.engine.drivers.registry import DRIVERS, main_server, server_programs
from app.engine.errors import EngineMissing
from app.engine.lan import netinfo
from app.engine.latency.echo import DEFAULT_ECHO_PORT, EchoResponder
from app.engine.process.server_records import stop_left_behind
from app.engine.process.servers import (
    EXPOSED_IDLE_TIMEOUT_S,
    EXPOSED_MAX_DURATION_S,
    EXPOSED_STALL_TIMEOUT_S,
    LocalServer,
    ServerOptions,
    firewall_note,
    start_all,
)
from app.study.host.server_pool import pool_ports


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    main = main_server()
    started = [d.server_label for d in DRIVERS.values() if d.serve_by_default]
    serve = sub.add_parser(
        "serve",
        help=f"run a local {', '.join(started)} and LinkLab's latency responder until Ctrl+C",
    )
    add_port_arguments(
        serve, f"{main.port_label} port (default {main.default_port}; with --count, the first)"
    )
    serve.add_argument("--bind", metavar="ADDRESS", help="listen on this address only")
    for driver in DRIVERS.values():
        if not driver.serve_optional:
            continue
        if driver.serve_by_default:
            serve.add_argument(
                f"--no-{driver.serve_name}",
                dest=f"no_{driver.serve_name}",
                action="store_true",
                help=f"do not start the {driver.server_label}",
            )
        else:
            serve.add_argument(
                f"--{driver.serve_name}",
                dest=f"with_{driver.serve_name}",
                action="store_true",
                help=f"start the {driver.server_label} too ({driver.server_command}; also "
                f"when {driver.port_options[0]} is given)",
            )
    add_pool_arguments(serve)  # --count, and the class's --collector
    serve.add_argument(
        "--idle-timeout",
        type=number(int, 0, 86400),
        default=EXPOSED_IDLE_TIMEOUT_S,
        metavar="S",
        help=f"restart an {main.server_label} left idle (stuck) this long (default "
        f"{EXPOSED_IDLE_TIMEOUT_S}; 0: never)",
    )
    serve.add_argument(
        "--stall-timeout",
        type=number(int, 0, 86400),
        default=int(EXPOSED_STALL_TIMEOUT_S),
        metavar="S",
        help=f"restart an {main.server_label} that a client holds this long without progress "
        f"(connected, yet nothing read, written or printed), which the idle timeout does not "
        f"see (default {EXPOSED_STALL_TIMEOUT_S:.0f}; 0: never)",
    )
    serve.add_argument(
        "--max-duration",
        type=number(int, 0, 86400),
        default=EXPOSED_MAX_DURATION_S,
        metavar="S",
        help=f"the longest test the {main.server_label} runs for a client (default "
        f"{EXPOSED_MAX_DURATION_S}; 0: no limit; needs {main.phrases['max_duration']})",
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


def wanted(args: argparse.Namespace) -> dict[EngineDriver, int]:
    """The optional servers to start, with their ports."""
    found = {}
    for driver in DRIVERS.values():
        if not driver.serve_optional:
            continue
        port = getattr(args, driver.port_dest, None)
        if driver.serve_by_default:
            start = not getattr(args, f"no_{driver.serve_name}", False)
        else:
            start = bool(getattr(args, f"with_{driver.serve_name}", False) or port)
        if start:
            found[driver] = port or driver.default_port
    return found


def start_servers(
    port: int,
    others: dict[EngineDriver, int] | None = None,
    bind: str | None = None,
    idle_timeout_s: int | None = None,
    one_off: bool = False,
    on_log: Callable[[str], None] | None = None,
    count: int = 1,
    max_duration_s: int | None = None,
    serve_main: bool = True,
    *,
    stderr: TextIO,
    stall_timeout_s: int | None = int(EXPOSED_STALL_TIMEOUT_S),
) -> list[LocalServer]:
    """Start the main server (iperf3, required unless main is False: count servers on
    consecutive ports) and the others asked for (when installed)."""
    main = main_server()
    if port + count - 1 > 65535:
        raise BadOption(f"{count} servers from port {port} would pass port 65535.")
    ports = pool_ports(main.name, port, count) if serve_main else []
    servers = [
        server
        for pool_port in ports
        for server in main.servers(
            ServerOptions(
                pool_port,
                bind,
                idle_timeout_s or None,
                one_off,
                max_duration_s or None,
                stall_timeout_s=stall_timeout_s or None,
            ),
            _port_log(on_log, pool_port) if len(ports) > 1 else on_log,
        )
    ]
    for driver, other_port in (others or {}).items():
        try:
            servers += driver.servers(ServerOptions(other_port, bind))
        except EngineMissing as err:
            print(f"linklab: {err.sentence} Serving without it.", file=stderr)
    return start_all(servers)


def _port_log(on_log: Callable[[str], None] | None, port: int) -> Callable[[str], None] | None:
    """A pool's server logs with its port first: a class's servers say which station's test
    each line is about."""
    if on_log is None:
        return None
    return lambda line: on_log(f"port {port}: {line}")


def stand_ins(args: argparse.Namespace) -> tuple[str, dict[EngineDriver, int]]:
    """When the main server's program (iperf3) is missing: a sentence, and the servers that
    measure by themselves instead (iperf 2, as bundled with LinkLab for Windows) with their
    ports; EngineMissing when there are none either."""
    main = main_server()
    try:
        main.server_tool()
        return "", {}
    except EngineMissing as missing:
        found: dict[EngineDriver, int] = {}
        for driver in DRIVERS.values():
            if not driver.serve_optional or driver.serve_by_default:
                continue  # netserver measures round trips, not what iperf3 measures
            try:
                driver.server_tool()
            except EngineMissing:
                continue
            found[driver] = getattr(args, driver.port_dest, None) or driver.default_port
        if not found or args.count != 1 or args.collector:
            raise
        labels = " and ".join(d.server_label for d in found)
        engines = " or ".join(d.label for d in found)
        return (
            f"{missing.sentence} Serving the {labels} instead: on the other computer, measure "
            f"with the {engines} engine."
        ), found


def serve_limits(args: argparse.Namespace, servers: list[LocalServer]) -> str:
    """What a stranger can do with these servers, in one line."""
    where = f"on {args.bind} only" if args.bind else "on every address of this computer"
    capped = any("--server-max-duration" in server.argv for server in servers)
    longest = f"tests of up to {args.max_duration} s" if capped else "tests of any length"
    main = main_server()
    idle = (
        f", an {main.server_label} idle for {args.idle_timeout} s restarts"
        if args.idle_timeout
        and not args.one_off
        and any(server.tool.name == main.server_program for server in servers)
        else ""
    )
    held = [server.stall.after_s for server in servers if server.stall is not None]
    stall = f", one a client holds for {max(held):.0f} s without progress restarts" if held else ""
    return f"Limits: listening {where}; {longest}{idle}{stall}."


def _stop_on_signals() -> None:
    """SIGINT and SIGTERM stop the servers cleanly. SIGINT's handler is set explicitly: a
    shell starts a background job (`linklab serve &`) with SIGINT ignored, and Python then
    leaves it ignored."""

    def stop(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def cmd_serve(args: argparse.Namespace, env: Environment) -> int:
    def log(line: str) -> None:
        print(f"  [{time.strftime('%H:%M:%S')}] {line}", flush=True, file=env.stdout)

    _stop_on_signals()
    for sentence in stop_left_behind(server_programs()):
        print(f"linklab: {sentence}", file=env.stderr)

    main = main_server()
    announce_with = pool_token(args, env)
    instead, others = stand_ins(args)
    if instead:
        print(f"linklab: {instead}", file=env.stderr, flush=True)
    servers = start_servers(
        getattr(args, main.port_dest) or main.default_port,
        {**wanted(args), **others},
        args.bind,
        None if args.one_off else args.idle_timeout,  # an idle one-off server would just end
        args.one_off,
        on_log=log,
        count=args.count,
        max_duration_s=args.max_duration,
        serve_main=not instead,
        stderr=env.stderr,
        stall_timeout_s=args.stall_timeout,
    )
    echo: EchoResponder | None = None
    try:
        for server in servers:
            print(
                f"{server.name} listening on port {server.port} (pid {server.pid})", file=env.stdout
            )
            if server.tool.name == main.server_program and (
                warning := main.server_note(server.tool)
            ):
                print(f"Note: {warning}", file=env.stdout)
        print(serve_limits(args, servers), file=env.stdout)
        if note := firewall_note(servers):
            print(f"Note: {note}", file=env.stdout)
        for note in dict.fromkeys(n for server in servers for n in server.notes):
            print(f"Note: {note}", file=env.stdout)
        if not args.no_echo:
            echo, why_off = start_echo(args.echo_port, args.bind, servers)
            if echo is not None:
                print(
                    f"LinkLab latency responder listening on UDP port {echo.port}", file=env.stdout
                )
            else:
                print(f"linklab: {why_off}", file=env.stderr, flush=True)
        for line in _peer_addresses(args.bind):
            print(line, file=env.stdout)
        if announce_with is not None:
            print(tell_collector(args, announce_with, servers), flush=True, file=env.stdout)
        print("Press Ctrl+C to stop.", flush=True, file=env.stdout)
        while all(server.running for server in servers):
            time.sleep(0.2)
        stopped = [server.name for server in servers if not server.running]
        print(f"linklab: the {', '.join(stopped)} stopped.", file=env.stderr)
        return EXIT_OK if args.one_off else EXIT_FAILED
    except KeyboardInterrupt:
        print("Stopping the servers.", file=env.stderr)
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
