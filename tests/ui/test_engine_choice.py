"""A computer without iperf3 (the Windows bundle carries iperf 2 alone): the window chooses an
installed engine by itself (iperf 2, which does what iperf3 does) and says so once in the log;
iperf3 stays offered, greyed out with the reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.engine.drivers.registry import find_tool
from app.engine.errors import EngineMissing
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.conftest import free_port
from tests.ui.user import User


@pytest.fixture
def no_iperf3_window(qtbot, context: AppContext, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    """The real main window on a computer whose iperf3 is missing (its path in Settings
    names no program) and whose iperf 2 is there."""
    try:
        find_tool("iperf")
    except EngineMissing as err:
        pytest.skip(f"iperf 2 is not installed: {err.sentence}")
    context.set_engine_path("iperf3", str(tmp_path / "no-iperf3"))
    for name in ("iperf3", "netperf", "iperf2", "echo"):
        context.set_default_port(name, free_port())
    win = MainWindow(context, preset_dir=tmp_path / "presets")
    qtbot.addWidget(win, before_close_func=lambda w: w.shutdown())
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.shutdown()


def test_without_iperf3_the_window_chooses_an_installed_engine_and_says_so_once(
    no_iperf3_window: MainWindow, context: AppContext
) -> None:
    user = User(no_iperf3_window)
    user.tab("Measure")
    chosen = user.text("Engine")
    assert chosen == "iperf2"  # both directions and every sweep, as iperf3 (netperf: uploads)
    assert "iperf3" in user.options("Engine")  # still offered, greyed out with the reason
    log = user.text("Log")
    assert f"iperf3 is not installed on this computer, so LinkLab chose {chosen}" in log
    assert "no-iperf3" in log  # the reason, as Settings gave it
    # Settings change again (another engine path): said once, not at every change.
    context.set_engine_path("netperf", "")
    assert user.text("Log").count("so LinkLab chose") == 1
    assert user.text("Engine") == chosen
