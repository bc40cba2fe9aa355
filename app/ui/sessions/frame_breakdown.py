"""The Frame breakdown page of a session: for the series and point chosen, one TCP segment or
UDP datagram as a stacked bar of its bytes by layer (and its overhead enlarged below it), a
legend with the byte counts, and the arithmetic in words — what the students of the seed
studies worked out on paper."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from app.analysis.expectation import (
    Breakdown,
    Layer,
    LayerKind,
    NoExpectation,
    breakdown,
    share_pct,
)
from app.analysis.expectation import value_text as point_text
from app.analysis.points import PointSummary, efficiency_text
from app.domain.plan import Plan, Series
from app.domain.units import counted, format_rate
from app.ui.common.widgets import ComboBox, accessible, scroll_page

#: One colour family per kind of byte (Okabe-Ito hues), lighter for each further layer.
KIND_COLOURS = {
    LayerKind.PAYLOAD: "#009E73",
    LayerKind.TRANSPORT: "#0072B2",
    LayerKind.IP: "#CC79A7",
    LayerKind.LINK: "#E69F00",
    LayerKind.SECURITY: "#D55E00",
    LayerKind.AIR: "#8C8C8C",
}
KIND_WORDS = (
    (LayerKind.PAYLOAD, "data"),
    (LayerKind.TRANSPORT, "TCP/UDP"),
    (LayerKind.IP, "IP"),
    (LayerKind.LINK, "link layer"),
    (LayerKind.SECURITY, "security"),
    (LayerKind.AIR, "preamble, gaps, air time"),
)
_BAR_HEIGHT = 24
_CAPTION_WIDTH = 112
_LEGEND_COLUMNS = 3


#: The second, third, ... layer of a kind: lighter and darker shades of its colour in turn.
_SHADES = (100, 130, -140, 150, -175, 115, -115)


def layer_colours(layers: Sequence[Layer]) -> list[QColor]:
    """Each layer's colour: its kind's, in another shade for each further layer of a kind."""
    seen: dict[LayerKind, int] = {}
    colours = []
    for layer in layers:
        nth = seen.get(layer.kind, 0)
        seen[layer.kind] = nth + 1
        base = QColor(KIND_COLOURS[layer.kind])
        shade = _SHADES[nth % len(_SHADES)]
        colours.append(base.lighter(shade) if shade > 0 else base.darker(-shade))
    return colours


def byte_text(value: float) -> str:
    return f"{value:.0f} B" if float(value).is_integer() else f"{value:.1f} B"


class FrameBar(QWidget):
    """The layers as two stacked bars: the whole segment or datagram, then its overhead alone
    stretched to the same width, so that a 4-byte FCS is as visible as the data."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layers: list[Layer] = []
        self.setMinimumHeight(2 * _BAR_HEIGHT + 14)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(560, 2 * _BAR_HEIGHT + 14)

    def set_layers(self, layers: Sequence[Layer]) -> None:
        self._layers = list(layers)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        try:
            self._paint(painter)
        finally:
            painter.end()

    def _paint(self, painter: QPainter) -> None:
        layers = self._layers
        if not layers:
            return
        colours = layer_colours(layers)
        text = self.palette().text().color()
        total = sum(layer.bytes for layer in layers)
        overhead = [
            (lay, c)
            for lay, c in zip(layers, colours, strict=True)
            if lay.kind is not LayerKind.PAYLOAD
        ]
        spare = total - sum(lay.bytes for lay, _ in overhead)
        rows = [("whole", list(zip(layers, colours, strict=True)), total)]
        if overhead and spare > 0:
            stretch = total / max(total - spare, 1e-9)
            rows.append((f"overhead (×{stretch:.0f})", overhead, total - spare))
        width = max(10.0, self.width() - _CAPTION_WIDTH - 4)
        metrics = QFontMetrics(painter.font())
        for row, (caption, parts, whole) in enumerate(rows):
            top = row * (_BAR_HEIGHT + 10) + 2
            painter.setPen(text)
            painter.drawText(
                QRectF(0, top, _CAPTION_WIDTH - 6, _BAR_HEIGHT),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                caption,
            )
            left = float(_CAPTION_WIDTH)
            for layer, colour in parts:
                span = width * layer.bytes / whole
                rect = QRectF(left, top, span, _BAR_HEIGHT)
                painter.fillRect(rect, colour)
                label = byte_text(layer.bytes)
                if metrics.horizontalAdvance(label) + 6 < span:
                    dark = colour.lightness() > 140
                    painter.setPen(QColor("black") if dark else QColor("white"))
                    painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), label)
                left += span
            painter.setPen(text)
            painter.drawRect(QRectF(_CAPTION_WIDTH, top, width, _BAR_HEIGHT))


class FrameBreakdownPage(QWidget):
    """Pick a series and a point; see its bytes by layer and the arithmetic in words."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.series_box = ComboBox()
        self.series_box.setToolTip("The series whose segment or datagram is shown.")
        accessible(self.series_box, "Series")
        self.point_box = ComboBox()
        self.point_box.setToolTip("The point of the sweep: the packet size decides UDP's bytes.")
        accessible(self.point_box, "Point")
        series_label = QLabel("Se&ries")
        series_label.setBuddy(self.series_box)
        point_label = QLabel("&Point")
        point_label.setBuddy(self.point_box)
        self.bar = FrameBar()
        self.bar.setObjectName("frame_bar")
        accessible(self.bar, "Frame bytes")
        self.legend = QLabel()
        self.legend.setObjectName("frame_legend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        accessible(self.legend, "Frame layers")
        self.key = QLabel(self._key_text())
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setWordWrap(True)
        self.title = QLabel()
        self.title.setObjectName("frame_title")
        self.title.setWordWrap(True)
        self.title.setStyleSheet("font-weight: bold;")
        accessible(self.title, "Frame shown")
        self.arithmetic = QLabel()
        self.arithmetic.setObjectName("frame_arithmetic")
        self.arithmetic.setWordWrap(True)
        self.arithmetic.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        accessible(self.arithmetic, "Frame arithmetic")
        self.measured = QLabel()
        self.measured.setObjectName("frame_measured")
        self.measured.setWordWrap(True)
        accessible(self.measured, "Measured at this point")
        self.notes = QLabel()
        self.notes.setObjectName("frame_notes")
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.RichText)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        accessible(self.notes, "How the bytes add up")

        pick = QHBoxLayout()
        pick.setContentsMargins(0, 0, 0, 0)
        for label, box in ((series_label, self.series_box), (point_label, self.point_box)):
            pick.addWidget(label)
            pick.addWidget(box, 1)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(4, 4, 4, 4)
        left_layout.addLayout(pick)
        left_layout.addWidget(self.bar)
        left_layout.addWidget(self.legend)
        left_layout.addWidget(self.key)
        left_layout.addStretch(1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 4, 4, 4)
        for label in (self.title, self.arithmetic, self.measured, self.notes):
            right_layout.addWidget(label)
        right_layout.addStretch(1)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll_page(left), 0, 0)
        layout.addWidget(scroll_page(right), 0, 1)
        layout.setColumnStretch(0, 3)
        layout.setColumnStretch(1, 2)

        self._plan: Plan | None = None
        self._series: list[Series] = []
        self._values: list[float | str] = []
        self._points: dict[tuple[Series, float | str], PointSummary] = {}
        self.series_box.currentIndexChanged.connect(self._show)
        self.point_box.currentIndexChanged.connect(self._show)

    @staticmethod
    def _key_text() -> str:
        return "Colours: " + " · ".join(
            f'<span style="color:{KIND_COLOURS[kind]}">■</span> {html.escape(words)}'
            for kind, words in KIND_WORDS
        )

    def clear(self) -> None:
        self._plan = None
        self._points = {}
        for box in (self.series_box, self.point_box):
            box.blockSignals(True)
            box.clear()
            box.blockSignals(False)
        self.bar.set_layers([])
        for label in (self.legend, self.title, self.arithmetic, self.measured, self.notes):
            label.clear()

    def set_session(self, plan: Plan, points: Sequence[PointSummary]) -> None:
        """The session's series and points to choose from: the first series at its largest
        value, where a link is nearest its limit."""
        self.clear()
        self._plan = plan
        self._points = {(p.series, p.value): p for p in points}
        self._series = list(plan.series)
        names = [v for v in plan.values if isinstance(v, str)]
        self._values = list(names) or sorted(float(v) for v in plan.values)
        for box, items in (
            (self.series_box, [s.label for s in self._series]),
            (self.point_box, [point_text(plan, v) for v in self._values]),
        ):
            box.blockSignals(True)
            box.addItems(items)
            box.blockSignals(False)
        self.point_box.blockSignals(True)
        self.point_box.setCurrentIndex(len(self._values) - 1)
        self.point_box.blockSignals(False)
        self._show()

    def _show(self) -> None:
        plan = self._plan
        s, v = self.series_box.currentIndex(), self.point_box.currentIndex()
        if plan is None or not 0 <= s < len(self._series) or not 0 <= v < len(self._values):
            return
        series, value = self._series[s], self._values[v]
        where = f"{series.label} at {point_text(plan, value)}"
        try:
            shown = breakdown(plan, series, value)
        except NoExpectation as err:
            self.bar.set_layers([])
            self.legend.clear()
            self.title.setText(where)
            self.arithmetic.setText(str(err))
            self.measured.clear()
            self.notes.clear()
            return
        self.bar.set_layers(shown.layers)
        self.legend.setText(_legend_html(shown))
        frames = f"{shown.frames} frames" if shown.frames > 1 else "one frame"
        self.title.setText(f"{where}: one {shown.unit} in {frames}")
        self.arithmetic.setText(shown.arithmetic)
        self.measured.setText(_measured_text(self._points.get((series, value)), shown))
        items = "".join(f"<li>{html.escape(note)}</li>" for note in shown.notes)
        self.notes.setText(f"<ul style='margin-left: -20px'>{items}</ul>")


def _legend_html(shown: Breakdown) -> str:
    """The layers in the bar's order with their byte counts, in columns."""
    cells = [
        f'<td><span style="color:{colour.name()}">■</span> {html.escape(layer.name)}</td>'
        f'<td align="right">&nbsp;{byte_text(layer.bytes)}&nbsp;&nbsp;&nbsp;</td>'
        for layer, colour in zip(shown.layers, layer_colours(shown.layers), strict=True)
    ]
    cells.append(
        f"<td><b>total</b></td><td align='right'>&nbsp;<b>{byte_text(shown.total_bytes)}</b></td>"
    )
    rows = [cells[i : i + _LEGEND_COLUMNS] for i in range(0, len(cells), _LEGEND_COLUMNS)]
    return "<table>" + "".join(f"<tr>{''.join(row)}</tr>" for row in rows) + "</table>"


def _measured_text(point: PointSummary | None, shown: Breakdown) -> str:
    summary = point.metrics.get("throughput_bps") if point is not None else None
    if point is None or summary is None or summary.mean is None:
        return "Nothing was measured at this point."
    runs = f"mean of {counted(point.n, 'run')}"
    said = f"Measured: {format_rate(summary.mean)} ({runs})"
    expected = None if shown.expected is None else shown.expected.expected_bps
    share = share_pct(summary.mean, expected, point.share_applies)
    if expected is not None and share is not None:  # as the results table shows it
        said += f", {efficiency_text(share)} % of the expected {format_rate(expected, 4)}"
    return said + "."
