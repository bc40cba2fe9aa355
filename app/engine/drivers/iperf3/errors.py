"""iperf3's failures: its own errors (another program found where iperf3 was expected, its
server's authentication, a connection closed before the test in iperf3's words) and its error
words read as typed errors with a sentence for the peer."""

from __future__ import annotations

import re

from app.domain.errors import LinkLabError
from app.domain.net import IpVersion
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.drivers.iperf3.server import COMMAND as SERVER_COMMAND
from app.engine.drivers.iperf3.server import LABEL as SERVER_LABEL
from app.engine.errors import (
    ClosedBeforeStart,
    ConnectionRefused,
    ConnectTimeout,
    EngineError,
    EngineFailed,
    EngineTooOld,
    HostUnresolved,
    Interrupted,
    Ipv6Unavailable,
    OptionRefused,
    ParseError,
    PeerVanished,
    ServerBusy,
)
from app.engine.lan.validate import is_ipv6_literal, resolves, resolves_for_ipv4
from app.engine.process.install_hint import install_hint
from app.engine.readings.run import Classifier


class NotIperf3(ParseError):
    """The program run as iperf3 is iperf 2, a different program with other options."""

    def __init__(self, seen: str) -> None:
        EngineError.__init__(
            self,
            f"The program LinkLab ran as iperf3 is iperf 2 (it printed {seen[:80]!r}), a "
            f"different program with other options and output: iperf3 3.1 or newer is needed; "
            f"{install_hint('iperf3', bundled_on_windows=True)}.",
            detail=seen,
        )


class AuthenticationFailed(EngineError):
    def __init__(self, host: str, detail: str | None = None) -> None:
        super().__init__(
            f"The iperf3 server at {host} refused the user name or password: check both, and "
            f"that the public key file is the one that belongs to that server.",
            detail=detail,
        )


class AuthenticationRequired(EngineError):
    """The iperf3 server demands a user name and password, and none was given (or not all)."""

    def __init__(self, host: str, detail: str | None = None) -> None:
        said = f" (iperf3 said: {detail.strip().removeprefix('iperf3: ')})" if detail else ""
        super().__init__(
            f"The iperf3 server at {host} demands a user name and password{said}. Give them "
            f"with `linklab measure --peer {host} --username NAME --rsa-public-key FILE` (FILE "
            f"is the server's RSA public key; the password is asked for, or read from "
            f"IPERF3_PASSWORD). Studies and the window do not authenticate: for them, start the "
            f"server on the peer without authentication.",
            detail=detail,
        )


def closed_before_start(
    host: str, port: int, server: str, detail: str | None = None
) -> ClosedBeforeStart:
    """The peer closed the connection before the test: a device's own iperf server may have."""
    aside = " (a device's built-in iperf server, such as lwIP's, closes the connection this way)"
    return ClosedBeforeStart(host, port, server, "iperf3", detail, aside=aside)


#: Failures of an IPv6 run to a name with an IPv4 address that say IPv6 cannot reach it.
UNUSABLE_V6 = re.compile("invalid argument|resource temporarily unavailable")


def classifier(opts: Iperf3Options) -> Classifier:
    """Map iperf3's own error words to a typed error with a sentence for this peer."""
    host, port = opts.host, opts.port
    server, command = SERVER_LABEL, SERVER_COMMAND
    wants_v6 = opts.ip_version is IpVersion.V6 or is_ipv6_literal(host)

    def classify(message: str, *, started: bool = True) -> LinkLabError:
        text = message.lower()
        if "busy" in text:
            return ServerBusy(host, port, server, command, detail=message)
        if "must specify username" in text or (
            opts.username is None and ("authorization failed" in text or "authentication" in text)
        ):
            # The client's own check (username, password and key go together), or a server
            # that asked for credentials this client never had.
            return AuthenticationRequired(host, detail=message)
        if "authorization failed" in text or "authentication" in text:
            return AuthenticationFailed(host, detail=message)
        if "connection refused" in text:
            return ConnectionRefused(host, port, server, command, detail=message)
        if "address family" in text or (wants_v6 and "network is unreachable" in text):
            if wants_v6:
                return Ipv6Unavailable(host, detail=message)
        if any(
            words in text
            for words in (
                "name or service not known",
                "nodename nor servname",
                "no address associated",
                "temporary failure in name resolution",
                "no such host is known",
                "getaddrinfo",
            )
        ):
            if wants_v6 and resolves_for_ipv4(host):
                return Ipv6Unavailable(host, detail=message)
            return HostUnresolved(host, detail=message)
        if any(w in text for w in ("timed out", "operation now in progress", "no route to host")):
            return ConnectTimeout(host, port, detail=message)
        if any(
            words in text
            for words in (
                "connection reset",
                "broken pipe",
                "control socket has closed",
                "server has terminated",
                "unable to receive",
                "unable to read from stream",
                "unable to write to stream",
                "peer has terminated",
            )
        ):
            if not started:
                # Accepted, then closed before the first interval: no vanished peer, but a
                # program that is no (compatible) iperf3 server, or a firewall.
                return closed_before_start(host, port, server, detail=message)
            return PeerVanished(host, detail=message)
        if "unrecognized option" in text or "invalid option" in text:
            return EngineTooOld(
                f"This iperf3 does not know an option LinkLab passed ({message.strip()}): "
                f"install a newer iperf3, or set the path of another one in LinkLab's "
                f"settings.",
                detail=message,
            )
        if "client has terminated" in text:
            return Interrupted("iperf3", detail=message)
        if "parameter error" in text:
            return OptionRefused(f"iperf3 refused an option: {message}.", detail=message)
        if wants_v6 and UNUSABLE_V6.search(text) and resolves_for_ipv4(host):
            # An IPv6 answer this computer cannot use (no route, link-local), or none (no DNS).
            return Ipv6Unavailable(host, detail=message)
        if "unable to connect" in text and not resolves(host):
            # Some resolvers answer oddly for a missing name; iperf3 then reports the
            # failed connect ("Invalid argument") instead of the lookup.
            return HostUnresolved(host, detail=message)
        return EngineFailed("iperf3", message)

    return classify
