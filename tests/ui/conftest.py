"""Window tests: Qt offscreen, and settings and database kept in the test's own folder."""

from __future__ import annotations

import os
import sys

# Before anything imports Qt: no display is needed, and none is touched.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.files.exchange import EXCHANGE_SUFFIX, export_sessions, write_exchange
from app.ui.context import ENGINE_NAMES, AppContext
from app.ui.main_window import MainWindow
from app.ui.qt_fonts import point_offscreen_at_fonts
from app.ui.sessions.view import SessionView
from tests.conftest import engine_children, free_port
from tests.testbed import NeighbourBed, unavailable_reason
from tests.ui.user import User

#: The rate of the shaped link to the second computer, in Mbit/s.
SHAPED_MBIT = 30

point_offscreen_at_fonts()  # before any QApplication: offscreen Qt on Windows has no fonts


@pytest.fixture(autouse=True)
def _uncaught_exceptions_fail_the_test(request: pytest.FixtureRequest) -> None:
    """A window test fails on any exception nobody caught: in a slot called by a signal, a
    timer or a click, in a QThread or a Python thread.

    Qt hands a slot's exception to sys.excepthook and carries on, so the window only prints a
    traceback; pytest-qt's exception capture replaces that hook during each test and fails the
    test that met one, and pytest makes a thread's exception an error (filterwarnings =
    error). tests/ui/test_uncaught_exceptions.py shows both; this keeps them from being
    switched off unseen, by the ini option or a marker."""
    assert not request.config.getini("qt_no_exception_capture"), "exception capture is off"
    assert request.node.get_closest_marker("qt_no_exception_capture") is None
    assert sys.excepthook is not sys.__excepthook__, "no hook records uncaught exceptions"


@pytest.fixture
def context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppContext:
    """An AppContext on a settings file and database in tmp_path, never the user's own."""
    # AppContext exports engine paths as LINKLAB_<NAME>; undo that after the test.
    for name in ENGINE_NAMES:
        # setenv first so that teardown restores the variable even when the window
        # itself (AppContext.apply_engine_paths) set it during the test.
        monkeypatch.setenv(f"LINKLAB_{name.upper()}", "")
        monkeypatch.delenv(f"LINKLAB_{name.upper()}")
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    return AppContext(settings, db_path=tmp_path / "linklab.sqlite3")


@pytest.fixture
def exchange_file(tmp_path: Path) -> tuple[Path, list[str]]:
    """A .linklab file written the way `linklab export --format json` writes one, from another
    computer's database: two sessions, and their ids."""
    from tests.ui.test_sessions_tab import make_session

    other = tmp_path / "other.sqlite3"
    ids = [
        make_session(other, "Open, IPv4", when="2025-03-01T10:00:00+00:00"),
        make_session(other, "WPA2, IPv4", when="2025-03-01T11:00:00+00:00"),
    ]
    path = tmp_path / f"lab2-group4{EXCHANGE_SUFFIX}"
    with Database(other, readonly=True) as db:
        write_exchange(path, export_sessions(SessionStore(db), ids))
    return path, ids


def open_window(qtbot, context: AppContext, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    """The real main window on the context's settings and database, shown at 1280x800 (as
    LinkLab starts, or starts again after a close)."""
    win = MainWindow(context, preset_dir=tmp_path / "presets")
    # Shut down before pytest-qt closes the window: a test that failed mid-study must not
    # leave the close to ask "Stop the study?" in a modal box nobody answers.
    qtbot.addWidget(win, before_close_func=lambda w: w.shutdown())
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.fixture
def window(qtbot, context: AppContext, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    """The real main window, shown at 1280x800 on its own settings and database."""
    # Ports of the test's own: another LinkLab on this machine may hold the defaults.
    context.set_default_port("iperf3", free_port())
    context.set_default_port("netperf", free_port())
    context.set_default_port("iperf2", free_port())
    context.set_default_port("echo", free_port())
    win = open_window(qtbot, context, tmp_path)
    yield win
    win.shutdown()
    assert not engine_children(), "an engine outlived the window"


@pytest.fixture
def user(window: MainWindow) -> User:
    """A person at that window: labels, clicks and keys only."""
    return User(window)


@pytest.fixture
def session_view(qtbot) -> SessionView:  # type: ignore[no-untyped-def]
    """One session's view alone, shown at the size it has in the window, for a test that
    shows many sessions in it one after another (Hypothesis examples)."""
    shown = SessionView()
    qtbot.addWidget(shown)
    shown.resize(1280, 700)
    shown.show()
    return shown


@pytest.fixture
def neighbour() -> Iterator[NeighbourBed]:
    """A second computer beside this one (tests.testbed.NeighbourBed); skipped, saying why,
    where network namespaces cannot be built."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with NeighbourBed() as bed:
        yield bed


@pytest.fixture
def shaped_neighbour(neighbour: NeighbourBed) -> NeighbourBed:
    """The second computer behind a link held to SHAPED_MBIT by tc tbf, both ways (its veth
    adapters still report their nominal 10000 Mbit/s)."""
    neighbour.set_rate(SHAPED_MBIT)
    return neighbour
