"""The sentences a session's view shows, read off its labels as a person reads them: the
findings at the end of its details, the warnings of its band (for tests/sentences.py)."""

from __future__ import annotations

from PySide6.QtGui import QTextDocumentFragment

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


def shown_status(details: str) -> str:
    """The first line's status and reason: '… — completed with failures (…) — 2026-…'."""
    return details.splitlines()[0].split(" — ")[2]


def shown_findings(details: str) -> list[str]:
    """The findings of a session's details (the lines after its name, plan, conditions and
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
