"""The frozen bundle against the same code run from source: cold start to the main window on a
real X server (Xvfb), and `linklab --version`, measured side by side (interleaved, median of 5),
plus the size of the bundle and its packages. Uses dist/ when `make dist` has built it, and
builds it otherwise."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import __version__  # noqa: E402
from installers.linux import smoke  # noqa: E402
from installers.linux.package import folder_bytes  # noqa: E402

DIST = ROOT / "dist"


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    subprocess.run(argv, env=env, capture_output=True, check=True)
    return time.monotonic() - started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a short look: one round")
    args = parser.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    bundle = DIST / "linklab"
    if not (bundle / "linklab").is_file():
        print("no bundle in dist/: building it (installers/build.py)", flush=True)
        build = [sys.executable, str(ROOT / "installers" / "build.py")]
        subprocess.run(build, check=True)
    frozen = [str(bundle / "linklab")]
    source = [str(Path(sys.executable).parent / "linklab")]  # what `make run` starts
    version: dict[str, list[float]] = {"frozen": [], "source": []}
    window: dict[str, list[float]] = {"frozen": [], "source": []}
    with tempfile.TemporaryDirectory() as tmp:
        env = smoke.bare_env(Path(tmp))  # a fresh home; no engines on PATH
        with smoke.xvfb() as display:
            for _ in range(rounds):
                for name, argv in (("frozen", frozen), ("source", source)):
                    version[name].append(timed([*argv, "--version"], env))
                    window[name].append(smoke.time_to_window(argv, env | {"DISPLAY": display}))
    mib = 1024 * 1024
    print(f"bundle dist/linklab: {folder_bytes(bundle) / mib:.0f} MiB on disk")
    for package in sorted(DIST.glob(f"linklab*{__version__}*")):
        if package.is_file():
            print(f"  {package.name}: {package.stat().st_size / mib:.0f} MiB")
    for label, numbers in (("--version", version), ("cold start to window shown", window)):
        f, s = statistics.median(numbers["frozen"]), statistics.median(numbers["source"])
        print(
            f"{label} (median of {rounds}, Xvfb): frozen {f:.2f} s, source {s:.2f} s, "
            f"ratio frozen/source {f / s:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
