"""The environment snapshot's Windows-only paths, run on any platform: netsh in another display
language and its OEM code page, the query environment, the Windows name and CPU."""

from __future__ import annotations

import codecs
import platform
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace

import pytest

from app.study.host import commands, environment
from app.study.host.environment import WifiState, WifiTools, query_wifi
from app.study.host.netsh import parse_netsh_interfaces
from tests.conftest import DATA

GERMAN = (DATA / "wifi" / "netsh_german.txt").read_bytes().decode("utf-8")


@pytest.fixture
def oem_is_cp850() -> Iterator[None]:
    """The "oem" codec exists only on Windows; here it is the German console's code page."""

    def search(name: str) -> codecs.CodecInfo | None:
        return codecs.lookup("cp850") if name == "oem" else None

    codecs.register(search)
    try:
        yield
    finally:
        codecs.unregister(search)  # also empties the codec cache


def test_netsh_in_german_gives_what_the_english_output_gives() -> None:
    """netsh_german.txt is netsh_wpa2_80211ac.txt's association under German words."""
    assert "\r\n" in GERMAN and "Verbunden" in GERMAN
    english = (DATA / "wifi" / "netsh_wpa2_80211ac.txt").read_bytes().decode("utf-8")
    expected = replace(parse_netsh_interfaces(english), ssid="Labor", interface="WLAN")  # type: ignore[arg-type]
    assert parse_netsh_interfaces(GERMAN) == expected
    assert parse_netsh_interfaces(GERMAN, "WLAN") == expected

    def netsh(argv: Sequence[str]) -> str | None:
        return GERMAN

    reading = query_wifi("WLAN", WifiTools(runner=netsh, system="Windows", native=lambda: None))
    assert reading.state is WifiState.CONNECTED and reading.security == "WPA2"


@pytest.mark.usefixtures("oem_is_cp850")
def test_netsh_output_in_the_oem_code_page_is_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = GERMAN.encode("cp850")
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")  # "ü" is 0x81 there: the UTF-8 attempt fails first
    monkeypatch.setattr(sys, "platform", "win32")
    assert commands._decode(raw) == GERMAN
    assert commands._decode("Übertragungsrate".encode()) == "Übertragungsrate"  # UTF-8 console


def test_undecodable_output_elsewhere_is_replaced_not_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    assert commands._decode(b"Verschl\x81sselung") == "Verschl\ufffdsselung"


def test_query_environment_is_left_alone_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    assert commands._query_env() is None
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    env = commands._query_env()
    assert env is not None
    assert env["LC_MESSAGES"] == "C" and env["LC_CTYPE"] == "de_DE.UTF-8" and "LC_ALL" not in env


@pytest.mark.parametrize(
    ("release", "version", "name"),
    [
        ("10", "10.0.22631", "Windows 11"),  # Python 3.11 calls Windows 11 "10"
        ("11", "10.0.26100", "Windows 11"),
        ("10", "10.0.19045", "Windows 10"),
        ("10", "", "Windows 10"),
    ],
)
def test_windows_name_and_version(
    monkeypatch: pytest.MonkeyPatch, release: str, version: str, name: str
) -> None:
    monkeypatch.setattr(platform, "system", lambda: "Windows")
    monkeypatch.setattr(platform, "release", lambda: release)
    monkeypatch.setattr(platform, "version", lambda: version)
    assert environment._os_name_version() == (name, version or None)


def test_windows_cpu_name_from_the_processor_identifier(monkeypatch: pytest.MonkeyPatch) -> None:
    identifier = "Intel64 Family 6 Model 140 Stepping 1, GenuineIntel"
    monkeypatch.setattr(sys, "platform", "win32")
    # What platform.processor() answers on Windows (uncached): Python's own reading of
    # PROCESSOR_IDENTIFIER, which LinkLab leaves to it.
    monkeypatch.setattr(platform, "processor", platform._Processor.get)  # type: ignore[attr-defined]
    monkeypatch.setenv("PROCESSOR_IDENTIFIER", identifier)
    assert environment._cpu_model() == identifier
    monkeypatch.setattr(platform, "processor", lambda: identifier + "  ")
    assert environment._cpu_model() == identifier
