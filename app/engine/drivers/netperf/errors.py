"""netperf's failures: its own errors (no netserver, a data connection refused) and its failure
text read as typed errors with a sentence for the run."""

from __future__ import annotations

import re

from app.domain.errors import LinkLabError
from app.domain.net import IpVersion
from app.engine.drivers.netperf.server import COMMAND as SERVER_COMMAND
from app.engine.drivers.netperf.server import LABEL as SERVER_LABEL
from app.engine.errors import (
    ConnectionRefused,
    ConnectTimeout,
    EngineError,
    EngineFailed,
    HostUnresolved,
    Ipv6Unavailable,
    OptionRefused,
    PeerVanished,
)
from app.engine.readings.run import Classifier


class NoNetserver(ConnectionRefused):
    retry_words = "netserver refused the connection for a moment"

    def __init__(self, host: str, port: int, detail: str | None = None) -> None:
        EngineError.__init__(
            self,
            f"No netserver answered at {host} port {port}: start netserver on the peer "
            f"(or LinkLab's Server tab there), or check the port and any firewall between.",
            detail=detail,
        )
        self.host, self.port = host, port
        self.server, self.command = SERVER_LABEL, SERVER_COMMAND
        self.after_data, self.known_crash = False, ""


class DataConnectionFailed(EngineError):
    """netperf reached netserver but could not open the separate data connection."""

    def __init__(self, host: str, port: int, detail: str | None = None) -> None:
        super().__init__(
            f"netserver at {host} answered on its control port {port} but refused the data "
            f"connection: a firewall on the peer may block the data port (netperf opens it on "
            f"a port of its own choosing; let netserver through the firewall), or netperf and "
            f"netserver may be different releases (2.5 and 2.7 do not work together): install "
            f"the same netperf release on both ends, then run again.",
            detail=detail,
        )


_FAMILY_UNSUPPORTED = re.compile(
    r"getaddrinfo returned -(?:5|9)\b|address family for hostname not supported|"
    r"no address associated with hostname|address family not supported by protocol",
    re.IGNORECASE,
)


_PEER_GONE = (
    "send_data",
    "recv_data",
    "data send error",
    "data recv error",
    "partial response",
    "connection reset",
    "broken pipe",
)


def classify(host: str, port: int, ip_version: IpVersion | None) -> Classifier:
    """A function that turns netperf's failure text into the typed error for this run."""

    def to_error(message: str, *, started: bool = True) -> LinkLabError:
        text = message.lower()
        v6 = ip_version == IpVersion.V6
        if v6 and _FAMILY_UNSUPPORTED.search(message):
            return Ipv6Unavailable(host, detail=message)
        if "could not resolve" in text or "resolve_host" in text or "getaddrinfo" in text:
            return HostUnresolved(host, detail=message)
        if "timed out" in text or "no response received" in text:
            return ConnectTimeout(host, port, detail=message)
        if "establish control" in text or "establish_control" in text:
            # netperf prints no errno here: refused, unreachable and (after the kernel's
            # ~2 min of SYN retries) a silent drop all read the same.
            return NoNetserver(host, port, detail=message)
        if "connect_data_socket" in text:
            # The control connection worked; the data connection, on a port netperf picks
            # itself, did not: a firewall there, or a netserver of another release (it then
            # never opens that port).
            return DataConnectionFailed(host, port, detail=message)
        if "message too long" in text:
            return OptionRefused(
                "The network stack refused to send a message this large: use a smaller "
                "message size.",
                detail=message,
            )
        if any(word in text for word in _PEER_GONE):
            return PeerVanished(host, detail=message)
        return EngineFailed("netperf", message)

    return to_error
