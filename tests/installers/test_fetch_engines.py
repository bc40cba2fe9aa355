"""The Windows engine fetcher, run on any system against small archives built here: checked
before anything is extracted, refused with one sentence, and nothing half-written in dest."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT_DIR

SCRIPT = ROOT_DIR / "installers" / "windows" / "fetch_engines.py"
# SHA-256 of the GNU texts as the FSF publishes them: the shipped copies must be verbatim.
GPL_3_0_SHA256 = "3972dc9744f6499f0f9b2dbf76696f2ae7ad8af9b23dde66d6af86c9dfb36986"
LGPL_3_0_SHA256 = "e3a994d82e644b03a792a930f574002658412f62407f5fee083f2555c5f23118"
EXE = b"MZ iperf3 stand-in"
DLL = b"MZ cygwin1 stand-in"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fetch_engines", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fetch = _load()


def _archive(tmp_path: Path, members: dict[str, bytes]) -> tuple[str, str]:
    """A zip with these members: its file:// URL and SHA-256."""
    path = tmp_path / "engine.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name), data)
    return path.as_uri(), hashlib.sha256(path.read_bytes()).hexdigest()


def _refusal(dest: Path, url: str, sha256: str) -> str:
    with pytest.raises(fetch.FetchError) as refused:
        fetch.fetch_engines(dest, url, sha256)
    sentence: str = refused.value.sentence
    assert sentence.endswith(".") and "\n" not in sentence
    return sentence


def _names(files: list[Path], dest: Path) -> list[str]:
    return sorted(path.relative_to(dest).as_posix() for path in files)


def _leftovers(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))


def test_good_archive_is_extracted_with_its_licences(tmp_path: Path) -> None:
    url, sha256 = _archive(
        tmp_path,
        {
            "iperf-3.21-win64/iperf3.exe": EXE,
            "iperf-3.21-win64/cygwin1.dll": DLL,
            "iperf-3.21-win64/README.txt": b"not shipped",
            "elsewhere/other.dll": b"not beside iperf3.exe: not shipped",
        },
    )
    dest = tmp_path / "engines"
    (dest / "licenses").mkdir(parents=True)
    (dest / "stale.exe").write_bytes(b"from an older pin")

    files = fetch.fetch_engines(dest, url, sha256)

    assert _names(files, dest) == [
        "cygwin1.dll",
        "iperf3.exe",
        "licenses/GPL-3.0.txt",
        "licenses/LGPL-3.0.txt",
        "licenses/cygwin-NOTICE.txt",
        "licenses/iperf3-LICENSE.txt",
    ]
    assert (dest / "iperf3.exe").read_bytes() == EXE
    assert (dest / "cygwin1.dll").read_bytes() == DLL
    licenses = dest / "licenses"
    assert hashlib.sha256((licenses / "GPL-3.0.txt").read_bytes()).hexdigest() == GPL_3_0_SHA256
    assert hashlib.sha256((licenses / "LGPL-3.0.txt").read_bytes()).hexdigest() == LGPL_3_0_SHA256
    iperf3_licence = (licenses / "iperf3-LICENSE.txt").read_text(encoding="utf-8")
    assert "Lawrence Berkeley National Laboratory" in iperf3_licence
    assert "linking exception" in (licenses / "cygwin-NOTICE.txt").read_text(encoding="utf-8")
    for licence in licenses.iterdir():
        shipped = licence.read_bytes()
        assert shipped == (fetch.LICENCE_SOURCE / licence.name).read_bytes()
        # A CRLF checkout would change the bytes shipped; the folder's .gitattributes prevents it.
        assert b"\r" not in shipped, licence.name
    assert _leftovers(tmp_path) == []


def test_a_build_without_runtime_dll_gets_only_the_iperf3_licence(tmp_path: Path) -> None:
    url, sha256 = _archive(tmp_path, {"iperf3.exe": EXE})
    dest = tmp_path / "engines"
    files = fetch.fetch_engines(dest, url, sha256.upper())
    assert _names(files, dest) == [
        "iperf3.exe",
        "licenses/iperf3-LICENSE.txt",
    ]


def test_the_licence_files_sit_beside_the_script() -> None:
    assert fetch.LICENCE_SOURCE == SCRIPT.parent / "licenses"
    needed = set(fetch.ENGINE_LICENCES).union(*fetch.RUNTIME_LICENCES.values())
    assert {path.name for path in fetch.LICENCE_SOURCE.glob("*.txt")} == needed


def test_a_missing_licence_file_is_refused_and_dest_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "licenses"
    source.mkdir()
    for name in ("iperf3-LICENSE.txt", "cygwin-NOTICE.txt", "LGPL-3.0.txt"):
        shutil.copyfile(fetch.LICENCE_SOURCE / name, source / name)
    monkeypatch.setattr(fetch, "LICENCE_SOURCE", source)
    url, sha256 = _archive(tmp_path, {"iperf3.exe": EXE, "cygwin1.dll": DLL})
    dest = tmp_path / "engines"
    dest.mkdir()
    (dest / "iperf3.exe").write_bytes(b"the previous build")
    sentence = _refusal(dest, url, sha256)
    assert sentence == (
        f"The licence file {source / 'GPL-3.0.txt'} is missing, so the engines cannot ship "
        "with their licences; restore it from the LinkLab repository (nothing was extracted)."
    )
    assert [p.name for p in dest.iterdir()] == ["iperf3.exe"]
    assert (dest / "iperf3.exe").read_bytes() == b"the previous build"
    assert _leftovers(tmp_path) == []
    # A build without the Cygwin DLL needs only iperf3's licence, which is there.
    url, sha256 = _archive(tmp_path, {"iperf3.exe": EXE})
    assert _names(fetch.fetch_engines(dest, url, sha256), dest) == [
        "iperf3.exe",
        "licenses/iperf3-LICENSE.txt",
    ]


def test_checksum_mismatch_is_refused_before_extracting(tmp_path: Path) -> None:
    url, sha256 = _archive(tmp_path, {"iperf3.exe": EXE, "cygwin1.dll": DLL})
    wrong = "0" * 64
    dest = tmp_path / "engines"
    sentence = _refusal(dest, url, wrong)
    assert sentence == (
        f"The download from {url} has SHA-256 {sha256}, not the pinned {wrong}; "
        "nothing was extracted."
    )
    assert not (dest / "iperf3.exe").exists()
    assert _leftovers(tmp_path) == []


def test_a_refusal_leaves_an_existing_dest_as_it_was(tmp_path: Path) -> None:
    url, _ = _archive(tmp_path, {"iperf3.exe": EXE})
    dest = tmp_path / "engines"
    dest.mkdir()
    (dest / "iperf3.exe").write_bytes(b"the previous build")
    _refusal(dest, url, "f" * 64)
    assert [p.name for p in dest.iterdir()] == ["iperf3.exe"]
    assert (dest / "iperf3.exe").read_bytes() == b"the previous build"


@pytest.mark.parametrize(
    "unsafe",
    [
        "../iperf3.exe",
        "iperf/../../cygwin1.dll",
        "/tmp/iperf3.exe",
        "C:/Windows/iperf3.exe",
        "..\\..\\iperf3.exe",
        "readme/../../../notes.txt",
    ],
)
def test_zip_slip_members_are_refused(tmp_path: Path, unsafe: str) -> None:
    url, sha256 = _archive(tmp_path, {"iperf3.exe": EXE, unsafe: b"escape"})
    dest = tmp_path / "engines"
    sentence = _refusal(dest, url, sha256)
    # Windows' zipfile turns backslashes into slashes when writing: match the gist only.
    assert "holds a member with an unsafe path" in sentence
    assert sentence.endswith("nothing was extracted.")
    assert not dest.exists()
    assert _leftovers(tmp_path) == []


def test_an_archive_without_iperf3_is_refused(tmp_path: Path) -> None:
    url, sha256 = _archive(tmp_path, {"iperf-3.21-win64/iperf3.txt": b"", "cygwin1.dll": DLL})
    dest = tmp_path / "engines"
    sentence = _refusal(dest, url, sha256)
    assert sentence == f"The archive from {url} holds no iperf3.exe; nothing was extracted."
    assert not dest.exists()


def test_a_runtime_dll_without_a_known_licence_is_refused(tmp_path: Path) -> None:
    url, sha256 = _archive(tmp_path, {"bin/iperf3.exe": EXE, "bin/cygcrypto-3.dll": b"MZ"})
    sentence = _refusal(tmp_path / "engines", url, sha256)
    assert "holds cygcrypto-3.dll, a runtime DLL whose licence" in sentence


def test_a_download_failure_is_one_sentence(tmp_path: Path) -> None:
    url = (tmp_path / "missing.zip").as_uri()
    sentence = _refusal(tmp_path / "engines", url, "0" * 64)
    assert sentence.startswith(f"Could not download {url} (")
    assert sentence.endswith("check the network and run the build again.")


def test_plain_http_is_refused_without_connecting(tmp_path: Path) -> None:
    sentence = _refusal(tmp_path / "engines", "http://127.0.0.1:9/iperf3.zip", "0" * 64)
    assert "only https and file URLs are allowed" in sentence


def test_a_download_that_is_not_a_zip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "engine.zip"
    path.write_bytes(b"<html>moved</html>")
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    sentence = _refusal(tmp_path / "engines", path.as_uri(), sha256)
    assert "is not a zip archive" in sentence


def test_the_command_line_reports_a_refusal_on_stderr_with_status_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The pinned URL is never fetched here: the stand-in download cannot match its checksum.
    monkeypatch.setattr(fetch, "download", lambda url: b"not the pinned archive")
    dest = tmp_path / "engines"
    assert fetch.main(["--dest", str(dest)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"fetch_engines: The download from {fetch.PINNED_URL} has SHA-256 ")
    assert err.endswith("nothing was extracted.\n")
    assert not dest.exists()


def test_the_pin_is_an_https_url_and_a_sha256() -> None:
    assert fetch.PINNED_URL.startswith("https://")
    assert f"/{fetch.PINNED_VERSION}/" in fetch.PINNED_URL
    assert re.fullmatch(r"[0-9a-f]{64}", fetch.PINNED_SHA256)


def test_the_command_line_takes_a_zip_supplied_by_hand_as_a_file_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, sha256 = _archive(
        tmp_path, {"iperf-3.21-win64/iperf3.exe": EXE, "iperf-3.21-win64/cygwin1.dll": DLL}
    )
    assert url.startswith("file:")
    dest = tmp_path / "engines"
    assert fetch.main(["--dest", str(dest), "--url", url, "--sha256", sha256]) == 0
    out, err = capsys.readouterr()
    assert out == f"iperf3 from {url} for Windows staged in {dest}: 6 files.\n"
    assert err == ""
    assert (dest / "iperf3.exe").read_bytes() == EXE
    assert (dest / "cygwin1.dll").read_bytes() == DLL
    # The checksum given is checked like the pinned one.
    assert fetch.main(["--dest", str(tmp_path / "other"), "--url", url, "--sha256", "0" * 64]) == 1
    assert "not the pinned 0000" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()


def test_a_url_without_its_checksum_is_a_usage_error(tmp_path: Path) -> None:
    url, _ = _archive(tmp_path, {"iperf3.exe": EXE})
    with pytest.raises(SystemExit) as usage:
        fetch.main(["--dest", str(tmp_path / "engines"), "--url", url])
    assert usage.value.code == 2
    assert not (tmp_path / "engines").exists()
