"""The iperf3 server: its argv from the server options (what the installed iperf3 can do
decides the idle restart, the one-off mode and the longest test), the watch for a client that
holds it without progress, and the warning for a release too old to expose."""

from __future__ import annotations

from app.engine.lan.validate import check_port, check_range, validate_host
from app.engine.process.servers import LocalServer, LogCallback, ServerOptions
from app.engine.process.stall import StallRule
from app.engine.process.tools import Capability, Tool

#: iperf3 servers older than this have known remotely triggerable flaws.
SAFE_IPERF3_SERVER = (3, 19, 1)
#: From this release on, the server gives up on a client that sends less than it must
#: (CVE-2023-7250, ESnet's advisory 2023-0002: each read of the control connection bounded).
HOLD_FIXED = (3, 15)
#: How the server is named in sentences, and how a person starts it by hand.
LABEL = "iperf3 server"
COMMAND = "iperf3 -s"


def security_warning(tool: Tool) -> str | None:
    """A sentence when this iperf3 is too old to be exposed as a server without care."""
    if tool.version and tool.version < SAFE_IPERF3_SERVER:
        safe = ".".join(str(p) for p in SAFE_IPERF3_SERVER)
        return (
            f"iperf3 {tool.version_string} is older than {safe}, whose servers have known "
            f"remotely triggerable flaws: run the server only on a trusted network, stop it "
            f"when the tests are done, or install iperf3 {safe} or newer."
        )
    return None


def _release(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version)


def held_forever(tool: Tool) -> bool:
    """Whether this iperf3's server waits for ever for a client that sends too little."""
    return bool(tool.version) and tool.version < HOLD_FIXED


def hold_note(tool: Tool, after_s: float) -> str:
    """What the user should know of an iperf3 server that one client can hold."""
    return (
        f"iperf3 {tool.version_string} waits for ever for a client that connects and sends "
        f"too little, and serves no one else meanwhile (CVE-2023-7250): LinkLab starts such a "
        f"server again when a client has held it for {after_s:.0f} s without progress. "
        f"iperf3 {_release(HOLD_FIXED)} or newer gives up on such a client by itself."
    )


def stall_rule(tool: Tool, options: ServerOptions) -> StallRule | None:
    """How long a client may hold this server without progress. An iperf3 server serves one
    client at a time, and a test under way prints a report every interval, so the time is at
    least three of the server's intervals."""
    if not options.stall_timeout_s:
        return None
    check_range(options.stall_timeout_s, 1, 86400, "server stall timeout", "s")
    after_s = max(options.stall_timeout_s, 3 * (options.interval_s or 1.0))
    why = (
        f"iperf3 {tool.version_string} waits for ever for such a client (CVE-2023-7250); "
        f"iperf3 {_release(HOLD_FIXED)} or newer gives up on it by itself."
        if held_forever(tool)
        else ""
    )
    return StallRule(after_s, why)


def iperf3_server(
    tool: Tool, options: ServerOptions, on_log: LogCallback | None = None
) -> LocalServer:
    check_port(options.port)
    argv = [tool.path, "-s", "-p", str(options.port)]
    if options.bind_address:
        validate_host(options.bind_address, "bind address")
        argv += ["-B", options.bind_address]
    if options.idle_timeout_s is not None:
        check_range(options.idle_timeout_s, 1, 86400, "server idle timeout", "s")
        tool.require(Capability.IDLE_TIMEOUT, "restart an idle server (--idle-timeout)")
        argv += ["--idle-timeout", str(options.idle_timeout_s)]
    if options.interval_s is not None:
        check_range(options.interval_s, 0.1, 60, "server report interval", "s")
        argv += ["-i", f"{options.interval_s:g}"]
    if options.one_off:
        tool.require(Capability.ONE_OFF, "serve a single test (--one-off)")
        argv.append("-1")
    notes: list[str] = []
    if options.max_duration_s:
        check_range(options.max_duration_s, 1, 86400, "longest test", "s")
        if tool.has(Capability.SERVER_MAX_DURATION):
            argv += ["--server-max-duration", str(options.max_duration_s)]
        else:
            notes.append(
                f"iperf3 {tool.version_string} cannot cap the length of a test (its "
                f"--server-max-duration came with iperf3 3.20): a client may run tests of any "
                f"length. Stop the server when the tests are done."
            )
    if tool.has(Capability.FORCEFLUSH):
        argv.append("--forceflush")  # the log of tests served arrives as they happen
    stall = stall_rule(tool, options)
    if stall is not None and held_forever(tool):
        notes.append(hold_note(tool, stall.after_s))
    return LocalServer(tool, argv, options.port, on_log, tuple(notes), LABEL, stall=stall)
