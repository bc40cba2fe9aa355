"""Small seams of the set-up form as a user meets them: a sweep of names has no range to
type, a greyed-out IPv6 field reads empty, and the next start of LinkLab shows the form as
it was left (a preset chosen and never started), not the last plan started."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QLineEdit

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for


def test_a_congestion_control_sweep_takes_its_names_from_the_list_alone(user: User) -> None:
    assert all(user.can_see(f"Values {end}") for end in ("from", "to", "step"))
    user.choose("Sweep", "Congestion control")
    # Names have no range: from, to and step are gone, the list is the values.
    assert not any(user.can_see(f"Values {end}") for end in ("from", "to", "step"))
    assert user.can_see("Values list")
    user.type("Values list", "cubic, reno")
    command = user.text("Command")
    assert "No command yet" not in command and "cubic" in command, command
    user.choose("Sweep", "Packet size")
    assert all(user.can_see(f"Values {end}") for end in ("from", "to", "step"))


@pytest.mark.usefixtures("iperf3_tool")
def test_a_greyed_out_ipv6_field_shows_no_hint(
    window: MainWindow, user: User, iperf3_server_port: tuple[int, object]
) -> None:
    field = user.find("Peer IPv6 address", QLineEdit)
    assert not field.isEnabled() and field.placeholderText() == ""  # "This computer"
    user.type("Peer", "127.0.0.1")
    assert field.isEnabled() and "IPv4 address" in field.placeholderText()
    # While a study runs the whole form is greyed out: the hint goes with it.
    port, _server = iperf3_server_port
    user.type("iperf3 port", str(port))
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "2")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the study to start")
    wait_for(lambda: not field.isEnabled(), 10, "the form to grey out")
    assert field.placeholderText() == "" and field.text() == ""
    wait_for(lambda: not window.measure.running, 60, "the study to end")
    assert field.isEnabled() and "IPv4 address" in field.placeholderText()


def test_the_next_start_shows_the_form_as_it_was_left(
    qtbot, window: MainWindow, user: User, context: AppContext, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    user.menu("Presets", "Lab 3: throughput vs packet loss")
    assert user.text("Sweep") == "Emulated loss"
    user.type("Runs per point", "4")
    listed = user.text("Values list")
    window.close()  # never started: the preset and the change are what the user left
    again = MainWindow(context, preset_dir=tmp_path / "presets")
    qtbot.addWidget(again, before_close_func=lambda w: w.shutdown())
    again.resize(1280, 800)
    again.show()
    qtbot.waitExposed(again)
    after = User(again)
    assert after.text("Sweep") == "Emulated loss"
    assert after.text("Values list") == listed
    assert after.text("Runs per point") == "4"
    again.shutdown()
