"""Responsiveness results kept like sessions, used as a person uses them: listed in Sessions
with their kind, opened to the card and the chart over time, exported (CSV, JSON, the card as
PNG, an HTML report) with the figures the window shows, compared, renamed and deleted."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from app.study.frontdoor import FrontDoor
from app.study.responsiveness.comparison import compare_results
from app.study.responsiveness.kept import KeptResult
from app.ui.main_window import MainWindow
from app.ui.responsiveness.result_files import CARD_WIDTH
from tests.responsiveness_made import SETTINGS, three_ways
from tests.ui.journey import save_as
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, wait_for

KIND = -1  # the Kind column, the last one


def keep_two(db_path: Path) -> tuple[KeptResult, KeptResult]:
    """Two results kept as a finished test keeps them: a quiet evening, a busy morning."""
    results = FrontDoor(db_path).results()
    first = results.keep(three_ways(8.0, 12.0, 20.0, seed=1), SETTINGS, name="Lab B, evening")
    second = results.keep(
        three_ways(30.0, 12.2, 45.0, seed=2), SETTINGS, name="Lab B, busy morning"
    )
    return first, second


def sessions_tab(user: User, rows: int) -> list[list[str]]:
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == rows, 10, f"{rows} rows")
    return user.table_rows("Sessions")


def row_of(rows: list[list[str]], name: str) -> int:
    return next(i for i, row in enumerate(rows) if row[1] == name)


def open_result(user: User, name: str, rows: int) -> None:
    listed = sessions_tab(user, rows)
    user.click_row("Sessions", row_of(listed, name))
    wait_for(lambda: user.text("Result title").startswith(name), 10, f"the card of {name}")


def test_results_are_listed_with_sessions_and_open_to_card_and_chart(
    window: MainWindow, user: User
) -> None:
    make_session(window.context.db_path, "A sweep", when="2025-01-01T08:00:00+00:00")
    evening, _ = keep_two(window.context.db_path)
    rows = sessions_tab(user, 3)
    assert user.headers("Sessions")[KIND] == "Kind"
    assert sorted(row[KIND] for row in rows) == ["Responsiveness", "Responsiveness", "Sweep"]
    assert "2 responsiveness results" in user.text("Sessions message")
    listed = rows[row_of(rows, "Lab B, evening")]
    assert listed[2] == "This computer" and listed[6] == "completed"
    rpms = [f"{load.rpm:,.0f}" for load in evening.result.loads]
    assert listed[5] == f"Down {rpms[0]} · Up {rpms[1]} · Both {rpms[2]} RPM"

    open_result(user, "Lab B, evening", 3)
    assert user.can_see("Goodput over time")  # the chart first, under the card
    user.tab("Per direction")
    summary = user.table_rows("Result per direction")
    for row in summary[:3]:
        way = row[0]
        assert user.text(f"{way} RPM") == f"{row[2]} RPM"
        assert user.text(f"{way} loaded latency") == f"Loaded latency {row[3]} ms"
        assert user.text(f"{way} rating") == row[1]
    assert [row[0] for row in summary] == ["Download", "Upload", "Both at once", "Idle"]
    assert user.text("Idle latency") == f"Idle latency {summary[3][3]} ms"

    # The chart over time: a point per step of each ramp, at the step's goodput and latency.
    user.tab("Steps")
    steps = user.table_rows("Steps of the ramp")
    assert len(steps) == evening.steps == 12
    user.tab("Over time")
    for chart, column in (("Goodput over time", 5), ("Latency over time", 6)):
        plot = user.find(chart)
        curves = {c.name(): c for c in plot.getPlotItem().listDataItems()}  # type: ignore[attr-defined]
        for way in ("Download", "Upload", "Both at once"):
            _, ys = curves[way].getData()
            shown = [row[column] for row in steps if row[0] == way]
            assert [_as_cell(y, column) for y in ys] == shown
    assert "idle latency" in {
        c.name()
        for c in user.find("Latency over time").getPlotItem().listDataItems()  # type: ignore[attr-defined]
    }

    # Back to the sweep: its own view again.
    user.click_row("Sessions", row_of(rows, "A sweep"))
    wait_for(lambda: user.can_see("Session throughput chart"), 10, "the session's view")
    assert not user.can_see("Responsiveness result")
    # Open, as for a session: the result below the list again.
    user.click_row("Sessions", row_of(rows, "Lab B, evening"))
    user.click("Open")
    wait_for(lambda: user.can_see("Responsiveness result"), 10, "the card again")
    assert "Showing “Lab B, evening”" in user.text("Sessions message")


def _as_cell(value: float, column: int) -> str:
    """A plotted value as its cell shows it (goodput in Mbit/s, latency in ms)."""
    if column == 5:
        return f"{value:.1f}"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def test_exports_carry_the_figures_the_window_shows(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    keep_two(window.context.db_path)
    open_result(user, "Lab B, evening", 2)
    user.tab("Per direction")
    summary = user.table_rows("Result per direction")
    user.tab("Steps")
    steps = user.table_rows("Steps of the ramp")

    csv_path, json_path = tmp_path / "evening.csv", tmp_path / "evening.json"
    png_path, html_path = tmp_path / "card.png", tmp_path / "evening.html"
    with user.answering(save_as(csv_path)):
        user.click("Export CSV…")
    wait_for(csv_path.exists, 5, "the CSV")
    text = csv_path.read_text(encoding="utf-8-sig")
    head, tail = text.split("\n\n")
    read = list(csv.reader(io.StringIO(head)))
    assert read[1:] == summary
    read = list(csv.reader(io.StringIO(tail)))
    assert read[0] == user.headers("Steps of the ramp") and read[1:] == steps
    user.tab("Per direction")
    assert next(csv.reader(io.StringIO(head))) == user.headers("Result per direction")

    with user.answering(save_as(json_path)):
        user.click("Export JSON…")
    wait_for(json_path.exists, 5, "the JSON")
    data = json.loads(json_path.read_text(encoding="utf-8"))
    assert data["kind"] == "responsiveness" and data["name"] == "Lab B, evening"
    for way, key in (("Download", "download"), ("Upload", "upload")):
        assert user.text(f"{way} RPM") == f"{data['rpm'][key]:,.0f} RPM"
        latency = data["loaded_latency_ms"][key]
        shown = _as_cell(latency, 6)  # the JSON keeps 3 decimals, the card rounds as its cells
        assert user.text(f"{way} loaded latency") == f"Loaded latency {shown} ms"
    assert len(data["steps"]["download"]) == len([r for r in steps if r[0] == "Download"])

    with user.answering(save_as(png_path)):
        user.click("Save card as PNG…")
    wait_for(png_path.exists, 5, "the PNG")
    image = QImage(str(png_path))
    assert image.width() == CARD_WIDTH and image.height() > 200
    assert user.can_see("Responsiveness result")

    with user.answering(save_as(html_path)):
        user.click("Export HTML report…")
    wait_for(html_path.exists, 10, "the HTML report")
    page = html_path.read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 2  # the card and the chart
    for row in summary + steps:
        assert "".join(f"<td>{cell}</td>" for cell in row) in page
    assert "Saved evening.html" in user.text("Sessions message")


def test_two_results_compared_per_direction(window: MainWindow, user: User, tmp_path: Path) -> None:
    evening, morning = keep_two(window.context.db_path)
    rows = sessions_tab(user, 2)
    user.click_row("Sessions", row_of(rows, "Lab B, evening"))
    user.click_row(
        "Sessions", row_of(rows, "Lab B, busy morning"), Qt.KeyboardModifier.ControlModifier
    )
    user.click("Compare")
    wait_for(lambda: user.can_see("Responsiveness differences"), 10, "the comparison")
    assert window.tabs.currentWidget() is window.sessions  # compared where they are listed
    table = user.table_rows("Responsiveness differences")
    expected = compare_results(
        FrontDoor(window.context.db_path).results().get(evening.id),
        FrontDoor(window.context.db_path).results().get(morning.id),
    )
    assert table == expected.table()
    assert [row[0] for row in table] == ["Download", "Upload", "Both at once"]
    findings = user.text("Comparison findings").split("\n\n")
    assert findings == expected.findings
    # Download: 8 ms to 30 ms is far beyond the noise; upload 12 to 12.2 ms is not.
    assert table[0][-1] == "yes" and "beyond the probes' noise" in findings[0]
    assert table[1][-1] == "no" and "within the probes' noise" in findings[1]
    # The files hold the table as shown (a spreadsheet shows a cell typed '+1.2 as +1.2).
    csv_path, json_path = tmp_path / "cmp.csv", tmp_path / "cmp.json"
    with user.answering(save_as(csv_path)):
        user.click("Export comparison CSV…")
    wait_for(csv_path.exists, 5, "the CSV")
    written = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8-sig"))))
    assert [[cell.removeprefix("'") for cell in row] for row in written[1:]] == table
    with user.answering(save_as(json_path)):
        user.click("Export comparison JSON…")
    wait_for(json_path.exists, 5, "the JSON")
    data = json.loads(json_path.read_text(encoding="utf-8"))
    assert data["findings"] == findings
    assert [d["significant"] for d in data["directions"]] == [True, False, True]
    download = evening.result.loads[0]
    assert table[0][1] == f"{download.rpm:,.0f}"
    assert table[0][5] == f"{download.loaded_latency_ms:.3f}"


def test_rename_and_delete_a_result(window: MainWindow, user: User) -> None:
    keep_two(window.context.db_path)
    open_result(user, "Lab B, evening", 2)

    def rename(dialog: User) -> None:
        dialog.type("New name", "Lab B, after the fix")
        dialog.click("OK")

    with user.answering(rename):
        user.click("Rename…")
    wait_for(
        lambda: user.text("Result title").startswith("Lab B, after the fix"), 10, "the new name"
    )
    rows = user.table_rows("Sessions")
    assert sorted(row[1] for row in rows) == ["Lab B, after the fix", "Lab B, busy morning"]

    user.click_row("Sessions", row_of(rows, "Lab B, after the fix"))
    with user.answering(lambda box: box.click("Yes")):
        user.click("Delete…")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the result to go")
    assert user.table_rows("Sessions")[0][1] == "Lab B, busy morning"
    assert [k.name for k in FrontDoor(window.context.db_path).results().kept()] == [
        "Lab B, busy morning"
    ]


def test_a_result_and_a_comparison_on_view_leave_the_window_fitting_1280x720(
    window: MainWindow, user: User, qtbot: object
) -> None:
    # A result's card, its charts and a comparison once made the window's least height 725,
    # and it stayed so: the status bar went below a 1280x800 screen's usable area for good.
    keep_two(window.context.db_path)
    open_result(user, "Lab B, evening", 2)
    listed = user.table_rows("Sessions")
    user.click_row("Sessions", row_of(listed, "Lab B, evening"))
    user.click_row(
        "Sessions", row_of(listed, "Lab B, busy morning"), Qt.KeyboardModifier.ControlModifier
    )
    user.click("Compare")
    wait_for(lambda: "against" in user.text("Comparison title"), 10, "the comparison")
    window.resize(1280, 720)
    wait_for(lambda: window.height() == 720, 5, "the window at 1280x720")
    assert window.minimumSizeHint().height() <= 720
    bar = window.statusBar()
    assert bar.isVisible() and bar.geometry().bottom() < window.height()
