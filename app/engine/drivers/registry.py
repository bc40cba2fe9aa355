"""The registry of engine drivers: every engine LinkLab can run, in the order a person is
offered them. Plan checks, the window's form and the command line read what each can do from
here, so they agree; adding an engine is adding its driver to DRIVER_CLASSES."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from app.domain.plan import DEFAULT_ENGINE, Engine, Peer
from app.engine.drivers import limits
from app.engine.drivers.driver import EngineDriver, RunHandle
from app.engine.drivers.iperf2.driver import Iperf2Driver
from app.engine.drivers.iperf3.driver import Iperf3Driver
from app.engine.drivers.netperf.driver import NetperfDriver
from app.engine.lan.peercheck import Server
from app.engine.process.tools import EngineSettings, Program, Tool, program_tool

__all__ = ["DRIVERS", "EngineDriver", "RunHandle", "driver", "find_tool", "registry"]

DRIVER_CLASSES: tuple[type[EngineDriver], ...] = (Iperf3Driver, NetperfDriver, Iperf2Driver)


def registry(settings: EngineSettings | None = None) -> Mapping[Engine, EngineDriver]:
    """Every engine's driver, finding its programs where the settings say."""
    return {cls.engine: cls(settings) for cls in DRIVER_CLASSES}


DRIVERS: Mapping[Engine, EngineDriver] = registry()

#: Every program of every engine, by name ("iperf3", "netperf", "netserver", …).
PROGRAMS: Mapping[str, Program] = {
    program.name: program for cls in DRIVER_CLASSES for program in cls.programs
}
PROGRAM_NAMES = tuple(PROGRAMS)


def driver(engine: Engine) -> EngineDriver:
    return DRIVERS[engine]


def find_tool(
    name: str, user_path: str | None = None, settings: EngineSettings | None = None
) -> Tool:
    """One engine program as in use: the path given, else the one the settings set, else the
    bundled copy, else PATH; probed with its engine's probe."""
    program = PROGRAMS.get(name)
    if program is None:
        raise ValueError(f"unknown engine {name!r}")
    return program_tool(program, user_path or (settings or EngineSettings()).path(name))


def default_driver(drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> EngineDriver:
    """The engine of a plan, a monitor and `linklab measure` unless told otherwise; the one
    `linklab doctor` needs."""
    return drivers[DEFAULT_ENGINE]


def main_server(drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> EngineDriver:
    """The engine whose server `linklab serve` always starts (the others are optional): the
    one a class's pool of servers runs."""
    return next(d for d in drivers.values() if not d.serve_optional)


def responsiveness_driver(drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> EngineDriver:
    """The engine whose runs load the link for the responsiveness test."""
    return next(d for d in drivers.values() if d.loads_responsiveness)


def password_variable(drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> str:
    """The environment variable `linklab measure` reads a password from: the one of the engine
    that authenticates."""
    return next(d.password_variable for d in drivers.values() if d.password_variable)


def program_engine(name: str) -> EngineDriver | None:
    """The engine a program belongs to."""
    return next((d for d in DRIVERS.values() if any(p.name == name for p in d.programs)), None)


def server_programs(drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> dict[str, str]:
    """Each engine's server program by name, with its server's label ("iperf3": "iperf3
    server"): what a server left by a LinkLab that is gone may be
    (app.engine.process.server_records)."""
    return {d.server_program: d.server_label for d in drivers.values()}


def by_port_key(drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> dict[str, EngineDriver]:
    """The drivers by the key of their port on a peer (one per server a peer may run)."""
    return {d.port_key: d for d in drivers.values()}


def port_key_of(name: str, drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> str | None:
    """The key in a peer's ports of the engine named by that key, by its own name, or by one
    of its programs ("netserver": "netperf"); None for no engine here."""
    for d in drivers.values():
        if name in (d.port_key, d.name) or any(p.name == name for p in d.programs):
            return d.port_key
    return None


def peer_servers(peer: Peer, drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> list[Server]:
    """Every engine's server on the peer, those that bear connection probes best first (what
    latency falls back to when the peer has no LinkLab responder)."""
    servers = {
        d.port_key: d.peer_server(peer) for d in drivers.values() if d.takes_bare_connections
    }
    return sorted(servers.values(), key=lambda server: server.probe_interval_s)


def widest(span: str) -> limits.Span:
    """The union of one limit over every engine (what a command line option accepts before
    the chosen engine's own check)."""
    spans = [getattr(d.limits, span) for d in DRIVERS.values()]
    present = [s for s in spans if s is not None]
    return limits.Span(min(s.low for s in present), max(s.high for s in present), present[0].unit)


def phrase(key: str, joined: str = ", ", drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> str:
    """What the engines say in a sentence at this key (EngineDriver.phrases), each that says
    something in the registry's order: phrase("congestion") is "iperf3 -C, netperf -K,
    iperf -Z". KeyError when none does (a sentence asking for a key no engine has)."""
    parts = [d.phrases[key] for d in drivers.values() if key in d.phrases]
    if not parts:
        raise KeyError(key)
    return joined.join(parts)


#: What the registry itself says in a sentence, by key: the {main_server} of a tooltip is
#: the label of the server `linklab serve` always starts ("iperf3 server").
SLOTS: Mapping[str, Callable[[Mapping[Engine, EngineDriver]], str]] = {
    "main_server": lambda drivers: main_server(drivers).server_label,
}


def phrased(text: str, drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> str:
    """A sentence written below the engines (the plan-field table's tooltips and help, the
    metric table's) with the engines' phrases filled in: each {key} is phrase(key), joined by
    ", " or by what follows a colon ("{cpu:; }" joins with "; "), or the registry's SLOTS."""
    return text.format_map(_Phrases(drivers))


class _Phrases(dict[str, "_Joined"]):
    def __init__(self, drivers: Mapping[Engine, EngineDriver]) -> None:
        super().__init__()
        self.drivers = drivers

    def __missing__(self, key: str) -> _Joined:
        return _Joined(key, self.drivers)


class _Joined:
    def __init__(self, key: str, drivers: Mapping[Engine, EngineDriver]) -> None:
        self.key, self.drivers = key, drivers

    def __format__(self, joined: str) -> str:
        if self.key in SLOTS:
            return SLOTS[self.key](self.drivers)
        return phrase(self.key, joined or ", ", self.drivers)
