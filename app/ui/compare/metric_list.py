"""The Compare tab's Metric list: only the metrics both sides of a pair measured."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox

from app.analysis.compare import METRIC_INFO


def offer(box: QComboBox, offered: list[str]) -> bool:
    """Fill the list with the metrics offered (stored names), keeping the one shown where it
    still is; False when it is not (the list then shows the first offered)."""
    current = box.currentData()
    if [box.itemData(i) for i in range(box.count())] != offered:
        box.blockSignals(True)  # the caller reads the data again when the metric changed
        box.clear()
        for name in offered:
            label, unit, _ = METRIC_INFO[name]
            box.addItem(f"{label} ({unit})", name)
        box.setCurrentIndex(max(box.findData(current), 0))
        box.blockSignals(False)
    return current in offered
