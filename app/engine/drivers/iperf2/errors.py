"""iperf 2's failures: its own errors (a connection closed before the test, a test with no
data) and its failure words read as typed errors with a sentence for the peer."""

from __future__ import annotations

from app.domain.errors import LinkLabError
from app.domain.net import IpVersion
from app.engine.errors import (
    ClosedBeforeStart,
    ConnectionRefused,
    ConnectTimeout,
    EngineError,
    EngineFailed,
    HostUnresolved,
    Ipv6Unavailable,
    OptionRefused,
    PeerVanished,
    ServerBusy,
)
from app.engine.lan.validate import is_ipv6_literal, resolves_for_ipv4
from app.engine.readings.run import Classifier


class Iperf2ClosedBeforeStart(ClosedBeforeStart):
    """The peer accepted the connection, then closed it before any data went through."""

    def __init__(self, host: str, port: int, detail: str | None = None) -> None:
        EngineError.__init__(
            self,
            f"The peer {host} accepted the connection on port {port}, then closed it before "
            f"the test started: the program listening there may not be an iperf 2 server "
            f"(an iperf3 server closes iperf 2's connections this way), or a firewall may cut "
            f"the test connections. Start iperf -s on the peer (iperf -s -u for UDP) on that "
            f"port, then run again.",
            detail=detail,
        )


class Iperf2NoData(ServerBusy):
    """The test connected but no data went through (the server still ending another test)."""

    def __init__(self, host: str, port: int, detail: str | None = None) -> None:
        EngineError.__init__(
            self,
            f"The iperf 2 server at {host} port {port} connected but no data went through: "
            f"it may still have been ending another test (LinkLab tries again by itself); if "
            f"it keeps happening, restart iperf -s on the peer.",
            detail=detail,
        )


def classifier(host: str, port: int, ip_version: IpVersion | None, udp: bool) -> Classifier:
    """iperf 2's failure words as typed errors with a sentence for this peer."""
    wants_v6 = ip_version is IpVersion.V6 or is_ipv6_literal(host)

    def classify(message: str, *, started: bool = True) -> LinkLabError:
        text = message.lower()
        if text.startswith("no data"):
            return Iperf2NoData(host, port, detail=message)
        if "connection refused" in text and not udp:
            return ConnectionRefused(host, port, "iperf 2 server", "iperf -s", detail=message)
        if "did not receive ack" in text or ("connection refused" in text and udp):
            # UDP has no connection: the data went out, and nothing acknowledged its end.
            return ConnectionRefused(
                host,
                port,
                "iperf 2 UDP server",
                "iperf -s -u",
                detail=message,
                after_data=started,
                known_crash="iperf 2.1.8's UDP server crashes after a UDP test",
            )
        if "unknown host" in text or "name or service not known" in text:
            if wants_v6 and resolves_for_ipv4(host):
                return Ipv6Unavailable(host, detail=message)
            return HostUnresolved(host, detail=message)
        if "network is unreachable" in text or "address family" in text:
            if wants_v6:
                return Ipv6Unavailable(host, detail=message)
            return ConnectTimeout(host, port, detail=message)
        if any(w in text for w in ("no route to host", "timed out", "connect failed")):
            return ConnectTimeout(host, port, detail=message)
        if any(
            w in text for w in ("broken pipe", "connection reset", "write failed", "read failed")
        ):
            if not started:
                return Iperf2ClosedBeforeStart(host, port, detail=message)
            return PeerVanished(host, detail=message)
        if any(w in text for w in ("invalid option", "unrecognized option", "ignoring extra")):
            return OptionRefused(f"iperf 2 refused an option: {message}.", detail=message)
        return EngineFailed("iperf 2", message)

    return classify
