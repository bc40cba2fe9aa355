"""The application icon: the rendered PNG sizes, the Windows .ico and the window's QIcon."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage, QImageReader
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from app.resources import resource_dir
from app.ui.icons import ICON_SIZES, app_icon

ICONS = resource_dir() / "icons"


def test_svg_is_a_square_drawing_qt_can_read(qapp: QApplication) -> None:
    text = (ICONS / "linklab.svg").read_text(encoding="utf-8")
    assert "<text" not in text and "href" not in text  # nothing that needs fonts or other files
    renderer = QSvgRenderer(str(ICONS / "linklab.svg"))
    assert renderer.isValid()
    assert renderer.viewBoxF().width() == renderer.viewBoxF().height() == 256


@pytest.mark.parametrize("size", ICON_SIZES)
def test_png_has_its_size_and_something_drawn(qapp: QApplication, size: int) -> None:
    image = QImage(str(ICONS / f"linklab-{size}.png"))
    assert not image.isNull()
    assert (image.width(), image.height()) == (size, size)
    assert image.hasAlphaChannel()
    centre = image.pixelColor(size // 2, size // 2)
    assert centre.alpha() == 255  # the background square fills the middle
    assert image.pixelColor(0, 0).alpha() < 255  # rounded corners stay see-through


def test_ico_holds_every_size_and_qt_reads_it(qapp: QApplication) -> None:
    data = (ICONS / "linklab.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data, 0)
    assert (reserved, kind) == (0, 1)
    sizes = []
    for i in range(count):
        width, height, _, _, _, _, length, offset = struct.unpack_from(
            "<BBBBHHII", data, 6 + 16 * i
        )
        assert width == height
        assert data[offset : offset + 8] == b"\x89PNG\r\n\x1a\n"
        assert offset + length <= len(data)
        sizes.append(width or 256)  # 256 is stored as 0
    assert sizes == [16, 24, 32, 48, 64, 128, 256]

    reader = QImageReader(str(ICONS / "linklab.ico"))
    assert reader.format().data() == b"ico"
    assert reader.imageCount() == count
    read = []
    for i in range(count):
        assert reader.jumpToImage(i)
        image = reader.read()
        assert not image.isNull(), reader.errorString()
        read.append(image.width())
    assert read == sizes


def test_app_icon_offers_every_size(qapp: QApplication) -> None:
    icon = app_icon()
    assert not icon.isNull()
    available = set(icon.availableSizes())
    assert {QSize(size, size) for size in ICON_SIZES} <= available
    assert not icon.pixmap(16, 16).isNull()


def test_app_icon_falls_back_to_the_svg(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "icons").mkdir()
    shutil.copy(ICONS / "linklab.svg", tmp_path / "icons" / "linklab.svg")
    monkeypatch.setattr("app.ui.icons.resource_dir", lambda: tmp_path)
    icon = app_icon()
    assert not icon.isNull()
    assert not icon.pixmap(32, 32).isNull()
