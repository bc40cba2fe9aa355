"""What a command runs in: its streams, its variables, its data folder and its engines, read
from the process once at the entry point so that every command can also run in-process."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TextIO

from app.domain.paths import DB_ENV, data_folder
from app.engine.drivers.registry import PROGRAM_NAMES
from app.engine.process.tools import EngineSettings
from app.store.db import default_path
from app.study.host.wifi_query import WifiTools


@dataclass(frozen=True)
class Environment:
    """A command's whole view of the world outside its arguments: the commands print to
    stdout and stderr, read stdin, and take their settings from here, never from the process.
    `from_process()` is the real one; a test builds one with streams of its own."""

    stdin: TextIO
    stdout: TextIO
    stderr: TextIO
    variables: Mapping[str, str]
    #: Where the engines are: LINKLAB_<NAME> variables, read once here and handed on.
    engine_settings: EngineSettings
    #: How this computer's Wi-Fi is asked (a test replays recorded tools' output).
    wifi: WifiTools = field(default_factory=WifiTools)

    @classmethod
    def of(
        cls,
        variables: Mapping[str, str],
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        wifi: WifiTools | None = None,
    ) -> Environment:
        """An environment of the given variables; streams not given are empty ones of its own."""
        return cls(
            stdin=stdin if stdin is not None else io.StringIO(),
            stdout=stdout if stdout is not None else io.StringIO(),
            stderr=stderr if stderr is not None else io.StringIO(),
            variables=MappingProxyType(dict(variables)),  # a copy no command can change
            engine_settings=EngineSettings.from_environment(variables, PROGRAM_NAMES),
            wifi=wifi or WifiTools(),
        )

    @classmethod
    def from_process(cls) -> Environment:
        """This process's own: its standard streams (speaking UTF-8) and its variables."""
        speak_utf8()
        return cls.of(os.environ, stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr)

    @property
    def database_override(self) -> str | None:
        """The database LINKLAB_DB names (a test's own, or a user's choice), if any."""
        return self.variables.get(DB_ENV) or None

    @property
    def data_folder(self) -> Path:
        """The folder of LinkLab's database and of its records of running servers."""
        return data_folder(self.database_override)

    @property
    def database(self) -> Path:
        """The database a command uses when it is given no --db."""
        return default_path(self.database_override)

    def ask(self, question: str) -> str | None:
        """The line the user types after question, as input() reads it; None when stdin is not
        a terminal (a script, a pipe: nobody there to answer)."""
        if not self.stdin.isatty():
            return None
        self.stdout.write(question)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise EOFError
        return line.removesuffix("\n")

    def db(self, given: str | Path | None) -> Path:
        """The database of a command's --db (given), else the default one."""
        return Path(given) if given else self.database


def speak_utf8() -> None:
    """Write stdout and stderr in UTF-8 whatever the system's code page: LinkLab's sentences
    and figures use characters (−, α, ›) that Windows' ANSI code page (cp1252) cannot encode
    when the output goes to a pipe or a file, which would end the command mid-sentence.
    A Windows console already takes UTF-8, and so do Linux and macOS; nothing changes there."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").replace("-", "").lower()
        if encoding != "utf8" and isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8")
