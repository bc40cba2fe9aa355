"""What an engine driver is: one object per engine saying what it can do (metrics, protocols,
directions, what can be swept, its settings' limits), which programs it runs and how they are
probed, the argv of a run of a plan, its server and the port a peer serves it on. The registry
of drivers is app.engine.drivers.registry; nothing outside the drivers asks which engine it is."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import ClassVar
from typing import Protocol as TypingProtocol

from app.domain.net import Direction, Protocol
from app.domain.plan import Engine, Metric, Peer, Plan, RunKey, Variable
from app.domain.results import EngineMessage, RunResult, Sample
from app.engine.drivers.arguments import Absent, Argument, Arguments
from app.engine.drivers.limits import Limits
from app.engine.drivers.options import SingleRun
from app.engine.lan.peercheck import Server
from app.engine.process.servers import LocalServer, LogCallback, ServerOptions
from app.engine.process.tools import EngineSettings, Program, Tool, program_tool
from app.engine.readings.run import Parser


class RunHandle(TypingProtocol):
    """One engine run in progress (app.engine.readings.run.EngineRun, or a fake's)."""

    argv: tuple[str, ...]
    result: RunResult | None

    def events(self) -> Iterator[Sample | EngineMessage]: ...

    def cancel(self) -> None: ...

    @property
    def started(self) -> bool:
        """Its engine was started (a process, or a fake's measuring)."""
        ...

    @property
    def ended_at(self) -> float | None:
        """When (time.monotonic()) its engine was seen ended; None before it starts and while
        it runs: how long Stop took is read from it."""
        ...

    def output(self) -> str:
        """What the engine printed so far (a run cut short keeps it as its raw output)."""
        ...


class EngineDriver(ABC):
    engine: Engine
    limits: Limits
    metrics: frozenset[Metric]
    protocols: frozenset[Protocol] = frozenset(Protocol)
    directions: frozenset[Direction]
    sweeps: frozenset[Variable]
    concurrent: bool = False  # several series at once, each against its own server
    #: Measures one-way delay when the plan states the clocks synchronised (iperf 2's
    #: --trip-times); problems() says which of its runs cannot see it.
    one_way_delay: ClassVar[bool] = False
    #: One server serves many clients at once (iperf 2): concurrent series, two studies and
    #: a class's stations share it.
    serves_many: ClassVar[bool] = False
    #: What the engine measures, for the engine choice's tooltip (no full stop).
    about: ClassVar[str] = ""
    #: The engine's programs, the client first (netperf: netperf, then netserver).
    programs: ClassVar[tuple[Program, ...]]
    #: Which program serves it on the peer, and how a person starts that by hand.
    server_program: ClassVar[str]
    server_label: ClassVar[str]  # "iperf3 server", "netserver"
    server_command: ClassVar[str]  # "iperf3 -s", "netserver"
    #: The peer's port for this engine's server: its key in Peer.ports, its label in the
    #: window's Ports row, and the port a server listens on unless told otherwise.
    port_key: ClassVar[str]
    port_label: ClassVar[str]
    default_port: ClassVar[int]
    #: The command line's options for that port (the first is its name, the rest aliases).
    port_options: ClassVar[tuple[str, ...]]
    #: How `linklab serve` names this server in its flags (--no-netserver, --iperf2), whether
    #: it may go without it (when missing, or told --no-NAME), and whether it starts it unless
    #: told not to (else only when asked: --NAME, or its port given).
    serve_name: ClassVar[str]
    serve_optional: ClassVar[bool] = True
    serve_by_default: ClassVar[bool] = True
    #: The server's options for its port and its address, for the Server tab's tooltips.
    server_flags: ClassVar[tuple[str, str]] = ("-p", "-B")
    #: How the programs are told the port, for the default port's tooltip ("iperf3 -p").
    port_flags_text: ClassVar[str]
    #: The capabilities `linklab doctor` reports for the client program.
    reported_capabilities: ClassVar[tuple[str, ...]] = ()
    #: TCP handshakes of the peer check: one for a server that takes every connection for a
    #: test and reopens its listener afterwards (quick repeats would be refused in between).
    check_tries: ClassVar[int] = 1
    #: Whether the server bears a bare TCP connection opened and closed at once (the peer
    #: check's, the latency fallback's). iperf 2.1.8's server can crash on one that arrives
    #: while it serves a test: it is then left to the engine's own first run to say.
    takes_bare_connections: ClassVar[bool] = True
    #: Seconds between latency probes that knock on this server (app.engine.latency.latency): an
    #: iperf3 server takes every connection for the start of a test and reopens its listener
    #: after each one, so they are spaced out for a real test to get in.
    probe_interval_s: ClassVar[float] = 0.2
    #: Whether the engine's CPU figures are the whole system's share of all its CPUs (0-100 %
    #: whatever their number) rather than its own process's time, where 100 % is one core.
    cpu_of_all_cores: ClassVar[bool] = False
    #: How each engine setting of the plan-field table reaches this engine's argv, or why it
    #: cannot (app.engine.drivers.arguments), by the field's key: every one is declared.
    arguments: ClassVar[Arguments]

    # -- what else is the engine's own (read through app.engine.drivers.registry) ---------------
    #: Its runs load a link for the responsiveness test (parallel streams that grow, both
    #: directions at once): one engine's.
    loads_responsiveness: ClassVar[bool] = False
    #: The tests `linklab measure --test` may choose for one run (netperf's TCP_RR, …).
    run_tests: ClassVar[tuple[str, ...]] = ()
    #: The environment variable its client reads an authentication password from (None: it
    #: does not authenticate).
    password_variable: ClassVar[str | None] = None
    #: How long its client waits for the server (ms) in a study's runs; None: it has no such
    #: option (the silence watchdog stands in).
    connect_timeout_ms: ClassVar[int | None] = None
    #: What sentences elsewhere (the form's tooltips, the command line's help, notes) say of
    #: this engine, by the key a sentence leaves for it: its option for a setting ("window":
    #: "iperf3 -w"), what a feature needs ("iperf3 3.7 or newer"). Read through the registry
    #: (app.engine.drivers.registry.phrase, phrased), which joins every engine's in its order.
    phrases: ClassVar[Mapping[str, str]] = {}

    def __init__(self, settings: EngineSettings | None = None) -> None:
        self.engine_settings = settings or EngineSettings()

    @property
    def name(self) -> str:
        return self.engine.value

    @property
    def label(self) -> str:
        """The engine's name as a person reads it in a list of engines."""
        return self.engine.value

    def settings(self) -> frozenset[str]:
        """The plan's fixed settings this engine honours (the others it would ignore)."""
        honoured = {"length", "duration", "interval"}
        honoured |= {key for key, how in self.arguments.items() if isinstance(how, Argument)}
        return frozenset(honoured)

    def absent(self, key: str) -> str | None:
        """Why this engine has no such setting (its {name} and {engines} to fill), or None."""
        how = self.arguments.get(key)
        return how.reason if isinstance(how, Absent) else None

    def program(self, name: str) -> Tool:
        """One of this engine's programs as in use (settings, bundled copy, or PATH)."""
        found = next(p for p in self.programs if p.name == name)
        return program_tool(found, self.engine_settings.path(name))

    def tool(self) -> Tool:
        """The engine program in use; EngineMissing else."""
        return self.program(self.programs[0].name)

    def server_tool(self) -> Tool:
        return self.program(self.server_program)

    def version(self) -> str:
        return self.tool().version_string

    def live_note(self) -> str | None:
        """A sentence when this engine reports nothing while it runs (the live chart stays
        empty until each run ends); None when it reports live."""
        return None

    # -- the peer ------------------------------------------------------------------------------
    def peer_port(self, peer: Peer) -> int:
        """The port of this engine's server on the peer."""
        return peer.port(self.port_key, self.default_port)

    def peer_server(self, peer: Peer) -> Server:
        """What the peer check looks for on the peer."""
        port = self.peer_port(peer)
        return Server(
            self.port_label,
            self.server_label,
            self.server_command,
            port,
            self.check_tries if self.takes_bare_connections else 0,
            self.probe_interval_s,
        )

    @property
    def port_dest(self) -> str:
        """The command line's name of the port's value (--netserver-port: netserver_port)."""
        return self.port_options[0].lstrip("-").replace("-", "_")

    def port(self, plan: Plan, key: RunKey) -> int:
        """The port one run talks to: concurrent series each their own server, on
        consecutive ports."""
        base = self.peer_port(plan.peer)
        if self.serves_many or not plan.concurrent:
            return base
        return base + plan.series.index(key.series)

    def server_count(self, plan: Plan) -> int:
        """How many servers the plan needs on the peer: one per series run at the same time
        (an engine whose server serves one test at a time), else one."""
        return 1 if self.serves_many or not plan.concurrent else len(plan.series)

    def problems(self, plan: Plan) -> list[tuple[str, str]]:
        """(field, sentence) for what this engine cannot do with the plan beyond its
        capabilities and limits (which the plan checks read themselves)."""
        return []

    # -- runs ------------------------------------------------------------------------------------
    @abstractmethod
    def argv(self, plan: Plan, key: RunKey) -> list[str]:
        """The exact command line of one run of the plan."""

    @abstractmethod
    def start(self, plan: Plan, key: RunKey) -> RunHandle:
        """One run of the plan, ready to iterate."""

    @abstractmethod
    def single_run(self, run: SingleRun) -> RunHandle:
        """One run outside any plan (`linklab measure`): the options this engine knows;
        BadOption for one it has not."""

    def parser_for(self, argv: Sequence[str]) -> Parser | None:
        """The parser of a stored run's output, from the argv it ran with (None: none)."""
        return None

    # -- servers ---------------------------------------------------------------------------------
    @abstractmethod
    def servers(
        self, options: ServerOptions, on_log: LogCallback | None = None
    ) -> list[LocalServer]:
        """This engine's server on one port, ready to start (a LocalServer of
        app.engine.process.servers): one process, or one per protocol where the engine needs
        that (iperf 2)."""

    def exposed(self, port: int, bind: str | None = None) -> ServerOptions:
        """The options of a server others can reach (the Server tab's, `linklab serve`'s)."""
        return ServerOptions(port, bind)

    def loopback(self, port: int, bind: str, interval_s: float | None = None) -> ServerOptions:
        """The options of this computer's own server for a study (on the loopback only):
        reporting at the study's interval where the engine's server reports at all."""
        return ServerOptions(port, bind)

    def server_note(self, tool: Tool) -> str | None:
        """A sentence about exposing this server to others, when there is something to say."""
        return None
