"""`make dist-windows`: LinkLab's Windows bundle and installer, built on Linux and smoke-tested.

1. The Wine harness (`setup.sh` in the folder --harness names, default ../shared/wine) prepares
   Windows CPython with the win_amd64 wheels pinned in pyproject.toml in its own folder
   (LINKLAB_WINE_DIR, default ~/.cache/linklab-wine-dist); PyInstaller's win_amd64 wheels, pinned
   by the `dist` extra, go beside them.
2. iperf 2.2.1 is built for 64-bit Windows from its pinned source with Debian's MinGW-w64
   (installers/build_iperf2.py: source checksum, only system DLLs, `iperf.exe -v` under Wine),
   then installers/build.py --no-iperf3 runs under that Python (PyInstaller on
   installers/linklab.spec), into dist/windows/linklab/, with that iperf.exe as its engine (no
   Windows iperf3 can be had here: the release workflow bundles both).
3. The bundle is made clean: the harness's Wine workarounds that PyInstaller collected (its two
   DLLs, and the numpy/scipy extension modules whose imports it rewrote) are taken out or
   restored byte for byte from the pinned wheels, and every file that comes from a wheel is
   checked to be that wheel's.
4. makensis (native) builds the installer from installers/windows/linklab.nsi.
5. installers/windows/wine_smoke.py installs it silently under Wine and checks the installed
   program (see there).

    python installers/windows/wine_dist.py [--harness DIR] [--skip-build] [--no-smoke]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app import __version__  # noqa: E402
from installers.build import ENGINELESS_MARK  # noqa: E402
from installers.build_iperf2 import BUILT_DIR, BuildError  # noqa: E402
from installers.build_iperf2 import build as build_iperf2  # noqa: E402

NSI = ROOT / "installers" / "windows" / "linklab.nsi"
WINE_DIR_ENV = "LINKLAB_WINE_DIR"
DEFAULT_WINE_DIR = Path("~/.cache/linklab-wine-dist")
# The harness's Windows CPython (the embeddable build it unpacks) and the wheels' tags.
PY_VERSION = "3.12"
# What the harness adds for Wine alone; never part of a Windows bundle.
WINE_DLLS = ("wscmath.dll", "icuuc.dll")
PYINSTALLER_PTH = "linklab_pyinstaller.pth"
BUILD_TIMEOUT_S = 1800
#: Where the bundle and installer go (under dist/), and the engine the bundle must carry.
OUT_DIR = "windows"
ENGINE = Path("_internal") / "resources" / "engines" / "windows-x86_64" / "iperf.exe"


def say(text: str) -> None:
    print(f"dist-windows: {text}", flush=True)


def windows_path(path: Path) -> str:
    """The path as Wine's Windows programs see it (Z: is /)."""
    return "Z:" + str(path.resolve()).replace("/", "\\")


def _pins(extra: str | None) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    if extra is None:
        return list(project["dependencies"])
    return list(project["optional-dependencies"][extra])


def _pip(*args: str) -> None:
    argv = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check", *args]
    subprocess.run(argv, check=True)


def _win_wheels(*args: str) -> tuple[str, ...]:
    return (
        "--platform", "win_amd64", "--python-version", PY_VERSION, "--implementation", "cp",
        "--only-binary=:all:", *args,
    )  # fmt: skip


@dataclass(frozen=True)
class Harness:
    scripts: Path  # setup.sh, run.sh, petool.py
    home: Path  # its DIR: py/, build/, prefix/, stamps/

    @property
    def site_packages(self) -> Path:
        return self.home / "py" / "Lib" / "site-packages"

    def env(self) -> dict[str, str]:
        return {**os.environ, WINE_DIR_ENV: str(self.home)}

    def setup(self) -> None:
        subprocess.run(
            ["bash", str(self.scripts / "setup.sh")], cwd=ROOT, env=self.env(), check=True
        )

    def python(self, args: list[str], timeout_s: int) -> None:
        env = {**self.env(), "WINE_TIMEOUT": str(timeout_s)}
        argv = ["bash", str(self.scripts / "run.sh"), "--python", *args]
        done = subprocess.run(argv, cwd=ROOT, env=env, check=False)
        if done.returncode != 0:
            raise SystemExit(f"dist-windows: {' '.join(args[:2])} failed under Wine (see above).")


def ensure_pyinstaller(harness: Harness) -> None:
    """PyInstaller's win_amd64 wheels (the `dist` extra's pins) in a folder of their own, put on
    the Windows Python's path by a .pth file; redone whenever the harness renewed its wheels."""
    # Markers are read on this machine, not for Windows: the pins go without them.
    pins = [pin.split(";")[0].strip() for pin in _pins("dist")]
    wheels_stamp = harness.home / "stamps" / "wheels"
    key = hashlib.sha256(
        ("\n".join(pins) + "\n" + wheels_stamp.read_text(encoding="utf-8")).encode()
    ).hexdigest()
    target = harness.home / "pyinstaller"
    stamp = harness.home / "stamps" / "pyinstaller"
    pth = harness.site_packages / PYINSTALLER_PTH
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == key and pth.is_file():
        say("PyInstaller for Windows: cached")
        return
    shutil.rmtree(target, ignore_errors=True)
    _pip("install", "--no-compile", "--target", str(target), *_win_wheels(*pins))
    pth.write_text(windows_path(target) + "\r\n", encoding="utf-8")
    stamp.write_text(key, encoding="utf-8")
    say(f"PyInstaller for Windows: {', '.join(pins)}")


def pristine_members(harness: Harness) -> dict[str, tuple[Path, str]]:
    """Every file of the pinned runtime wheels, by its path relative to site-packages."""
    wheels = harness.home / "wheels-pristine"
    wheels.mkdir(exist_ok=True)
    _pip("download", "--no-deps", "-d", str(wheels), *_win_wheels(*_pins(None)))
    names: dict[str, tuple[Path, str]] = {}
    wanted = {
        re.split(r"[=<>~!]", pin, maxsplit=1)[0].lower().replace("-", "_") for pin in _pins(None)
    }
    for wheel in sorted(wheels.glob("*.whl")):
        if wheel.name.split("-")[0].lower() not in wanted:
            continue
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if not member.endswith("/"):
                    names[member] = (wheel, member)
    return names


def clean_bundle(bundle: Path, members: dict[str, tuple[Path, str]]) -> tuple[list[str], int]:
    """Take the Wine workarounds out of a bundle built under the harness: (what was restored or
    removed, how many files were checked equal to their wheel's)."""
    internal = bundle / "_internal"
    changed: list[str] = []
    for name in WINE_DLLS:
        for found in bundle.rglob(name):
            if found.relative_to(internal).as_posix() in members:
                raise SystemExit(f"dist-windows: {found} ships in a wheel: not the harness's.")
            found.unlink()
            changed.append(f"removed {found.relative_to(bundle)}")
    checked = 0
    for path in sorted(p for p in internal.rglob("*") if p.is_file()):
        rel = path.relative_to(internal).as_posix()
        if rel not in members or rel.endswith(".dist-info/RECORD"):
            continue  # (pip writes RECORD anew when it installs a wheel)
        wheel, member = members[rel]
        with zipfile.ZipFile(wheel) as archive:
            original = archive.read(member)
        data = path.read_bytes()
        checked += 1
        if data == original:
            continue
        if b"wscmath.dll" not in data or b"wscmath.dll" in original:
            raise SystemExit(
                f"dist-windows: {rel} differs from {wheel.name} in another way than the "
                "harness's import rewrite; not restoring it blindly."
            )
        path.write_bytes(original)
        changed.append(f"restored {rel} from {wheel.name}")
    for path in bundle.rglob("*"):
        if path.is_file() and path.suffix.lower() in (".dll", ".pyd", ".exe"):
            if b"wscmath.dll" in path.read_bytes():
                raise SystemExit(f"dist-windows: {path} still imports wscmath.dll.")
    return changed, checked


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def installer_path(out: Path) -> Path:
    return out / f"LinkLab-{__version__}-windows-x86_64-setup.exe"


def make_installer(bundle: Path, out: Path) -> Path:
    makensis = shutil.which("makensis")
    if makensis is None:
        raise SystemExit("dist-windows: makensis is missing (Debian: sudo apt-get install nsis).")
    argv = [
        makensis, "-V2", f"-DVERSION={__version__}",
        f"-DBUNDLE={bundle}", f"-DOUTDIR={out}", str(NSI),
    ]  # fmt: skip
    subprocess.run(argv, check=True)
    setup = installer_path(out)
    if not setup.is_file():
        raise SystemExit(f"dist-windows: makensis wrote no {setup}.")
    return setup


def mb(size: int) -> str:
    return f"{size / 2**20:.0f} MiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--harness", type=Path, default=ROOT.parent / "shared" / "wine", help="setup.sh's folder"
    )
    parser.add_argument(
        "--skip-build", action="store_true", help="reuse the last bundle (cleaned again)"
    )
    parser.add_argument("--no-smoke", action="store_true", help="build only")
    parser.add_argument(
        "--smoke-only", action="store_true", help="smoke-test the installer built last time"
    )
    args = parser.parse_args(argv)
    home = Path(os.environ.get(WINE_DIR_ENV) or DEFAULT_WINE_DIR).expanduser().absolute()
    harness = Harness(args.harness.resolve(), home)
    out = ROOT / "dist" / OUT_DIR
    bundle = out / "linklab"
    times: dict[str, float] = {}

    started = time.monotonic()
    harness.setup()
    ensure_pyinstaller(harness)
    times["Wine set-up"] = time.monotonic() - started
    if args.smoke_only:
        from installers.windows.wine_smoke import smoke

        smoke(harness.scripts, harness.home, installer_path(out))
        return 0
    if not args.skip_build:
        started = time.monotonic()
        try:
            build_iperf2("windows", BUILT_DIR / "windows-x86_64")
        except BuildError as err:
            raise SystemExit(f"dist-windows: {err}") from None
        times["iperf 2.2.1 for Windows (MinGW-w64)"] = time.monotonic() - started
        started = time.monotonic()
        work = ROOT / "build" / "windows"
        harness.python(
            [
                "installers\\build.py",
                "--no-iperf3",
                "--out",
                f"dist\\{OUT_DIR}",
                "--work",
                str(work.relative_to(ROOT)).replace("/", "\\"),
            ],
            BUILD_TIMEOUT_S,
        )
        times["bundle (PyInstaller under Wine)"] = time.monotonic() - started
    started = time.monotonic()
    changed, checked = clean_bundle(bundle, pristine_members(harness))
    for line in changed:
        say(line)
    say(f"clean bundle: {checked} files equal to the pinned wheels' ({len(changed)} fixed)")
    times["cleaning"] = time.monotonic() - started
    if (bundle / "_internal" / ENGINELESS_MARK).is_file() or not (bundle / ENGINE).is_file():
        raise SystemExit(f"dist-windows: the bundle in {bundle} lacks its engine ({ENGINE}).")
    started = time.monotonic()
    setup = make_installer(bundle, out)
    times["installer (makensis)"] = time.monotonic() - started
    say(f"bundle: {bundle} ({mb(folder_size(bundle))})")
    say(f"installer: {setup} ({mb(setup.stat().st_size)})")
    if not args.no_smoke:
        from installers.windows.wine_smoke import smoke

        started = time.monotonic()
        try:
            smoke(harness.scripts, harness.home, setup)
        finally:
            times["smoke test"] = time.monotonic() - started
            for step, seconds in times.items():
                say(f"{step}: {seconds:.0f} s")
        return 0
    for step, seconds in times.items():
        say(f"{step}: {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
