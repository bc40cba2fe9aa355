"""The build of iperf 2.2.1 from its pinned source (installers/build_iperf2.py): where it finds the
vendored archive, what it refuses, what it says when the source cannot be had, and what a
finished build leaves for LinkLab and for the bundles."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from installers import build_iperf2
from installers.build_iperf2 import ARCHIVE, ARCHIVE_SHA256, BuildError, find_source


def test_a_source_archive_with_another_checksum_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / ARCHIVE
    fake.write_bytes(b"not iperf")
    with pytest.raises(BuildError, match="not the pinned") as caught:
        find_source(fake, tmp_path)
    assert ARCHIVE_SHA256 in str(caught.value)


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@needs_git
def test_the_vendored_archive_is_found_beside_the_main_checkout_of_a_worktree(
    tmp_path: Path,
) -> None:
    """A git worktree elsewhere still finds ../shared beside the checkout it belongs to."""
    main, worktree = tmp_path / "lab" / "main", tmp_path / "trees" / "feature"
    main.mkdir(parents=True)
    worktree.parent.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(worktree)], check=True)
    found = build_iperf2.vendor_candidates(worktree)
    assert found[0] == tmp_path / "trees" / "shared" / "vendor" / "iperf2" / ARCHIVE
    assert tmp_path / "lab" / "shared" / "vendor" / "iperf2" / ARCHIVE in found


@needs_git
def test_without_the_archive_and_without_upstream_the_build_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build_iperf2, "vendor_candidates", lambda root: [tmp_path / "none"])
    monkeypatch.setattr(build_iperf2, "UPSTREAM", str(tmp_path / "no-such-repository"))
    with pytest.raises(BuildError) as caught:
        find_source(None, tmp_path)
    text = str(caught.value)
    assert "could not be fetched" in text and f"put {ARCHIVE} in ../shared/vendor/iperf2/" in text


def _set_ups_build() -> Path:
    if sys.platform == "win32":
        pytest.skip("the set-up builds iperf 2 on Linux")
    folder = build_iperf2.BUILT_DIR / build_iperf2.platform_tag("linux")
    if not (folder / "iperf").is_file():
        pytest.skip("iperf 2.2.1 is not built here: run scripts/ensure-engines.sh")
    return folder


def test_the_set_ups_build_is_2_2_1_with_its_licence_and_manifest() -> None:
    """What scripts/ensure-engines.sh leaves in build/built-engines/ (the set-up of `make test`)."""
    folder = _set_ups_build()
    manifest = json.loads((folder / build_iperf2.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["commit"] == build_iperf2.COMMIT and manifest["version"] == "2.2.1"
    assert manifest["sha256"] == build_iperf2.sha256(folder / "iperf")
    assert "iperf version 2.2.1" in build_iperf2.version_line(folder / "iperf")
    assert "licenses/iperf2-COPYING.txt" in manifest["licenses"]
    assert "Copyright" in (folder / "licenses" / "iperf2-COPYING.txt").read_text(encoding="utf-8")


def test_the_windows_build_imports_only_system_dlls_and_carries_the_notices() -> None:
    """What `make dist-windows` bundles: iperf.exe, static (only Windows' own DLLs), with iperf
    2's licence and the MinGW-w64 runtime's notices beside it."""
    folder = build_iperf2.BUILT_DIR / "windows-x86_64"
    if not (folder / "iperf.exe").is_file():
        pytest.skip("iperf.exe is not built here: make dist-windows builds it")
    if shutil.which(f"{build_iperf2.MINGW}-objdump") is None:
        pytest.skip("binutils-mingw-w64-x86-64 is not installed: nothing to read the imports with")
    imports = set(build_iperf2._windows_imports(folder / "iperf.exe"))
    assert imports and imports <= build_iperf2.WINDOWS_SYSTEM_DLLS
    manifest = json.loads((folder / build_iperf2.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["target"] == "windows" and manifest["source_sha256"] == ARCHIVE_SHA256
    notices = [n for n in manifest["licenses"] if "mingw" in n]
    assert notices and all((folder / n).is_file() for n in notices)


def test_the_linux_bundle_carries_the_iperf_the_set_up_built(tmp_path: Path) -> None:
    """installers/linux/stage_engines.py takes iperf 2.2.1 from build/built-engines/ (with its
    licence), the other engines from the machine's packages."""
    from installers.linux.stage_engines import stage

    folder = build_iperf2.BUILT_DIR / build_iperf2.platform_tag("linux")
    if sys.platform == "win32":
        pytest.skip("the Linux bundle is staged on Linux")
    if not (folder / "iperf").is_file():
        pytest.skip("iperf 2.2.1 is not built here: run scripts/ensure-engines.sh")
    if shutil.which("dpkg-query") is None or shutil.which("iperf3") is None:
        pytest.skip("staging the Linux engines needs Debian's packages of iperf3")
    manifest = stage(tmp_path / "engines")
    engines = manifest["engines"]
    assert isinstance(engines, dict)
    assert engines["iperf"]["version"] == "2.2.1"
    assert (tmp_path / "engines" / "iperf").read_bytes() == (folder / "iperf").read_bytes()
    assert "iperf version 2.2.1" in build_iperf2.version_line(tmp_path / "engines" / "iperf")
    assert "licenses/iperf2-COPYING.txt" in manifest["licenses"]  # type: ignore[operator]
    assert (tmp_path / "engines" / "licenses" / "iperf2-COPYING.txt").is_file()


def test_a_fresh_checkout_takes_the_cached_build_instead_of_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The set-up's build, kept in the cache, lands in a new checkout's folder whole; the
    compiler is never asked for."""
    built = _set_ups_build()
    monkeypatch.setenv(build_iperf2.CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(build_iperf2, "WORK_DIR", tmp_path / "work")
    cached = build_iperf2.cache_dir("linux", ARCHIVE_SHA256)
    assert cached is not None and cached.parent == tmp_path / "cache"
    build_iperf2._keep(built, cached)
    assert sorted(p.name for p in cached.iterdir()) == sorted(p.name for p in built.iterdir())

    def no_compiler(target: str) -> None:
        raise AssertionError("compiled although the cache held the build")

    monkeypatch.setattr(build_iperf2, "toolchain", no_compiler)
    out = tmp_path / "checkout" / "built-engines" / "linux-x86_64"
    exe = build_iperf2.build("linux", out)
    assert exe == out / "iperf" and exe.read_bytes() == (built / "iperf").read_bytes()
    assert "iperf version 2.2.1" in build_iperf2.version_line(exe)
    assert (out / build_iperf2.MANIFEST).read_text() == (built / build_iperf2.MANIFEST).read_text()


def test_a_damaged_cached_build_is_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _set_ups_build()
    monkeypatch.setenv(build_iperf2.CACHE_VARIABLE, str(tmp_path / "cache"))
    cached = build_iperf2.cache_dir("linux", ARCHIVE_SHA256)
    assert cached is not None
    build_iperf2._keep(built, cached)
    with (cached / "iperf").open("r+b") as program:  # a byte changed: not what was built
        program.seek(200)
        byte = program.read(1)
        program.seek(200)
        program.write(bytes([byte[0] ^ 0xFF]))
    out = tmp_path / "out"
    assert not build_iperf2._restore(cached, out, "linux")
    assert not out.exists()
    (cached / build_iperf2.MANIFEST).write_text("{not json", encoding="utf-8")
    assert not build_iperf2._restore(cached, out, "linux")


def test_the_cache_can_be_turned_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(build_iperf2.CACHE_VARIABLE, "off")
    assert build_iperf2.cache_dir("linux", ARCHIVE_SHA256) is None
    monkeypatch.delenv(build_iperf2.CACHE_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cached = build_iperf2.cache_dir("windows", ARCHIVE_SHA256)
    assert cached is not None and cached.parent == tmp_path / "linklab" / "built-engines"
    assert "windows-x86_64" in cached.name and build_iperf2.COMMIT[:12] in cached.name
