"""Locate iperf3 / netperf / netserver and probe their versions and capabilities."""

from __future__ import annotations

import functools
import os
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from app.engine.errors import EngineMissing, EngineTooOld, NotIperf3
from app.engine.process import run_short
from app.resources import resource_dir

ENGINES = ("iperf3", "netperf", "netserver")
MIN_IPERF3 = (3, 1)
#: iperf3 servers older than this have known remotely triggerable flaws.
SAFE_IPERF3_SERVER = (3, 19, 1)


class Source(StrEnum):
    SETTINGS = "settings"  # a path the user set
    BUNDLED = "bundled"  # resources/engines/<os>-<arch>/
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
    capabilities: frozenset[Capability]

    @property
    def version_string(self) -> str:
        return ".".join(str(p) for p in self.version) if self.version else "unknown"

    def has(self, capability: Capability) -> bool:
        return capability in self.capabilities

    def require(self, capability: Capability, purpose: str) -> None:
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


def _exe(name: str) -> str:
    return f"{name}.exe" if sys.platform == "win32" else name


def configured_path(name: str) -> str | None:
    """A path the user set: LINKLAB_<NAME> in the environment (the window's settings set it)."""
    value = os.environ.get(f"LINKLAB_{name.upper()}")
    return value or None


def locate(name: str, user_path: str | None = None) -> tuple[str, Source]:
    """Find an engine: the user's path, then the bundled copy, then PATH."""
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}")
    user_path = user_path or configured_path(name)
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
    found = shutil.which(name)
    if found:
        return str(Path(found).resolve()), Source.PATH
    raise EngineMissing(name)


def find_tool(name: str, user_path: str | None = None) -> Tool:
    path, source = locate(name, user_path)
    stat = os.stat(path)
    return _probe(name, path, source, stat.st_mtime_ns, stat.st_size)


def _run(argv: list[str]) -> str:
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


def iperf3_capabilities(help_text: str, version_text: str) -> frozenset[Capability]:
    caps: set[Capability] = set()
    flags = {
        "--json-stream": Capability.JSON_STREAM,
        "--bidir": Capability.BIDIR,
        "--connect-timeout": Capability.CONNECT_TIMEOUT,
        "--rcv-timeout": Capability.RCV_TIMEOUT,
        "--snd-timeout": Capability.SND_TIMEOUT,
        "--idle-timeout": Capability.IDLE_TIMEOUT,
        "--one-off": Capability.ONE_OFF,
        "--forceflush": Capability.FORCEFLUSH,
        "--server-max-duration": Capability.SERVER_MAX_DURATION,
    }
    for flag, cap in flags.items():
        if re.search(re.escape(flag) + r"\b", help_text):
            caps.add(cap)
    if "--username" in help_text and "authentication" in (version_text + help_text).lower():
        caps.add(Capability.AUTHENTICATION)
    return frozenset(caps)


#: What a netperf built without demo mode prints for -D (netsh.c), then goes on without it.
NO_DEMO = "Demo Mode not configured"
_IPERF2_VERSION = re.compile(r"^iperf version 2\.", re.MULTILINE)


def netperf_capabilities(probe_text: str) -> frozenset[Capability]:
    """From the output of `netperf -D 1 -V`: demo mode (live interim results) unless refused."""
    return frozenset() if NO_DEMO in probe_text else frozenset({Capability.INTERIM})


@functools.lru_cache(maxsize=16)
def _probe(name: str, path: str, source: Source, _mtime: int, _size: int) -> Tool:
    if name == "iperf3":
        version_text = _run([path, "--version"])
        if _IPERF2_VERSION.search(version_text):
            raise NotIperf3(version_text.strip().splitlines()[0])
        version = parse_version(version_text.replace("cJSON", ""))
        caps = iperf3_capabilities(_run([path, "--help"]), version_text)
        if version and version < MIN_IPERF3:
            raise EngineTooOld(
                f"iperf3 {'.'.join(map(str, version))} at {path} is too old (LinkLab needs "
                f"{'.'.join(map(str, MIN_IPERF3))} or newer): install a newer iperf3."
            )
    elif name == "netperf":
        # -V prints the version and exits; a -D before it shows whether demo mode is built in.
        probe_text = _run([path, "-D", "1", "-V"])
        lines = probe_text.strip().splitlines()
        version_text = next((line for line in lines if "version" in line.lower()), probe_text)
        version = parse_version(version_text)
        caps = netperf_capabilities(probe_text)
    else:
        version_text = _run([path, "-V"])
        version = parse_version(version_text)
        caps = frozenset()
    first_line = version_text.strip().splitlines()[0] if version_text.strip() else ""
    return Tool(name, path, version, first_line, source, caps)
