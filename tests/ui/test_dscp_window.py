"""The DSCP mark as a person sets it in the window: swept over the Wi-Fi access categories
by the sweep's label, or held at one on the Advanced page, and what the engine is told (the
Command preview) follows; a mark that is none says what to write."""

from __future__ import annotations

from tests.ui.user import User


def test_the_access_categories_are_swept_and_reach_the_command(user: User) -> None:
    user.choose("Sweep", "DSCP / access category")
    # Named values, no range: the list starts with the four access categories.
    assert not user.can_see("Values from")
    assert user.text("Values list") == "BK, BE, VI, VO"
    command = user.text("Command")
    assert "-S 32" in command, command  # BK is CS1: DSCP 8, the TOS byte 32
    user.type("Values list", "vo, af21")
    command = user.text("Command")
    assert "-S 184" in command, command  # VO is EF: DSCP 46, the TOS byte 184


def test_one_mark_held_fixed_from_the_advanced_page(user: User) -> None:
    user.tab("Advanced")
    user.type("DSCP / access category", "VI")
    assert "-S 136" in user.text("Command")  # AF41: DSCP 34
    user.tab("Study")
    user.choose("Engine", "iperf2")
    assert "--tos 136" in user.text("Command")
    user.tab("Advanced")
    user.type("DSCP / access category", "voice")
    assert "access category (BK, BE, VI, VO)" in user.find("DSCP / access category").toolTip()
    user.type("DSCP / access category", "")
    assert "--tos" not in user.text("Command")
