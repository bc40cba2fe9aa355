"""The desktop window: the only place that imports Qt (PySide6) and pyqtgraph."""
