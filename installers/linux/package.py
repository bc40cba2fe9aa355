"""Wrap the PyInstaller bundle (dist/linklab/) as a .tar.gz and a .deb.

The .deb installs the bundle under /opt/linklab, a `linklab` command in /usr/bin, a menu entry
with its icon, and the .linklab file type (so that double-clicking exported sessions opens
them). dpkg's own triggers refresh the menu, icon and MIME caches: no maintainer scripts.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)
DEB_NAME = "linklab"
INSTALL_DIR = "/opt/linklab"
#: What the bundle does not carry besides the C library (whose version is read from the
#: bundle's binaries): the GL drivers, which must match the machine's graphics, the X
#: connection library and the font configuration.
DEB_DEPENDS = "libgl1, libegl1, libxcb1, libx11-6, libfontconfig1, libfreetype6"
GLIBC_SYMBOL = re.compile(r"\bGLIBC_(\d+)\.(\d+)(?:\.(\d+))?\b")
ELF_MAGIC = b"\x7fELF"
DEB_RECOMMENDS = "fonts-dejavu-core"


def deb_arch(machine: str) -> str:
    return {"x86_64": "amd64", "arm64": "arm64", "aarch64": "arm64"}.get(machine, machine)


def _tar_filter(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


#: gzip levels of the release's packages: the tarball's, and dpkg-deb's own default.
TAR_LEVEL = 6
DEB_LEVEL = 9


def make_tarball(
    bundle: Path, out_dir: Path, version: str, tag: str, level: int = TAR_LEVEL
) -> Path:
    """linklab-<version>-<tag>.tar.gz: one folder with the bundle and a README.txt."""
    top = f"linklab-{version}"
    target = out_dir / f"linklab-{version}-{tag}.tar.gz"
    readme = (HERE / "README.txt").read_text(encoding="utf-8")
    readme = readme.format(version=version, arch=tag.split("-", 1)[1], platform=tag)
    text = readme.encode("utf-8")
    info = _tar_filter(tarfile.TarInfo(f"{top}/README.txt"))
    info.size, info.mode, info.mtime = len(text), 0o644, int(time.time())
    with tarfile.open(target, "w:gz", compresslevel=level) as tar:
        tar.add(bundle, arcname=top, filter=_tar_filter)
        tar.addfile(info, io.BytesIO(text))
        tar.add(ROOT / "LICENSE", arcname=f"{top}/LICENSE", filter=_tar_filter)
    return target


def newest_glibc(objdump_output: str) -> tuple[int, ...]:
    """The newest GLIBC_x.y symbol version in `objdump -T` output; () when there is none."""
    found = [
        tuple(int(g) for g in m.groups() if g is not None)
        for m in GLIBC_SYMBOL.finditer(objdump_output)
    ]
    return max(found, default=())


def required_glibc(bundle: Path) -> str:
    """The C library version every ELF file in the bundle can run with: the newest symbol
    version any of them asks for (the build machine's glibc is the upper bound)."""
    newest: tuple[int, ...] = ()
    for path in bundle.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        with path.open("rb") as handle:
            if handle.read(4) != ELF_MAGIC:
                continue
        done = subprocess.run(
            ["objdump", "-T", str(path)], capture_output=True, text=True, check=False
        )
        newest = max(newest, newest_glibc(done.stdout))
    if not newest:
        raise RuntimeError(f"no GLIBC symbol versions found in {bundle}: is objdump installed?")
    return ".".join(str(p) for p in newest)


def _control(version: str, arch: str, installed_kib: int, glibc: str) -> str:
    return (
        f"Package: {DEB_NAME}\n"
        f"Version: {version}\n"
        f"Architecture: {arch}\n"
        "Maintainer: The LinkLab developers <linklab@example.org>\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: libc6 (>= {glibc}), {DEB_DEPENDS}\n"
        f"Recommends: {DEB_RECOMMENDS}\n"
        "Section: net\n"
        "Priority: optional\n"
        "Description: measure what a network link really delivers\n"
        " LinkLab runs iperf3 and netperf against a peer, repeats every point until its\n"
        " mean and standard deviation can be trusted, charts the results live, keeps\n"
        " every session and puts sessions side by side with their differences spelled\n"
        " out. It carries its own iperf3 and netperf.\n"
    )


def _copyright() -> str:
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    return (
        "LinkLab is distributed under the MIT licence:\n\n"
        f"{licence}\n"
        "The bundled measurement engines (iperf3, netperf) and the libraries they need keep\n"
        "their own licences, shipped in\n"
        f"{INSTALL_DIR}/_internal/resources/engines/<platform>/licenses/.\n"
    )


def folder_bytes(folder: Path) -> int:
    """What the files (and links) below folder take, in bytes."""
    return sum(p.lstat().st_size for p in folder.rglob("*") if not p.is_dir())


def make_deb(
    bundle: Path, out_dir: Path, version: str, machine: str, work: Path, level: int = DEB_LEVEL
) -> Path:
    """linklab_<version>_<arch>.deb, built with dpkg-deb from a staging root under work."""
    if shutil.which("dpkg-deb") is None:
        raise RuntimeError("dpkg-deb was not found: build the .deb on Debian or Ubuntu.")
    arch = deb_arch(machine)
    root = work / "deb-root"
    if root.exists():
        shutil.rmtree(root)
    opt = root / INSTALL_DIR.lstrip("/")
    shutil.copytree(bundle, opt, symlinks=True)
    (root / "usr/bin").mkdir(parents=True)
    os.symlink(f"{INSTALL_DIR}/linklab", root / "usr/bin/linklab")
    share = root / "usr/share"
    (share / "applications").mkdir(parents=True)
    shutil.copyfile(HERE / "linklab.desktop", share / "applications/linklab.desktop")
    (share / "mime/packages").mkdir(parents=True)
    shutil.copyfile(HERE / "linklab-mime.xml", share / "mime/packages/linklab.xml")
    icons = ROOT / "resources" / "icons"
    for size in ICON_SIZES:
        folder = share / f"icons/hicolor/{size}x{size}/apps"
        folder.mkdir(parents=True)
        shutil.copyfile(icons / f"linklab-{size}.png", folder / "linklab.png")
    (share / "icons/hicolor/scalable/apps").mkdir(parents=True)
    shutil.copyfile(icons / "linklab.svg", share / "icons/hicolor/scalable/apps/linklab.svg")
    (share / "doc/linklab").mkdir(parents=True)
    (share / "doc/linklab/copyright").write_text(_copyright(), encoding="utf-8")
    for path in root.rglob("*"):
        if path.is_symlink():
            continue
        if path.is_dir():
            path.chmod(0o755)
        elif path.stat().st_mode & 0o111:
            path.chmod(0o755)
        else:
            path.chmod(0o644)
    installed = max(1, folder_bytes(root) // 1024)  # KiB, as dpkg counts
    (root / "DEBIAN").mkdir()
    glibc = required_glibc(opt)
    control = _control(version, arch, installed, glibc)
    (root / "DEBIAN/control").write_text(control, encoding="utf-8")
    target = out_dir / f"{DEB_NAME}_{version}_{arch}.deb"
    # gzip: every dpkg reads it, and it is several times faster to build than xz.
    done = subprocess.run(
        [
            "dpkg-deb",
            "--root-owner-group",
            "-Zgzip",
            f"-z{level}",
            "--build",
            str(root),
            str(target),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"dpkg-deb failed: {done.stderr.strip()}")
    shutil.rmtree(root, ignore_errors=True)
    return target
