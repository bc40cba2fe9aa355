"""What is typed in a number field stays as typed: a port typed "52O1" or "99999" is neither cut
to 521 or 9999 nor put back when the cursor leaves, it is marked with the reason under the field,
and Start says which field to fix and goes there; fixed, the reason goes, as does an older
refusal of the peer at another port. The same on the Study and Advanced pages, the Monitor, and
the Responsiveness tab's Start."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from app.engine.drivers.driver import EngineDriver
from app.engine.drivers.registry import DRIVERS
from app.ui.main_window import MainWindow
from tests.conftest import free_port
from tests.ui.user import User, wait_for


def form_driver(user: User) -> EngineDriver:
    """The engine the form measures with (iperf3; iperf 2 where only it is installed, as
    under Windows here)."""
    shown = user.text("Engine")
    (driver,) = [d for d in DRIVERS.values() if shown in (d.name, d.label)]
    return driver


def engine_port(user: User) -> str:
    """The form's engine's port field, as the Ports row labels it."""
    return f"{form_driver(user).port_label} port"


def focused_in(user: User, name: str) -> bool:
    field = user.find(name)
    focus: QWidget | None = QApplication.focusWidget()
    return focus is field or (focus is not None and focus.parentWidget() is field)


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("52O1", "“52O1” is not a whole number: type one from 1 to 65535."),
        ("99999", "99999 is more than 65535, the largest it takes."),
        ("", "Type a whole number from 1 to 65535."),
    ],
)
def test_a_port_is_kept_as_typed_and_marked_until_fixed(
    window: MainWindow, user: User, typed: str, reason: str
) -> None:
    user.type("Peer", "127.0.0.1")
    port = engine_port(user)
    user.type(port, typed)
    user.key(Qt.Key.Key_Tab)  # the cursor leaves the field: the text stays
    assert user.text(port) == typed
    edit = user.find(port).lineEdit()  # type: ignore[attr-defined]
    assert edit.width() >= edit.fontMetrics().horizontalAdvance(typed)  # marked, and readable
    assert reason in user.text("Peer check"), user.text("Peer check")
    assert f"No command yet: fix {port} first." in user.text("Command")
    user.click("Start")
    assert f"Fix {port} before starting: {reason}" in user.text("Status")
    assert not window.measure.running
    wait_for(lambda: focused_in(user, port), 5, "the cursor in the field to fix")
    assert user.text(port) == typed
    user.type(port, "5202", enter=True)
    assert user.text(port) == "5202"
    assert reason not in user.text("Peer check")
    assert "-p 5202" in user.text("Command")


def test_a_refusal_at_a_port_goes_when_the_port_is_changed(window: MainWindow, user: User) -> None:
    closed = free_port()  # nothing listens there
    driver = form_driver(user)
    if not driver.takes_bare_connections:
        pytest.skip(
            f"the peer check never knocks on {driver.port_label}'s port (a bare connection crashes "
            f"its server), so it cannot see the port closed"
        )
    user.type("Peer", "127.0.0.1")
    port = engine_port(user)
    user.type(port, str(closed))
    user.type("Seconds per run", "1")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 30, "the peer check")
    said = user.text("Peer check")
    assert str(closed) in said, said  # the peer refused at that port
    user.type(port, str(closed + 1))
    assert str(closed) not in user.text("Peer check")


def test_numbers_on_the_study_and_advanced_pages_are_kept_and_marked(
    window: MainWindow, user: User
) -> None:
    user.type("Runs per point", "1O")
    user.key(Qt.Key.Key_Tab)
    assert user.text("Runs per point") == "1O"
    reason = "“1O” is not a whole number: type one from 1 to 1000."
    assert user.can_see(reason)  # the reason, under the field
    user.click("Start")
    assert f"Fix Runs per point before starting: {reason}" in user.text("Status")
    user.type("Runs per point", "2")
    assert not user.can_see(reason)

    user.tab("Advanced")
    user.type("Report interval", "0,5x")
    user.key(Qt.Key.Key_Tab)
    typed = user.text("Report interval")
    assert typed.startswith("0,5x"), typed
    user.tab("Study")
    user.click("Start")  # from the other page: Start goes to the field
    status = user.text("Status")
    assert status.startswith("Fix Report interval before starting: “0,5x” is not a number"), status
    wait_for(lambda: focused_in(user, "Report interval"), 5, "the cursor in the field to fix")


def test_the_monitor_and_the_responsiveness_tab_keep_and_refuse_what_they_cannot_take(
    window: MainWindow, user: User
) -> None:
    user.tab("Monitor")
    user.type("Show the last", "5x")
    user.key(Qt.Key.Key_Tab)
    assert user.text("Show the last").startswith("5x"), user.text("Show the last")
    assert "“5x” is not a whole number" in user.find("Show the last").toolTip()

    user.tab("Responsiveness")
    user.type("Responsiveness peer", "127.0.0.1")
    user.type("Responsiveness iperf3 port", "99999")
    user.click("Start responsiveness test")
    assert not window.responsiveness.running
    state = user.visible_text()
    assert "Responsiveness iperf3 port: 99999 is more than 65535, the largest it takes." in state, (
        state
    )
    assert user.text("Responsiveness iperf3 port") == "99999"
