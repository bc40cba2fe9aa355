"""`linklab expected`: the goodput a link could deliver at best, with the bytes of every layer."""

from __future__ import annotations

import argparse
import json

from app.analysis.overhead import Expected, LinkInputs, OverheadError, expected
from app.analysis.wifi_overhead import Cipher
from app.cli.args import EXIT_OK, number, rate, size
from app.cli.environment import Environment
from app.domain.errors import BadOption
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Medium, Security
from app.domain.units import counted, format_rate


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "expected",
        help="the goodput a link could deliver at best, with the bytes of every layer",
        description="What the link could deliver at best for this traffic: the bytes every "
        "layer adds to a segment or datagram (and on Wi-Fi the air time around it), and the "
        "goodput left, with the arithmetic in sentences.",
    )
    cmd.add_argument(
        "--link-rate",
        type=rate,
        required=True,
        metavar="RATE",
        help="Ethernet: the line rate; Wi-Fi: the PHY data rate (e.g. 100M, 1G, 300M)",
    )
    cmd.add_argument("--protocol", choices=("tcp", "udp"), required=True)
    cmd.add_argument("--ip", choices=("4", "6"), required=True, help="IP version")
    cmd.add_argument(
        "--length",
        type=size,
        required=True,
        metavar="BYTES",
        help="bytes per write (TCP; segments coalesce, so it does not matter) or per datagram",
    )
    cmd.add_argument("--medium", choices=[m.value for m in Medium], required=True)
    cmd.add_argument(
        "--security",
        choices=[s.value for s in Security],
        default="open",
        help="Wi-Fi security (default: open)",
    )
    cmd.add_argument(
        "--cipher",
        choices=[c.value for c in Cipher],
        help="Wi-Fi: the cipher, when not the security's usual one (WPA3-192: GCMP-256)",
    )
    cmd.add_argument("--mtu", type=number(int, 68, 65535), default=1500, metavar="BYTES")
    cmd.add_argument(
        "--frame-overhead",
        type=number(int, 0, 10000),
        metavar="BYTES",
        help="link-layer bytes per frame instead of the medium's (a Linux tc shaper counts 14)",
    )
    cmd.add_argument(
        "--no-timestamps",
        action="store_true",
        help="TCP without the 12-byte timestamps option (Linux sends it by default)",
    )
    cmd.add_argument("--vlan", action="store_true", help="Ethernet frames carry a VLAN tag")
    cmd.add_argument(
        "--aggregation",
        type=number(int, 1, 1024),
        metavar="N",
        help="Wi-Fi: at most N frames per A-MPDU (1 = none; default: what the standard allows)",
    )
    cmd.add_argument(
        "--streams", type=number(int, 1, 8), default=2, metavar="N", help="Wi-Fi: spatial streams"
    )
    cmd.add_argument("--json", action="store_true", help="print the breakdown as JSON")
    cmd.set_defaults(handler=cmd_expected)


def cmd_expected(args: argparse.Namespace, env: Environment) -> int:
    spec = LinkInputs(
        link_rate_bps=float(args.link_rate),
        medium=Medium(args.medium),
        ip_version=IpVersion(int(args.ip)),
        protocol=Protocol(args.protocol),
        length=args.length,
        security=Security(args.security),
        mtu=args.mtu,
        tcp_timestamps=not args.no_timestamps,
        vlan=args.vlan,
        frame_overhead=args.frame_overhead,
        cipher=Cipher(args.cipher) if args.cipher else None,
        aggregation=args.aggregation,
        spatial_streams=args.streams,
    )
    try:
        result = expected(spec)
    except OverheadError as err:
        raise BadOption(str(err)) from None
    if args.json:
        print(json.dumps(result.as_dict(), indent=2, ensure_ascii=False), file=env.stdout)
    else:
        _print(result, env)
    return EXIT_OK


def _print(result: Expected, env: Environment) -> None:
    spec = result.inputs
    rate = format_rate(spec.link_rate_bps)
    print(
        f"Expected goodput: {format_rate(result.expected_bps, 4)} "
        f"({result.efficiency * 100:.2f} % of {rate})",
        file=env.stdout,
    )
    frames = counted(result.frames, "frame")
    print(
        f"{spec.protocol.value.upper()} over IPv{int(spec.ip_version)} on {spec.medium.value}, "
        f"MTU {spec.mtu}: bytes of one {result.unit} ({frames})",
        file=env.stdout,
    )
    rows = [*result.overhead, ("payload", result.payload_bytes)]
    rows.append(("total", result.payload_bytes + result.overhead_bytes))
    width = max(len(name) for name, _ in rows)
    decimals = 0 if all(float(n).is_integer() for _, n in rows) else 1
    print(file=env.stdout)
    for name, n in rows:
        print(f"  {name:<{width}}  {n:>9.{decimals}f}", file=env.stdout)
    if result.aggregated is not None:
        print(
            "  (air time is counted as the bytes the link rate carries in that time)",
            file=env.stdout,
        )
    print(file=env.stdout)
    for sentence in result.explanation:
        print(f"- {sentence}", file=env.stdout)
