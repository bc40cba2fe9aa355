"""The responsiveness result card: per direction the rating in large words, its RPM and loaded
latency, then idle latency and how latency was measured, read the way networkQuality's is."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from app.analysis.responsiveness import Rating
from app.domain.units import counted, format_rate
from app.study.responsiveness.results import (
    LoadResult,
    Phase,
    ResponsivenessResult,
    latency_text,
    rpm_number,
)

#: Okabe-Ito colours, readable by colour-blind people, from worst to best.
RATING_COLOUR = {
    Rating.POOR: "#D55E00",
    Rating.FAIR: "#B8860B",
    Rating.GOOD: "#0072B2",
    Rating.EXCELLENT: "#009E73",
}
HEADINGS = {Phase.DOWNLOAD: "Download", Phase.UPLOAD: "Upload", Phase.BOTH: "Both at once"}


def _label(text: str = "", name: str = "", *, size: float = 0, bold: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if name:
        label.setAccessibleName(name)
    if size or bold:
        font = QFont(label.font())
        if size:
            font.setPointSizeF(size)
        font.setBold(bold)
        label.setFont(font)
    return label


class _Column(QWidget):
    """One direction: heading, rating word, RPM, loaded latency, goodput and confidence."""

    def __init__(self, phase: Phase, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        heading = HEADINGS[phase]
        self.heading = _label(heading, size=13, bold=True)
        self.rating = _label("", f"{heading} rating", size=30, bold=True)
        self.rpm = _label("", f"{heading} RPM", size=15)
        self.latency = _label("", f"{heading} loaded latency")
        self.detail = _label("", f"{heading} details")
        self.detail.setStyleSheet("color: #555555;")
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 8, 12, 8)
        for widget in (self.heading, self.rating, self.rpm, self.latency, self.detail):
            column.addWidget(widget)
        column.addStretch(1)

    def show_result(self, load: LoadResult) -> None:
        self.rating.setText(load.rating.value)
        self.rating.setStyleSheet(f"color: {RATING_COLOUR[load.rating]};")
        self.rpm.setText(f"{rpm_number(load.rpm)} RPM")
        self.latency.setText(f"Loaded latency {latency_text(load.loaded_latency_ms)}")
        flows = counted(load.flows, "flow")
        if load.phase is Phase.BOTH:
            flows += " each way"
        self.detail.setText(
            f"{format_rate(load.goodput_bps)} with {flows}\n"
            f"Confidence {load.confidence.value.lower()}"
            f"{'' if load.stable else ' (the load did not settle in time)'}"
        )


class ResultCard(QFrame):
    """Empty until a result is shown; the whole card is named "Responsiveness result"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("responsiveness_card")
        self.setAccessibleName("Responsiveness result")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = _label("", "Result title", size=12, bold=True)
        self.columns = {phase: _Column(phase) for phase in HEADINGS}
        self.idle = _label("", "Idle latency", size=11)
        self.method = _label("", "Latency method")
        self.notes = _label("", "Result notes")
        grid = QGridLayout()
        for index, column in enumerate(self.columns.values()):
            grid.addWidget(column, 0, index)
            grid.setColumnStretch(index, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.addWidget(self.title)
        layout.addLayout(grid)
        layout.addWidget(self.idle)
        layout.addWidget(self.method)
        layout.addWidget(self.notes)
        layout.addStretch(1)
        self.hide()

    def show_result(self, result: ResponsivenessResult, title: str = "") -> None:
        self.title.setText(title or f"Responsiveness to {result.host}")
        for phase, column in self.columns.items():
            load = result.load(phase)
            column.setVisible(load is not None)
            if load is not None:
                column.show_result(load)
        self.idle.setText(f"Idle latency {latency_text(result.idle_latency_ms)}")
        self.method.setText(
            f"{result.method_sentence} RPM = round trips per minute under load "
            f"(60,000 / loaded latency in ms): Poor below 300, Fair below 1,000, Good up to "
            f"6,000, Excellent above."
        )
        self.notes.setText(" ".join(result.notes))
        self.notes.setVisible(bool(result.notes))
        self.show()
