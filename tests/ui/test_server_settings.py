"""The Server and Settings tabs against real engines: start, serve, stop, errors as sentences."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import psutil
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QApplication,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.domain.plan import Engine
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.process.servers import LocalServer
from app.engine.process.tools import Tool
from app.ui.context import AppContext
from app.ui.server.local_servers import LocalServers
from app.ui.server.tab import ServerTab
from app.ui.settings.tab import SettingsTab
from tests.conftest import engine_name, free_port

pytestmark = pytest.mark.qt_log_level_fail("WARNING")
W = TypeVar("W", bound=QWidget)
START_MS = 8000  # a server waits up to 5 s to listen


def child(parent: QWidget, kind: type[W], name: str) -> W:
    found = parent.findChild(kind, name)
    assert found is not None, f"no {kind.__name__} named {name}"
    return found


def ours(name: str) -> list[psutil.Process]:
    """Live processes with this name started by this test process."""
    found = []
    for proc in psutil.Process(os.getpid()).children(recursive=True):
        try:
            if engine_name(proc.name()) == name and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.NoSuchProcess:
            continue
    return found


@pytest.fixture
def servers() -> Iterator[LocalServers]:
    local = LocalServers()
    yield local
    local.stop_all()


@pytest.fixture
def server_tab(qtbot: QtBot, context: AppContext, servers: LocalServers) -> ServerTab:
    tab = ServerTab(context, servers)
    qtbot.addWidget(tab)
    return tab


def start_from_tab(qtbot: QtBot, tab: ServerTab, name: str, port: int) -> QLabel:
    child(tab, QSpinBox, f"{name}_port").setValue(port)
    qtbot.mouseClick(child(tab, QPushButton, f"{name}_start"), Qt.MouseButton.LeftButton)
    status = child(tab, QLabel, f"{name}_status")
    qtbot.waitUntil(lambda: status.text() not in ("Starting…", "Stopped"), timeout=START_MS)
    return status


def stop_from_tab(qtbot: QtBot, tab: ServerTab, name: str) -> None:
    qtbot.mouseClick(child(tab, QPushButton, f"{name}_stop"), Qt.MouseButton.LeftButton)
    status = child(tab, QLabel, f"{name}_status")
    qtbot.waitUntil(lambda: status.text() == "Stopped", timeout=START_MS)
    assert QApplication.overrideCursor() is None


def test_iperf3_server_serves_a_test_and_stops(
    qtbot: QtBot, server_tab: ServerTab, servers: LocalServers, iperf3_tool: Tool
) -> None:
    port = free_port()
    status = start_from_tab(qtbot, server_tab, "iperf3", port)
    assert servers.server(Engine.IPERF3) is not None
    assert status.text() == f"Listening on port {port} (pid {servers.server(Engine.IPERF3).pid})"
    assert not child(server_tab, QPushButton, "iperf3_start").isEnabled()
    assert child(server_tab, QPushButton, "iperf3_stop").isEnabled()
    assert not child(server_tab, QSpinBox, "iperf3_port").isEnabled()

    result = start_iperf3(iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=1))
    assert result.run().throughput_bps
    log = child(server_tab, QPlainTextEdit, "server_log")
    qtbot.waitUntil(lambda: "Accepted connection" in log.toPlainText(), timeout=5000)

    stop_from_tab(qtbot, server_tab, "iperf3")
    assert servers.server(Engine.IPERF3) is None
    assert not ours("iperf3")
    assert child(server_tab, QPushButton, "iperf3_start").isEnabled()


def test_port_in_use_is_a_sentence_in_the_status_line(
    qtbot: QtBot, server_tab: ServerTab, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, other = iperf3_server_port
    status = start_from_tab(qtbot, server_tab, "iperf3", port)
    assert status.text().startswith(f"Port {port} is already in use")
    assert "color" in status.styleSheet()
    assert [p.pid for p in ours("iperf3")] == [other.pid]
    assert QApplication.overrideCursor() is None
    assert child(server_tab, QPushButton, "iperf3_start").isEnabled()


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_tab_follows_servers_started_elsewhere(
    qtbot: QtBot, server_tab: ServerTab, servers: LocalServers
) -> None:
    port = free_port()
    servers.start(Engine.IPERF3, port)  # as the Measure tab does for "This computer"
    status = child(server_tab, QLabel, "iperf3_status")
    assert status.text().startswith(f"Listening on port {port}")
    assert child(server_tab, QSpinBox, "iperf3_port").value() == port
    servers.stop(Engine.IPERF3)
    assert status.text() == "Stopped"


def test_netserver_starts_and_stops(
    qtbot: QtBot, server_tab: ServerTab, context: AppContext, servers: LocalServers
) -> None:
    engine = context.engine("netserver")
    if engine.tool is None:
        pytest.skip(f"netserver is not installed (optional engine): {engine.problem}")
    port = free_port()
    status = start_from_tab(qtbot, server_tab, "netserver", port)
    assert status.text().startswith(f"Listening on port {port}")
    assert ours("netserver")
    stop_from_tab(qtbot, server_tab, "netserver")
    assert servers.server(Engine.NETPERF) is None
    assert not ours("netserver")


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_missing_netserver_disables_its_group(
    server_tab: ServerTab, context: AppContext, tmp_path: Path
) -> None:
    context.set_engine_path("netserver", str(tmp_path / "no-netserver"))
    group = child(server_tab, QGroupBox, "netserver_group")
    assert not group.isEnabled()
    status = child(server_tab, QLabel, "netserver_status").text()
    assert "no-netserver" in status and "is not an executable file" in status
    assert child(server_tab, QGroupBox, "iperf3_group").isEnabled()


def test_addresses_are_listed(server_tab: ServerTab) -> None:
    table = server_tab.addresses
    items = [table.item(row, 0) for row in range(table.rowCount())]
    texts = [item.text() for item in items if item is not None]
    assert len(texts) == table.rowCount()
    assert "127.0.0.1" not in texts and "::1" not in texts
    assert table.isHidden() == (not texts)
    assert server_tab.no_addresses.isHidden() == bool(texts)


def test_bogus_engine_path_shows_the_sentence_and_clearing_restores(
    qtbot: QtBot, context: AppContext, tmp_path: Path, iperf3_tool: Tool
) -> None:
    tab = SettingsTab(context)
    qtbot.addWidget(tab)
    edit = child(tab, QLineEdit, "iperf3_path")
    label = child(tab, QLabel, "iperf3_detected")
    assert label.text().startswith(f"Detected: iperf3 {iperf3_tool.version_string}")
    assert iperf3_tool.path in label.text()

    bogus = str(tmp_path / "no-iperf3")
    edit.setText(bogus)
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert context.engine_path("iperf3") == bogus
    assert bogus in label.text() and "is not an executable file" in label.text()

    edit.clear()
    assert context.engine_path("iperf3") == ""
    assert label.text().startswith(f"Detected: iperf3 {iperf3_tool.version_string}")


def test_default_ports_persist(qtbot: QtBot, context: AppContext, tmp_path: Path) -> None:
    tab = SettingsTab(context)
    qtbot.addWidget(tab)
    child(tab, QSpinBox, "iperf3_port_default").setValue(5301)
    child(tab, QSpinBox, "netserver_port_default").setValue(12999)
    context.settings.sync()
    again = AppContext(
        QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat),
        db_path=tmp_path / "linklab.sqlite3",
    )
    assert again.default_port("iperf3") == 5301
    assert again.default_port("netperf") == 12999
    assert child(tab, QLineEdit, "db_path").text() == str(tmp_path / "linklab.sqlite3")
