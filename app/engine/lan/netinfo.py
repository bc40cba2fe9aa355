"""This computer's network facts: the addresses a peer could use, and whether IPv6 works."""

from __future__ import annotations

import ipaddress
import itertools
import os
import socket
from dataclasses import dataclass
from typing import Any

import psutil


@dataclass(frozen=True)
class LocalAddress:
    interface: str
    address: str  # link-local IPv6 carries its %zone
    version: int
    scope: str  # "global", "private", "link-local" or "loopback"


#: What psutil raises when the system cannot list its interfaces: Windows' GetAdaptersAddresses
#: fails now and then while adapters change, and psutil raises RuntimeError for it.
_LISTING_FAILED = (OSError, RuntimeError, psutil.Error)


def interface_addresses() -> dict[str, list[Any]]:
    """psutil's addresses per interface, or none when the system cannot list them right now:
    the addresses are advice shown to the user, never worth a failure."""
    try:
        return psutil.net_if_addrs()
    except _LISTING_FAILED:
        return {}


def interface_stats() -> dict[str, Any]:
    """psutil's state per interface (up, speed, MTU), or none when it cannot be read now."""
    try:
        return psutil.net_if_stats()
    except _LISTING_FAILED:
        return {}


def local_addresses(include_loopback: bool = False) -> list[LocalAddress]:
    """Addresses of interfaces that are up, the ones a peer can reach first."""
    stats = interface_stats()
    found: list[LocalAddress] = []
    for name, addrs in interface_addresses().items():
        if name in stats and not stats[name].isup:
            continue
        for addr in addrs:
            if addr.family not in (socket.AF_INET, socket.AF_INET6):
                continue
            text = addr.address.split("%", 1)[0]
            try:
                ip = ipaddress.ip_address(text)
            except ValueError:
                continue
            if ip.is_loopback:
                if not include_loopback:
                    continue
                scope = "loopback"
            elif ip.is_link_local:
                scope = "link-local"
                if ip.version == 6:
                    text = f"{text}%{name}"
            elif ip.is_private:
                scope = "private"
            else:
                scope = "global"
            found.append(LocalAddress(name, text, ip.version, scope))
    order = {"global": 0, "private": 1, "link-local": 2, "loopback": 3}
    found.sort(key=lambda a: (a.version, order[a.scope], a.interface, a.address))
    return found


def ipv6_available() -> bool:
    """True when this computer can open an IPv6 socket on its loopback (::1)."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


def free_port(preferred: int) -> int:
    """preferred if nothing listens there, else a free port the system picks."""
    for port in (preferred, 0):
        try:
            with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
                _as_servers_bind(sock)
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                sock.bind(("::", port))
                return int(sock.getsockname()[1])
        except OSError:
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                    _as_servers_bind(sock)
                    sock.bind(("0.0.0.0", port))  # noqa: S104 - probing whether a port is free
                    return int(sock.getsockname()[1])
            except OSError:
                continue
    raise OSError("no free port")


def _as_servers_bind(sock: socket.socket) -> None:
    """Probe a port as the engines' servers bind theirs: iperf3, netserver and iperf 2 set
    SO_REUSEADDR, so a port whose last connections are still in TIME_WAIT is free to them
    (without it, bind fails there for a minute after every test). Only on POSIX systems:
    Windows' SO_REUSEADDR would let the probe bind over a server that listens."""
    if os.name == "posix":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)


def free_block(preferred: int, count: int) -> int:
    """The first port of count consecutive free ports, preferably starting at preferred."""
    candidates = itertools.chain([preferred], (free_port(0) for _ in range(20)))
    for base in candidates:
        if base + count - 1 > 65535:
            continue
        if all(free_port(base + i) == base + i for i in range(count)):
            return base
    raise OSError("no block of free ports")
