"""Checks on values that end up in an engine's argv: hosts, ports and numeric ranges."""

from __future__ import annotations

import ipaddress
import re
import socket

from app.domain.errors import BadOption
from app.domain.units import counted, plain_rate
from app.engine.errors import LinkLocalNeedsZone

MAX_HOST_LENGTH = 253
_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_ZONE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")


def validate_host(host: str, what: str = "host") -> str:
    """Return the host unchanged if it is an IP literal or an RFC 1123 name, else raise BadOption.

    IPv6 link-local literals must carry a %zone (interface name or index).
    """
    if not isinstance(host, str) or not host:
        raise BadOption(f"The {what} is empty: type the peer's name or IP address.")
    if len(host) > MAX_HOST_LENGTH:
        raise BadOption(
            f"The {what} is {len(host)} characters long; a host name has at most "
            f"{MAX_HOST_LENGTH}: check what was pasted."
        )
    if host.startswith("-"):
        raise BadOption(
            f"The {what} {host!r} starts with '-', which no host name does: type the peer's "
            f"name or IP address."
        )
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in host):
        raise BadOption(
            f"The {what} {host!r} contains spaces or control characters: type only the peer's "
            f"name or IP address."
        )
    if ":" in host or "%" in host:
        return _validate_ipv6(host, what)
    try:
        ipaddress.IPv4Address(host)
        return host
    except ValueError:
        pass
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    if all(_LABEL.match(label) for label in labels) and not name.replace(".", "").isdigit():
        return host
    raise BadOption(
        f"The {what} {host!r} is neither an IP address nor a valid host name (letters, digits, "
        f"'-' and '.'): check the spelling."
    )


def _validate_ipv6(host: str, what: str) -> str:
    address, _, zone = host.partition("%")
    try:
        parsed = ipaddress.IPv6Address(address)
    except ValueError:
        raise BadOption(
            f"The {what} {host!r} is not a valid IPv6 address: check the spelling "
            f"(for example fe80::1%eth0 or 2001:db8::5)."
        ) from None
    if "%" in host and not _ZONE.match(zone):
        raise BadOption(
            f"The interface after '%' in {host!r} is not valid: use an interface name such as "
            f"eth0 or a Windows interface index such as 12."
        )
    if parsed.is_link_local and not zone:
        raise LinkLocalNeedsZone(address)
    return host


def is_ipv6_literal(host: str) -> bool:
    try:
        ipaddress.IPv6Address(host.partition("%")[0])
    except ValueError:
        return False
    return True


def is_ipv4_literal(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def check_range(value: float, low: float, high: float, what: str, unit: str = "") -> None:
    """Raise BadOption with a sentence when value is outside [low, high], every number in the
    units a user types it in (2G for a size reads "2 GiB", 100M for a rate "100 Mbit/s")."""
    if isinstance(value, bool) or not low <= value <= high:
        raise BadOption(
            f"The {what} must be between {amount(low, unit)} and {amount(high, unit)}; it is "
            f"{amount(value, unit)}."
        )


_BINARY = (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


def amount(value: float, unit: str) -> str:
    """A number with its unit as a user writes it: sizes in whole KiB/MiB/GiB where they are
    such, rates in kbit/s to Tbit/s, anything else without an exponent."""
    if isinstance(value, int) and abs(value) >= 10**300:  # beyond a float: said by its size
        return f"{'-' if value < 0 else ''}a number of more than 300 digits"
    if unit == "bytes" and float(value).is_integer():
        for name, size in _BINARY:
            if value >= size and value % size == 0:
                return f"{int(value // size)} {name}"
        return counted(int(value), "byte", grouped=False)  # as the user types it
    if unit == "bit/s" and value > 0:
        return plain_rate(value)
    number = str(int(value)) if float(value).is_integer() else f"{value:.6f}".rstrip("0")
    return f"{number} {unit}" if unit else number


def check_port(port: int, what: str = "port") -> None:
    if not isinstance(port, int) or isinstance(port, bool):
        raise BadOption(f"The {what} must be a whole number between 1 and 65535.")
    check_range(port, 1, 65535, what)


def resolves_for_ipv4(host: str) -> bool:
    """True when the name has an IPv4 address (used to explain a failed IPv6 lookup)."""
    try:
        return bool(socket.getaddrinfo(host, None, socket.AF_INET))
    except (OSError, UnicodeError):
        return False


def resolves(host: str) -> bool:
    """True when the host is an address or a name that resolves to one."""
    try:
        return bool(socket.getaddrinfo(host, None))
    except (OSError, UnicodeError):
        return False
