"""This computer's network facts: the addresses a peer could use, and whether IPv6 works."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

import psutil


@dataclass(frozen=True)
class LocalAddress:
    interface: str
    address: str  # link-local IPv6 carries its %zone
    version: int
    scope: str  # "global", "private", "link-local" or "loopback"


def local_addresses(include_loopback: bool = False) -> list[LocalAddress]:
    """Addresses of interfaces that are up, the ones a peer can reach first."""
    stats = psutil.net_if_stats()
    found: list[LocalAddress] = []
    for name, addrs in psutil.net_if_addrs().items():
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
