"""Build LinkLab's installable packages: `make dist` on Linux, the workflow on Windows.

1. Stage the engines for this platform in <work>/engines/<os>-<arch>/: on Linux from the
   machine's Debian packages, on Windows from a pinned, checksummed iperf3 release and iperf
   2.2.1 built from its pinned source (installers/build_iperf2.py; `--no-iperf3`: iperf 2 only).
2. Freeze the app with PyInstaller (installers/linklab.spec) into <out>/linklab/.
3. On Linux, wrap that folder as linklab-<version>-linux-<arch>.tar.gz and a .deb. (On
   Windows, makensis then makes the installer from installers/windows/linklab.nsi.)

    python installers/build.py [--out dist] [--work build] [--formats tar,deb]
        [--engines-url URL --engines-sha256 HEX]     (Windows: an engines zip other than the pin)
        [--engineless-smoke]                         (Windows: no engines; never a release)
        [--no-iperf3]                                (Windows: iperf 2 only)

--engineless-smoke exists for building on a machine where no Windows iperf3 can be had (the
smoke test under Wine): the bundle goes to <out>/windows-engineless-smoke/linklab/ with
ENGINELESS-SMOKE-NOT-FOR-RELEASE.txt inside, which linklab.nsi refuses to package unless told
it is such a build, and then names the setup program so.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app import __version__  # noqa: E402
from app.engine.process.tools import platform_tag  # noqa: E402

SPEC = ROOT / "installers" / "linklab.spec"
LINUX_FORMATS = ("tar", "deb")
#: The folder (under --out) and the mark file of a bundle built with --engineless-smoke.
ENGINELESS_DIR = "windows-engineless-smoke"
ENGINELESS_MARK = "ENGINELESS-SMOKE-NOT-FOR-RELEASE.txt"


def say(text: str) -> None:
    print(f"build: {text}", flush=True)


def stage_iperf2_windows(dest: Path) -> None:
    """iperf 2.2.1 for Windows, built from its pinned source by installers/build_iperf2.py (on
    Linux, with MinGW-w64: `make dist-windows`, or the release workflow's job before this one),
    with its licence and the MinGW-w64 runtime's notices, into dest beside the other engines."""
    from installers.build_iperf2 import BUILT_DIR, MANIFEST

    built = BUILT_DIR / "windows-x86_64"
    if not (built / "iperf.exe").is_file():
        raise SystemExit(
            f"build: iperf 2 for Windows is not built ({built / 'iperf.exe'} is missing): build "
            "it on Linux with python installers/build_iperf2.py --target windows."
        )
    (dest / "licenses").mkdir(parents=True, exist_ok=True)
    # Bytes read and written, not shutil's copies: Python 3.12 on Windows copies with
    # CopyFile2, which Wine 8 (make dist-windows) does not have.
    names = ["iperf.exe", MANIFEST, *(f"licenses/{p.name}" for p in (built / "licenses").iterdir())]
    for name in names:
        (dest / name).write_bytes((built / name).read_bytes())
    say(f"engines: iperf 2.2.1 for Windows ({(dest / 'iperf.exe').stat().st_size // 1024} kB)")


def stage_engines(
    dest: Path, url: str | None = None, sha256: str | None = None, *, iperf3: bool = True
) -> None:
    if sys.platform == "win32":
        if not iperf3:  # iperf 2 alone: a machine where no Windows iperf3 can be had
            if dest.exists():
                shutil.rmtree(dest)
            stage_iperf2_windows(dest)
            return
        fetch = ROOT / "installers" / "windows" / "fetch_engines.py"
        argv = [sys.executable, str(fetch), "--dest", str(dest)]
        if url is not None and sha256 is not None:
            argv += ["--url", url, "--sha256", sha256]
        done = subprocess.run(argv, check=False)
        if done.returncode != 0:
            raise SystemExit("build: the Windows engines could not be fetched (see above).")
        stage_iperf2_windows(dest)
        return
    from installers.linux.stage_engines import StageError, stage

    try:
        manifest = stage(dest)
    except StageError as err:
        raise SystemExit(f"build: {err}") from None
    engines = manifest["engines"]
    assert isinstance(engines, dict)
    say("engines: " + ", ".join(f"{n} {e['version']}" for n, e in engines.items()))


def freeze(out: Path, work: Path, engines: Path, *, engineless: bool = False) -> Path:
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
    if engineless:
        if staged.exists():
            raise SystemExit(f"build: an engine-less bundle must have no {staged}.")
        (bundle / "_internal" / ENGINELESS_MARK).write_text(
            "This LinkLab bundle was built with --engineless-smoke: it has no measurement "
            "engines and exists only for a smoke test. It is never released.\n",
            encoding="utf-8",
        )
        return bundle
    suffix = ".exe" if sys.platform == "win32" else ""
    if not any((staged / f"{name}{suffix}").is_file() for name in ("iperf3", "iperf")):
        raise SystemExit(f"build: the bundle lacks an engine (iperf3 or iperf 2) in {staged}.")
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
    parser.add_argument("--engines-url", help="Windows: an engines zip (https: or file:)")
    parser.add_argument("--engines-sha256", help="Windows: the SHA-256 of --engines-url")
    parser.add_argument(
        "--engineless-smoke",
        action="store_true",
        help="Windows: no engines, for a smoke test only; the output is marked and never released",
    )
    parser.add_argument(
        "--no-iperf3",
        action="store_true",
        help="Windows: iperf 2 (built from source) only, where no Windows iperf3 can be had",
    )
    parser.add_argument(
        "--compression-level",
        type=int,
        choices=range(1, 10),
        metavar="1-9",
        help="Linux: the packages' gzip level (default: 6 for the tarball, 9 for the .deb); "
        "1 builds fastest, for a package that is only tested",
    )
    args = parser.parse_args(argv)
    formats = {f for f in args.formats.split(",") if f and f != "none"}
    if not formats <= set(LINUX_FORMATS):
        parser.error(f"--formats takes {', '.join(LINUX_FORMATS)} or none")
    if (args.engines_url is None) != (args.engines_sha256 is None):
        parser.error("--engines-url and --engines-sha256 go together")
    if (args.engineless_smoke or args.engines_url) and sys.platform != "win32":
        parser.error("--engineless-smoke and --engines-url are for the Windows build")
    if args.engineless_smoke and args.engines_url:
        parser.error("--engineless-smoke takes no engines")
    if args.no_iperf3 and (sys.platform != "win32" or args.engines_url or args.engineless_smoke):
        parser.error("--no-iperf3 is for the Windows build with iperf 2, without --engines-url")
    out, work = args.out.resolve(), args.work.resolve()
    tag = platform_tag()
    engines = work / "engines" / tag
    started = time.monotonic()
    if args.engineless_smoke:
        out = out / ENGINELESS_DIR
        engines = work / "no-engines"  # never created: the spec then bundles none
        if engines.exists():
            raise SystemExit(f"build: {engines} must not exist for an engine-less build.")
        say("ENGINE-LESS SMOKE BUILD: no engines, not for release")
    else:
        stage_engines(engines, args.engines_url, args.engines_sha256, iperf3=not args.no_iperf3)
    out.mkdir(parents=True, exist_ok=True)
    bundle = freeze(out, work, engines, engineless=args.engineless_smoke)
    say(f"bundle: {bundle} ({time.monotonic() - started:.0f} s)")
    if sys.platform.startswith("linux"):
        from installers.linux.package import DEB_LEVEL, TAR_LEVEL, make_deb, make_tarball

        level = args.compression_level
        if "tar" in formats:
            tarball = make_tarball(bundle, out, __version__, tag, level or TAR_LEVEL)
            say(f"tarball: {tarball}")
        if "deb" in formats:
            deb = make_deb(bundle, out, __version__, platform.machine(), work, level or DEB_LEVEL)
            say(f"deb: {deb}")
    say(f"done in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
