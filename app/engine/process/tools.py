"""Locate an engine's programs (the user's path, the bundled copy, PATH) and probe them once
per binary with the probe its driver gives; the settings that say where they are."""

from __future__ import annotations

import functools
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from app.engine.errors import EngineMissing, EngineTooOld
from app.engine.process.install_hint import install_hint
from app.engine.process.process import run_short
from app.resources import resource_dir


class Source(StrEnum):
    SETTINGS = "settings"  # a path the user set
    BUNDLED = "bundled"  # resources/engines/<os>-<arch>/
    BUILT = "built"  # built from pinned source by the set-up: build/built-engines/<os>-<arch>/
    PATH = "path"  # found on PATH


class Capability(StrEnum):
    JSON_STREAM = "json-stream"
    BIDIR = "bidir"
    AUTHENTICATION = "authentication"
    CONNECT_TIMEOUT = "connect-timeout"
    RCV_TIMEOUT = "rcv-timeout"
    SND_TIMEOUT = "snd-timeout"
    IDLE_TIMEOUT = "idle-timeout"
    ONE_OFF = "one-off"
    FORCEFLUSH = "forceflush"
    SERVER_MAX_DURATION = "server-max-duration"  # iperf3 3.20+: the server caps a test's length
    INTERIM = "interim"  # netperf -D demo mode (a configure option, off by default upstream)


@dataclass(frozen=True)
class Tool:
    name: str
    path: str
    version: tuple[int, ...]
    version_text: str
    source: Source
    capabilities: frozenset[str]  # Capability, or an engine's own capabilities

    @property
    def version_string(self) -> str:
        return ".".join(str(p) for p in self.version) if self.version else "unknown"

    def has(self, capability: str) -> bool:
        return capability in self.capabilities

    def require(self, capability: str, purpose: str) -> None:
        if capability not in self.capabilities:
            raise EngineTooOld(
                f"The installed {self.name} {self.version_string} cannot {purpose}: install a "
                f"newer {self.name}, or leave that option out."
            )


def platform_tag() -> str:
    """The resources/engines/ sub-folder for this machine, e.g. linux-x86_64 or windows-x86_64."""
    system = {"win32": "windows", "darwin": "macos"}.get(sys.platform, sys.platform)
    if system.startswith("linux"):
        system = "linux"
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "x64": "x86_64", "aarch64": "arm64"}.get(machine, machine)
    return f"{system}-{machine}"


def bundled_dir() -> Path:
    return resource_dir() / "engines" / platform_tag()


def built_dir() -> Path:
    """Where the set-up of a source checkout puts the engines it builds from pinned source
    (installers/build_iperf2.py); a frozen bundle has none (its engines are bundled)."""
    return resource_dir().parent / "build" / "built-engines" / platform_tag()


def _exe(name: str) -> str:
    return f"{name}.exe" if sys.platform == "win32" else name


@dataclass(frozen=True)
class EngineSettings:
    """What the user set for the engines: a path per program (by its name, "iperf3"), chosen in
    the window's Settings or, for the command line, in LINKLAB_<NAME> variables. Handed to the
    drivers as an object: the engine layer reads no environment of its own."""

    paths: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, paths: Mapping[str, str]) -> EngineSettings:
        return cls(tuple(sorted((name, path) for name, path in paths.items() if path)))

    @classmethod
    def from_environment(cls, env: Mapping[str, str], programs: Iterable[str]) -> EngineSettings:
        """LINKLAB_IPERF3=/path/to/iperf3 and the like (the command line's way to choose)."""
        return cls.of({name: env.get(f"LINKLAB_{name.upper()}", "") for name in programs})

    def path(self, program: str) -> str | None:
        return dict(self.paths).get(program) or None


#: A program's version probe: its path -> (version, the line that says it, capabilities).
Probe = Callable[[str], tuple[tuple[int, ...], str, frozenset[str]]]


@dataclass(frozen=True)
class Program:
    """One program of an engine (netperf has two: netperf and netserver) and its probe."""

    name: str
    probe: Probe
    use: str = ""  # what LinkLab runs it for, ending a sentence: "the iperf3 client and server"
    #: Debian's package and Homebrew's formula that carry it, where not named after it
    #: (netserver comes with netperf), and whether LinkLab's Windows installer brings it.
    package: str = ""
    formula: str = ""
    bundled_on_windows: bool = False

    def install_hint(self, platform: str | None = None) -> str:
        """What to do when it is missing, as the end of a sentence
        (app.engine.process.install_hint)."""
        return install_hint(
            self.name,
            platform,
            package=self.package,
            formula=self.formula,
            bundled_on_windows=self.bundled_on_windows,
        )


def locate(program: Program, user_path: str | None = None) -> tuple[str, Source]:
    """Find a program: the user's path, then the bundled copy, then the one the set-up built,
    then PATH."""
    name = program.name
    if user_path:
        path = Path(user_path)
        if path.is_file() and os.access(path, os.X_OK):
            return str(path.resolve()), Source.SETTINGS
        raise EngineMissing(
            name,
            f"The {name} path set in LinkLab's settings ({user_path}) is not an executable "
            f"file: correct it, or clear it to use the {name} LinkLab finds by itself.",
        )
    bundled = bundled_dir() / _exe(name)
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return str(bundled), Source.BUNDLED
    built = built_dir() / _exe(name)
    if not getattr(sys, "frozen", False) and built.is_file() and os.access(built, os.X_OK):
        return str(built), Source.BUILT
    found = shutil.which(name)
    if found:
        return str(Path(found).resolve()), Source.PATH
    raise EngineMissing(name, f"{name} was not found: {program.install_hint()}.")


def program_tool(program: Program, user_path: str | None = None) -> Tool:
    """The program found and probed (once per binary: a changed file is probed again)."""
    path, source = locate(program, user_path)
    stat = os.stat(path)
    return _probe(program, path, source, stat.st_mtime_ns, stat.st_size)


def run_probe(argv: list[str]) -> str:
    """What a short probe command prints (stdout and stderr), empty when it fails."""
    try:
        done = run_short(argv, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    output: bytes = done.stdout + done.stderr
    return output.decode("utf-8", "replace")


def parse_version(text: str) -> tuple[int, ...]:
    """First dotted version number in text: 'iperf 3.17.1 (cJSON…)' -> (3, 17, 1)."""
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not match:
        return ()
    return tuple(int(g) for g in match.groups() if g is not None)


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


@functools.lru_cache(maxsize=16)
def _probe(program: Program, path: str, source: Source, _mtime: int, _size: int) -> Tool:
    version, version_text, caps = program.probe(path)
    return Tool(program.name, path, version, first_line(version_text), source, caps)
