"""Two sessions measured, compared and exported the way a person does it: Measure, Sessions,
Compare, and the export buttons with their file dialogs."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.ui.main_window import MainWindow
from tests.ui.journey import save_as
from tests.ui.user import User, wait_for


def measure(user: User, window: MainWindow, name: str, security: str) -> None:
    user.tab("Measure")
    user.type("Values list", "256, 1408")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "1")
    user.type("Session name", name)
    user.choose("Security", security)
    user.click("Start")
    wait_for(lambda: not window.measure.running, 60, f"the {name} session")
    assert "completed" in user.text("Status")


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_compare_two_sessions_and_export(window: MainWindow, user: User, tmp_path: Path) -> None:
    measure(user, window, "open lab", "open (no security)")
    measure(user, window, "wpa2 lab", "WPA2")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 5, "both sessions")
    user.click_row("Sessions", 0)
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    assert window.tabs.currentWidget() is window.compare_tab
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 1, 10, "the sessions to be read")
    (pair,) = user.table_rows("Pairs compared")
    assert pair == ["TCP · IPv4 · WPA2  ↔  TCP · IPv4 · Open"]
    assert user.text("Baseline session") == "open lab"
    rows = user.table_rows("Differences")
    assert len(rows) == 2  # one per packet size
    csv_path, png_path, html_path = (tmp_path / f"comparison.{k}" for k in ("csv", "png", "html"))
    with user.answering(save_as(csv_path)):
        user.click("Table CSV…")
    wait_for(csv_path.exists, 5, "the CSV")
    table = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8-sig"))))
    assert len(table) == 3
    with user.answering(lambda size: size.click("OK"), save_as(png_path)):
        user.click("Chart PNG…")
    wait_for(png_path.exists, 10, "the PNG")
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with user.answering(save_as(html_path)):
        user.click("HTML report…")
    wait_for(html_path.exists, 10, "the HTML report")
    report = html_path.read_text(encoding="utf-8")
    assert "open lab" in report and "wpa2 lab" in report
    # Window sessions carry the computer they were measured on into the report.
    assert "No environment snapshot" not in report and "iperf3 3." in report
    assert f"Saved {html_path.name}" in user.text("Status")
