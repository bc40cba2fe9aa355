"""A peer name that does not resolve, as a person types one on the Study page: the medium
detected for the computer before goes (nothing is known of this one), and what the form says
names why (the name could not be resolved), in a line as wide as the page at 1280×800, not
the medium as if the user had left it out; a medium the user chose stays theirs."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QLabel

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.testbed import NeighbourBed
from tests.ui.journey import choose_the_neighbour
from tests.ui.test_journey_link_rate import detection_settled
from tests.ui.test_room_at_1280x800 import label_whole
from tests.ui.user import User, wait_for

NAME = "labhost.invalid"  # a name no resolver knows (RFC 6761)
UNRESOLVED = f"the name '{NAME}' could not be resolved"


def shown_saying(user: User, words: str) -> list[QLabel]:
    """The labels a person can see on the Study page that say these words."""
    page = user.find("Session name").window()
    return [
        label
        for label in page.findChildren(QLabel)
        if words in label.text() and User.shown(label) and label.objectName() != "problems"
    ]


def choose_again(user: User, name: str) -> None:
    """Open the drop-down and take the option it already shows (Return on it), as a person
    confirms what is there."""
    combo = user.find(name, QComboBox)
    QTest.mouseClick(combo, Qt.MouseButton.LeftButton, pos=combo.rect().center())
    wait_for(combo.view().isVisible, 5, f"the list of {name!r}")
    QTest.keyClick(combo.view(), Qt.Key.Key_Return)
    wait_for(lambda: not combo.view().isVisible(), 5, f"the list of {name!r} to close")


@pytest.mark.netns
@pytest.mark.usefixtures("iperf3_tool")
def test_a_name_that_does_not_resolve_is_what_the_form_blames(
    window: MainWindow, user: User, context: AppContext, neighbour: NeighbourBed
) -> None:
    choose_the_neighbour(user, context, neighbour)
    detection_settled(window, user, neighbour.THERE4)
    assert user.text("Medium") == "Ethernet"
    user.type("Link rate", "30M")
    assert "Fix" not in user.text("Command")

    # A name mistyped: nothing can be detected of the link to it, and the form says why.
    user.type("Peer", NAME)
    said = detection_settled(window, user, NAME)
    assert UNRESOLVED in said, said
    assert user.text("Medium") == "unknown"  # Ethernet was the other computer's adapter
    (error,) = shown_saying(user, "The medium could not be detected")
    assert UNRESOLVED in error.text(), error.text()
    assert "choose the medium" in error.text()
    # Readable at 1280×800: across the page's width, every line of it shown.
    assert error.width() >= user.find("Session name").width(), error.width()
    assert label_whole(error)
    assert error.height() <= 3 * error.fontMetrics().lineSpacing() + 4
    user.click("Start")
    assert user.text("Status") == f"Fix Medium before starting: {error.text()}"
    assert not window.measure.running

    # The name corrected: detected again, and nothing left to fix.
    user.type("Peer", neighbour.THERE4)
    detection_settled(window, user, neighbour.THERE4)
    assert user.text("Medium") == "Ethernet"
    assert not shown_saying(user, "could not be resolved")
    assert not shown_saying(user, "The medium could not be detected")

    # Ethernet chosen by the user (the option the list already showed): it is theirs now,
    # and a name that does not resolve leaves it as it is.
    choose_again(user, "Medium")
    said = user.text("Detected link") if user.can_see("Detected link") else ""
    assert "Medium Ethernet detected" not in said, said
    user.type("Peer", NAME)
    said = detection_settled(window, user, NAME)
    assert UNRESOLVED in said
    assert user.text("Medium") == "Ethernet"
    assert not shown_saying(user, "The medium could not be detected")
    assert "Fix" not in user.text("Command")
