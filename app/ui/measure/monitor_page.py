"""The Monitor page inside the Measure tab: the peer, IP version and conditions it takes from
the form, and while it runs, the form and the study's Start held back, its sentences in the
tab's log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QProgressBar

from app.domain.net import IpVersion
from app.domain.plan import Conditions, Peer, Plan
from app.ui.context import AppContext
from app.ui.measure.setup_panel import SetupPanel
from app.ui.measure.study_charts import StudyCharts
from app.ui.monitor.panel import MonitorPanel


class MeasureTab(Protocol):
    """What the Monitor page uses of the Measure tab."""

    context: AppContext
    setup: SetupPanel
    study_charts: StudyCharts
    log: QPlainTextEdit
    command: QLineEdit
    progress: QProgressBar
    _plan: Plan | None
    other_test_running: Callable[[], bool]

    @property
    def running_changed(self) -> SignalInstance: ...
    @property
    def session_saved(self) -> SignalInstance: ...
    @property
    def status_message(self) -> SignalInstance: ...
    def _say(self, text: str, error: bool = False) -> None: ...
    def _set_buttons(self) -> None: ...
    def idle_progress(self) -> None: ...
    def _show_command(self) -> None: ...


def monitor_base(tab: MeasureTab) -> tuple[Peer, IpVersion, Conditions]:
    """The peer on the form, the form's (first) IP version, and the conditions it states
    (or detected): a monitor of the link is stored with them, as a study is."""
    plan = tab._plan
    version = plan.ip_versions[0] if plan is not None else IpVersion.V4
    return tab.setup.peer_row.peer(), version, tab.setup.conditions()


def peer_ready(tab: MeasureTab, plan: Plan) -> None:
    """The form shows the ports of this computer's servers in use, or keeps the peer that
    answered in its list, as a study's start does."""
    if plan.peer.is_this_computer:
        tab.setup.peer_row.show_ports(plan.peer.ports)
    else:
        tab.setup.peer_row.remember(plan.peer.host)
        tab.setup.peer_row.show_note(f"{plan.peer.host} answers.", answered=True)


def attach_monitor(tab: MeasureTab) -> MonitorPanel:
    """The Monitor page, added to the tab's charts as "Monitor"."""
    monitor = MonitorPanel(tab.context, lambda: monitor_base(tab))
    charts, table = tab.study_charts.tabs, tab.study_charts.table
    charts.addTab(monitor, "Monitor")

    def running(on: bool) -> None:
        if on:
            tab.idle_progress()  # a study's progress is not the monitor's
        tab.setup.setEnabled(not on)
        tab._set_buttons()
        if not on:
            tab._show_command()  # the monitor's run gives way to the plan on screen
        tab.running_changed.emit(on)

    def said(text: str, error: bool) -> None:
        if text.startswith("$ "):  # the command of a run, as the study's are logged
            tab.log.appendPlainText(text)
            tab.command.setText(text[2:])
            tab.command.setCursorPosition(0)
        else:
            tab._say(text, error)

    def busy() -> str:
        if tab.other_test_running():
            return (
                "A responsiveness test is running: it loads the link and would skew the "
                "monitor. Stop it on the Responsiveness tab, or wait for its result."
            )
        return ""

    monitor.running_changed.connect(running)
    monitor.session_saved.connect(tab.session_saved)
    monitor.status_message.connect(tab.status_message)
    monitor.said.connect(said)
    monitor.peer_ready.connect(lambda plan: peer_ready(tab, plan))
    # Under the peer field as a study's refusal is, and taken back with it once it answers.
    monitor.peer_refused.connect(tab.setup.peer_row.show_problem)
    tab.setup.peer_row.problem_gone.connect(monitor.withdraw)  # and on the Monitor page
    monitor.busy_elsewhere = busy
    tab.setup.plan_changed.connect(lambda _plan: monitor.peer_changed())
    # The sweep's results table says nothing of a monitor: the chart takes its height.
    charts.currentChanged.connect(
        lambda _index: table.setVisible(charts.currentWidget() is not monitor)
    )
    return monitor
