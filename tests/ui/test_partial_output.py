"""A run stopped part way keeps the engine's output until then as its raw output (the guide's
"the output until then"), whether Stop (Esc) or closing the window stopped it: the database
reopened holds, with the partial run, the engine's lines of the intervals it kept."""

from __future__ import annotations

import re
import threading
import time

import psutil
import pytest
from PySide6.QtCore import Qt

from app.ui.main_window import MainWindow
from tests.conftest import engine_children
from tests.partial_output import assert_output_holds_the_intervals, stopped_run
from tests.ui.test_closing import close_answering_yes
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for

pytestmark = pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3


def start_a_long_run(user: User) -> None:
    """One run of 30 s started, once three of its intervals are charted."""
    plan_sweep(user, "1408", runs=1, seconds=30)
    user.click("Start")
    chart = user.find("Current run chart")
    wait_for(lambda: chart.point_count >= 3, 30, "three intervals")  # type: ignore[attr-defined]


def test_stop_mid_run_keeps_the_engine_output_until_then(window: MainWindow, user: User) -> None:
    start_a_long_run(user)
    # What Stop says it does, before and after: the run in progress is kept, as closing says.
    assert "the run in progress is kept unfinished" in user.find("Stop").toolTip()
    user.key(Qt.Key.Key_Escape)
    wait_for(lambda: not window.measure.running, 10, "Stop")
    run, samples = stopped_run(window.context.db_path)
    assert_output_holds_the_intervals(run, samples)
    said = user.text("Status")
    kept = (
        "no run had finished, and the run in progress is kept unfinished with the "
        f"{len(samples)} intervals it measured; Resume in Sessions measures it again."
    )
    assert said == f"Session {run.session_id[:8]} stopped: {kept}", said
    assert said in user.text("Log")


def _watch_end(proc: psutil.Process, ended: list[float]) -> threading.Thread:
    """A thread that notes (time.monotonic()) when it last saw the process running and when
    it first saw it no longer running (a zombie or gone), looking every millisecond: the end
    lies between the two, however long a busy computer kept the thread from looking. Never
    reaping it, which is LinkLab's to do."""

    def watch() -> None:
        deadline = time.monotonic() + 20
        alive = time.monotonic()
        while time.monotonic() < deadline:
            looked = time.monotonic()
            try:
                if proc.status() == psutil.STATUS_ZOMBIE:
                    break
            except psutil.NoSuchProcess:
                break
            alive = looked
            time.sleep(0.001)
        ended.extend((alive, time.monotonic()))

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_the_log_says_how_long_stop_took_to_end_the_engine(window: MainWindow, user: User) -> None:
    """As found: "Stopped within 0.00 s." The log says how long from Stop until the engine's
    process had ended, as watched from outside, to the millisecond and never 0."""
    start_a_long_run(user)
    (client,) = engine_children(clients_only=True)
    ended: list[float] = []
    watcher = _watch_end(client, ended)
    pressed = time.monotonic()
    user.key(Qt.Key.Key_Escape)
    wait_for(lambda: not window.measure.running, 10, "Stop")
    done = time.monotonic()
    watcher.join(5)
    (line,) = [s for s in user.text("Log").splitlines() if "after Stop" in s]
    shape = r"The engine ended (?:(\d+) ms|(\d+\.\d\d) s|under 1 ms) after Stop\."
    said = re.fullmatch(shape, line)
    assert said is not None, line
    took = int(said[1]) / 1000 if said[1] else float(said[2]) if said[2] else 0.0
    # The engine really ended that long after Stop: after it was last seen running and by
    # the time it was seen ended, from outside (within the rounding and how often LinkLab
    # looks), and no later than Stop itself ended.
    alive, seen = (at - pressed for at in ended)
    print(f"{line} seen from outside between {alive * 1000:.1f} and {seen * 1000:.1f} ms")
    assert alive - 0.01 <= took <= seen + 0.25, (line, alive, seen)
    assert took <= done - pressed + 0.0005, (line, done - pressed)
    assert " 0.00 s" not in line and "Stopped within" not in user.text("Log")


def test_stop_between_runs_says_no_engine_was_running(window: MainWindow, user: User) -> None:
    plan_sweep(user, "128, 1408", runs=1, seconds=1)
    user.tab("Advanced")
    user.type("Pause between runs", "5")  # Stop lands between two runs
    user.tab("Study")
    user.click("Start")
    progress = user.find("Progress")
    wait_for(lambda: progress.value() >= 1, 30, "the first run")  # type: ignore[attr-defined]
    assert not engine_children(clients_only=True)
    user.key(Qt.Key.Key_Escape)
    wait_for(lambda: not window.measure.running, 10, "Stop")
    assert "Stopped between runs: no engine was running." in user.text("Log").splitlines()


def test_closing_mid_run_keeps_the_engine_output_until_then(window: MainWindow, user: User) -> None:
    start_a_long_run(user)
    close_answering_yes(window, user)
    assert_output_holds_the_intervals(*stopped_run(window.context.db_path))
