"""What there is to read of a stored session, below its charts: its results table, its
findings (the sentences its report and Compare its series give, after those of its own
results) and its conditions and environment, a tab each, so that each has the pane's room."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QTabWidget, QTextBrowser, QWidget

from app.domain.units import counted
from app.ui.common.remembered import remember_tab
from app.ui.common.results import ResultsTable
from app.ui.common.tabs import show_tab

RESULTS, FINDINGS, DETAILS = "Results", "Findings", "Details"


#: Before the sentences of its series against each other, after those of its own results.
COMPARED = "Its series against each other, as its report and Compare its series say:"


def sentences_text(sentences: Sequence[str]) -> str:
    """Sentences as the findings panes show them: each a paragraph of its own."""
    return "\n\n".join(sentences)


def _reader(object_name: str, accessible_name: str) -> QTextBrowser:
    text = QTextBrowser()
    text.setObjectName(object_name)
    text.setAccessibleName(accessible_name)
    text.setOpenLinks(False)
    return text


class SessionReading(QTabWidget):
    """The session's results, findings and details, each on a tab; the tab the user last
    chose opens again."""

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("session_reading")
        self.table = ResultsTable()
        self.table.setObjectName("session_results")
        self.table.setAccessibleName("Session results")
        self.findings = _reader("session_findings", "Session findings")
        self.findings.setToolTip(
            "What this session's results say: how close each series came to what the link "
            "allows, working latency, and its series against each other, as in its report."
        )
        self.details = _reader("session_about", "Session conditions and environment")
        self.details.setToolTip(
            "The conditions stated, how working latency was measured, the notes and the "
            "environment both ends were in."
        )
        self.addTab(self.table, RESULTS)
        self.addTab(self.findings, FINDINGS)
        self.addTab(self.details, DETAILS)
        remember_tab(self, settings, "sessions/reading")

    def show_findings(self, own: Sequence[str], compared: Sequence[str] = ()) -> None:
        """Its own results' sentences, then (under COMPARED) its series against each other."""
        parts = [*own, *([COMPARED, *compared] if compared else [])]
        self.findings.setPlainText(sentences_text(parts))
        tab = self.indexOf(self.findings)
        count = len(own) + len(compared)
        self.setTabToolTip(tab, f"{counted(count, 'finding')} to read.")
        show_tab(self, tab, bool(count))

    def show_details(self, lines: Sequence[str]) -> None:
        self.details.setPlainText("\n".join(lines))

    def show_results(self, shown: bool) -> None:
        """The results table's tab: a monitor has its own figures instead."""
        show_tab(self, self.indexOf(self.table), shown)

    def clear(self) -> None:
        self.table.clear_rows()
        self.show_findings([])
        self.details.clear()
