"""Render resources/icons/linklab.svg to the PNG sizes and the Windows .ico the installers use.

Run it again after editing the SVG and commit what it writes: the installers take the PNGs and
the .ico as they are, without Qt. The same SVG and Qt give the same bytes on every run.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "resources" / "icons"
SVG = ICONS / "linklab.svg"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)


def png_path(size: int) -> Path:
    return ICONS / f"linklab-{size}.png"


def ico_bytes(entries: list[tuple[int, bytes]]) -> bytes:
    """An .ico file from (size, PNG bytes) pairs, largest last.

    Written by hand because Qt's ICO writer stores a single image per file. PNG payloads are
    valid ICO entries since Windows Vista; a size of 256 is stored as 0 in the byte fields.
    """
    header = struct.pack("<HHH", 0, 1, len(entries))  # reserved, type 1 = icon, count
    offset = len(header) + 16 * len(entries)
    directory = b""
    payload = b""
    for size, png in entries:
        side = 0 if size >= 256 else size
        # width, height, palette colours, reserved, colour planes, bits per pixel, size, offset
        directory += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset)
        payload += png
        offset += len(png)
    return header + directory + payload


def main() -> int:
    # No display is needed to draw into an image.
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    # Held for the whole run: painting needs a live QGuiApplication.
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv)
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"make_icons: {SVG.name} is not an SVG Qt can read", file=sys.stderr)
        return 1

    def render(size: int) -> bytes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        # PySide6 takes the format as str at run time, though its stubs say bytes.
        png = image.convertToFormat(QImage.Format.Format_ARGB32)
        if not png.save(buffer, "PNG"):  # type: ignore[call-overload]
            raise OSError(f"could not encode the {size}-pixel icon as PNG")
        buffer.close()
        return bytes(data.data())

    rendered = {size: render(size) for size in sorted({*PNG_SIZES, *ICO_SIZES})}
    for size in PNG_SIZES:
        png_path(size).write_bytes(rendered[size])
    (ICONS / "linklab.ico").write_bytes(ico_bytes([(s, rendered[s]) for s in ICO_SIZES]))
    print(f"make_icons: wrote {len(PNG_SIZES)} PNGs and linklab.ico into resources/icons/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
