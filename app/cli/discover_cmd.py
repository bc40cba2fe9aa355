"""`linklab discover`: the computers on this network whose LinkLab servers answer (`linklab
serve`), with their names, addresses and engines; and the answering side `serve` uses."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from app.cli.args import EXIT_OK, number
from app.cli.environment import Environment
from app.domain.units import counted
from app.engine.drivers.registry import main_server, program_engine
from app.engine.errors import EchoStartFailed
from app.engine.latency.echo import DEFAULT_ECHO_PORT, EchoResponder
from app.engine.process.servers import LocalServer
from app.engine.serving.discovery import SEARCH_S, announcing_responder, discover


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "discover",
        help="list the computers on this network running LinkLab's servers (linklab serve)",
        description="Asks every computer on this computer's links (IPv4 broadcast and the "
        "IPv6 link-local all-nodes group, never routed beyond the link) whether LinkLab's "
        "servers run there, on the latency responder's UDP port, and lists those that answer "
        "with their names, addresses and engines' ports.",
    )
    cmd.add_argument(
        "--port",
        type=number(int, 1, 65535),
        default=DEFAULT_ECHO_PORT,
        metavar="N",
        help=f"the latency responder's UDP port the servers listen on (default "
        f"{DEFAULT_ECHO_PORT}, `linklab serve --echo-port`)",
    )
    cmd.add_argument(
        "--wait",
        type=number(float, 0.2, 30.0),
        default=SEARCH_S,
        metavar="S",
        help=f"how long to wait for answers (default {SEARCH_S:g} s)",
    )
    cmd.add_argument(
        "--interface",
        action="append",
        metavar="NAME",
        help="ask on this network interface only (repeat for more; default: every one)",
    )
    cmd.add_argument("--json", action="store_true", help='print {"computers": [...]}')
    cmd.set_defaults(handler=cmd_discover)


def cmd_discover(args: argparse.Namespace, env: Environment) -> int:
    found = discover(args.port, args.wait, args.interface)
    if args.json:
        print(
            json.dumps({"computers": [peer.to_dict() for peer in found]}, indent=2), file=env.stdout
        )
        return EXIT_OK
    if not found:
        print(
            f"No computer on this network answered on UDP port {args.port}: start `linklab "
            f"serve` on the other computer (a plain {main_server().server_command} does not "
            f"answer), or type its address as the peer.",
            file=env.stdout,
        )
        return EXIT_OK
    count = counted(len(found), "computer")
    print(f"Found {count} running LinkLab's servers:", file=env.stdout)
    for peer in found:
        # Its IPv4 address first (what --peer takes), even when the answer came by IPv6.
        others = [a for a in dict.fromkeys((*peer.addresses, peer.address)) if a != peer.host]
        also = f" (also {', '.join(others)})" if others else ""
        print(f"  {peer.name}  {peer.host}{also}", file=env.stdout)
        engines = peer.engine_words or "no engine server"
        echo = f", latency responder port {peer.echo_port}" if peer.echo_port else ""
        print(f"    {engines}{echo}", file=env.stdout)
    print("Measure one with: linklab run --peer ADDRESS", file=env.stdout)
    return EXIT_OK


def announcing_echo(
    port: int, bind: str | None, engines: Sequence[tuple[str, int]]
) -> EchoResponder:
    """The latency responder of `linklab serve`, answering searches too with the engines'
    servers (the engine's key in a peer's ports, and the first port of each)."""
    ports: dict[str, int] = {}
    for key, number_ in engines:
        ports.setdefault(key, number_)
    return announcing_responder(port, bind, lambda: ports)


def start_echo(
    port: int, bind: str | None, servers: list[LocalServer]
) -> tuple[EchoResponder | None, str]:
    """LinkLab's latency responder beside the servers, or None and the sentence why it is off
    (the servers serve on either way)."""
    still = " and ".join(dict.fromkeys(server.name for server in servers))
    serving = f" The {still} {'still serve' if ' and ' in still else 'still serves'}."
    taken = next((server for server in servers if server.port == port), None)
    if taken is not None:
        article = "an" if taken.name[:1] in "aeiou" else "a"
        return None, (
            f"UDP port {port} belongs to {article} {taken.name} here (its UDP tests use it), "
            f"so LinkLab's latency responder is off: choose another --echo-port.{serving}"
        )
    engines = [
        (driver.port_key, server.port)
        for server in servers
        if (driver := program_engine(server.tool.name)) is not None
    ]
    responder = announcing_echo(port, bind, engines)
    try:
        responder.start()
    except EchoStartFailed as err:
        return None, err.sentence + serving
    return responder, ""
