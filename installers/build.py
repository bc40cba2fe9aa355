"""Build LinkLab's installable packages: `make dist` on Linux, the workflow on Windows.

1. Stage the engines for this platform in <work>/engines/<os>-<arch>/: on Linux from the
   machine's Debian packages, on Windows from a pinned, checksummed iperf3 release.
2. Freeze the app with PyInstaller (installers/linklab.spec) into <out>/linklab/.
3. On Linux, wrap that folder as linklab-<version>-linux-<arch>.tar.gz and a .deb. (On
   Windows, Inno Setup then makes the installer from installers/windows/linklab.iss.)

    python installers/build.py [--out dist] [--work build] [--formats tar,deb]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app import __version__  # noqa: E402
from app.engine.tools import platform_tag  # noqa: E402

SPEC = ROOT / "installers" / "linklab.spec"
LINUX_FORMATS = ("tar", "deb")


def say(text: str) -> None:
    print(f"build: {text}", flush=True)


def stage_engines(dest: Path) -> None:
    if sys.platform == "win32":
        fetch = ROOT / "installers" / "windows" / "fetch_engines.py"
        done = subprocess.run([sys.executable, str(fetch), "--dest", str(dest)], check=False)
        if done.returncode != 0:
            raise SystemExit("build: the Windows engines could not be fetched (see above).")
        return
    from installers.linux.stage_engines import StageError, stage

    try:
        manifest = stage(dest)
    except StageError as err:
        raise SystemExit(f"build: {err}") from None
    engines = manifest["engines"]
    assert isinstance(engines, dict)
    say("engines: " + ", ".join(f"{n} {e['version']}" for n, e in engines.items()))


def freeze(out: Path, work: Path, engines: Path) -> Path:
    env = {**os.environ, "LINKLAB_STAGED_ENGINES": str(engines)}
    argv = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--log-level",
        "WARN",
        "--distpath",
        str(out),
        "--workpath",
        str(work / "pyinstaller"),
        str(SPEC),
    ]
    done = subprocess.run(argv, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit("build: PyInstaller failed (see above).")
    bundle = out / "linklab"
    staged = bundle / "_internal" / "resources" / "engines" / platform_tag()
    if not (staged / ("iperf3.exe" if sys.platform == "win32" else "iperf3")).is_file():
        raise SystemExit(f"build: the bundle lacks iperf3 in {staged}.")
    return bundle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build LinkLab's installable packages.")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where packages go")
    parser.add_argument("--work", type=Path, default=ROOT / "build", help="scratch folder")
    parser.add_argument(
        "--formats",
        default=",".join(LINUX_FORMATS),
        help="Linux packages to make from the bundle: tar, deb, both (default) or none",
    )
    args = parser.parse_args(argv)
    formats = {f for f in args.formats.split(",") if f and f != "none"}
    if not formats <= set(LINUX_FORMATS):
        parser.error(f"--formats takes {', '.join(LINUX_FORMATS)} or none")
    out, work = args.out.resolve(), args.work.resolve()
    out.mkdir(parents=True, exist_ok=True)
    tag = platform_tag()
    engines = work / "engines" / tag
    started = time.monotonic()
    stage_engines(engines)
    bundle = freeze(out, work, engines)
    say(f"bundle: {bundle} ({time.monotonic() - started:.0f} s)")
    if sys.platform.startswith("linux"):
        from installers.linux.package import make_deb, make_tarball

        if "tar" in formats:
            say(f"tarball: {make_tarball(bundle, out, __version__, tag)}")
        if "deb" in formats:
            say(f"deb: {make_deb(bundle, out, __version__, platform.machine(), work)}")
    say(f"done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
