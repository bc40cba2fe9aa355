"""What every part of the window shares: settings (QSettings, versioned), the database path,
the engines in use, and the local servers LinkLab runs for "This computer"."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal

from app.domain.errors import LinkLabError
from app.domain.paths import DB_ENV
from app.domain.plan import DEFAULT_ECHO_PORT, OLD_PORT_ORDER, Engine
from app.engine.drivers.registry import (
    PROGRAM_NAMES,
    EngineDriver,
    by_port_key,
    find_tool,
    registry,
)
from app.engine.process.tools import EngineSettings, Tool
from app.engine.serving.discovery import FoundPeer, discover
from app.engine.serving.loopback import LoopbackServers
from app.store.db import default_path
from app.study.frontdoor import FrontDoor
from app.study.host.wifi_query import WifiTools
from app.study.studies import snapshot

SETTINGS_VERSION = 1
ENGINE_NAMES = PROGRAM_NAMES


@dataclass(frozen=True)
class EngineStatus:
    name: str
    tool: Tool | None
    problem: str  # the sentence when missing


class AppContext(QObject):
    """Settings and shared state; emits settings_changed when the user changes something."""

    settings_changed = Signal()

    def __init__(self, settings: QSettings | None = None, db_path: Path | None = None) -> None:
        super().__init__()
        #: How the window finds LinkLab's servers on the network (echo port -> computers).
        self.find_peers: Callable[[int], list[FoundPeer]] = discover
        #: How this computer's Wi-Fi is asked (the Native Wifi API, netsh, iw, ...; a test
        #: replays recorded output through it).
        self.wifi = WifiTools()
        self.settings = settings or QSettings("LinkLab", "LinkLab")
        if _as_int(self.settings.value("version", 0), 0) != SETTINGS_VERSION:
            # Settings from another LinkLab version: keep nothing that might not fit.
            self.settings.clear()
            self.settings.setValue("version", SETTINGS_VERSION)
        self._db_override = db_path
        #: The start-up check's sentence when nothing can be saved to the database (damaged,
        #: not a LinkLab file, in a read-only folder): it is then only read, if at all.
        self.unwritable: str | None = None
        # The engines' drivers, finding the programs where Settings say (a fake one stands
        # in for tests that need no real engine).
        self.drivers: Mapping[Engine, EngineDriver] = registry(self.engine_settings())
        # This computer's own servers, kept between studies and stopped with the window.
        self.loopback = LoopbackServers(drivers=self.drivers)

    # -- database --------------------------------------------------------------------------
    @property
    def db_path(self) -> Path:
        if self._db_override is not None:
            return self._db_override
        stored = str(self.settings.value("data/db_path", "") or "")
        # The window's entry: LINKLAB_DB (a test's own database) read from its own process.
        return Path(stored) if stored else default_path(os.environ.get(DB_ENV))

    def set_db_path(self, path: Path | None) -> None:
        self.settings.setValue("data/db_path", str(path) if path else "")
        self.settings_changed.emit()

    def door(self) -> FrontDoor:
        """The front door to the studies of the database in use (read-only, saying why, when
        the start-up check found that nothing can be saved to it)."""
        wifi = self.wifi
        return FrontDoor(
            self.db_path,
            loopback=self.loopback,
            drivers=self.drivers,
            unwritable=self.unwritable,
            take_snapshot=lambda host, engines: snapshot(host, engines, tools=wifi),
        )

    # -- engines ---------------------------------------------------------------------------
    def engine_path(self, name: str) -> str:
        return str(self.settings.value(f"engines/{name}", "") or "")

    def set_engine_path(self, name: str, path: str) -> None:
        self.settings.setValue(f"engines/{name}", path)
        self.apply_engine_paths()
        self.settings_changed.emit()

    def engine_settings(self) -> EngineSettings:
        """The engine paths set here, as the engine layer takes them: a path wins over the
        bundled and PATH copies."""
        return EngineSettings.of({name: self.engine_path(name) for name in ENGINE_NAMES})

    def apply_engine_paths(self) -> None:
        """The drivers in use find the programs where the settings now say."""
        settings = self.engine_settings()
        if not any(d.engine_settings != settings for d in self.drivers.values()):
            return
        real = registry(settings)
        # A fake driver a test put in stays; the real ones are replaced.
        self.drivers = {
            engine: real[engine] if type(d) is type(real[engine]) else d
            for engine, d in self.drivers.items()
        }
        self.loopback.drivers = self.drivers

    def engine(self, name: str) -> EngineStatus:
        try:
            return EngineStatus(name, find_tool(name, settings=self.engine_settings()), "")
        except LinkLabError as err:
            return EngineStatus(name, None, err.sentence)

    def missing_engines(self) -> dict[object, str]:
        """The engines whose program is not there, each with the sentence why."""
        return {
            engine: status.problem
            for engine, driver in self.drivers.items()
            if (status := self.engine(driver.programs[0].name)).tool is None
        }

    # -- ports and peers -------------------------------------------------------------------
    def default_port(self, name: str) -> int:
        """The port a server listens on unless told otherwise, by the engine's port key (or
        "echo": LinkLab's latency responder)."""
        if name == "echo":
            fallback = DEFAULT_ECHO_PORT
        else:
            fallback = by_port_key(self.drivers)[name].default_port
        return _as_int(self.settings.value(f"ports/{name}", fallback), fallback)

    def set_default_port(self, name: str, port: int) -> None:
        self.settings.setValue(f"ports/{name}", port)
        self.settings_changed.emit()

    def peer_history(self) -> list[str]:
        value = self.settings.value("peers/history", [])
        if isinstance(value, str):
            return [value]
        if isinstance(value, list | tuple):
            return [str(v) for v in value][:20]
        return []

    def default_ports(self) -> dict[str, int]:
        """Every engine's default port, by its port key (Settings, else the engine's)."""
        return {d.port_key: self.default_port(d.port_key) for d in self.drivers.values()}

    def remember_peer(
        self, host: str, ports: Mapping[str, int] | None = None, host6: str | None = None
    ) -> None:
        """Put host first in the history; its ports (by engine) other than the defaults are
        kept with it, the defaults' forgotten (a later change in Settings then applies), and
        so is its IPv6 address (none given: the one kept is forgotten)."""
        history = [host] + [h for h in self.peer_history() if h != host]
        self.settings.setValue("peers/history", history[:20])
        if ports is None:
            return
        known = {h: p for h, p in self.peer_ports().items() if h in history[:20]}
        defaults = self.default_ports()
        typed = {key: port for key, port in ports.items() if defaults.get(key) != port}
        if typed:
            known[host] = typed
        else:
            known.pop(host, None)
        self.settings.setValue("peers/ports", json.dumps(known))
        addresses = {h: a for h, a in self.peer_ipv6().items() if h in history[:20]}
        if host6:
            addresses[host] = host6
        else:
            addresses.pop(host, None)
        self.settings.setValue("peers/ipv6", json.dumps(addresses))

    def _by_peer(self, key: str) -> dict[str, object]:
        """What a setting keeps by peer (a JSON object), or nothing where it is no object."""
        try:
            stored = json.loads(str(self.settings.value(key, "") or "{}"))
        except ValueError:
            return {}
        return (
            {str(host): value for host, value in stored.items()} if isinstance(stored, dict) else {}
        )

    def peer_ipv6(self) -> dict[str, str]:
        """The IPv6 address given for a peer of the history (an IPv4 address or a name)."""
        stored = self._by_peer("peers/ipv6")
        return {host: a for host, a in stored.items() if isinstance(a, str) and a}

    def peer_ports(self) -> dict[str, dict[str, int]]:
        """The ports typed for a peer of the history, by engine, where not the defaults."""
        stored = self._by_peer("peers/ports")
        keys = {d.port_key for d in self.drivers.values()}
        known = {}
        for host, ports in stored.items():
            if isinstance(ports, list) and len(ports) == len(OLD_PORT_ORDER):  # as once kept
                ports = dict(zip(OLD_PORT_ORDER, ports, strict=True))
            if not isinstance(ports, dict):
                continue
            valid = {
                str(key): number
                for key, port in ports.items()
                if key in keys and 0 < (number := _as_int(port, 0)) < 65536
            }
            if valid:
                known[str(host)] = valid
        return known

    # -- last plan and layout --------------------------------------------------------------
    def last_plan_json(self) -> str:
        return str(self.settings.value("plan/last", "") or "")

    def remember_plan_json(self, text: str) -> None:
        self.settings.setValue("plan/last", text)


def _as_int(value: object, fallback: int) -> int:
    """QSettings hands back strings from INI files and ints from the registry."""
    try:
        return int(str(value))
    except ValueError:
        return fallback
