"""The DSCP mark as a person sets it in the window: swept over the Wi-Fi access categories
by the sweep's label, or held at one on the Advanced page, and what the engine is told (the
Command preview) follows; a mark that is none says what to write; an exercise locks it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QLineEdit

from app.domain.exercise import Exercise, Step, with_id
from app.domain.plan import Peer, Plan
from app.study.lab.exercises import write_exercise
from app.ui.main_window import MainWindow
from tests.ui.test_exercise_flow import open_file
from tests.ui.user import User, wait_for


def marked(user: User, tos: int) -> str:
    """How the engine the form has chosen is told the TOS byte: iperf3 `-S`, iperf 2 `--tos`
    (under Wine, with no Windows iperf3, the window chooses iperf 2 itself)."""
    return f"-S {tos}" if user.text("Engine") == "iperf3" else f"--tos {tos}"


def test_the_access_categories_are_swept_and_reach_the_command(user: User) -> None:
    user.choose("Sweep", "DSCP / access category")
    # Named values, no range: the list starts with the four access categories.
    assert not user.can_see("Values from")
    assert user.text("Values list") == "BK, BE, VI, VO"
    command = user.text("Command")
    assert marked(user, 32) in command, command  # BK is CS1: DSCP 8, the TOS byte 32
    user.type("Values list", "vo, af21")
    command = user.text("Command")
    assert marked(user, 184) in command, command  # VO is EF: DSCP 46, the TOS byte 184


def test_one_mark_held_fixed_from_the_advanced_page(user: User) -> None:
    user.tab("Advanced")
    user.type("DSCP / access category", "VI")
    user.tab("Study")
    assert marked(user, 136) in user.text("Command")  # AF41: DSCP 34
    user.choose("Engine", "iperf2")
    assert "--tos 136" in user.text("Command")
    user.tab("Advanced")
    user.type("DSCP / access category", "voice")
    assert "access category (BK, BE, VI, VO)" in user.find("DSCP / access category").toolTip()
    user.type("DSCP / access category", "")
    assert "--tos" not in user.text("Command")


@pytest.mark.usefixtures("iperf3_tool")  # the step's plan is iperf3's
def test_an_exercise_locks_the_mark(window: MainWindow, user: User, tmp_path: Path) -> None:
    """A step that holds the traffic at voice (EF) greys the field out, saying why."""
    plan = Plan(Peer.this_computer(), values=(1408,), repetitions=1, duration_s=1, dscp="VO")
    step = Step("Voice", "Measure the voice category.", plan, locked=("dscp",))
    exercise = with_id(Exercise("", "Marked traffic", "", (step,)))
    source = write_exercise(tmp_path / "marked.linklab-exercise", exercise)
    with user.answering(open_file(source)):
        user.menu("File", "Open exercise…")
    wait_for(lambda: user.can_see("Steps"), 5, "the exercise")
    user.type("Your name", "Ann Lee", enter=True)
    user.click_row("Steps", 0)
    user.click("Set up this step")
    assert window.tabs.currentWidget() is window.measure
    user.tab("Advanced")
    field = user.find("DSCP / access category", QLineEdit)
    assert not field.isEnabled() and "Locked by the exercise" in field.toolTip()
    assert field.text() == "VO" and "-S 184" in user.text("Command")


def test_back_to_packet_size_the_names_give_way_to_its_range(user: User) -> None:
    user.choose("Sweep", "DSCP / access category")
    assert user.text("Values list") == "BK, BE, VI, VO"
    user.choose("Sweep", "Packet size")
    assert user.text("Values list") == ""  # the names are no packet sizes
    assert user.can_see("Values from")
    assert "6 values: 128, 384" in user.visible_text()  # the count under the list
    assert "must be numbers" not in user.visible_text()
    assert "No command yet" not in user.text("Command")
    # A list of numbers typed for one variable of numbers stays for another.
    user.type("Values list", "2, 4")
    user.choose("Sweep", "Parallel streams")
    assert user.text("Values list") == "2, 4"


def test_back_to_packet_size_the_sizes_typed_come_back(user: User) -> None:
    """Each variable keeps what the user typed for it: sizes typed, a look at the access
    categories (or at the run durations), and the sizes are there again, list or range."""
    user.type("Values list", "64, 512, 1408")
    user.choose("Sweep", "DSCP / access category")
    user.type("Values list", "vo, be")
    user.choose("Sweep", "Packet size")
    assert user.text("Values list") == "64, 512, 1408"
    assert "3 values: 64, 512, 1408" in user.visible_text()
    assert "-l 64" in user.text("Command")
    user.choose("Sweep", "DSCP / access category")  # and the names typed for it
    assert user.text("Values list") == "vo, be"
    user.choose("Sweep", "Packet size")
    user.type("Values list", "")  # the range instead, from sizes of the user's own
    user.type("Values from", "100")
    user.type("Values to", "900")
    user.type("Values step", "400")
    user.choose("Sweep", "Run duration")  # a range of its own
    assert (user.text("Values from"), user.text("Values to")) == ("10", "60")
    user.choose("Sweep", "Packet size")
    assert [user.text(f"Values {w}") for w in ("from", "to", "step")] == ["100", "900", "400"]
    assert "3 values: 100, 500, 900" in user.visible_text()
