"""Help › LinkLab guide: what each control does, how to measure against a second computer,
and what the statistics mean, in a window beside the main one."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from app.resources import resource_dir

GUIDE = "help/guide.html"


def guide_html() -> str:
    try:
        return (resource_dir() / GUIDE).read_text(encoding="utf-8")
    except OSError as err:
        return f"<p>The guide could not be read ({err}): reinstall LinkLab.</p>"


class GuideDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("LinkLab guide")
        self.setObjectName("guide")
        self.browser = QTextBrowser()
        self.browser.setObjectName("guide_text")
        self.browser.setAccessibleName("LinkLab guide")
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml(guide_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        self.resize(640, 720)
