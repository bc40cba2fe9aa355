"""Build iperf 2.2.1 from its pinned source, for Linux or (with MinGW-w64) for 64-bit Windows.

The source is the upstream tag 2-2-1 at a pinned commit: the vendored archive beside the
checkout (../shared/vendor/iperf2/, checked by SHA-256) where there is one, otherwise fetched
from the upstream repository at that commit (checked by commit). The program lands in
build/built-engines/<os>-<arch>/ with iperf 2's licence (and, for Windows, the MinGW-w64
runtime's notices) in licenses/ and a manifest saying what was built from what; LinkLab finds
it there after a bundled copy and before the PATH. A build whose manifest matches is not redone.

Each build is also kept in this user's cache (~/.cache/linklab/built-engines, or
$XDG_CACHE_HOME/linklab/…; LINKLAB_BUILD_CACHE names another folder, or `off`), by target, the
pinned commit and the source's checksum: a fresh checkout on the same computer takes the built
program from there once it has run (`iperf -v` for Linux) instead of compiling it again.

    python installers/build_iperf2.py [--target linux|windows] [--source ARCHIVE] [--out DIR]

Standard library only: the set-up runs it before anything else is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSION = "2.2.1"
COMMIT = "5fe98129177e1a9a5b3313ecda88b1a8a308b05e"  # upstream tag 2-2-1, 2024-11-04
ARCHIVE = f"iperf-{VERSION}.tar.gz"
ARCHIVE_SHA256 = "5f29b8c03a9e49e2ca217b8a4ac57615c05ab75bdcb44d2ee99c46e5901babc4"
UPSTREAM = "https://git.code.sf.net/p/iperf2/code"
VENDOR = Path("shared") / "vendor" / "iperf2"
MANIFEST = "linklab-iperf2.json"
#: Where the set-up's builds go, by platform tag (app.engine.process.tools reads the same folder).
BUILT_DIR = ROOT / "build" / "built-engines"
WORK_DIR = ROOT / "build" / "iperf2"
#: Names the build cache's folder; "off" builds without one.
CACHE_VARIABLE = "LINKLAB_BUILD_CACHE"

MINGW = "x86_64-w64-mingw32"
#: Static, stripped and without a link time stamp: the same bytes on every build.
WINDOWS_CONFIGURE = [
    f"--host={MINGW}",
    f"CC={MINGW}-gcc-posix",
    f"CXX={MINGW}-g++-posix",
    "LDFLAGS=-static -s -Wl,--no-insert-timestamp",
]
WINDOWS_PACKAGES = ("gcc-mingw-w64-x86-64-posix", "g++-mingw-w64-x86-64-posix")
#: The DLLs every 64-bit Windows has: a Windows iperf.exe may import these and nothing else.
WINDOWS_SYSTEM_DLLS = frozenset(
    {
        "advapi32.dll",
        "bcrypt.dll",
        "iphlpapi.dll",
        "kernel32.dll",
        "msvcrt.dll",
        "ntdll.dll",
        "shell32.dll",
        "user32.dll",
        "ws2_32.dll",
        "mswsock.dll",
    }
)
#: The MinGW-w64 runtime's notices shipped beside a Windows build (its static runtime is in it).
MINGW_NOTICES = (
    "gcc-mingw-w64-x86-64-posix",
    "g++-mingw-w64-x86-64-posix",
    "mingw-w64-x86-64-dev",
    "mingw-w64-common",
)


class BuildError(Exception):
    """The build cannot go on; the message says what to do."""


@dataclass(frozen=True)
class Source:
    archive: Path
    how: str  # "vendored" or "upstream"


def say(text: str) -> None:
    print(f"build-iperf2: {text}", file=sys.stderr, flush=True)


def platform_tag(target: str) -> str:
    """Like app.engine.process.tools.platform_tag, for the target rather than this machine."""
    if target == "windows":
        return "windows-x86_64"
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "aarch64": "arm64"}.get(machine, machine)
    return f"linux-{machine}"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cache_dir(target: str, source_sha256: str) -> Path | None:
    """This user's cached build for target from this source, or None without a cache."""
    chosen = os.environ.get(CACHE_VARIABLE, "")
    if chosen == "off":
        return None
    if chosen:
        base = Path(chosen)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "linklab" / "built-engines"
    return base / f"iperf-{VERSION}-{platform_tag(target)}-{COMMIT[:12]}-{source_sha256[:12]}"


def _restore(cached: Path, out: Path, target: str) -> bool:
    """Copy a cached build to out when it is whole (its program's checksum as its manifest
    says) and, for Linux, runs here; False (and out untouched) otherwise."""
    try:
        manifest = json.loads((cached / MANIFEST).read_text(encoding="utf-8"))
        exe = cached / ("iperf.exe" if target == "windows" else "iperf")
        if manifest.get("commit") != COMMIT or manifest.get("sha256") != sha256(exe):
            return False
    except (OSError, ValueError, AttributeError):
        return False
    if target != "windows" and VERSION not in version_line(exe):
        return False
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(cached, out)
    return True


def _keep(out: Path, cached: Path) -> None:
    """Put a finished build in the cache (whole or not at all); a cache that cannot be
    written only costs the next checkout a build."""
    part = cached.with_name(cached.name + f".part-{os.getpid()}")
    try:
        if part.exists():
            shutil.rmtree(part)
        shutil.copytree(out, part)
        if cached.exists():
            shutil.rmtree(cached)
        part.rename(cached)
    except OSError as err:
        say(f"the build was not kept in {cached.parent} ({err.strerror or err})")
        shutil.rmtree(part, ignore_errors=True)


def vendor_candidates(root: Path = ROOT) -> list[Path]:
    """Where the vendored archive may be: ../shared beside this checkout, else beside the main
    checkout of which this one is a git worktree."""
    found = [root.parent / VENDOR / ARCHIVE]
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--path-format=absolute", "--git-common-dir"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return found
    if done.returncode == 0 and done.stdout.strip():
        main = Path(done.stdout.strip()).parent
        candidate = main.parent / VENDOR / ARCHIVE
        if candidate not in found:
            found.append(candidate)
    return found


def fetch_upstream(work: Path) -> Path:
    """The pinned commit from the upstream repository, written as the vendored archive is."""
    if shutil.which("git") is None:
        raise BuildError("git is not installed, so iperf 2's source cannot be fetched.")
    repo = work / "upstream.git"
    if repo.exists():
        shutil.rmtree(repo)
    steps = [
        ["git", "init", "-q", "--bare", str(repo)],
        ["git", "-C", str(repo), "fetch", "-q", "--depth", "1", UPSTREAM, COMMIT],
    ]
    for argv in steps:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300)
        if done.returncode != 0:
            raise BuildError(
                f"iperf 2's source could not be fetched from {UPSTREAM} "
                f"({done.stderr.strip()[-200:]}): put {ARCHIVE} in ../{VENDOR.as_posix()}/ "
                f"beside the checkout, or build where that repository can be reached."
            )
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "FETCH_HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if head != COMMIT:
        raise BuildError(f"The fetched iperf 2 source is commit {head}, not the pinned {COMMIT}.")
    archive = work / ARCHIVE
    with archive.open("wb") as out:
        tar = subprocess.Popen(
            [
                "git",
                "-C",
                str(repo),
                "archive",
                "--format=tar",
                f"--prefix=iperf-{VERSION}/",
                COMMIT,
            ],
            stdout=subprocess.PIPE,
        )
        subprocess.run(["gzip", "-n", "-9"], stdin=tar.stdout, stdout=out, check=True)
        assert tar.stdout is not None
        tar.stdout.close()
        if tar.wait() != 0:
            raise BuildError("git archive of the fetched iperf 2 source failed.")
    return archive


def find_source(explicit: Path | None, work: Path, root: Path = ROOT) -> Source:
    """The pinned source archive: the one given, the vendored one, or fetched upstream."""
    candidates = [explicit] if explicit else vendor_candidates(root)
    for candidate in candidates:
        if candidate.is_file():
            got = sha256(candidate)
            if got != ARCHIVE_SHA256:
                raise BuildError(
                    f"{candidate} has SHA-256 {got}, not the pinned {ARCHIVE_SHA256}: it is not "
                    f"iperf {VERSION} as pinned; replace it with the archive its README names."
                )
            return Source(candidate, "vendored")
    if explicit:
        raise BuildError(f"{explicit} does not exist.")
    say(f"no {ARCHIVE} beside the checkout: fetching commit {COMMIT[:12]} from {UPSTREAM}")
    return Source(fetch_upstream(work), "upstream")


def _run(argv: list[str], cwd: Path, log: Path) -> None:
    with log.open("ab") as out:
        out.write(("$ " + " ".join(argv) + "\n").encode())
        out.flush()
        done = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        raise BuildError(
            f"{' '.join(argv[:2])} failed (status {done.returncode}); the end of {log}:\n"
            + "\n".join(tail)
        )


def _run_quiet(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BuildError(f"{' '.join(argv[:2])} failed: {done.stderr.strip()[-300:]}")


def _windows_imports(exe: Path) -> list[str]:
    objdump = shutil.which(f"{MINGW}-objdump") or shutil.which("objdump")
    if objdump is None:
        raise BuildError(f"{MINGW}-objdump was not found: install binutils-mingw-w64-x86-64.")
    text = subprocess.run([objdump, "-p", str(exe)], capture_output=True, text=True, check=True)
    return [m.lower() for m in re.findall(r"DLL Name:\s*(\S+)", text.stdout)]


def check_windows(exe: Path) -> str:
    """Only system DLLs imported; `iperf.exe -v` under Wine where Wine is installed."""
    imports = _windows_imports(exe)
    foreign = sorted(set(imports) - WINDOWS_SYSTEM_DLLS)
    if foreign or not imports:
        raise BuildError(
            f"{exe.name} imports DLLs that are not part of Windows ({', '.join(foreign)}): it "
            f"must be linked statically (LDFLAGS=-static)."
        )
    say(f"{exe.name} imports only system DLLs: {', '.join(sorted(set(imports)))}")
    wine = shutil.which("wine64") or shutil.which("wine")
    if wine is None:
        say("Wine is not installed: iperf.exe -v not tried")
        return ""
    with tempfile.TemporaryDirectory() as prefix:
        env = {**os.environ, "WINEDEBUG": "-all", "WINEPREFIX": prefix}
        env.setdefault("WINEDLLOVERRIDES", "mscoree,mshtml=")
        done = subprocess.run(
            [wine, str(exe), "-v"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=300,
        )
        subprocess.run(["wineserver", "-k"], env=env, check=False, capture_output=True)
    line = next((x for x in (done.stdout + done.stderr).splitlines() if "iperf version" in x), "")
    if VERSION not in line:
        raise BuildError(f"{exe.name} -v under Wine did not say iperf {VERSION}: {line!r}")
    say(f"under Wine: {line.strip()}")
    return line.strip()


def version_line(program: Path) -> str:
    done = subprocess.run([str(program), "-v"], capture_output=True, text=True, check=False)
    return next((x for x in (done.stdout + done.stderr).splitlines() if "version" in x), "")


def notices(target: str) -> list[Path]:
    """The copyright files of the MinGW-w64 packages whose runtime a Windows build links in."""
    if target != "windows":
        return []
    found = [Path("/usr/share/doc") / p / "copyright" for p in MINGW_NOTICES]
    present = [p for p in found if p.is_file()]
    if not present:
        raise BuildError(
            "The MinGW-w64 runtime's notices (/usr/share/doc/mingw-w64-*/copyright) are "
            "missing: reinstall gcc-mingw-w64-x86-64-posix."
        )
    return present


def toolchain(target: str) -> None:
    needed = ["make", "tar"]
    if target == "windows":
        needed += [f"{MINGW}-gcc-posix", f"{MINGW}-g++-posix"]
        hint = "sudo apt-get install " + " ".join(WINDOWS_PACKAGES)
    else:
        needed += ["cc", "c++"]
        hint = "sudo apt-get install build-essential"
    missing = [n for n in needed if shutil.which(n) is None]
    if missing:
        raise BuildError(f"{', '.join(missing)} not found, so iperf 2 cannot be built: {hint}.")


def build(target: str, out: Path, explicit: Path | None = None, force: bool = False) -> Path:
    """Build (or keep an up-to-date build of) iperf for target; the program's path."""
    exe = out / ("iperf.exe" if target == "windows" else "iperf")
    manifest_path = out / MANIFEST
    if not force and exe.is_file() and manifest_path.is_file():
        known = json.loads(manifest_path.read_text(encoding="utf-8"))
        if known.get("commit") == COMMIT and known.get("target") == target:
            say(f"iperf {VERSION} for {target} already built: {exe}")
            return exe
    work = WORK_DIR / target
    work.mkdir(parents=True, exist_ok=True)
    source = find_source(explicit, work)
    cached = cache_dir(target, sha256(source.archive))
    if not force and cached is not None and _restore(cached, out, target):
        say(f"iperf {VERSION} for {target} taken from the build cache {cached}: {exe}")
        return exe
    toolchain(target)
    tree = work / f"iperf-{VERSION}"
    if tree.exists():
        shutil.rmtree(tree)
    _run_quiet(["tar", "-xzf", str(source.archive), "-C", str(work)])
    log = work / "build.log"
    log.write_text("", encoding="utf-8")
    say(f"building iperf {VERSION} for {target} from the {source.how} source (a minute or two)")
    configure = ["./configure", "--quiet"] + (WINDOWS_CONFIGURE if target == "windows" else [])
    _run(["sh", *configure], tree, log)
    _run(["make", f"-j{os.cpu_count() or 1}"], tree, log)
    built = tree / "src" / exe.name
    if not built.is_file():
        raise BuildError(f"make finished without {built.name}; see {log}.")
    checked = check_windows(built) if target == "windows" else version_line(built)
    if target != "windows" and VERSION not in checked:
        raise BuildError(f"The built iperf says {checked!r}, not iperf {VERSION}.")
    if out.exists():
        shutil.rmtree(out)
    (out / "licenses").mkdir(parents=True)
    shutil.copy2(built, exe)
    licenses = []
    for name in ("COPYING", "LICENSE"):
        if (tree / name).is_file():
            target_name = f"licenses/iperf2-{name}.txt"
            shutil.copyfile(tree / name, out / target_name)
            licenses.append(target_name)
    for notice in notices(target):
        target_name = f"licenses/{notice.parent.name}.copyright.txt"
        shutil.copyfile(notice, out / target_name)
        licenses.append(target_name)
    manifest = {
        "engines": {"iperf": {"version": VERSION, "commit": COMMIT}},
        "version": VERSION,
        "commit": COMMIT,
        "source": source.how,
        "source_sha256": sha256(source.archive),
        "target": target,
        "configure": configure[2:],
        "sha256": sha256(exe),
        "checked": checked,
        "licenses": licenses,
    }
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    say(f"iperf {VERSION} for {target}: {exe} ({exe.stat().st_size // 1024} kB)")
    if cached is not None:
        _keep(out, cached)
    return exe


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=("linux", "windows"), default="linux")
    parser.add_argument("--source", type=Path, help=f"the pinned {ARCHIVE} (else found or fetched)")
    parser.add_argument("--out", type=Path, help="folder to fill (default: build/built-engines/…)")
    parser.add_argument("--force", action="store_true", help="build again even when up to date")
    args = parser.parse_args(argv)
    out = args.out or BUILT_DIR / platform_tag(args.target)
    try:
        build(args.target, out, args.source, force=args.force)
    except BuildError as err:
        say(str(err))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
