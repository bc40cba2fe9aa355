"""iperf3's own errors: another program found where iperf3 was expected, its server's
authentication, and a connection closed before the test in iperf3's words."""

from __future__ import annotations

from app.engine.errors import ClosedBeforeStart, EngineError, ParseError
from app.engine.process.install_hint import install_hint


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
