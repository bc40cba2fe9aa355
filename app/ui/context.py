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
from app.domain.plan import DEFAULT_ECHO_PORT, Engine
from app.engine.discovery import FoundPeer, discover
from app.engine.drivers import DRIVERS, EngineDriver
from app.engine.loopback import LoopbackServers
from app.engine.tools import Tool, find_tool
from app.store.db import default_path
from app.study.frontdoor import FrontDoor

SETTINGS_VERSION = 1
ENGINE_NAMES = ("iperf3", "netperf", "netserver")


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
        # This computer's own servers, kept between studies and stopped with the window.
        self.loopback = LoopbackServers()
        # The engines' drivers (a fake one stands in for tests that need no real engine).
        self.drivers: Mapping[Engine, EngineDriver] = DRIVERS
        #: How the window finds LinkLab's servers on the network (echo port -> computers).
        self.find_peers: Callable[[int], list[FoundPeer]] = discover
        self.settings = settings or QSettings("LinkLab", "LinkLab")
        if _as_int(self.settings.value("version", 0), 0) != SETTINGS_VERSION:
            # Settings from another LinkLab version: keep nothing that might not fit.
            self.settings.clear()
            self.settings.setValue("version", SETTINGS_VERSION)
        self._db_override = db_path
        #: The start-up check's sentence when the database is damaged (then only read).
        self.damaged: str | None = None
        self.apply_engine_paths()

    # -- database --------------------------------------------------------------------------
    @property
    def db_path(self) -> Path:
        if self._db_override is not None:
            return self._db_override
        stored = str(self.settings.value("data/db_path", "") or "")
        return Path(stored) if stored else default_path()

    def set_db_path(self, path: Path | None) -> None:
        self.settings.setValue("data/db_path", str(path) if path else "")
        self.settings_changed.emit()

    def door(self) -> FrontDoor:
        """The front door to the studies of the database in use (read-only, saying why, when
        the start-up check found it damaged)."""
        return FrontDoor(
            self.db_path, loopback=self.loopback, drivers=self.drivers, damaged=self.damaged
        )

    # -- engines ---------------------------------------------------------------------------
    def engine_path(self, name: str) -> str:
        return str(self.settings.value(f"engines/{name}", "") or "")

    def set_engine_path(self, name: str, path: str) -> None:
        self.settings.setValue(f"engines/{name}", path)
        self.apply_engine_paths()
        self.settings_changed.emit()

    def apply_engine_paths(self) -> None:
        """A path set here wins over bundled and PATH copies (tools.locate reads these)."""
        for name in ENGINE_NAMES:
            path = self.engine_path(name)
            variable = f"LINKLAB_{name.upper()}"
            if path:
                os.environ[variable] = path
            else:
                os.environ.pop(variable, None)

    def engine(self, name: str) -> EngineStatus:
        try:
            return EngineStatus(name, find_tool(name), "")
        except LinkLabError as err:
            return EngineStatus(name, None, err.sentence)

    # -- ports and peers -------------------------------------------------------------------
    def default_port(self, name: str) -> int:
        fallback = {"iperf3": 5201, "echo": DEFAULT_ECHO_PORT}.get(name, 12865)
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

    def remember_peer(self, host: str, ports: tuple[int, int] | None = None) -> None:
        """Put host first in the history; ports (iperf3, netserver) other than the defaults
        are kept with it, the defaults' forgotten (a later change in Settings then applies)."""
        history = [host] + [h for h in self.peer_history() if h != host]
        self.settings.setValue("peers/history", history[:20])
        if ports is None:
            return
        known = {h: p for h, p in self.peer_ports().items() if h in history[:20]}
        if ports == (self.default_port("iperf3"), self.default_port("netperf")):
            known.pop(host, None)
        else:
            known[host] = ports
        self.settings.setValue("peers/ports", json.dumps({h: list(p) for h, p in known.items()}))

    def peer_ports(self) -> dict[str, tuple[int, int]]:
        """The ports typed for a peer of the history (iperf3, netserver), where not the
        defaults."""
        try:
            stored = json.loads(str(self.settings.value("peers/ports", "") or "{}"))
        except ValueError:
            return {}
        if not isinstance(stored, dict):
            return {}
        known = {}
        for host, ports in stored.items():
            if isinstance(ports, list) and len(ports) == 2:
                iperf3, netserver = (_as_int(p, 0) for p in ports)
                if 0 < iperf3 < 65536 and 0 < netserver < 65536:
                    known[str(host)] = (iperf3, netserver)
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
