"""`linklab FILE...` while a window is open: the files go to that window over a real local
socket, from a real second process, and its Sessions tab imports them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QDir, QSettings
from PySide6.QtNetwork import QLocalSocket
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import app.analysis.stats
import app.ui.context
import app.ui.main_window
import app.ui.single_instance as single_instance
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.files.exchange import EXCHANGE_SUFFIX, export_sessions, write_exchange
from app.ui.app import run_app
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from app.ui.single_instance import (
    CLIENT_TIMEOUT_MS,
    MAX_MESSAGE,
    Handover,
    HandoverServer,
    answers,
    decode_handover,
    encode_handover,
    send_files,
    serve_window,
    server_name,
)
from tests.conftest import ROOT_DIR, free_port
from tests.ui.test_session_exchange import stored_ids as stored_in
from tests.ui.test_sessions_tab import make_session

WAIT_MS = 30_000
SENDER = """
import sys
from pathlib import Path
from PySide6.QtCore import QCoreApplication
from app.ui.single_instance import send_files
app = QCoreApplication([])
print("connecting", flush=True)
print(send_files(sys.argv[1], [Path(p) for p in sys.argv[2:]]))
"""


@pytest.fixture
def name() -> str:
    return f"linklab-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def server(qtbot: QtBot, name: str) -> Iterator[HandoverServer]:
    listening = HandoverServer()
    assert listening.listen(name)
    yield listening
    listening.close()


@pytest.fixture
def window(qtbot: QtBot, context: AppContext, tmp_path: Path) -> Iterator[MainWindow]:
    # Ports of the test's own: another LinkLab on this machine may hold the defaults.
    context.set_default_port("iperf3", free_port())
    context.set_default_port("netperf", free_port())
    win = MainWindow(context, preset_dir=tmp_path / "presets")
    qtbot.addWidget(win)
    win.show()
    yield win
    win.shutdown()


def stored_ids(path: Path) -> set[str]:
    return stored_in(path) if path.exists() else set()


def start_sender(name: str, *paths: Path) -> subprocess.Popen[str]:
    """A second process, as a double-click starts one, handing paths over with send_files."""
    return subprocess.Popen(
        [sys.executable, "-c", SENDER, name, *map(str, paths)],
        cwd=ROOT_DIR,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )


def finish(qtbot: QtBot, sender: subprocess.Popen[str]) -> str:
    """The sender's answer; the event loop keeps running meanwhile, so the window can reply."""
    qtbot.waitUntil(lambda: sender.poll() is not None, timeout=WAIT_MS)
    out, _ = sender.communicate()
    return out.split()[-1]


def raw_exchange(qtbot: QtBot, name: str, data: bytes) -> bytes:
    """Send data as any local program could, and return what came back before the window
    closed the connection."""
    client = QLocalSocket()
    client.connectToServer(name)
    assert client.waitForConnected(1000)
    client.write(data)
    qtbot.waitUntil(
        lambda: client.state() == QLocalSocket.LocalSocketState.UnconnectedState,
        timeout=WAIT_MS,
    )
    return bytes(client.readAll().data())


# -- names and messages --------------------------------------------------------------------------
def test_name_is_per_user_and_per_database(tmp_path: Path) -> None:
    one = server_name(tmp_path / "a.sqlite3", user="ana")
    assert one == server_name(tmp_path / "x" / ".." / "a.sqlite3", user="ana")
    assert one != server_name(tmp_path / "b.sqlite3", user="ana")
    assert one != server_name(tmp_path / "a.sqlite3", user="ben")
    assert Path(one).name.startswith("linklab-")


def test_no_files_is_a_handover_that_only_asks_for_the_window() -> None:
    assert decode_handover(b'{"open": []}') == Handover(())


def test_message_round_trip(tmp_path: Path) -> None:
    handover = Handover((tmp_path / "a b.linklab", tmp_path / "é.linklab"), token="t-1")
    line = encode_handover(handover)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode_handover(line.rstrip(b"\n")) == handover


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"\xff\xfe",
        b"not json",
        b"[]",
        b'["/x.linklab"]',
        b'{"open": "/x.linklab"}',
        b'{"open": [1]}',
        b'{"open": ["relative.linklab"]}',
        b'{"open": ["/x\\u0000y"]}',
        b'{"open": ["/x.linklab"], "token": 5}',
    ],
)
def test_garbage_is_no_handover(line: bytes) -> None:
    assert decode_handover(line) is None


# -- the client --------------------------------------------------------------------------------
def test_nobody_listening_answers_false_at_once(name: str, tmp_path: Path) -> None:
    started = time.monotonic()
    assert not send_files(name, [tmp_path / "a.linklab"], timeout_ms=60_000)
    assert time.monotonic() - started < 30  # the refusal, not the minute's wait
    assert not answers(name)


def test_a_message_too_big_is_not_sent(server: HandoverServer, name: str) -> None:
    many = [Path(f"/{'x' * 200}-{i}.linklab") for i in range(MAX_MESSAGE // 200)]
    assert not send_files(name, many)


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes leave no file behind")
def test_a_stale_socket_file_is_replaced(qtbot: QtBot, name: str) -> None:
    path = os.path.join(QDir.tempPath(), name)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(path)
    stale.close()  # as a LinkLab that crashed leaves it: the file, nobody behind it
    before = os.stat(path).st_ino
    assert not send_files(name, [Path("/x.linklab")])
    listening = HandoverServer()
    try:
        assert listening.listen(name)
        assert os.stat(path).st_ino != before
        assert answers(name)
    finally:
        listening.close()
    assert not os.path.exists(path)


def test_a_second_server_leaves_the_first_alone(server: HandoverServer, name: str) -> None:
    second = HandoverServer()
    assert not second.listen(name)
    assert server.listening and not second.listening


# -- the window --------------------------------------------------------------------------------
# The offscreen platform has no stacking order; a desktop's has.
@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_a_second_process_hands_files_to_the_window(
    qtbot: QtBot,
    window: MainWindow,
    context: AppContext,
    exchange_file: tuple[Path, list[str]],
) -> None:
    path, ids = exchange_file
    serve_window(HandoverServer(), window)  # listens under the name of the window's database
    name = server_name(context.db_path)
    assert answers(name)
    window.tabs.setCurrentWidget(window.measure)
    sender = start_sender(name, path)
    assert finish(qtbot, sender) == "True"
    assert sender.returncode == 0
    assert window.tabs.currentWidget() is window.sessions
    qtbot.waitUntil(lambda: stored_ids(context.db_path) == set(ids), timeout=WAIT_MS)
    # What the user waits for: the sentence, once the list shows the imported sessions.
    said = f"Imported 2 sessions from {path.name}"
    qtbot.waitUntil(lambda: window.sessions.status.text().startswith(said), timeout=WAIT_MS)


@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_a_window_slow_to_answer_still_takes_the_files(
    qtbot: QtBot,
    window: MainWindow,
    context: AppContext,
    exchange_file: tuple[Path, list[str]],
) -> None:
    """The window's event loop held up (as a busy computer holds it) past the time a second
    process gives a connection: that process still waits for the window's answer, rather
    than opening a second window."""
    path, ids = exchange_file
    serve_window(HandoverServer(), window)
    sender = start_sender(server_name(context.db_path), path)
    assert sender.stdout is not None and sender.stdout.readline().strip() == "connecting"
    time.sleep(2 * CLIENT_TIMEOUT_MS / 1000)  # no event is processed meanwhile
    assert finish(qtbot, sender) == "True"
    qtbot.waitUntil(lambda: stored_ids(context.db_path) == set(ids), timeout=WAIT_MS)


def test_files_handed_over_during_an_import_wait_their_turn(
    qtbot: QtBot, window: MainWindow, context: AppContext, tmp_path: Path
) -> None:
    paths = []
    for n in range(2):
        other = tmp_path / f"other{n}.sqlite3"
        made = make_session(other, f"Lab {n}", when=f"2025-03-0{n + 1}T10:00:00+00:00")
        paths.append((tmp_path / f"lab{n}{EXCHANGE_SUFFIX}", made))
        with Database(other, readonly=True) as db:
            write_exchange(paths[-1][0], export_sessions(SessionStore(db), [made]))
    window.open_handed_over([paths[0][0]])
    window.open_handed_over([paths[1][0]])  # a second double-click, the first still importing
    expected = {made for _, made in paths}
    qtbot.waitUntil(lambda: stored_ids(context.db_path) == expected, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.sessions.exchange.busy, timeout=WAIT_MS)


def test_garbage_is_dropped_and_the_window_keeps_listening(
    qtbot: QtBot, server: HandoverServer, name: str
) -> None:
    received: list[Handover] = []
    server.handed_over.connect(received.append)
    for data in (
        b"not json\n",
        b'{"open": ["relative.linklab"]}\n',
        b"\x00\xff" * 100 + b"\n",
        b"x" * (MAX_MESSAGE + 4096),  # no end of line in sight
    ):
        assert raw_exchange(qtbot, name, data) == b""
    assert received == []
    # An absolute path on this system ("/x.linklab" is not one on Windows, "C:\\x.linklab" is).
    absolute = Path(os.path.abspath(os.sep + "x.linklab"))
    line = json.dumps({"open": [str(absolute)]}).encode() + b"\n"
    assert raw_exchange(qtbot, name, line) == b"ok\n"
    assert received == [Handover((absolute,))]


@pytest.mark.usefixtures("context")  # for its guard of the LINKLAB_<ENGINE> variables
def test_the_name_follows_the_database(tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    context = AppContext(settings)
    context.set_db_path(tmp_path / "one.sqlite3")
    following = HandoverServer()
    try:
        following.follow(context)
        assert following.server_name() == server_name(tmp_path / "one.sqlite3")
        context.set_db_path(tmp_path / "two.sqlite3")
        assert following.server_name() == server_name(tmp_path / "two.sqlite3")
        assert not answers(server_name(tmp_path / "one.sqlite3"))
    finally:
        following.close()


# -- run_app's choice ---------------------------------------------------------------------------
@pytest.fixture
def app_setup(
    qapp: QApplication, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[list[Path]]]:
    """run_app on the test's context; records what send_files was asked to hand over."""
    monkeypatch.setattr(app.ui.context, "AppContext", lambda: context)
    monkeypatch.setattr(app.analysis.stats, "preload", lambda: None)
    context.set_default_port("iperf3", free_port())
    context.set_default_port("netperf", free_port())
    names = qapp.applicationName(), qapp.organizationName()
    sent: list[list[Path]] = []
    yield sent
    qapp.setApplicationName(names[0])
    qapp.setOrganizationName(names[1])


def test_run_app_hands_files_over_when_a_window_answers(
    monkeypatch: pytest.MonkeyPatch,
    app_setup: list[list[Path]],
    context: AppContext,
    tmp_path: Path,
) -> None:
    def accepted(name: str, paths: list[Path]) -> bool:
        app_setup.append(list(paths))
        return True

    def no_window(*args: object, **kwargs: object) -> None:
        raise AssertionError("a second window was opened")

    monkeypatch.setattr(single_instance, "send_files", accepted)
    monkeypatch.setattr(app.ui.main_window, "MainWindow", no_window)
    files = [tmp_path / "a.linklab"]
    assert run_app(open_files=files) == 0
    assert app_setup == [files]
    assert not answers(server_name(context.db_path))


def test_run_app_opens_the_window_when_nobody_answers(
    monkeypatch: pytest.MonkeyPatch,
    qapp: QApplication,
    app_setup: list[list[Path]],
    context: AppContext,
    tmp_path: Path,
) -> None:
    seen: list[bool] = []

    def nobody(name: str, paths: list[Path]) -> bool:
        app_setup.append(list(paths))
        return False

    def event_loop() -> int:
        window = next(w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow))
        # A window that listens answers at once; a loaded machine (Windows Python under Wine
        # beside other work) may take longer than the hand-over's own 300 ms to connect.
        seen.append(window.isVisible() and answers(server_name(context.db_path), timeout_ms=10_000))
        return 0

    monkeypatch.setattr(single_instance, "send_files", nobody)
    monkeypatch.setattr(qapp, "exec", event_loop)
    files = [tmp_path / "a.linklab"]
    assert run_app(open_files=files) == 0
    assert app_setup == [files]
    assert seen == [True]
    assert not answers(server_name(context.db_path))  # closed with the window


def test_run_app_without_files_asks_the_open_window_forward(
    monkeypatch: pytest.MonkeyPatch,
    qapp: QApplication,
    app_setup: list[list[Path]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    def accepted(name: str, paths: list[Path]) -> bool:
        app_setup.append(list(paths))
        return True

    def no_window(*args: object, **kwargs: object) -> None:
        raise AssertionError("a second window was opened")

    monkeypatch.setattr(single_instance, "send_files", accepted)
    monkeypatch.setattr(app.ui.main_window, "MainWindow", no_window)
    assert run_app() == 0
    assert app_setup == [[]]
    assert "already open" in capsys.readouterr().out


@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_a_second_launch_brings_the_window_forward_instead_of_opening_another(
    qtbot: QtBot, window: MainWindow, context: AppContext, tmp_path: Path
) -> None:
    """A person starts LinkLab again (menu, icon) while it is open: a real second process."""
    serve_window(HandoverServer(), window)
    window.showMinimized()
    env = {
        **os.environ,
        "LINKLAB_DB": str(context.db_path),
        "QT_QPA_PLATFORM": "offscreen",
        # Its own settings folder: the second LinkLab must not read this user's settings.
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    second = subprocess.Popen(
        [sys.executable, "-m", "app"],
        cwd=ROOT_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    qtbot.waitUntil(lambda: second.poll() is not None, timeout=WAIT_MS)
    out, err = second.communicate()
    assert second.returncode == 0, err
    assert "LinkLab is already open" in out
    assert window.handed_over_count == 1
    assert window.isVisible() and not window.isMinimized()
