"""Stage the pinned Windows build of iperf3, its runtime DLL and their licences for the bundle.

`python installers/windows/fetch_engines.py --dest build/engines/windows-x86_64` downloads
iperf3 3.21 for 64-bit Windows, a Cygwin build (iperf3.exe and cygwin1.dll) published by the
ar51an/iperf3-win-builds project. The URL and SHA-256 are those of the public winget manifest
microsoft/winget-pkgs, manifests/a/ar51an/iPerf3/3.21/ar51an.iPerf3.installer.yaml
(InstallerUrl, InstallerSha256). To move to another build, take both values from its manifest.
A zip supplied by hand is taken with `--url file:///path/to/engines.zip --sha256 HEX` (both
given, or neither): the same checks apply, against the checksum given.

The checksum is verified before anything is read from the archive. The archive is refused,
with one sentence on stderr and exit status 1, when it cannot be downloaded, does not match,
holds a member with an absolute or `..` path, holds no iperf3.exe, holds a DLL whose licence
is not known here, or when a licence file it needs is missing from licenses/ beside this script.
Everything is written into a fresh folder beside dest first and replaces dest only once
complete, so a refusal leaves dest as it was. dest/licenses/ receives, copied byte for byte from
licenses/ beside this script, iperf3's licence and, for the Cygwin DLL, its notice with the full
LGPL-3.0 and GPL-3.0 texts.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import io
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Sequence
from pathlib import Path

PINNED_VERSION = "3.21"
PINNED_URL = (
    "https://github.com/ar51an/iperf3-win-builds/releases/download/3.21/iperf-3.21-win64.zip"
)
PINNED_SHA256 = "9b73b7e0e0326347b5f4ac4f6a1fc34fe60a5966e5fd172c7bfcd0e1cc93e709"

ENGINE_EXE = "iperf3.exe"
LICENSES_DIR = "licenses"
#: The licence texts, kept verbatim in files beside this script and copied without decoding.
LICENCE_SOURCE = Path(__file__).resolve().parent / LICENSES_DIR
#: Licence files written with every engine.
ENGINE_LICENCES = ("iperf3-LICENSE.txt",)
#: The runtime DLLs this script knows, each with the licence files it needs. Any other DLL
#: in the archive is refused: nothing is shipped without its licence.
RUNTIME_LICENCES: dict[str, tuple[str, ...]] = {
    "cygwin1.dll": ("cygwin-NOTICE.txt", "LGPL-3.0.txt", "GPL-3.0.txt"),
}

# https for the pinned download, file for the tests; the checksum decides either way.
ALLOWED_SCHEMES = ("https", "file")
TIMEOUT_S = 120
# The archive is a few MB; the caps stop a wrong URL or a zip bomb from filling the disk.
MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024
MAX_EXTRACTED_BYTES = 256 * 1024 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")


class FetchError(Exception):
    """A refusal, with one sentence for whoever runs the build."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


def fetch_engines(dest: Path, url: str = PINNED_URL, sha256: str = PINNED_SHA256) -> list[Path]:
    """Download, verify and stage iperf3 into dest (replaced as a whole); return its files."""
    data = download(url)
    expected = sha256.strip().lower()
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise FetchError(
            f"The download from {url} has SHA-256 {actual}, not the pinned {expected}; "
            "nothing was extracted."
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as err:
        raise FetchError(f"The download from {url} is not a zip archive ({err}).") from err
    with archive:
        members = select_members(archive, url)
        licences = licence_files(list(members))
        _stage(archive, members, licences, Path(dest).absolute(), url)
    return sorted(path for path in Path(dest).rglob("*") if path.is_file())


def download(url: str) -> bytes:
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in ALLOWED_SCHEMES:
        raise FetchError(f"Refusing to download {url}: only https and file URLs are allowed.")
    # S310 warns about file:// and custom schemes slipping in; the scheme is checked above.
    headers = {"User-Agent": "linklab-installer-build"}
    request = urllib.request.Request(url, headers=headers)  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310
            data: bytes = response.read(MAX_DOWNLOAD_BYTES + 1)
    except (OSError, http.client.HTTPException, ValueError) as err:
        reason = getattr(err, "reason", None) or err
        raise FetchError(
            f"Could not download {url} ({reason}); check the network and run the build again."
        ) from err
    if len(data) > MAX_DOWNLOAD_BYTES:
        raise FetchError(f"The download from {url} is larger than {MAX_DOWNLOAD_BYTES} bytes.")
    return data


def member_parts(name: str) -> tuple[str, ...] | None:
    """The path parts of a zip member, or None when it could land outside the folder."""
    posix = name.replace("\\", "/")
    if posix.startswith("/") or _DRIVE.match(posix):
        return None
    parts = tuple(part for part in posix.split("/") if part not in ("", "."))
    if ".." in parts or any(":" in part for part in parts):
        return None
    return parts


def select_members(archive: zipfile.ZipFile, url: str) -> dict[str, zipfile.ZipInfo]:
    """iperf3.exe and the DLLs beside it, by the name each gets in dest.

    Every member is checked, not only the ones taken: an archive with one unsafe path is not
    the archive that was pinned, whatever else it holds.
    """
    files: list[tuple[tuple[str, ...], zipfile.ZipInfo]] = []
    for info in archive.infolist():
        parts = member_parts(info.filename)
        if parts is None:
            raise FetchError(
                f"The archive from {url} holds a member with an unsafe path "
                f"({info.filename!r}); nothing was extracted."
            )
        if parts and not info.is_dir():
            files.append((parts, info))
    engines = [(parts, info) for parts, info in files if parts[-1].lower() == ENGINE_EXE]
    if not engines:
        raise FetchError(f"The archive from {url} holds no {ENGINE_EXE}; nothing was extracted.")
    if len(engines) > 1:
        found = ", ".join(info.filename for _, info in engines)
        raise FetchError(f"The archive from {url} holds more than one {ENGINE_EXE} ({found}).")
    folder = engines[0][0][:-1]
    chosen = {ENGINE_EXE: engines[0][1]}
    for parts, info in files:
        if parts[:-1] != folder or not parts[-1].lower().endswith(".dll"):
            continue
        if parts[-1].lower() not in RUNTIME_LICENCES:
            raise FetchError(
                f"The archive from {url} holds {parts[-1]}, a runtime DLL whose licence "
                "fetch_engines.py does not know; add it to RUNTIME_LICENCES before shipping it."
            )
        chosen[parts[-1]] = info
    if sum(info.file_size for info in chosen.values()) > MAX_EXTRACTED_BYTES:
        raise FetchError(f"The archive from {url} would extract to more than expected.")
    return chosen


def licence_files(names: Sequence[str]) -> dict[str, Path]:
    """The licence files (name -> source file) that the engine files with these names need."""
    wanted = list(ENGINE_LICENCES)
    for name in names:
        wanted += RUNTIME_LICENCES.get(name.lower(), ())
    sources = {licence: LICENCE_SOURCE / licence for licence in dict.fromkeys(wanted)}
    for source in sources.values():
        if not source.is_file():
            raise FetchError(
                f"The licence file {source} is missing, so the engines cannot ship with their "
                "licences; restore it from the LinkLab repository (nothing was extracted)."
            )
    return sources


def _stage(
    archive: zipfile.ZipFile,
    members: dict[str, zipfile.ZipInfo],
    licences: dict[str, Path],
    dest: Path,
    url: str,
) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-new-", dir=dest.parent))
    try:
        for name, info in members.items():
            with archive.open(info) as source, (staging / name).open("wb") as target:
                shutil.copyfileobj(source, target)
        licenses = staging / LICENSES_DIR
        licenses.mkdir()
        for name, licence in licences.items():
            shutil.copyfile(licence, licenses / name)
        _replace(staging, dest)
    except (zipfile.BadZipFile, zipfile.LargeZipFile) as err:
        raise FetchError(f"The archive from {url} is damaged ({err}).") from err
    except OSError as err:
        raise FetchError(f"Could not write the engines into {dest} ({err}).") from err
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _replace(staging: Path, dest: Path) -> None:
    """Put the complete staging folder in dest's place; an old dest goes only afterwards."""
    old = None
    if dest.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}-old-", dir=dest.parent))
        old.rmdir()
        dest.rename(old)
    try:
        staging.rename(dest)
    except OSError:
        if old is not None:
            old.rename(dest)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=f"Stage the pinned iperf3 {PINNED_VERSION} build for 64-bit Windows."
    )
    parser.add_argument(
        "--dest", type=Path, required=True, help="the engines folder, replaced as a whole"
    )
    parser.add_argument(
        "--url",
        help="another archive instead of the pinned one (https: or file:), with --sha256",
    )
    parser.add_argument("--sha256", help="the SHA-256 that the archive given by --url must have")
    args = parser.parse_args(argv)
    if (args.url is None) != (args.sha256 is None):
        parser.error("--url and --sha256 go together")
    try:
        if args.url is None:
            files = fetch_engines(args.dest)
        else:
            files = fetch_engines(args.dest, args.url, args.sha256)
    except FetchError as err:
        print(f"fetch_engines: {err.sentence}", file=sys.stderr)
        return 1
    what = f"iperf3 {PINNED_VERSION}" if args.url is None else f"iperf3 from {args.url}"
    print(f"{what} for Windows staged in {args.dest}: {len(files)} files.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
