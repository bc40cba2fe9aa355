"""The Linux installers, built for real by installers/build.py (as `make dist` does): the frozen
bundle run on a PATH without iperf3 and a fresh home, the .deb unpacked into a scratch root,
the .tar.gz listed. One build (about 1.5 min, started in the background when the tests are
collected) serves every test in this module."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from app import __version__
from app.domain.exercise import EXERCISE_SUFFIX, with_id
from app.engine.process.process import ENGINE_MANIFEST
from app.engine.process.tools import platform_tag
from app.guide_pages import shipped_files
from app.study.files.exchange import EXCHANGE_SUFFIX
from app.study.lab.exercises import find_ready, write_exercise
from installers.linux import smoke
from installers.linux.package import deb_arch
from tests.installers import early_build

ROOT = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S = 900

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(BUILD_TIMEOUT_S),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux packages"),
    pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs Debian's dpkg-deb"),
]


@pytest.fixture(scope="module")
def built() -> Path:
    """installers/build.py's output, from the build started when the tests were collected."""
    return early_build.wait(BUILD_TIMEOUT_S)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def _engines_dir(bundle: Path) -> Path:
    return bundle / "_internal" / "resources" / "engines" / platform_tag()


def test_frozen_program_finds_its_bundled_engines(built: Path, tmp_path: Path) -> None:
    bundle = built / "linklab"
    env = smoke.bare_env(tmp_path)
    assert shutil.which("iperf3", path=env["PATH"]) is None
    assert smoke.run(bundle, ["--version"], env).strip() == f"LinkLab {__version__}"
    manifest = json.loads((_engines_dir(bundle) / ENGINE_MANIFEST).read_text(encoding="utf-8"))
    assert "iperf3" in manifest["engines"]
    doctor = json.loads(smoke.run(bundle, ["doctor", "--json"], env))
    for name in manifest["engines"]:
        info = doctor["engines"][name]
        assert info["source"] == "bundled", info
        assert Path(info["path"]).parent == _engines_dir(bundle)
    assert doctor["engines"]["iperf3"]["version"] != "unknown"
    for licence in manifest["licenses"]:
        assert (_engines_dir(bundle) / licence).stat().st_size > 100
    # LinkLab's own licence, Qt's (LGPL-3.0) and the Python packages' metadata travel along.
    assert (bundle / "_internal" / "LICENSE").is_file()
    assert "LESSER GENERAL PUBLIC LICENSE" in (
        bundle / "_internal/licenses/LGPL-3.0.txt"
    ).read_text(encoding="utf-8")
    assert list((bundle / "_internal").glob("pyside6_essentials-*.dist-info"))
    # The presets ship in the bundle and are found as from source.
    assert list((bundle / "_internal" / "resources" / "presets").glob("*.json"))
    # The user guide (the Help, F1) ships with the pictures it shows, where its links find them.
    for path in shipped_files(ROOT):
        assert (bundle / "_internal" / path).is_file(), f"{path} is not in the bundle"


def test_frozen_loopback_measurements(built: Path, tmp_path: Path) -> None:
    bundle = built / "linklab"
    env = smoke.bare_env(tmp_path)
    measure = ["measure", "--peer", "127.0.0.1", "--duration", "1", "--json"]
    with smoke.frozen_servers(bundle, env) as (port, netport):
        iperf3 = json.loads(smoke.run(bundle, [*measure, "--port", str(port)], env))
        netperf = None
        if (_engines_dir(bundle) / "netperf").is_file():
            args = [*measure, "--engine", "netperf", "--port", str(netport)]
            netperf = json.loads(smoke.run(bundle, args, env))
    assert Path(iperf3["argv"][0]) == _engines_dir(bundle) / "iperf3"
    assert iperf3["throughput_bps"] > 100e6  # loopback moves gigabits; 0 would mean no data
    if netperf is not None:
        assert Path(netperf["argv"][0]) == _engines_dir(bundle) / "netperf"
        assert netperf["throughput_bps"] > 100e6


needs_x = pytest.mark.skipif(
    shutil.which("Xvfb") is None or shutil.which("xwininfo") is None,
    reason="needs Xvfb and xwininfo (make test installs them)",
)


def _sessions(bundle: Path, env: dict[str, str]) -> list[dict[str, object]]:
    found = json.loads(smoke.run(bundle, ["sessions", "list", "--json"], env))
    assert isinstance(found, list)
    return found


# Over 10 s: the frozen bundle's study, export and window import of the file on a real X display.
@needs_x
def test_frozen_study_exported_then_opened_like_a_double_click(built: Path, tmp_path: Path) -> None:
    """A study on one computer, exported; the .linklab file opened on another (the menu entry
    and the Windows association run `linklab FILE`): the window imports it."""
    bundle = built / "linklab"
    lab = smoke.bare_env(tmp_path / "lab")
    study = ["run", "--peer", "127.0.0.1", "--sizes", "1000", "--runs", "2", "--duration", "1"]
    with smoke.frozen_servers(bundle, lab) as (port, _):
        smoke.run(bundle, [*study, "--port", str(port), "--name", "frozen study"], lab, 120)
    (session,) = _sessions(bundle, lab)
    exported = tmp_path / f"lab2{EXCHANGE_SUFFIX}"
    args = ["export", str(session["session_id"]), "--format", "json", "--out", str(exported)]
    smoke.run(bundle, args, lab)
    desk = smoke.bare_env(tmp_path / "desk")
    with smoke.xvfb() as display:
        smoke.time_to_window(
            [str(bundle / "linklab"), str(exported)],
            desk | {"DISPLAY": display},
            until=lambda: len(_sessions(bundle, desk)) == 1,
        )
    (imported,) = _sessions(bundle, desk)
    assert imported["session_id"] == session["session_id"]
    assert imported["name"] == "frozen study" and imported["status"] == "completed"


# Over 10 s: the bundle's exercises and python-docx template: a step runs, its report opens.
def test_frozen_exercise_step_and_its_lab_report(built: Path, tmp_path: Path) -> None:
    """The ready exercises travel in the bundle; a student's step runs and drafts the report as
    an editable document (python-docx's template inside the bundle)."""
    bundle = built / "linklab"
    env = smoke.bare_env(tmp_path)
    listed = smoke.run(bundle, ["exercise", "new", "--list"], env)
    for name in ("student-lab:", "open-vs-wpa2:", "bufferbloat:"):
        assert name in listed, listed
    lab = find_ready("student-lab")
    first = replace(lab.steps[0].plan, values=(1,), repetitions=1, duration_s=1)
    short = with_id(replace(lab, steps=(replace(lab.steps[0], plan=first),)))
    exercise = write_exercise(tmp_path / f"lab{EXERCISE_SUFFIX}", short)
    with smoke.frozen_servers(bundle, env) as (port, _):
        step = ["run", "--exercise", str(exercise), "--student", "Ann Lee", "--peer", "127.0.0.1"]
        smoke.run(bundle, [*step, "--port", str(port)], env, 120)
    (session,) = _sessions(bundle, env)
    report = tmp_path / "Ann Lee.docx"
    args = ["export", str(session["session_id"]), "--format", "report", "--out", str(report)]
    smoke.run(bundle, args, env)
    with zipfile.ZipFile(report) as docx:
        body = docx.read("word/document.xml").decode("utf-8")
    assert "Lab report by Ann Lee" in body and short.title in body


@needs_x
def test_frozen_window_shows(built: Path, tmp_path: Path) -> None:
    env = smoke.bare_env(tmp_path)
    shot = tmp_path / "frozen-window.png"
    with smoke.xvfb() as display:
        program = [str(built / "linklab" / "linklab")]
        seconds = smoke.time_to_window(program, env | {"DISPLAY": display}, screenshot=shot)
        after = smoke.grab_screen(display, tmp_path / "after.png")
    assert seconds > 0
    # The window drew itself: the screen shows many colours while it is up (an empty screen
    # has one, as it has again once the window is closed).
    assert _colours(shot) > 20
    assert after == 1


def _colours(path: Path) -> int:
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert not image.isNull()
    step = 7
    return len(
        {
            image.pixel(x, y)
            for x in range(0, image.width(), step)
            for y in range(0, image.height(), step)
        }
    )


def test_deb_installs_launcher_menu_entry_and_file_type(built: Path, tmp_path: Path) -> None:
    arch = deb_arch(platform_tag().split("-", 1)[1])
    deb = built / f"linklab_{__version__}_{arch}.deb"
    fields = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Package", "Version", "Architecture", "Depends"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"Version: {__version__}" in fields and f"Architecture: {arch}" in fields
    # The C library the package asks for is what its binaries need, at most this machine's.
    needed = re.search(r"libc6 \(>= ([\d.]+)\)", fields)
    assert needed is not None, fields
    machine = os.confstr("CS_GNU_LIBC_VERSION") or ""
    assert _version(needed.group(1)) <= _version(machine.split()[-1])
    assert _version(needed.group(1)) >= (2, 17)
    root = tmp_path / "root"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    launcher = root / "usr" / "bin" / "linklab"
    assert launcher.is_symlink() and str(launcher.readlink()) == "/opt/linklab/linklab"
    program = root / "opt" / "linklab" / "linklab"
    env = smoke.bare_env(tmp_path / "home")
    assert smoke.run(program.parent, ["--version"], env).strip() == f"LinkLab {__version__}"
    assert (root / "opt/linklab/_internal/resources/engines" / platform_tag() / "iperf3").is_file()
    desktop = root / "usr/share/applications/linklab.desktop"
    entry = dict(
        line.split("=", 1)
        for line in desktop.read_text(encoding="utf-8").splitlines()
        if "=" in line
    )
    assert entry["Exec"] == "linklab %F" and entry["Icon"] == "linklab"
    assert "Network" in entry["Categories"].split(";")
    assert entry["MimeType"].rstrip(";").split(";") == [
        "application/x-linklab-sessions",
        "application/x-linklab-exercise",
    ]
    if shutil.which("desktop-file-validate"):
        subprocess.run(["desktop-file-validate", str(desktop)], check=True)
    mime = (root / "usr/share/mime/packages/linklab.xml").read_text(encoding="utf-8")
    assert f'<glob pattern="*{EXCHANGE_SUFFIX}"/>' in mime
    assert f'<glob pattern="*{EXERCISE_SUFFIX}"/>' in mime
    for size in (16, 48, 256):
        assert (root / f"usr/share/icons/hicolor/{size}x{size}/apps/linklab.png").is_file()
    assert (root / "usr/share/icons/hicolor/scalable/apps/linklab.svg").is_file()
    assert "MIT" in (root / "usr/share/doc/linklab/copyright").read_text(encoding="utf-8")


def test_tarball_holds_the_bundle(built: Path) -> None:
    tarball = built / f"linklab-{__version__}-{platform_tag()}.tar.gz"
    top = f"linklab-{__version__}"
    with tarfile.open(tarball) as tar:
        members = {m.name: m for m in tar.getmembers()}
    program = members[f"{top}/linklab"]
    assert program.mode & 0o111 and program.uid == 0
    assert f"{top}/README.txt" in members and f"{top}/LICENSE" in members
    engines = f"{top}/_internal/resources/engines/{platform_tag()}"
    assert members[f"{engines}/iperf3"].mode & 0o111
    assert f"{engines}/{ENGINE_MANIFEST}" in members
