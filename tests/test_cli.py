"""The headless commands, run as a user would: `python -m app ...` in a child process."""

from __future__ import annotations

import json

import pytest

from app.engine.process.servers import LocalServer
from tests.conftest import linklab


def test_version() -> None:
    done = linklab("--version")
    assert done.returncode == 0 and done.stdout.startswith("LinkLab ")


@pytest.mark.usefixtures("iperf3_tool")
def test_doctor_json() -> None:
    done = linklab("doctor", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    iperf3 = report["engines"]["iperf3"]
    assert iperf3["found"] and iperf3["path"] and iperf3["version"]
    assert set(iperf3["capabilities"]) >= {
        "json-stream",
        "bidir",
        "authentication",
        "connect-timeout",
    }
    assert isinstance(report["ipv6"], bool)
    assert all({"interface", "address", "version", "scope"} <= set(a) for a in report["addresses"])
    text = linklab("doctor")
    assert "iperf3" in text.stdout and "Addresses a peer can use" in text.stdout


@pytest.mark.usefixtures("iperf3_tool")
def test_demo_is_a_real_loopback_measurement() -> None:
    done = linklab("demo")
    assert done.returncode == 0, done.stderr
    assert "bit/s" in done.stdout and "Result (iperf3" in done.stdout
    assert "-c 127.0.0.1" in done.stdout


def test_measure_json(iperf3_server_port: tuple[int, LocalServer]) -> None:
    port, _ = iperf3_server_port
    done = linklab(
        "measure",
        "--peer",
        "::1",
        "--port",
        str(port),
        "--duration",
        "1",
        "--protocol",
        "udp",
        "--length",
        "1408",
        "--bitrate",
        "50M",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # The sender keeps to -b; what arrives may dip when the machine is busy.
    assert result["flows"][0]["sender_bps"] == pytest.approx(50e6, rel=0.1)
    assert result["throughput_bps"] > 25e6
    assert result["flows"][0]["packets"] > 0
    assert "-u" in result["argv"] and "1408" in result["argv"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["measure", "--peer", "x", "--port", "70000"], "--port"),
        (["measure", "--peer", "x", "--duration", "zero"], "--duration"),
        (["measure", "--peer", "x", "--protocol", "sctp"], "--protocol"),
        (["measure", "--peer", "x", "--length", "big"], "--length"),
        (["measure"], "--peer"),
        (["serve", "--port", "0"], "--port"),
    ],
)
def test_bad_arguments_exit_2_and_name_the_argument(args: list[str], named: str) -> None:
    done = linklab(*args)
    assert done.returncode == 2
    assert named in done.stderr
    assert "Traceback" not in done.stderr


def test_engine_errors_are_one_sentence(iperf3_server_port: tuple[int, LocalServer]) -> None:
    done = linklab("measure", "--peer", "--logfile=x")
    assert done.returncode == 2 or done.returncode == 1
    done = linklab("measure", "--peer", "no-such-host.invalid", "--duration", "1")
    assert done.returncode == 1
    assert done.stderr.strip().startswith(
        "linklab: The name 'no-such-host.invalid' could not be resolved"
    )
    assert "Traceback" not in done.stderr
    done = linklab("measure", "--peer", "a b")
    assert done.returncode == 2 and "spaces or control characters" in done.stderr


def test_each_command_is_registered_by_the_module_the_table_names() -> None:
    # main() imports only the module of the command given (see COMMANDS): the table must say
    # where every command lives, and a parser built for one command must read it alike.
    import argparse
    import importlib

    from app.cli import COMMANDS, build_parser

    def commands(parser: argparse.ArgumentParser) -> list[str]:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return list(sub.choices)

    assert commands(build_parser()) == list(COMMANDS)
    for module in set(COMMANDS.values()):
        parser = argparse.ArgumentParser()
        importlib.import_module(f"app.cli.{module}").register(parser.add_subparsers())
        assert set(commands(parser)) == {c for c, m in COMMANDS.items() if m == module}
    for command in COMMANDS:
        assert commands(build_parser([command, "--help"])) == [
            c for c, m in COMMANDS.items() if m == COMMANDS[command]
        ]
    assert commands(build_parser([])) == []
