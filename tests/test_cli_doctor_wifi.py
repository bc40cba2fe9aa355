"""`linklab doctor` says what LinkLab reads of each Wi-Fi interface, or why it cannot and
what to do, in text and in --json; `linklab run` says why the security was not detected and
stores the reason with the session. Run in-process with real netsh outputs replayed as
Windows' (the location refusal, the WLAN service stopped, a German capture), and for real
on this machine."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.cli import main
from app.cli.environment import Environment
from app.domain.plan import Security
from app.engine.process.servers import LocalServer
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.host.wifi_query import WifiTools
from tests.conftest import linklab

OUTPUTS = Path(__file__).resolve().parents[2] / "shared" / "wifi-outputs"
needs_outputs = pytest.mark.skipif(
    not OUTPUTS.is_dir(), reason=f"the shared Wi-Fi outputs are not here ({OUTPUTS})"
)


def windows(netsh_file: str) -> WifiTools:
    """A Windows whose netsh prints the shared file (no Native Wifi API on this machine)."""
    text = (OUTPUTS / netsh_file).read_bytes().decode("utf-8")

    def netsh(argv: Sequence[str]) -> str | None:
        assert list(argv) == ["netsh", "wlan", "show", "interfaces"]
        return text

    return WifiTools(runner=netsh, system="Windows", native=lambda: None)


def command(tools: WifiTools, *args: str) -> tuple[int, str]:
    """(exit status, stdout then stderr) of `linklab ARGS` on that Windows."""
    out, err = io.StringIO(), io.StringIO()
    env = Environment.of(dict(os.environ), stdout=out, stderr=err, wifi=tools)
    code = main(list(args), env)
    return code, out.getvalue() + err.getvalue()


def doctor(netsh_file: str, *args: str) -> tuple[int, str]:
    return command(windows(netsh_file), "doctor", *args)


@needs_outputs
def test_the_location_refusal_says_where_to_turn_location_on() -> None:
    _code, text = doctor("netsh-win11-en-location-denied-accessdenied-tail.txt")
    assert "Wi-Fi, as LinkLab reads it:" in text
    assert (
        "Windows lets LinkLab read the Wi-Fi network only with location access on: Settings › "
        "Privacy & security › Location › Let desktop apps access your location." in text
    )
    assert "Source: netsh wlan show interfaces." in text
    _code, raw = doctor("netsh-win11-en-location-denied-accessdenied-tail.txt", "--json")
    [wifi] = json.loads(raw)["wifi"]
    assert wifi["state"] == "refused-location" and wifi["needs_location"] is True
    assert wifi["source"] == "netsh wlan show interfaces" and wifi["association"] is None


@needs_outputs
def test_a_stopped_wlan_service_says_how_to_start_it() -> None:
    _code, text = doctor("netsh-win-en-wlansvc-not-running-LITERAL.txt")
    assert "The WLAN AutoConfig service (wlansvc) is stopped" in text
    assert "Services › WLAN AutoConfig › Start" in text
    _code, raw = doctor("netsh-win-en-wlansvc-not-running-LITERAL.txt", "--json")
    assert [w["state"] for w in json.loads(raw)["wifi"]] == ["service-off"]


@needs_outputs
def test_a_german_capture_is_read_whole() -> None:
    _code, text = doctor("netsh-win11-de-connected-wpa2enterprise.txt")
    said = "WLAN is connected to “SSID-1”, WPA2 detected. Source: netsh wlan show interfaces."
    assert said in text
    assert "channel 116, 5580 MHz, signal 43 %, 300 Mbit/s PHY, 802.11ac" in text
    _code, raw = doctor("netsh-win11-de-connected-wpa2enterprise.txt", "--json")
    [wifi] = json.loads(raw)["wifi"]
    assert wifi["security"] == "WPA2" and wifi["association"]["channel"] == 116
    assert wifi["association"]["security"] == "WPA2-Enterprise"  # netsh's own word kept


@needs_outputs
def test_two_disconnected_adapters_are_each_named() -> None:
    _code, raw = doctor("netsh-win10-en-two-interfaces-both-disconnected.txt", "--json")
    assert [(w["interface"], w["state"]) for w in json.loads(raw)["wifi"]] == [
        ("Wi-Fi", "disconnected"),
        ("Wi-Fi 2", "disconnected"),
    ]


def test_doctor_on_this_computer_names_its_wifi() -> None:
    """This machine's own answer, whatever it is: every reading has its sentence and source."""
    done = linklab("doctor", "--json")
    readings = json.loads(done.stdout)["wifi"]
    assert readings and all(r["sentence"] and r["source"] for r in readings)
    assert "Wi-Fi, as LinkLab reads it:" in linklab("doctor").stdout


@needs_outputs
def test_run_says_why_the_security_was_not_detected_and_stores_it(
    tmp_path: Path, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    db = tmp_path / "lab.sqlite3"
    tools = windows("netsh-win11-en-location-denied-accessdenied-tail.txt")
    run = ("run", "--peer", "127.0.0.1", "--port", str(port), "--sizes", "1408", "--runs", "1")
    code, text = command(tools, *run, "--duration", "1", "--db", str(db))
    assert code == 0, text
    assert "The Wi-Fi security was not detected: Windows lets LinkLab read" in text
    with Database(db, readonly=True) as opened:
        (session,) = SessionStore(opened).list_sessions()
    assert session.plan.conditions.security is Security.UNKNOWN
    assert session.environment["wifi_reading"]["state"] == "refused-location"
    code, shown = command(tools, "sessions", "show", session.id, "--db", str(db))
    assert "security    unknown, not stated; not detected: Windows lets LinkLab" in shown
