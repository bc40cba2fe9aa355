"""The Windows installer script and workflow stay in step with the app: the associations' name
endings, the version, the windowed program, what the workflow builds and checks; and the script
compiles with makensis on a stand-in bundle, refusing a bundle without engines for a release."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from app import __version__
from app.domain.exercise import EXERCISE_SUFFIX
from app.study.files.exchange import EXCHANGE_SUFFIX
from installers.build import ENGINELESS_MARK
from tests.conftest import ROOT_DIR

NSI = ROOT_DIR / "installers" / "windows" / "linklab.nsi"
WORKFLOW = ROOT_DIR / ".github" / "workflows" / "windows.yml"
ENGINE = Path("_internal/resources/engines/windows-x86_64/iperf3.exe")
ENGINE2 = Path("_internal/resources/engines/windows-x86_64/iperf.exe")


def _nsi() -> tuple[str, dict[str, str]]:
    """The script with its ${NAME} constants expanded, and the !define values."""
    text = NSI.read_text(encoding="utf-8")
    defines = dict(re.findall(r'^\s*!define\s+(\w+)\s+"([^"]*)"', text, re.MULTILINE))
    return re.sub(r"\$\{(\w+)\}", lambda m: defines.get(m.group(1), m.group(0)), text), defines


def _lines(text: str, *needles: str) -> list[str]:
    return [line for line in text.splitlines() if all(n in line for n in needles)]


def test_the_version_fallback_is_the_apps_version() -> None:
    _, defines = _nsi()
    assert defines["VERSION"] == __version__


def test_the_associations_are_the_apps_suffixes_and_open_the_windowed_program() -> None:
    text, defines = _nsi()
    assert defines["EXCHANGE_EXT"] == EXCHANGE_SUFFIX
    assert defines["EXERCISE_EXT"] == EXERCISE_SUFFIX
    associated = _lines(text, "!insertmacro Associate")
    assert {line.split('"')[1] for line in associated} == {EXCHANGE_SUFFIX, EXERCISE_SUFFIX}
    (command,) = _lines(text, "WriteRegStr HKCU", r"\shell\open\command")
    assert command.rstrip().endswith(r"""'"$INSTDIR\linklabw.exe" "%1"'""")
    # Per user: nothing outside HKCU, and every association is undone by the uninstaller.
    assert not _lines(text, "HKLM")
    assert len(_lines(text, "!insertmacro Unassociate")) == 2


def test_the_start_menu_entry_starts_the_windowed_program_for_this_user() -> None:
    text, _ = _nsi()
    (entry,) = _lines(text, "CreateShortcut")
    assert r'"$SMPROGRAMS\LinkLab.lnk" "$INSTDIR\linklabw.exe"' in entry
    assert "RequestExecutionLevel user" in text
    assert 'InstallDir "$LOCALAPPDATA\\Programs\\LinkLab"' in text


def test_the_icon_and_licence_it_names_exist() -> None:
    text, _ = _nsi()
    named = re.findall(r'(?:MUI_ICON|MUI_PAGE_LICENSE)"?\s+"([^"]+)"', text)
    assert len(named) == 2
    for path in named:
        assert (NSI.parent / path.replace("\\", "/")).is_file(), path


def test_the_workflow_builds_installs_and_checks_the_bundled_engine() -> None:
    text = WORKFLOW.read_text(encoding="utf-8").replace("\\", "/")
    assert "python installers/build.py" in text
    assert "makensis" in text and "installers/windows/linklab.nsi" in text
    assert "--engineless-smoke" not in text and "ENGINELESS_SMOKE" not in text
    assert "doctor --json" in text
    assert '"bundled"' in text


def _stand_in(folder: Path, *, engine: bool, mark: bool = False, iperf2: bool = False) -> Path:
    """A folder shaped like the bundle, with placeholder files."""
    bundle = folder / "linklab"
    (bundle / "_internal").mkdir(parents=True)
    for name in ("linklab.exe", "linklabw.exe"):
        (bundle / name).write_bytes(b"MZ stand-in")
    if engine:
        (bundle / ENGINE).parent.mkdir(parents=True)
        (bundle / ENGINE).write_bytes(b"MZ iperf3 stand-in")
    if iperf2:
        (bundle / ENGINE2).parent.mkdir(parents=True, exist_ok=True)
        (bundle / ENGINE2).write_bytes(b"MZ iperf 2 stand-in")
    if mark:
        (bundle / "_internal" / ENGINELESS_MARK).write_text("no engines\n", encoding="utf-8")
    return bundle


def _makensis(bundle: Path, out: Path, *defines: str) -> subprocess.CompletedProcess[str]:
    makensis = shutil.which("makensis")
    assert makensis is not None
    argv = [makensis, "-V2", f"-DBUNDLE={bundle}", f"-DOUTDIR={out}", *defines, str(NSI)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


needs_makensis = pytest.mark.skipif(
    shutil.which("makensis") is None, reason="needs NSIS's makensis (Debian: nsis)"
)


def _pe_machine(path: Path) -> int:
    data = path.read_bytes()
    assert data[:2] == b"MZ"
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    assert data[pe : pe + 4] == b"PE\0\0"
    machine: int = struct.unpack_from("<H", data, pe + 4)[0]
    return machine


@needs_makensis
def test_the_script_compiles_a_64_bit_setup_for_a_bundle_with_engines(tmp_path: Path) -> None:
    bundle = _stand_in(tmp_path, engine=True)
    done = _makensis(bundle, tmp_path, f"-DVERSION={__version__}", "-V4")
    assert done.returncode == 0, done.stdout + done.stderr
    setup = tmp_path / f"LinkLab-{__version__}-windows-x86_64-setup.exe"
    (target,) = re.findall(r"LinkLab setup target: (\S+)", done.stdout)
    # amd64 where makensis has those stubs (Debian's nsis: the only kind 64-bit-only Wine runs);
    # NSIS's Windows release has 32-bit stubs only.
    assert _pe_machine(setup) == {"amd64-unicode": 0x8664, "x86-unicode": 0x14C}[target]
    if sys.platform.startswith("linux"):
        assert target == "amd64-unicode"


@needs_makensis
def test_a_release_refuses_a_bundle_without_engines(tmp_path: Path) -> None:
    done = _makensis(_stand_in(tmp_path, engine=False), tmp_path)
    assert done.returncode != 0
    assert "a release ships its engines" in done.stdout + done.stderr
    assert not list(tmp_path.glob("*.exe"))


@needs_makensis
def test_a_bundle_with_iperf2_alone_is_a_release(tmp_path: Path) -> None:
    """`make dist-windows` here: iperf 2 built from source, no iperf3 to be had."""
    done = _makensis(_stand_in(tmp_path, engine=False, iperf2=True), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [p.name for p in tmp_path.glob("*.exe")] == [
        f"LinkLab-{__version__}-windows-x86_64-setup.exe"
    ]


@needs_makensis
def test_an_engineless_smoke_bundle_is_never_a_release(tmp_path: Path) -> None:
    bundle = _stand_in(tmp_path, engine=False, mark=True)
    done = _makensis(bundle, tmp_path)
    assert done.returncode != 0
    assert "never released" in done.stdout + done.stderr
    assert not list(tmp_path.glob("*.exe"))
    done = _makensis(bundle, tmp_path, "-DENGINELESS_SMOKE")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [p.name for p in tmp_path.glob("*.exe")] == [
        f"LinkLab-{__version__}-windows-x86_64-ENGINELESS-SMOKE-NOT-FOR-RELEASE.exe"
    ]
