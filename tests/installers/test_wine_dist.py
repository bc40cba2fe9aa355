"""`make dist-windows`'s clean-up of a bundle built under the Wine harness, on small stand-ins:
the harness's DLLs go, the files whose imports it rewrote come back byte for byte from the
pinned wheels, and any other difference from a wheel stops the build. The build itself and its
smoke test run under Wine (`make dist-windows`), too slow for the test suite."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from installers.build import main as build_main
from installers.windows.wine_dist import WINE_DLLS, clean_bundle, windows_path

PYD = "numpy/linalg/_umath_linalg.cp312-win_amd64.pyd"
ORIGINAL = b"MZ ... api-ms-win-crt-math-l1-1-0.dll\0 ... csqrt"
PATCHED = b"MZ ... wscmath.dll\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0 ... csqrt"


def _wheel(tmp_path: Path, members: dict[str, bytes]) -> dict[str, tuple[Path, str]]:
    wheel = tmp_path / "numpy-2.4.6-cp312-cp312-win_amd64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return {name: (wheel, name) for name in members}


def _bundle(tmp_path: Path, files: dict[str, bytes]) -> Path:
    bundle = tmp_path / "linklab"
    for name, data in files.items():
        (bundle / name).parent.mkdir(parents=True, exist_ok=True)
        (bundle / name).write_bytes(data)
    return bundle


def test_the_workarounds_are_taken_out_and_the_rest_checked(tmp_path: Path) -> None:
    record = "numpy-2.4.6.dist-info/RECORD"
    members = _wheel(
        tmp_path,
        {PYD: ORIGINAL, "numpy/__init__.py": b"", "numpy/x.pyd": b"MZ x", record: b"wheel's"},
    )
    bundle = _bundle(
        tmp_path,
        {
            "linklab.exe": b"MZ",
            f"_internal/{PYD}": PATCHED,
            "_internal/numpy/x.pyd": b"MZ x",
            "_internal/wscmath.dll": b"MZ shim",
            "_internal/icuuc.dll": b"MZ stub",
            "_internal/base_library.zip": b"PK",
            f"_internal/{record}": b"as pip rewrote it on installing",
        },
    )
    changed, checked = clean_bundle(bundle, members)
    assert (bundle / "_internal" / PYD).read_bytes() == ORIGINAL
    for name in WINE_DLLS:
        assert not (bundle / "_internal" / name).exists()
    assert checked == 2  # the two files that come from the wheel; pip rewrites RECORD
    assert sorted(changed) == [
        f"removed {Path('_internal/icuuc.dll')}",
        f"removed {Path('_internal/wscmath.dll')}",
        f"restored {PYD} from numpy-2.4.6-cp312-cp312-win_amd64.whl",
    ]
    # Once clean, cleaning again changes nothing.
    assert clean_bundle(bundle, members) == ([], 2)


def test_a_file_that_differs_otherwise_from_its_wheel_stops_the_build(tmp_path: Path) -> None:
    members = _wheel(tmp_path, {PYD: ORIGINAL})
    bundle = _bundle(tmp_path, {f"_internal/{PYD}": b"MZ changed some other way"})
    with pytest.raises(SystemExit, match="not restoring it blindly"):
        clean_bundle(bundle, members)


def test_a_patched_file_that_no_wheel_has_stops_the_build(tmp_path: Path) -> None:
    members = _wheel(tmp_path, {PYD: ORIGINAL})
    bundle = _bundle(tmp_path, {"_internal/other/_ext.pyd": PATCHED})
    with pytest.raises(SystemExit, match=r"still imports wscmath\.dll"):
        clean_bundle(bundle, members)


@pytest.mark.skipif(sys.platform == "win32", reason="Wine's drive Z: maps a Linux path")
def test_windows_paths_go_through_drive_z(tmp_path: Path) -> None:
    assert windows_path(tmp_path / "a b") == "Z:" + str(tmp_path.resolve() / "a b").replace(
        "/", "\\"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="the refusal of Windows options elsewhere")
@pytest.mark.parametrize(
    "argv", [["--engineless-smoke"], ["--engines-url", "file:///x.zip", "--engines-sha256", "0"]]
)
def test_the_windows_build_options_are_refused_elsewhere(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as usage:
        build_main(argv)
    assert usage.value.code == 2
    assert "are for the Windows build" in capsys.readouterr().err
