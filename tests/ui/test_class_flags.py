"""The Class tab flags a step whose numbers are not the link's: measured against this computer
(the loopback), or labelled Wi-Fi (its security or its medium) but measured by cable; and the
same hand-in given twice. The Measure form marks WPA2 on Ethernet at the field, with the
reason, before anything runs."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.domain.plan import Peer
from app.study.lab.exercises import find_ready
from app.ui.main_window import MainWindow
from tests.ui.class_handins import Student, write_class
from tests.ui.test_class_tab import choose_folder
from tests.ui.user import User, wait_for


def test_steps_measured_on_this_computer_or_by_cable_are_flagged(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    folder = tmp_path / "hand-ins"
    write_class(
        folder,
        tmp_path / "laptops",
        find_ready("open-vs-wpa2"),
        [
            Student("Ana Souza", "G1", 2, 1.0),
            Student("Ben Okafor", "G1", 2, 20.0, peer=Peer.this_computer()),
            Student("Chen Wei", "G2", 2, 1.05, wired=True),
        ],
    )
    user.tab("Class")
    with user.answering(choose_folder(folder)):
        user.click("Open class folder…")
    wait_for(lambda: len(user.table_rows("Students")) == 3, 20, "the hand-ins to be read")
    headers = user.headers("Students")
    rows = {r[0]: dict(zip(headers, r, strict=True)) for r in user.table_rows("Students")}
    assert rows["Ana Souza"]["Flags"] == ""
    ben, chen = rows["Ben Okafor"], rows["Chen Wei"]
    assert ben["Flags"] == "this computer"
    step1 = ben["Step 1 (Mbit/s)"]
    assert ben["Notes"].startswith(
        f"Step 1 was measured against this computer (the loopback), not across the link: its "
        f"{step1}"
    )
    assert "Step 2 was measured against this computer" in ben["Notes"]
    assert chen["Flags"] == "not Wi-Fi"
    # Both steps say Wi-Fi: step 1 by its medium (open on 802.11n), step 2 by WPA2 as well.
    assert chen["Notes"].startswith(
        "Step 1 is labelled Wi-Fi (open on 802.11n) but was measured over eth0, a wired "
        "interface: its "
    )
    assert (
        "Step 2 is labelled Wi-Fi (WPA2 on 802.11n) but was measured over eth0, a wired "
        "interface: its " in chen["Notes"]
    )
    assert chen["Notes"].endswith("says nothing about the Wi-Fi link.")


def test_the_same_hand_in_given_twice_is_flagged_in_both_rows(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    folder = tmp_path / "hand-ins"
    (ana_file,) = write_class(
        folder, tmp_path / "laptops", find_ready("open-vs-wpa2"), [Student("Ana Souza", "G1", 2)]
    )
    shutil.copyfile(ana_file, folder / "ana-souza (1).linklab")
    user.tab("Class")
    with user.answering(choose_folder(folder)):
        user.click("Open class folder…")
    wait_for(lambda: len(user.table_rows("Students")) == 2, 20, "the hand-ins to be read")
    headers = user.headers("Students")
    rows = [dict(zip(headers, r, strict=True)) for r in user.table_rows("Students")]
    assert [r["Student"] for r in rows] == ["Ana Souza", "Ana Souza"]
    assert [r["Flags"] for r in rows] == ["duplicate", "duplicate"]
    # Each row names the other file.
    assert sorted(r["Notes"] for r in rows) == sorted(
        "Handed in more than once: the same measurements under this name (also in "
        f"{other}); keep one of them."
        for other in ("ana-souza.linklab", "ana-souza (1).linklab")
    )


def test_wpa2_on_ethernet_is_marked_at_the_security_field(window: MainWindow, user: User) -> None:
    user.choose("Security", "WPA2")
    user.choose("Medium", "Ethernet")
    problem = (
        "WPA2 protects Wi-Fi frames, not Ethernet ones: choose the Wi-Fi medium the link uses "
        "(802.11n, ac or ax), or set the security to open or unknown for an Ethernet link."
    )
    marked = user.find(problem)  # the line under the field says it
    assert marked.objectName() == "security_error"
    user.click("Start")
    assert user.text("Status") == f"Fix Security before starting: {problem}"
    assert not window.measure.running
    user.choose("Medium", "802.11ac")
    assert not user.can_see(problem)
