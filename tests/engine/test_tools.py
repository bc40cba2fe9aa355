"""Engine discovery order (settings, bundled, PATH) and capability probing."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from app.domain.plan import Engine
from app.engine.drivers.iperf3.driver import iperf3_capabilities
from app.engine.drivers.registry import PROGRAMS, find_tool, registry
from app.engine.errors import EngineMissing
from app.engine.process import tools
from app.engine.process.tools import Capability, EngineSettings, Source, parse_version
from tests.conftest import require_engine

HELP_312 = """  --forceflush              force flushing output at every interval
  --rcv-timeout #           idle timeout for receiving data (default 120000 ms)
  --snd-timeout #           timeout for unacknowledged TCP data
  --idle-timeout #          restart idle server after # seconds in case it
  -1, --one-off             handle one client connection then exit
  --connect-timeout #       timeout for control connection setup (ms)
  --bidir                   run in bidirectional mode.
  --username                username for authentication
"""


def test_parse_version() -> None:
    assert parse_version("iperf 3.12 (cJSON 1.7.15)") == (3, 12)
    assert parse_version("iperf 3.17.1 (cJSON 1.7.15)") == (3, 17, 1)
    assert parse_version("Netperf version 2.7.0") == (2, 7, 0)
    assert parse_version("nothing here") == ()


def test_capabilities_from_help() -> None:
    caps = iperf3_capabilities(HELP_312, "Optional features available: ..., authentication, ...")
    assert Capability.BIDIR in caps and Capability.JSON_STREAM not in caps
    assert Capability.AUTHENTICATION in caps and Capability.ONE_OFF in caps
    # A build without OpenSSL lists no --username option at all.
    no_ssl = HELP_312.replace("  --username                username for authentication\n", "")
    newer = iperf3_capabilities(
        no_ssl + "  --json-stream             output in line-delimited JSON\n", ""
    )
    assert Capability.JSON_STREAM in newer and Capability.AUTHENTICATION not in newer


def test_installed_iperf3_is_probed() -> None:
    tool = require_engine("iperf3")
    assert tool.version >= (3, 1)
    assert tool.source in (Source.PATH, Source.BUNDLED)
    assert Capability.FORCEFLUSH in tool.capabilities


def _fake_engine(folder: Path, name: str, version: str) -> Path:
    """A stand-in executable (a copy of the real iperf3 would do too; this one is tiny)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\necho 'iperf {version} (cJSON 1.7.15)'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts")
def test_discovery_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle_root = tmp_path / "resources"
    bundled = _fake_engine(bundle_root / "engines" / tools.platform_tag(), "iperf3", "3.19.1")
    user = _fake_engine(tmp_path / "mine", "iperf3", "3.18")
    monkeypatch.setattr(tools, "resource_dir", lambda: bundle_root)
    # Bundled beats PATH.
    tool = find_tool("iperf3")
    assert (tool.source, tool.path, tool.version) == (Source.BUNDLED, str(bundled), (3, 19, 1))
    # A path the user set beats both.
    tool = find_tool("iperf3", str(user))
    assert (tool.source, tool.version) == (Source.SETTINGS, (3, 18))
    # The settings handed over as an object: the command line reads them from LINKLAB_IPERF3.
    settings = EngineSettings.from_environment({"LINKLAB_IPERF3": str(user)}, ["iperf3"])
    assert find_tool("iperf3", settings=settings).source is Source.SETTINGS
    assert registry(settings)[Engine.IPERF3].tool().source is Source.SETTINGS
    # Nothing bundled: PATH.
    bundled.unlink()
    assert find_tool("iperf3").source is Source.PATH


def test_bad_user_path_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(EngineMissing, match=r"settings .* is not an executable file"):
        find_tool("iperf3", str(tmp_path / "nope"))


def test_missing_engine_sentence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(tools, "resource_dir", lambda: tmp_path)
    with pytest.raises(EngineMissing) as info:
        find_tool("netserver")
    assert PROGRAMS["netserver"].install_hint() in str(info.value)


@pytest.mark.parametrize(
    ("platform", "said", "never"),
    [
        ("linux", "sudo apt-get install netperf", "brew"),
        ("darwin", "brew install netperf", "apt-get"),
        ("win32", "Settings › Engines", "apt-get"),
    ],
)
def test_install_sentences_fit_the_system(platform: str, said: str, never: str) -> None:
    hint = PROGRAMS["netserver"].install_hint(platform)
    assert said in hint and never not in hint
    # iperf3 comes with LinkLab's Windows installer: the sentence says so instead of a command.
    windows = PROGRAMS["iperf3"].install_hint("win32")
    assert "installer brings iperf3" in windows and "sudo" not in windows
    iperf2 = PROGRAMS["iperf"].install_hint("win32")  # iperf 2.2.1
    assert "installer brings iperf with it" in iperf2


@pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts")
def test_an_engine_built_by_the_set_up_comes_after_the_bundled_one_and_before_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """iperf 2.2.1 built from its pinned source (build/built-engines/<os>-<arch>/ of a checkout)
    is preferred to the system's iperf; a copy bundled with LinkLab is preferred to it."""
    root = tmp_path / "checkout"
    bundled_folder = root / "resources" / "engines" / tools.platform_tag()
    built = _fake_engine(root / "build" / "built-engines" / tools.platform_tag(), "iperf3", "3.20")
    monkeypatch.setattr(tools, "resource_dir", lambda: root / "resources")
    tool = find_tool("iperf3")
    assert (tool.source, tool.path, tool.version) == (Source.BUILT, str(built), (3, 20))
    bundled = _fake_engine(bundled_folder, "iperf3", "3.19.1")
    assert find_tool("iperf3").path == str(bundled)
    bundled.unlink()
    built.unlink()
    assert find_tool("iperf3").source is Source.PATH


def test_the_set_up_builds_iperf_2_2_1_and_linklab_uses_it() -> None:
    """After the set-up (scripts/ensure-engines.sh), `iperf` is the 2.2.1 it built."""
    name = "iperf.exe" if sys.platform == "win32" else "iperf"
    if not (tools.built_dir() / name).is_file():
        pytest.skip("iperf 2.2.1 is not built here: run scripts/ensure-engines.sh (make test does)")
    tool = find_tool("iperf")
    assert tool.source is Source.BUILT and tool.version == (2, 2, 1)
    assert "2.2.1" in tool.version_text
