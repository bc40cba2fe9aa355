"""Help › LinkLab guide: the user guide's pages (docs/guide/*.md) shown in a window beside the
main one, a list of the pages on the left, their links followed in place."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QDesktopServices,
    QImage,
    QPixmap,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app import guide_pages

#: Where a page's path is kept on its list item.
PATH_ROLE = 0x0100


class GuideBrowser(QTextBrowser):
    """A page of the guide: headings get their GitHub anchors (so page.md#section links land
    there) and pictures are shrunk to the width of the window, a table's to its column."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._fitted_width = 0
        self.document().setUndoRedoEnabled(False)
        self.sourceChanged.connect(self._prepare)

    def _prepare(self, url: QUrl) -> None:
        self._mark_headings(Path(url.toLocalFile()))
        self._fitted_width = 0
        self._fit_images()
        if url.fragment():
            self.scrollToAnchor(url.fragment())

    def _mark_headings(self, page: Path) -> None:
        try:
            names = iter(guide_pages.anchors(page.read_text(encoding="utf-8")))
        except OSError:
            return  # shown already, so read a moment ago: only its headings' anchors are lost
        block = self.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel():
                name = next(names, None)
                if name:
                    cursor = QTextCursor(block)
                    cursor.movePosition(
                        QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor
                    )
                    fmt = cursor.charFormat()
                    fmt.setAnchor(True)
                    fmt.setAnchorNames([name])
                    cursor.mergeCharFormat(fmt)
            block = block.next()

    def _width(self) -> int:
        # The widget's width less a scroll bar, shown or not: fitting to the viewport would
        # show or hide the scroll bar and fit again, back and forth.
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        margin = 2 * int(self.document().documentMargin()) + 2 * self.frameWidth()
        return max(120, self.width() - bar - margin - 4)

    def _fit_images(self) -> None:
        width = self._width()
        if width == self._fitted_width:
            return
        self._fitted_width = width
        doc = self.document()
        images = []
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.charFormat().isImageFormat():
                    images.append((fragment.position(), fragment.length()))
                it += 1
            block = block.next()
        for position, length in images:
            cursor = QTextCursor(doc)
            cursor.setPosition(position)
            cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
            fmt = cursor.charFormat().toImageFormat()
            size = _image_size(doc, fmt.name())
            if size is None:
                continue
            table = cursor.currentTable()
            room = width // table.columns() - 16 if table is not None else width
            scale = min(1.0, room / size[0])
            fmt.setWidth(size[0] * scale)
            fmt.setHeight(size[1] * scale)
            cursor.setCharFormat(fmt)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_images()


def _image_size(doc: QTextDocument, name: str) -> tuple[int, int] | None:
    image = doc.resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
    if isinstance(image, QImage | QPixmap) and not image.isNull():
        return image.width(), image.height()
    return None


class GuideDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("LinkLab guide")
        self.setObjectName("guide")
        self.folder = folder or guide_pages.guide_dir()
        self.contents = QListWidget()
        self.contents.setAccessibleName("Guide pages")
        self.contents.setObjectName("guide_pages")
        self.browser = GuideBrowser()
        self.browser.setObjectName("guide_text")
        self.browser.setAccessibleName("LinkLab guide")
        # Links are followed here: a guide page in place, a web address in the browser.
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self.follow)
        self.browser.sourceChanged.connect(self._select_shown)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setAccessibleName("Guide note")
        self.note.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        back = buttons.addButton("Back", QDialogButtonBox.ButtonRole.ActionRole)
        back.setToolTip("The page shown before this one (Alt+Left).")
        back.setEnabled(False)
        back.clicked.connect(self.browser.backward)
        self.browser.backwardAvailable.connect(back.setEnabled)
        pane = QHBoxLayout()
        pane.addWidget(self.contents)
        pane.addWidget(self.browser, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(pane, 1)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self._fill()
        self.contents.currentItemChanged.connect(self._open_item)
        if self.contents.count():
            self.contents.setCurrentRow(0)
        # Fits a 1280×720 screen with the main window's title bar and a taskbar.
        self.resize(980, 640)

    def _fill(self) -> None:
        try:
            pages = guide_pages.pages(self.folder)
            titles = [guide_pages.title(page) for page in pages]
        except OSError as err:
            pages, titles = [], []
            self._say(f"The guide could not be read ({err.strerror or err}): reinstall LinkLab.")
        if not pages and self.note.isHidden():
            self._say("The guide's pages are missing from this installation: reinstall LinkLab.")
        for page, text in zip(pages, titles, strict=True):
            item = QListWidgetItem(text)
            item.setData(PATH_ROLE, str(page))
            self.contents.addItem(item)
        width = self.contents.sizeHintForColumn(0) + 2 * self.contents.frameWidth() + 8
        self.contents.setFixedWidth(min(max(width, 160), 280))

    def _say(self, sentence: str) -> None:
        self.note.setText(sentence)
        self.note.setVisible(bool(sentence))

    def _open_item(self, item: QListWidgetItem | None) -> None:
        if item is not None:
            self.show_page(Path(item.data(PATH_ROLE)))

    def show_page(self, path: Path, fragment: str = "") -> None:
        """Show a page of the guide (or a document it links to), at a heading if asked."""
        url = QUrl.fromLocalFile(str(path))
        if fragment:
            url.setFragment(fragment)
        self._say("")
        if self.browser.source().toLocalFile() == url.toLocalFile():
            if fragment:
                self.browser.scrollToAnchor(fragment)
            return
        self.browser.setSource(url, QTextDocument.ResourceType.MarkdownResource)

    def follow(self, url: QUrl) -> None:
        """A link clicked in a page."""
        if url.scheme() not in ("", "file"):
            QDesktopServices.openUrl(url)
            return
        target = self.browser.source().resolved(url)
        path = Path(target.toLocalFile())
        if not path.is_file():
            self._say(f"{path.name} is not in this installation: see LinkLab's online guide.")
        elif path.suffix == ".md":
            self.show_page(path, target.fragment())
        else:
            QDesktopServices.openUrl(target)

    def _select_shown(self, url: QUrl) -> None:
        shown = Path(url.toLocalFile()).resolve()
        for row in range(self.contents.count()):
            if Path(self.contents.item(row).data(PATH_ROLE)).resolve() == shown:
                if self.contents.currentRow() != row:
                    self.contents.blockSignals(True)
                    self.contents.setCurrentRow(row)
                    self.contents.blockSignals(False)
                return
        self.contents.blockSignals(True)
        self.contents.setCurrentRow(-1)
        self.contents.blockSignals(False)
