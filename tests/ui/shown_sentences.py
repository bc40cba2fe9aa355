"""The sentences a session's view shows, read off its labels as a person reads them: its
header, its Details and its own findings tab by tab, the warnings of its band (for
tests/sentences.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QTabBar

from app.ui.sessions.reading import COMPARED

if TYPE_CHECKING:
    from tests.ui.user import User

#: How the details' lines that are no findings begin: the plan, conditions and environment.
_NOT_FINDINGS = (
    "Conditions: ",
    "Security: ",
    "Notes: ",
    "Working latency by ",
    "This computer: ",
    "Interface: ",
    "Engines: ",
    "Wi-Fi: ",
    "No environment snapshot recorded.",
)


def plain(rich: str) -> str:
    """A rich-text label's text as shown."""
    return QTextDocumentFragment.fromHtml(rich).toPlainText()


def _open_tab(user: User, title: str) -> bool:
    """Click the reading tab with that title when the view shows it."""
    shown = [
        bar.tabText(i)
        for bar in user.window.findChildren(QTabBar)
        if user.shown(bar)
        for i in range(bar.count())
        if bar.isTabVisible(i)
    ]
    if title not in shown:
        return False
    user.tab(title)
    return True


def view_text(user: User) -> str:
    """What a session's view says, line by line as a person reads it: its header (name, peer,
    status; the plan), its Details (conditions and environment), then its own findings (not
    those of its series against each other, which follow COMPARED), back on its Results."""
    lines = plain(user.text("Session details")).splitlines()
    if _open_tab(user, "Details"):
        lines += user.text("Session conditions and environment").splitlines()
    if _open_tab(user, "Findings"):
        own = user.text("Session findings").split(COMPARED)[0]
        lines += [part for part in own.split("\n\n") if part.strip()]
    _open_tab(user, "Results")
    return "\n".join(lines)


def shown_status(details: str) -> str:
    """The first line's status and reason: '… — completed with failures (…) — 2026-…'."""
    return details.splitlines()[0].split(" — ")[2]


def shown_findings(details: str) -> list[str]:
    """The findings of view_text (the lines after its name, plan, conditions and
    environment)."""
    lines = details.splitlines()[2:]
    return [line for line in lines if line and not line.startswith(_NOT_FINDINGS)]


def shown_conditions(details: str) -> list[str]:
    """The details' lines about the conditions: "Conditions: …" and "Security: …"."""
    return [
        line for line in details.splitlines() if line.startswith(("Conditions: ", "Security: "))
    ]


def shown_warnings(band: str) -> list[str]:
    """The warnings of a band, each after its ⚠ (the count line before them aside)."""
    return [line.removeprefix("⚠ ") for line in band.splitlines() if line.startswith("⚠ ")]
