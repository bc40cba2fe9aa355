"""`linklab doctor` says what LinkLab reads of each Wi-Fi interface, or why it cannot and
what to do, in text and in --json: run in-process with real netsh outputs replayed as
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
from app.study.host.wifi_query import WifiTools
from tests.conftest import linklab

OUTPUTS = Path(__file__).resolve().parents[2] / "shared" / "wifi-outputs"
needs_outputs = pytest.mark.skipif(
    not OUTPUTS.is_dir(), reason=f"the shared Wi-Fi outputs are not here ({OUTPUTS})"
)


def doctor(netsh_file: str, *args: str) -> tuple[int, str]:
    """doctor on a Windows whose netsh prints the shared file (no Native Wifi API here)."""
    text = (OUTPUTS / netsh_file).read_bytes().decode("utf-8")

    def netsh(argv: Sequence[str]) -> str | None:
        assert list(argv) == ["netsh", "wlan", "show", "interfaces"]
        return text

    out = io.StringIO()
    tools = WifiTools(runner=netsh, system="Windows", native=lambda: None)
    env = Environment.of(dict(os.environ), stdout=out, stderr=io.StringIO(), wifi=tools)
    code = main(["doctor", *args], env)
    return code, out.getvalue()


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
