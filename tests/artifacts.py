"""Opens what LinkLab exported as a reader would see it (PDF pages through pdftoppm, HTML through
headless Chromium) and checks it by its pixels: a margin of background on every side (nothing
cut at the image's or page's edge) and a series' colour drawn near the plot's right end."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtGui import QColor, QImage

PDFTOPPM = shutil.which("pdftoppm")
PDFTOTEXT = shutil.which("pdftotext")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NO_POPPLER = "pdftoppm and pdftotext (poppler-utils) are missing: apt-get install poppler-utils"
NO_CHROMIUM = "Chromium is missing: scripts/ensure-desktop.sh --with-screenshots installs it"


@dataclass(frozen=True)
class Margins:
    """Rows or columns of background only, counted in from each edge."""

    left: int
    top: int
    right: int
    bottom: int

    def smallest(self, edges: str = "ltrb") -> int:
        sides = {"l": self.left, "t": self.top, "r": self.right, "b": self.bottom}
        return min(sides[e] for e in edges)


def pixels(image: QImage | Path | bytes) -> np.ndarray:
    """The image as an array of (height, width, 3) RGB bytes."""
    if isinstance(image, Path):
        image = QImage(str(image))
    elif isinstance(image, bytes):
        loaded = QImage()
        loaded.loadFromData(image)
        image = loaded
    assert not image.isNull(), "the image cannot be read"
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    height, width, stride = rgb.height(), rgb.width(), rgb.bytesPerLine()
    data = np.frombuffer(rgb.constBits(), dtype=np.uint8, count=height * stride)
    return data.reshape(height, stride)[:, : width * 3].reshape(height, width, 3).copy()


def margins(image: QImage | Path | bytes, tolerance: int = 24) -> Margins:
    """How far the background (the colour of the top-left pixel) reaches in from each edge."""
    array = pixels(image).astype(np.int16)
    background = array[0, 0]
    inked = np.abs(array - background).max(axis=2) > tolerance
    rows, columns = inked.any(axis=1), inked.any(axis=0)
    if not rows.any():
        height, width = inked.shape
        return Margins(width, height, width, height)
    top, bottom = int(np.argmax(rows)), int(np.argmax(rows[::-1]))
    left, right = int(np.argmax(columns)), int(np.argmax(columns[::-1]))
    return Margins(left, top, right, bottom)


def assert_inside(
    image: QImage | Path | bytes, what: str, at_least: int = 3, edges: str = "ltrb"
) -> Margins:
    """Nothing drawn within at_least pixels of the image's edges (those named in edges)."""
    found = margins(image)
    assert found.smallest(edges) >= at_least, (
        f"{what} is drawn up to its edge (background margins {found}, at least {at_least} "
        f"pixels wanted on {edges})"
    )
    return found


def colour_columns(image: QImage | Path | bytes, colour: str, tolerance: int = 40) -> np.ndarray:
    """The x of every column holding a pixel of about that colour (a series' curve)."""
    array = pixels(image).astype(np.int16)
    wanted = QColor(colour)
    target = np.array([wanted.red(), wanted.green(), wanted.blue()], dtype=np.int16)
    near = np.abs(array - target).max(axis=2) <= tolerance
    return np.flatnonzero(near.any(axis=0))


def rightmost_share(image: QImage | Path | bytes, colour: str) -> float:
    """How far across the image (0 to 1) the colour reaches: the last point of its curve."""
    columns = colour_columns(image, colour)
    assert columns.size, f"nothing is drawn in {colour}"
    return float(columns.max() + 1) / pixels(image).shape[1]


def pdf_pages(pdf: Path, folder: Path, dpi: int = 60) -> list[Path]:
    """The PDF's pages as PNG images (pdftoppm), in order."""
    assert PDFTOPPM is not None, NO_POPPLER
    folder.mkdir(parents=True, exist_ok=True)
    prefix = folder / pdf.stem
    argv = [PDFTOPPM, "-r", str(dpi), "-png", str(pdf), str(prefix)]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    pages = sorted(folder.glob(f"{pdf.stem}-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    assert pages, f"pdftoppm drew no page of {pdf.name}"
    return pages


def pdf_text(pdf: Path) -> str:
    """The PDF's text as pdftotext extracts it (what is clipped off a page is not there),
    ligatures undone ("ﬁ" is "fi")."""
    assert PDFTOTEXT is not None, NO_POPPLER
    done = subprocess.run(
        [PDFTOTEXT, "-layout", str(pdf), "-"], check=True, capture_output=True, timeout=60
    )
    return unicodedata.normalize("NFKC", done.stdout.decode("utf-8", "replace"))


def html_screenshot(page: Path, shot: Path, profile: Path, size: str = "1280,4000") -> Path:
    """The HTML page as headless Chromium shows it in a window of that size."""
    assert CHROMIUM is not None, NO_CHROMIUM
    argv = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        f"--screenshot={shot}",
        f"--window-size={size}",
        page.resolve().as_uri(),
    ]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    assert shot.is_file(), f"Chromium drew no picture of {page.name}"
    return shot


def html_images(page: Path) -> list[bytes]:
    """The PNG images embedded in an HTML report, in order."""
    text = page.read_text(encoding="utf-8")
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([^"]+)"', text)]
