"""The Responsiveness tab used as a person uses it: controls found by their labels, a real test
against this computer's own servers ending in the result card, Stop, and a bad peer."""

from __future__ import annotations

import pytest

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.conftest import engine_children
from tests.ui.user import User, wait_for

RATINGS = ("Poor", "Fair", "Good", "Excellent")


def short_test(user: User) -> None:
    user.tab("Responsiveness")
    user.type("Most parallel flows", "2")
    user.type("Seconds per direction", "2")


# Over 10 s: the window's responsiveness test runs to its result card.
@pytest.mark.slow
@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_a_test_against_this_computer_ends_in_the_card(window: MainWindow, user: User) -> None:
    short_test(user)
    assert user.text("Peer") == "This computer"
    assert not user.can_see("Responsiveness result")  # no card before a result
    user.click("Start responsiveness test")
    wait_for(lambda: "Download" in user.text("Responsiveness status"), 30, "the download load")
    assert user.find("Responsiveness progress").value() > 0  # type: ignore[attr-defined]
    wait_for(lambda: user.can_see("Responsiveness result"), 90, "the result card")
    for way in ("Download", "Upload", "Both at once"):
        assert user.text(f"{way} rating") in RATINGS
        assert user.text(f"{way} RPM").endswith(" RPM")
        assert user.text(f"{way} loaded latency").startswith("Loaded latency ")
        assert "Confidence" in user.text(f"{way} details")
    assert user.text("Idle latency").startswith("Idle latency ")
    assert "LinkLab's UDP echo" in user.text("Latency method")
    assert user.text("Result title") == "Responsiveness to This computer"
    text = user.visible_text()
    assert "RPM" in text and "Loaded latency" in text
    assert user.find("Responsiveness progress").value() == 100  # type: ignore[attr-defined]
    # Offered again once the test's thread has ended its engines (a moment after the card).
    wait_for(lambda: user.find("Start responsiveness test").isEnabled(), 10, "Start again")
    # Kept without asking: listed in Sessions, where it opens to the same card.
    wait_for(lambda: "Kept in Sessions" in user.text("Responsiveness status"), 10, "the keep")
    rpm = user.text("Download RPM")
    user.click("Show in Sessions")
    assert window.tabs.currentWidget() is window.sessions
    wait_for(lambda: user.can_see("Goodput over time"), 10, "the result's chart")
    (row,) = user.table_rows("Sessions")
    assert row[1].startswith("Responsiveness to This computer at ") and row[-1] == "Responsiveness"
    assert user.text("Download RPM") == rpm
    wait_for(lambda: not engine_children(clients_only=True), 10, "the iperf3 clients to end")


@pytest.mark.slow
@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_stop_ends_the_test_without_a_card(window: MainWindow, user: User) -> None:
    short_test(user)
    user.click("Start responsiveness test")
    wait_for(lambda: "Download" in user.text("Responsiveness status"), 30, "the download load")
    # A study started meanwhile would measure a loaded link: refused, saying why.
    user.tab("Measure")
    user.click("Start")
    assert "A responsiveness test is running" in user.text("Status")
    assert not window.measure.running
    user.tab("Responsiveness")
    user.click("Stop test")
    wait_for(lambda: not window.responsiveness.running, 10, "the test to stop")
    assert user.text("Responsiveness status") == "Stopped: no result."
    assert not user.can_see("Responsiveness result")
    wait_for(lambda: not engine_children(clients_only=True), 10, "the iperf3 clients to end")


def test_a_peer_like_an_option_is_refused_in_a_sentence(window: MainWindow, user: User) -> None:
    user.tab("Responsiveness")
    user.type("Peer", "-bad")
    user.click("Start responsiveness test")
    assert "starts with '-'" in user.text("Responsiveness status")
    assert not window.responsiveness.running


def test_the_presets_menu_leads_to_the_tab(window: MainWindow, user: User) -> None:
    user.menu("Presets", "Responsiveness test (working latency)")
    assert window.tabs.currentWidget() is window.responsiveness
    assert user.find("Start responsiveness test").isEnabled()


def test_the_guide_explains_the_rating(window: MainWindow, user: User) -> None:
    from PySide6.QtWidgets import QDialog

    user.menu("Help", "LinkLab guide")
    guide = next(w for w in window.findChildren(QDialog) if w.objectName() == "guide")
    wait_for(guide.isVisible, 5)
    from tests.ui.test_guide import open_page

    text = open_page(User(guide), "Responsiveness under load").toPlainText()
    assert "Start responsiveness test" in text and "Poor below 300" in text


@pytest.fixture
def damaged_database(context: AppContext) -> None:
    """The database fails its start-up check before the window opens."""
    from tests.store.test_recover import _damaged

    _damaged(context.db_path)


@pytest.mark.slow
@pytest.mark.usefixtures("iperf3_tool", "damaged_database")
def test_a_damaged_database_shows_the_result_and_says_it_is_not_kept(
    window: MainWindow, user: User
) -> None:
    wait_for(lambda: user.can_see("Database problem"), 15, "the database banner")
    short_test(user)
    user.click("Start responsiveness test")
    wait_for(lambda: user.can_see("Responsiveness result"), 90, "the result card")
    wait_for(lambda: "Not kept" in user.text("Responsiveness status"), 10, "the sentence")
    assert "--recover-to" in user.text("Responsiveness status")
    assert not user.can_see("Show in Sessions")
    wait_for(lambda: not window.responsiveness.running, 10, "the test to end")
    wait_for(lambda: not engine_children(clients_only=True), 10, "the iperf3 clients to end")
