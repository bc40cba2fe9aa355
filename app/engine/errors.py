"""Typed engine errors, each carrying one sentence that tells the user what to do."""

from __future__ import annotations

from app.domain.errors import BadOption, LinkLabError
from app.engine.process.install_hint import install_hint

__all__ = ["BadOption", "EngineError", "LinkLabError"]  # and the subclasses below


class EngineError(LinkLabError):
    """Base of the errors the engines and their servers cause; `str(err)` is the sentence."""


class EngineMissing(EngineError):
    def __init__(self, name: str, hint: str | None = None) -> None:
        super().__init__(hint or f"{name} was not found: {install_hint(name)}.")
        self.name = name


class OptionRefused(EngineError):
    """The engine refused a value it was given (its own "parameter error")."""


class EngineTooOld(EngineError):
    """The installed engine lacks something the plan asks for."""


class HostUnresolved(EngineError):
    def __init__(self, host: str, detail: str | None = None) -> None:
        super().__init__(
            f"The name {host!r} could not be resolved: check the spelling, or use the peer's "
            f"IP address instead.",
            detail=detail,
        )


class ConnectionRefused(EngineError):
    transient = True
    retry_words = "the server refused the connection for a moment"

    def __init__(
        self,
        host: str,
        port: int,
        server: str,  # the driver's server_label
        command: str,  # how a person starts it (the driver's server_command)
        detail: str | None = None,
        *,
        after_data: bool = False,
        known_crash: str = "",
    ):
        refused = (
            # UDP has no connection: the data went out, and no server acknowledged its end.
            f"The run's data went out to {host}, but no {server} on port {port} acknowledged it"
            if after_data
            else f"The peer {host} refused the connection on port {port}"
        )
        super().__init__(
            f"{refused}: start an {server} there ({command}, or LinkLab's Server tab), or "
            "check the port.",
            detail=detail,
        )
        self.host, self.port, self.server, self.command = host, port, server, command
        #: The run's data went out before the refusal (UDP: nothing acknowledged it).
        self.after_data = after_data
        #: A known crash of this server to name when it stopped mid-study ("" when none).
        self.known_crash = known_crash


class ServerStopped(ConnectionRefused):
    """A server that answered earlier runs of the session refused a later one: it stopped
    (crashed, most likely) on the peer, rather than was never started."""

    def __init__(self, refused: ConnectionRefused, run: int, answered: int) -> None:
        # A crash is named as one where this server is known to crash at this point; else it
        # may as well have been stopped on the peer (a one-off server ends after a test).
        crashed = refused.after_data and refused.known_crash
        how = f" (crashed: {refused.known_crash})" if crashed else ""
        EngineError.__init__(
            self,
            f"The {refused.server} at {refused.host} port {refused.port} stopped during run "
            f"{run}{how}: it answered run {answered}"
            + (f", and run {run}'s data went out to it" if refused.after_data else "")
            + f". Restart it on the peer ({refused.command}); LinkLab's own server restarts "
            "itself.",
            detail=refused.detail,
        )
        self.host, self.port = refused.host, refused.port
        self.server, self.command = refused.server, refused.command
        self.after_data, self.known_crash = refused.after_data, refused.known_crash


class EngineCrashed(EngineError):
    """The engine on this computer died of a signal nobody sent it on purpose."""

    def __init__(self, engine: str, signal_name: str, detail: str | None = None) -> None:
        super().__init__(
            f"{engine} on this computer crashed during the run ({signal_name}): the run is not "
            f"counted and its output is kept. Run again; if it happens again, install another "
            f"release of {engine}.",
            detail=detail,
        )


class ServerBusy(EngineError):
    transient = True
    retry_words = "the server was busy with another test"

    def __init__(
        self,
        host: str,
        port: int,
        server: str,  # the driver's server_label
        command: str,  # how a person starts it (the driver's server_command)
        detail: str | None = None,
    ) -> None:
        other = port + 1 if port < 65535 else port - 1
        super().__init__(
            f"The {server} at {host} port {port} is busy: another client is testing "
            f"against it right now, and an {server} runs one test at a time. Wait for "
            f"that test to end (LinkLab tries again by itself), or start a second server on "
            f"the peer on another port ({command} -p {other}) and use that port.",
            detail=detail,
        )


class ConnectTimeout(EngineError):
    transient = True
    retry_words = "the server did not answer in time"

    def __init__(self, host: str, port: int, detail: str | None = None) -> None:
        super().__init__(
            f"No answer from {host} on port {port}: check that the peer is on and reachable "
            f"and that no firewall blocks the port.",
            detail=detail,
        )


class PeerVanished(EngineError):
    def __init__(self, host: str, seconds: float | None = None, detail: str | None = None):
        waited = f" for {seconds:.0f} s" if seconds is not None else ""
        super().__init__(
            f"The peer {host} stopped answering{waited} in the middle of the run: check the "
            f"link and that the server on the peer is still running, then run again.",
            detail=detail,
        )


class DataStopped(EngineError):
    """The engine went on reporting, but its intervals carried no data: a silent link."""

    def __init__(self, host: str, seconds: float, detail: str | None = None) -> None:
        super().__init__(
            f"The data between this computer and {host} stopped arriving: the last "
            f"{seconds:.0f} s of intervals carried 0 bytes, so the run was ended there, and its "
            f"samples so far are kept. Check the link and any firewall between, then run again.",
            detail=detail,
        )
        self.seconds = seconds


class ClosedBeforeStart(EngineError):
    """The peer accepted the control connection, then closed it before the first interval."""

    retry_words = "the server closed the connection before the test"

    def __init__(
        self,
        host: str,
        port: int,
        server: str,  # the driver's server_label
        program: str,  # whose release both ends should run (the driver's server_program)
        detail: str | None = None,
        *,
        aside: str = "",  # what else may listen there and close the connection this way
    ) -> None:
        super().__init__(
            f"The peer {host} accepted the connection on port {port}, then closed it before "
            f"the test started: the program listening there may not be an {server}{aside}, "
            f"the {server} may be a release too far from this one, or a firewall may cut "
            f"the test connections. Check what listens on port {port} on the peer and run the "
            f"same {program} release on both ends, then run again.",
            detail=detail,
        )


class Ipv6Unavailable(EngineError):
    def __init__(self, host: str, detail: str | None = None) -> None:
        super().__init__(
            f"IPv6 to {host} is not available: give the peer an IPv6 address (or a name with "
            f"an AAAA record), check that IPv6 is enabled on both ends, or measure over IPv4.",
            detail=detail,
        )


class LinkLocalNeedsZone(BadOption):
    def __init__(self, host: str) -> None:
        super().__init__(
            f"{host} is an IPv6 link-local address, which needs the interface it is reached "
            f"through: write it as {host}%eth0 (Linux) or {host}%12 (Windows interface index)."
        )


class EngineFailed(EngineError):
    """The engine failed for a reason with no better sentence; its own words are kept."""

    def __init__(self, engine: str, message: str) -> None:
        super().__init__(
            f"{engine} stopped with an error: {message}. Check the peer and the settings, "
            f"then run again.",
            detail=message,
        )


class Interrupted(EngineError):
    """The engine got an interrupt or stop signal that did not come from LinkLab's Stop."""

    def __init__(self, engine: str, detail: str | None = None) -> None:
        super().__init__(
            f"{engine} was interrupted before the run ended (something other than LinkLab's "
            f"Stop sent it an interrupt or a stop signal): the run is not counted. Check that "
            f"no script or console stops {engine}, then run again.",
            detail=detail,
        )


class StoppedByUser(EngineError):
    def __init__(self) -> None:
        super().__init__("The run was stopped.")


class ParseError(EngineError):
    """Output that does not follow the engine's format; raised by parsers, never anything else."""

    def __init__(self, engine: str, detail: str) -> None:
        super().__init__(
            f"{engine} printed output LinkLab could not read ({detail}): check that the "
            f"engine is a supported version, then run again.",
            detail=detail,
        )


class EchoStartFailed(EngineError):
    """LinkLab's latency responder could not start; the other servers are not affected."""


class EchoPortBusy(EchoStartFailed):
    def __init__(self, port: int, detail: str | None = None, holder: str | None = None) -> None:
        by = f" by {holder}" if holder else ""
        super().__init__(
            f"UDP port {port} is already in use{by}, so LinkLab's latency responder is off: "
            f"stop {'it' if holder else 'whatever uses that port'}, or choose another port for "
            f"the responder.",
            detail=detail,
        )
        self.port = port
        self.holder = holder


class NoLatencyMethod(EngineError):
    def __init__(self, host: str, tried: str, detail: str | None = None) -> None:
        super().__init__(
            f"LinkLab cannot measure latency to {host}: {tried}. Run `linklab serve` (or "
            f"LinkLab's Server tab) on the peer, or check the ports and any firewall between.",
            detail=detail,
        )


class ImpossibleValue(EngineError):
    """A figure outside physical bounds; the run is not counted and its output is kept."""

    def __init__(self, engine: str, what: str, value: str, *, detail: str | None = None) -> None:
        super().__init__(
            f"{engine} reported an impossible {what} of {value}: the run is not counted, and "
            f"its output is kept with it for inspection. Check the engine's release on both "
            f"ends, then run again.",
            detail=detail,
        )
        self.what = what
        self.value = value
