"""How charts look, the same in every view and report: the theme's colours, each series' colour
from what it is, line patterns that tell sessions apart, and a legend that sits under the plot."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QSizeF, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QSizePolicy

from app.analysis.compare import Comparison
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Series

#: Colour-blind-safe series colours (Okabe-Ito).
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
#: Line patterns, by a curve's role: the baseline (or only) session solid, the others dashed,
#: dotted, dash-dotted in the order they were measured.
LINES = (
    Qt.PenStyle.SolidLine,
    Qt.PenStyle.DashLine,
    Qt.PenStyle.DotLine,
    Qt.PenStyle.DashDotLine,
)
#: A series' colour is its identity, protocol × IP version, the same in every chart, session,
#: resume and report; what sets curves of one series apart (another session, the peer's CPU,
#: idle latency) is the line's pattern, never the colour.
SERIES_COLOURS = {
    Series(Protocol.TCP, IpVersion.V4): COLOURS[0],  # blue
    Series(Protocol.TCP, IpVersion.V6): COLOURS[1],  # vermillion
    Series(Protocol.UDP, IpVersion.V4): COLOURS[2],  # bluish green
    Series(Protocol.UDP, IpVersion.V6): COLOURS[3],  # reddish purple
}


def series_colour(series: Series) -> str:
    """The colour of a series wherever it is drawn (see SERIES_COLOURS)."""
    return SERIES_COLOURS.get(series, COLOURS[4])


def theme_colours() -> tuple[QColor, QColor]:
    """Background and foreground that follow the system's light or dark palette."""
    palette = QApplication.palette()
    return palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)


def style_plot(plot: pg.PlotWidget, title: str, print_friendly: bool = False) -> None:
    background, foreground = (
        (QColor("white"), QColor("black")) if print_friendly else theme_colours()
    )
    plot.setBackground(background)
    item = plot.getPlotItem()
    item.setTitle(title, color=foreground.name(), size="11pt")
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen(foreground))
        axis.setTextPen(pg.mkPen(foreground))
    item.showGrid(x=True, y=True, alpha=0.25)


class Legend(pg.LegendItem):
    """A legend in its own row under the plot, never over the data: its entries in as many
    columns as the plot's width holds, and no room taken while it names nothing."""

    def __init__(self, max_rows: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.layout.setContentsMargins(0, 2, 0, 0)
        # On screen a few rows at most: many long names would otherwise leave the plot a strip.
        self._max_rows = max_rows
        self._columns = 0
        self._width = 0.0
        self._full: dict[Any, str] = {}  # each entry's whole name, when shown shortened

    def addItem(self, item: Any, name: str) -> None:
        super().addItem(item, name)
        self._arrange()

    def removeItem(self, item: Any) -> None:
        super().removeItem(item)
        self._arrange()

    def clear(self) -> None:
        super().clear()
        self._arrange()

    def sizeHint(self, which: Qt.SizeHint, constraint: QSizeF | None = None) -> QSizeF:
        hint = super().sizeHint(which, constraint or QSizeF())
        if which == Qt.SizeHint.MinimumSize:
            return QSizeF(0, hint.height())  # never what widens the plot
        return hint

    def fit(self, width: float) -> None:
        """The plot is width wide: as many columns as fit under it."""
        if abs(width - self._width) > 1:
            self._width = width
            self._arrange(force=False)

    def _shorten(self, width: float) -> None:
        """A name wider than the legend's room is shown shortened in the middle ("…"; its
        start names the series, its end often tells sessions apart), whole in its tooltip and
        again once the room is there: a long session name must not run off the chart's edge."""
        room = max(width - 60.0, 60.0)  # the sample line and the spacing beside the name
        for _sample, label in self.items:
            full = self._full.setdefault(label, label.text)
            if label.text != full:
                label.setText(full)
            plain = html.unescape(full)
            label.setToolTip(plain)
            keep = len(plain)
            for _ in range(8):  # a few tries: each one scales by the width still too much
                shown = label.itemRect().width()
                if shown <= room or keep <= 4:
                    break
                keep = max(4, min(keep - 1, int(keep * room / shown) - 1))
                head = plain[: keep - keep // 2].rstrip()
                tail = plain[len(plain) - keep // 2 :].lstrip() if keep // 2 else ""
                label.setText(html.escape(f"{head}…{tail}", quote=False))

    def _arrange(self, force: bool = True) -> None:
        """Entries row by row, in the most columns whose widest entries fit side by side."""
        width = self._width or 600.0  # until the chart is laid out
        self._full = {label: text for label, text in self._full.items() if label in self._labels}
        # Rows capped: the names share the width of as many columns as that takes.
        fewest = -(-len(self.items) // self._max_rows) if self._max_rows and self.items else 1
        self._shorten(width / fewest)
        entries = [
            (sample, label, sample.boundingRect().width() + label.item.boundingRect().width() + 30)
            for sample, label in self.items
        ]
        columns = 1
        for count in range(len(entries), 0, -1):
            widths = [
                max(w for _, _, w in entries[c::count]) for c in range(min(count, len(entries)))
            ]
            if sum(widths) <= width or count <= fewest:
                columns = count
                break
        if entries:  # as few columns as make the same rows: 4 + 4, not 7 + 1
            rows = -(-len(entries) // columns)
            columns = -(-len(entries) // rows)
        if not force and columns == self._columns:
            return
        self._columns = columns
        self.columnCount = columns
        layout = self.layout
        for index in range(layout.count() - 1, -1, -1):
            layout.removeAt(index)
        for index, (sample, label, _) in enumerate(entries):
            row, column = divmod(index, columns)
            # Entries keep their own width, packed from the left: the rest of the row is empty.
            label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            layout.addItem(sample, row, 2 * column, alignment=Qt.AlignmentFlag.AlignVCenter)
            layout.addItem(label, row, 2 * column + 1)
            layout.setColumnSpacing(2 * column + 1, 18)
        self.rowCount = -(-len(entries) // columns) if entries else 0
        self.setVisible(bool(entries))
        # No entries: no height, so the plot takes the row back.
        self.setMaximumHeight(16777215 if entries else 0)
        layout.invalidate()
        self.updateGeometry()

    @property
    def _labels(self) -> list[Any]:
        return [label for _sample, label in self.items]

    def updateSize(self) -> None:
        """Sized by the plot's layout, not by itself."""


#: The row of a PlotItem's layout under its bottom axis (title, top axis, plot, bottom axis).
LEGEND_ROW = 4
#: The most rows an on-screen legend takes.
LEGEND_ROWS = 3


def add_legend(plot: pg.PlotWidget, print_friendly: bool = False) -> Legend:
    """A legend under the plot area, in the text colour: it can never hide a curve."""
    foreground = QColor("black") if print_friendly else theme_colours()[1]
    item = plot.getPlotItem()
    # PlotItem.addLegend with this class: plot(name=...) then adds to it.
    # On screen at most three rows (the plot keeps most of the height); an export, with no
    # tooltip to read a shortened name in, shows every name whole.
    legend = Legend(
        None if print_friendly else LEGEND_ROWS,
        labelTextColor=foreground,
        frame=False,
        horSpacing=4,
    )
    item.layout.addItem(legend, LEGEND_ROW, 1)
    item.layout.setAlignment(legend, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    # The room under the plot follows the chart's own width, never the legend's: a wide
    # legend must not stretch the plot beyond the chart.
    item.geometryChanged.connect(
        lambda: legend.fit(item.width() - item.getAxis("left").width() - 12)
    )
    item.legend = legend
    legend.setVisible(False)
    legend.setMaximumHeight(0)
    return legend


@dataclass(frozen=True)
class CurveStyle:
    """How a curve is drawn: its series' colour, and a line pattern that tells apart the
    sessions (or the sides of a measurement) drawn in that colour — the same in the window,
    the PNG and the reports."""

    colour: str
    line: int = 0  # an index into LINES: 0 solid

    @property
    def dashed(self) -> bool:
        return self.line > 0

    @property
    def pen_style(self) -> Qt.PenStyle:
        return LINES[self.line % len(LINES)]


def series_style(series: Series, line: int = 0) -> CurveStyle:
    """A series' curve: its own colour, in the line pattern given (0 solid)."""
    return CurveStyle(series_colour(series), line)


def comparison_styles(comparison: Comparison) -> dict[str, CurveStyle]:
    """Each curve's style by label: the colour of its series (protocol × IP version), the
    line of its session — the baseline session solid, each other session dashed, dotted,
    dash-dotted in the order they were measured — so a pair shares its colour, and a series
    looks the same here as in its session's own charts."""
    baseline = comparison.baseline_session
    base_id = baseline.id if baseline is not None else comparison.curves[0].session.id
    others = sorted(
        {c.session.id: c.session for c in comparison.curves if c.session.id != base_id}.values(),
        key=lambda session: (session.created_at, session.id),
    )
    line = {base_id: 0, **{session.id: 1 + i for i, session in enumerate(others)}}
    return {
        curve.label: series_style(curve.series, line[curve.session.id])
        for curve in comparison.curves
    }
