"""Emulated packet loss for loss sweeps: this computer drops a share of the packets it sends
to the peer, with an nftables rule (Linux, administrator rights). The lab exercise used
`tc netem`; nftables' random numbers do the same where netem is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from app.domain.errors import BadOption
from app.domain.plan import Peer
from app.engine.errors import EngineError
from app.engine.lan.validate import is_ipv6_literal
from app.engine.process.process import run_short

TABLE = "linklab_loss"


def unavailable_reason() -> str | None:
    """Why loss cannot be emulated here, as a sentence; None when it can."""
    if not sys.platform.startswith("linux"):
        return (
            "Sweeping packet loss needs loss emulation, which LinkLab does with Linux's "
            "nftables: run the study from a Linux computer."
        )
    if os.geteuid() != 0:
        return (
            "Sweeping packet loss needs administrator rights to drop packets "
            "(nftables): run LinkLab as root (sudo), or sweep something else."
        )
    if shutil.which("nft") is None:
        return (
            "Sweeping packet loss needs nftables: install it (sudo apt-get install "
            "nftables), then try again."
        )
    return None


class LossEmulator:
    """Drops percent % of the data packets this computer sends to the peer's measurement
    ports (the data direction of an upload; replies coming back are left alone).

    The rule sits on the egress of the interface that leads to the peer (nftables' netdev
    egress hook), after the sending socket: like netem, the sender is not told — a drop in
    the output hook would fail the engine's send with "Operation not permitted".
    """

    def __init__(self, addresses: list[str], interfaces: list[str]) -> None:
        self.addresses = addresses
        self.interfaces = interfaces
        self.active = False

    def _nft(self, *args: str, check: bool = True) -> None:
        try:
            done = run_short(["nft", *args], timeout=10)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise LossEmulationFailed(f"nft could not run ({err})") from None
        if check and done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip()
            raise LossEmulationFailed(message or f"nft {' '.join(args)} failed")

    def apply(self, percent: int, targets: list[tuple[str, int]]) -> None:
        """targets: (protocol "tcp"/"udp", destination port) pairs to drop packets of."""
        if not 0 <= percent <= 100:
            raise BadOption("Emulated loss must be between 0 and 100 %.")
        self.clear()
        if percent == 0:
            return
        self._nft("add", "table", "netdev", TABLE)
        self.active = True
        for index, device in enumerate(self.interfaces):
            chain = f"egress{index}"
            hook = f"{{ type filter hook egress device {device} priority 0 ; }}"
            self._nft("add", "chain", "netdev", TABLE, chain, hook)
            for address in self.addresses:
                family = "ip6" if is_ipv6_literal(address) else "ip"
                for protocol, port in targets:
                    # Data packets only (over 100 bytes): the engines' small set-up and
                    # control messages get through, as retries would on a real lossy link.
                    rule = [
                        family,
                        "daddr",
                        address.partition("%")[0],
                        protocol,
                        "dport",
                        str(port),
                        "meta",
                        "length",
                        "gt",
                        "100",
                        "numgen",
                        "random",
                        "mod",
                        "100",
                        "<",
                        str(percent),
                        "drop",
                    ]
                    self._nft("add", "rule", "netdev", TABLE, chain, *rule)

    def clear(self) -> None:
        self._nft("delete", "table", "netdev", TABLE, check=False)
        self.active = False


class LossEmulationFailed(EngineError):
    def __init__(self, detail: str) -> None:
        super().__init__(
            f"LinkLab could not set up the emulated loss ({detail}): check that nftables "
            f"works on this computer.",
            detail=detail,
        )


def route_interfaces(addresses: list[str]) -> list[str]:
    """The interfaces this computer sends through to reach the addresses."""
    from app.study.host.environment import route_to

    found = []
    for address in addresses:
        _, interface = route_to(address)
        if interface and interface not in found:
            found.append(interface)
    return found


def peer_addresses(host: str) -> list[str]:
    """The addresses the rule must match: the literal, or what the name resolves to."""
    import socket

    if ":" in host or host.replace(".", "").isdigit():
        return [host]
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def loss_emulator(peer: Peer) -> LossEmulator:
    """The emulator of a sweep of loss toward the peer: its addresses, by the interfaces
    that lead there; LossEmulationFailed when it does not resolve or no interface leads."""
    addresses = peer_addresses(peer.host) + (peer_addresses(peer.host6) if peer.host6 else [])
    if not addresses:
        raise LossEmulationFailed(f"the peer {peer.host} does not resolve")
    interfaces = route_interfaces(addresses)
    if not interfaces:
        raise LossEmulationFailed(f"no interface leads to {peer.host}")
    return LossEmulator(addresses, interfaces)
