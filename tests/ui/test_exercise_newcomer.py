"""A lab exercise as a newcomer meets it: File › Open exercise… shows LinkLab's ready exercises
and opens one directly; a step has one title and reads "running…" while it measures; Hand in…
names the steps not done; closing the exercise gives the form back as the user had it; File ›
New exercise… previews a ready exercise and suggests a file name every system accepts."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QListView

from app.study.lab.exercises import read_exercise, ready_names
from app.ui.main_window import MainWindow
from tests.ui.journey import confirmed, save_as
from tests.ui.user import User, wait_for

WPA2_FILE = "What does WPA2 cost Open vs WPA2.linklab-exercise"


def listed(dialog: User) -> list[str]:
    """The file names a file dialog lists in its folder, once it has read the folder."""
    window = dialog.window
    assert isinstance(window, QFileDialog)
    view = window.findChild(QListView, "listView")
    assert view is not None
    model = view.model()

    def names() -> list[str]:
        root = view.rootIndex()
        return [str(model.index(r, 0, root).data()) for r in range(model.rowCount(root))]

    wait_for(lambda: len(names()) >= len(ready_names()), 10, "the folder to be listed")
    return names()


@pytest.mark.usefixtures("iperf3_tool")
def test_a_ready_exercise_opened_followed_handed_in_and_closed(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    # The user's own form first.
    user.choose("Medium", "Ethernet")
    user.type("Runs per point", "7")
    seen: list[str] = []

    def open_ready(dialog: User) -> None:
        seen.extend(listed(dialog))
        dialog.type("File name", WPA2_FILE)
        dialog.click("Open")

    with user.answering(open_ready):
        user.menu("File", "Open exercise…")
    assert sorted(n for n in seen if n.endswith(".linklab-exercise")) == sorted(
        [
            "Bufferbloat - how responsive does Wi-Fi stay under load.linklab-exercise",
            "Transport protocols on a LAN (student lab).linklab-exercise",
            WPA2_FILE,
        ]
    )
    wait_for(lambda: user.can_see("Steps"), 5, "the exercise")
    assert user.text("Exercise title") == "What does WPA2 cost? Open vs WPA2"
    user.type("Your name", "Ann Lee", enter=True)
    wait_for(lambda: len(user.table_rows("Steps")) == 3, 10, "the steps")
    assert user.table_rows("Steps")[0] == ["1. the open network — to do"]
    text = user.visible_text()
    assert "Step 1 of 2: the open network" in text and "Step 1 of 2: Step 1" not in text

    # Set up and started, the step reads "running…"; stopped, it is not done.
    user.click("Set up this step")
    assert "”, step 1 of 2: the open network." in user.text("Preset changes")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the study to start")
    user.tab("Exercise")
    wait_for(lambda: user.table_rows("Steps")[0][0].endswith("— running…"), 10, "running")
    assert user.text("Step state").startswith("State: running…")
    user.tab("Measure")
    user.click("Stop")
    wait_for(lambda: not window.measure.running, 15, "the study to stop")
    user.tab("Exercise")
    wait_for(lambda: not user.table_rows("Steps")[0][0].endswith("running…"), 10, "stopped")

    # Hand in… says which steps are not done; Go back writes nothing.
    def go_back(box: User) -> None:
        said = box.visible_text()
        assert "2 of 2 steps are not done: step 1, the open network; step 2, the same " in said
        box.click("Go back")

    with user.answering(go_back):
        user.click("Hand in…")
    assert not list(tmp_path.glob("*.linklab"))
    handin = tmp_path / "ann.linklab"

    def anyway(box: User) -> None:
        box.click("Hand in anyway")

    with user.answering(anyway, save_as(handin)):
        user.click("Hand in…")
    # Written aside: seconds on a busy computer. If it never is, the status line says why.
    wait_for(handin.exists, 60, lambda: f"the hand-in; the status said {user.text('Status')!r}")
    confirmed(user, handin)  # on screen, with Open folder

    # Closing the exercise gives the form back as it was.
    user.click("Close exercise")
    assert user.text("Medium") == "Ethernet"
    assert user.text("Runs per point") == "7"
    assert not user.can_see("Preset changes") or "Exercise" not in user.text("Preset changes")


def test_new_exercise_previews_a_ready_one_and_suggests_a_safe_file_name(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    suggested: list[str] = []
    saved = tmp_path / "mine.linklab-exercise"

    lab = ready_names()["student-lab"]

    def write(dialog: User) -> None:
        dialog.choose("Ready exercise", f"{lab.title} ({len(lab.steps)} steps)")
        assert dialog.text("Title") == lab.title
        dialog.choose("Ready exercise", "What does WPA2 cost? Open vs WPA2 (2 steps)")
        assert dialog.text("Title") == "What does WPA2 cost? Open vs WPA2"
        assert dialog.text("Aims").startswith("To measure what WPA2 security costs")
        preview = dialog.text("Exercise preview")
        assert preview.startswith("1. the open network (locks the engine")
        assert "2. the same network with WPA2" in preview
        assert "Q: How much of the difference do the extra 16 bytes of CCMP" in preview
        dialog.click("Save")

    def save(dialog: User) -> None:
        suggested.append(dialog.text("File name"))
        dialog.type("File name", str(saved))
        dialog.click("Save")

    with user.answering(write, save):
        user.menu("File", "New exercise…")
    wait_for(saved.exists, 10, "the exercise file")
    assert suggested == [WPA2_FILE]
    assert read_exercise(saved).title == "What does WPA2 cost? Open vs WPA2"
