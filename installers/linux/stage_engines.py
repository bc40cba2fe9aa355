"""Copy this machine's packaged iperf3, netperf and netserver for the bundle, and iperf 2.2.1 as
the set-up built it from its pinned source (else the packaged iperf 2).

The folder becomes resources/engines/linux-<arch>/ inside the bundle: the engines, the shared
libraries they need beyond the C library (in lib/), the packages' copyright files (in
licenses/) and linklab-engines.json, which says what was taken from which package. The app
puts lib/ on the engines' library path when it starts them (app.engine.process.process).

    python installers/linux/stage_engines.py --dest build/engines/linux-x86_64
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from app.engine.process.process import ENGINE_MANIFEST
from installers.build_iperf2 import BUILT_DIR
from installers.build_iperf2 import MANIFEST as BUILT_MANIFEST

REQUIRED = ("iperf3",)
OPTIONAL = ("netperf", "netserver", "iperf")
#: Libraries every Linux system has in a compatible version: the C library and its loader.
SYSTEM_LIBRARIES = re.compile(
    r"^(linux-vdso|linux-gate|ld-linux.*|libc|libm|libdl|libpthread|librt|libresolv|libutil)"
    r"\.so"
)


def _machine() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "aarch64": "arm64"}.get(machine, machine)


class StageError(Exception):
    """Staging cannot go on; the message says what to do."""


@dataclass(frozen=True)
class Package:
    name: str
    version: str


def _run(argv: list[str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise StageError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return done.stdout


def owning_package(path: Path) -> Package:
    """The Debian package that installed path (trying the /usr and / spellings of merged-usr)."""
    real = path.resolve()
    candidates = [str(path), str(real)]
    for item in list(candidates):
        if item.startswith("/usr/"):
            candidates.append(item[4:])
        else:
            candidates.append("/usr" + item)
    for candidate in candidates:
        done = subprocess.run(
            ["dpkg-query", "-S", candidate], capture_output=True, text=True, check=False
        )
        if done.returncode == 0 and ":" in done.stdout:
            name = done.stdout.split(":", 1)[0].split(",")[0].strip()
            arch_free = name.split(":")[0]
            version = _run(["dpkg-query", "-W", "-f=${Version}", name]).strip()
            return Package(arch_free, version)
    raise StageError(
        f"{path} does not belong to any installed package: install the engines from your "
        "distribution's packages (apt-get install iperf3 netperf) and build again."
    )


def shared_libraries(binary: Path) -> list[Path]:
    """The libraries binary loads that are not part of the C library, as ldd resolves them."""
    found = []
    for line in _run(["ldd", str(binary)]).splitlines():
        match = re.match(r"\s*(\S+)\s+=>\s+(/\S+)", line)
        if not match:
            continue
        soname, target = match.groups()
        if SYSTEM_LIBRARIES.match(soname):
            continue
        found.append(Path(target))
    return found


def stage(dest: Path) -> dict[str, object]:
    """Fill dest (emptied first) and return the manifest written there."""
    if shutil.which("dpkg-query") is None:
        raise StageError(
            "Bundling the engines needs a Debian or Ubuntu build machine (dpkg-query was not "
            "found): build the Linux packages there."
        )
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "lib").mkdir(parents=True)
    (dest / "licenses").mkdir()
    engines: dict[str, dict[str, str]] = {}
    libraries: dict[str, dict[str, str]] = {}
    packages: dict[str, Package] = {}
    licenses = []
    for name in REQUIRED + OPTIONAL:
        built = BUILT_DIR / f"linux-{_machine()}" / name
        if built.is_file():  # iperf 2.2.1 from its pinned source (installers/build_iperf2.py)
            shutil.copy2(built, dest / name)
            made = json.loads((built.parent / BUILT_MANIFEST).read_text(encoding="utf-8"))
            engines[name] = {"built from source": made["commit"], "version": made["version"]}
            for licence in made["licenses"]:
                shutil.copyfile(built.parent / licence, dest / licence)
                licenses.append(licence)
            found: str | None = str(built)
        else:
            found = shutil.which(name)
        if found is None:
            if name in REQUIRED:
                raise StageError(
                    f"{name} is not installed, so it cannot be bundled: install it "
                    f"(apt-get install {name}) and build again."
                )
            print(f"stage-engines: {name} is not installed; the bundle will not carry it.")
            continue
        source = Path(found).resolve()
        if name not in engines:
            package = owning_package(Path(found))
            packages[package.name] = package
            shutil.copy2(source, dest / name)
            engines[name] = {"package": package.name, "version": package.version}
        os.chmod(dest / name, 0o755)  # noqa: S103 (an engine must be executable)
        for library in shared_libraries(source):
            soname = library.name
            if soname in libraries:
                continue
            lib_package = owning_package(library)
            packages[lib_package.name] = lib_package
            shutil.copy2(library.resolve(), dest / "lib" / soname)
            os.chmod(dest / "lib" / soname, 0o644)
            libraries[soname] = {"package": lib_package.name, "version": lib_package.version}
    for package in sorted(packages.values(), key=lambda p: p.name):
        copyright_file = Path("/usr/share/doc") / package.name / "copyright"
        if not copyright_file.is_file():
            raise StageError(
                f"The copyright file of {package.name} ({copyright_file}) is missing, so its "
                "licence cannot be shipped: reinstall the package (apt-get install --reinstall "
                f"{package.name}) and build again."
            )
        target = f"licenses/{package.name}.copyright.txt"
        shutil.copyfile(copyright_file, dest / target)
        licenses.append(target)
    manifest: dict[str, object] = {
        "engines": engines,
        "libraries": libraries,
        "licenses": licenses,
        "note": "Taken unmodified from the build machine's Debian packages.",
    }
    (dest / ENGINE_MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, required=True, help="folder to fill (emptied)")
    args = parser.parse_args(argv)
    try:
        manifest = stage(args.dest)
    except StageError as err:
        print(f"stage-engines: {err}", file=sys.stderr)
        return 1
    engines = manifest["engines"]
    assert isinstance(engines, dict)
    summary = ", ".join(f"{n} {e['version']}" for n, e in engines.items())
    print(f"stage-engines: {summary} -> {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
