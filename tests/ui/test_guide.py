"""Help › LinkLab guide (F1): every page of docs/guide is there by its title, shows its
pictures, and its links lead to the page they name, as a person clicking through finds it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialog, QListWidget, QTextBrowser

from app import guide_pages
from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for

GUIDE = Path(__file__).resolve().parent.parent.parent / "docs" / "guide"


def open_guide(window: MainWindow, user: User) -> User:
    """F1, as a person asks for help: the guide's window, and a user at it."""
    user.key(Qt.Key.Key_F1)
    guide = next(w for w in window.findChildren(QDialog) if w.objectName() == "guide")
    wait_for(guide.isVisible, 5, "F1 to open the guide")
    return User(guide)


def shown_title(reader: User) -> str:
    return reader.find("LinkLab guide", QTextBrowser).toPlainText().split("\n", 1)[0]


def open_page(reader: User, title: str) -> QTextBrowser:
    """Click the page's title in the list of pages; the page it opens."""
    pages = reader.find("Guide pages", QListWidget)
    titles = [pages.item(row).text() for row in range(pages.count())]
    assert title in titles, f"no page {title!r} in the list: {titles}"
    reader.click_row("Guide pages", titles.index(title))
    wait_for(lambda: shown_title(reader) == title, 5, f"the page {title!r}")
    return reader.find("LinkLab guide", QTextBrowser)


def pictures(browser: QTextBrowser) -> list[tuple[str, float]]:
    """Each picture of the page shown: its file and the width it is drawn at."""
    found = []
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                image = fmt.toImageFormat()
                found.append((image.name(), image.width()))
            it += 1
        block = block.next()
    return found


def test_every_guide_page_is_in_the_help(window: MainWindow, user: User) -> None:
    reader = open_guide(window, user)
    pages = guide_pages.pages(GUIDE)
    assert len(pages) == len(list(GUIDE.glob("*.md"))) > 10
    assert shown_title(reader) == "LinkLab guide", "the guide opens at its first page"
    for page in pages:
        title = guide_pages.title(page)
        browser = open_page(reader, title)
        text = browser.toPlainText()
        # The page as written: its headings, in order, are what the window shows.
        for heading in guide_pages.headings(page.read_text(encoding="utf-8")):
            assert heading.replace("`", "").replace("*", "") in text, (title, heading)
        shown = pictures(browser)
        written = [
            t for t in guide_pages.links(page.read_text(encoding="utf-8")) if t.endswith(".png")
        ]
        assert [name for name, _ in shown] == written, title
        for name, width in shown:
            image = browser.document().resource(
                QTextDocument.ResourceType.ImageResource, browser.source().resolved(name)
            )
            assert image is not None and not image.isNull(), f"{title}: {name} is not shown"
            assert 0 < width <= browser.viewport().width(), f"{title}: {name} is cut off"


def test_the_help_knows_iperf_2(window: MainWindow, user: User) -> None:
    reader = open_guide(window, user)
    assert "iperf 2" in reader.find("LinkLab guide", QTextBrowser).toPlainText()
    engines = open_page(reader, "Engines").toPlainText()
    assert "iperf 2 (iperf, 2.0.10 or newer; optional)" in engines
    assert "One-way delay" in engines and "--trip-times" in engines
    assert "iperf3, netperf or iperf2" in open_page(reader, "The window").toPlainText()


def _link_at(browser: QTextBrowser, href: str) -> QPoint:
    """Where the link to href is drawn, scrolled into view as a reader scrolls to it."""
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(browser.document())
                cursor.setPosition(fragment.position() + 1)
                browser.setTextCursor(cursor)
                browser.ensureCursorVisible()
                return browser.cursorRect(cursor).center()
            it += 1
        block = block.next()
    raise AssertionError(f"no link to {href} on {browser.source().fileName()}")


def test_a_link_opens_the_page_it_names(window: MainWindow, user: User) -> None:
    reader = open_guide(window, user)
    browser = reader.find("LinkLab guide", QTextBrowser)
    QTest.mouseClick(
        browser.viewport(), Qt.MouseButton.LeftButton, pos=_link_at(browser, "engines.md")
    )
    wait_for(lambda: shown_title(reader) == "Engines", 5, "the Engines page")
    assert reader.find("Guide pages", QListWidget).currentItem().text() == "Engines"
    # A link to a section of another page opens that page there.
    open_page(reader, "Comparing and reporting")
    pos = _link_at(browser, "statistics.md#what-the-statistics-mean")
    QTest.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    wait_for(lambda: shown_title(reader) == "What the statistics mean", 5, "the statistics")
    assert (
        reader.find("Guide pages", QListWidget).currentItem().text() == "What the statistics mean"
    )
    assert not reader.can_see("Guide note"), "a link that works says nothing more"
    reader.click("Back")
    wait_for(lambda: shown_title(reader) == "Comparing and reporting", 5, "the page before")
    assert reader.find("Guide pages", QListWidget).currentItem().text() == "Comparing and reporting"
