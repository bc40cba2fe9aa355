"""A command run in-process, in an environment of its own, is the command a user runs: the
same output, byte for byte, and the same exit status as `linklab` started as a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.cli.environment import Environment
from app.engine.process.servers import LocalServer
from tests.conftest import ROOT_DIR, linklab, linklab_process


@pytest.fixture
def measured(tmp_path: Path, iperf3_server_port: tuple[int, LocalServer]) -> tuple[str, str]:
    """A database holding one really measured session: its path and the session's id."""
    port, _ = iperf3_server_port
    db = str(tmp_path / "lab.sqlite3")
    done = linklab(
        "run", "--peer", "127.0.0.1", "--port", str(port), "--sizes", "1408", "--runs", "1",
        "--duration", "1", "--db", db, "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return db, json.loads(done.stdout)["session_id"]


EXPECTED = (
    "expected", "--link-rate", "300M", "--protocol", "udp", "--ip", "6", "--length", "1200",
    "--medium", "802.11ac",
)  # fmt: skip


def test_in_process_prints_what_the_process_prints(measured: tuple[str, str]) -> None:
    db, sid = measured
    commands = [
        ("sessions", "list", "--db", db),
        ("sessions", "show", sid[:8], "--db", db),  # "·", "×", "—"
        ("sessions", "show", sid, "--db", db, "--json"),
        ("export", sid, "--format", "csv", "--out", "-", "--db", db),  # the CSV on stdout
        ("export", sid, "--format", "samples", "--out", "-", "--db", db),
        ("sessions", "delete", sid, "--db", db),  # refused: no terminal to confirm on
        ("sessions", "show", "no-such-session", "--db", db),  # a sentence, exit 1
        ("sessions", "bogus"),  # argparse's usage and error, exit 2
        ("--version",),
        ("expected", "--help"),
        EXPECTED,  # a worked breakdown in columns
        ("doctor",),
    ]
    for args in commands:
        # doctor lists this computer's addresses, which another test's network namespace may
        # add to or take from between the two calls: asked again then, up to three times.
        for _ in range(3 if args == ("doctor",) else 1):
            in_process = linklab(*args)
            said = (in_process.returncode, in_process.stdout, in_process.stderr)
            if said == (process := _as_a_process(args)):
                break
        assert said == process, args
    # The variables are the environment's: LINKLAB_DB given to it alone names the database.
    env = {"LINKLAB_DB": db}
    in_process, process = linklab("sessions", env=env), linklab_process("sessions", env=env)
    assert sid[:8] in in_process.stdout and in_process.stdout == process.stdout


def _as_a_process(args: tuple[str, ...]) -> tuple[int, str, str]:
    """`linklab ARGS` started as a process: its exit status and the bytes it wrote, as text
    (Windows' text streams end lines in CR LF where the in-process ones hold LF)."""
    done = subprocess.run(
        [sys.executable, "-m", "app", *args], cwd=ROOT_DIR, capture_output=True, timeout=120
    )

    def text(data: bytes) -> str:
        return data.decode("utf-8").replace(os.linesep, "\n")

    return done.returncode, text(done.stdout), text(done.stderr)


def test_the_environment_is_all_a_command_sees(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A command reads the variables it is given, not the process's, and prints nothing to the
    process's own streams."""
    variables = {"LINKLAB_DB": str(tmp_path / "given.sqlite3"), "LINKLAB_IPERF3": "/no/iperf3"}
    assert not {"LINKLAB_DB", "LINKLAB_IPERF3"} & set(os.environ)
    env = Environment.of(variables)
    assert env.database == tmp_path / "given.sqlite3"
    assert main(["sessions", "rename", "x", "y"], env) == 1  # the database given is empty
    assert f"{tmp_path / 'given.sqlite3'}" in env.stderr.getvalue()  # type: ignore[attr-defined]
    env = Environment.of(variables)
    assert main(["doctor", "--json"], env) == 1  # the iperf3 it was given is not there
    iperf3 = json.loads(env.stdout.getvalue())["engines"]["iperf3"]  # type: ignore[attr-defined]
    assert "/no/iperf3" in iperf3["problem"]
    assert capfd.readouterr() == ("", "")
