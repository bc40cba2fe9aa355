"""What a selection in the Sessions list allows and says: which of the tab's buttons it
enables, and, for several rows, the sentence saying what is shown below and what they are for."""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.records import SessionRecord, UnreadableSession
from app.study.responsiveness.kept import KeptResult
from app.study.studies import resume_problem
from app.ui.sessions.session_exports import can_compare_within


def enabled_buttons(rows: Sequence[object], exchanging: bool) -> dict[str, bool]:
    """Each button that acts on the selection, enabled or not (an exchange file being
    written or read holds back Export and Import)."""
    sessions = [row for row in rows if isinstance(row, SessionRecord)]
    single = sessions[0] if len(rows) == 1 and sessions else None
    unreadable = sum(isinstance(row, UnreadableSession) for row in rows)
    results = sum(isinstance(row, KeptResult) for row in rows)
    if unreadable:  # it can be shown (what cannot be read), never changed or used
        return {
            "open_button": len(rows) == 1,
            **dict.fromkeys(
                ("rename_button", "tags_button", "delete_button", "resume_button"), False
            ),
            **dict.fromkeys(("compare_button", "export_button"), False),
        }
    within = single is not None and can_compare_within(single)
    count = len(sessions)
    return {
        "open_button": len(rows) == 1,
        "rename_button": len(rows) == 1,
        "tags_button": single is not None,
        "delete_button": bool(rows),
        "resume_button": single is not None and not resume_problem(single),
        "compare_button": (count >= 2 and not results) or (results == 2 and not count) or within,
        "export_button": count > 0 and not results and not exchanging,
        "import_button": not exchanging,
    }


def several_words(
    chosen: Sequence[object], on_view: str | None, shown_name: str, can_compare: bool
) -> str:
    """What several rows selected leave below the list, and what they are for: the view
    keeps the one it showed (said by name), never silently another's."""
    if on_view is None:
        below = "none of them is shown below"
    elif any(isinstance(r, SessionRecord) and r.id == on_view for r in chosen):
        below = f"below is still “{shown_name}”, the one shown before"
    else:
        below = f"below is still “{shown_name}”, which is not among them"
    use = "Compare puts them side by side" if can_compare else "select one to see it"
    return f"{len(chosen)} selected: {below}; {use}."
