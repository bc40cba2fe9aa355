"""A session row read part by part: what of it cannot be read is named, the rest still read,
and each kind of damage said in one sentence with what to do (`linklab doctor` named)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.domain.errors import BadOption
from app.domain.plan import Conditions, Plan
from app.domain.plan_codec import conditions_from_dict, plan_from_dict
from app.domain.records import SessionRecord, SessionStatus, UnreadableSession
from app.store.db import StoreError
from app.store.stamps import clock_mark

#: A damaged part of a session, as a sentence names it.
PART_WORDS = {
    "name": "its name",
    "conditions": "its tags, notes and conditions",
    "environment": "its environment snapshot",
}
#: What is shown in place of each part.
SHOWN_INSTEAD = {
    "name": "it is listed as untitled (Rename gives it a name again)",
    "conditions": "it is shown without tags, notes or conditions (Tags & notes… sets them again)",
    "environment": "its details leave out the computer and link it was measured on",
}

Row = sqlite3.Row | Mapping[str, Any]


class SessionUnreadable(StoreError):
    """A session whose plan, status or run count cannot be read: the sentence says so and what
    to do; `listed` is how a list shows it."""

    def __init__(self, sentence: str, listed: UnreadableSession) -> None:
        super().__init__(sentence)
        self.listed = listed


def doctor_advice(path: Path) -> str:
    return (
        f"`linklab doctor --db {path}` checks the whole file, and `linklab doctor --db {path} "
        f"--recover-to NEW.sqlite3` copies every session that can be read to a new file"
    )


def unreadable_sentence(session: UnreadableSession, path: Path) -> str:
    named = f" (“{session.name[:60]}”)" if session.name else ""
    why = (
        "Update LinkLab to read it"
        if "newer LinkLab" in session.what
        else "The database may be damaged there, or a newer LinkLab wrote it"
    )
    return (
        f"Session {session.short_id}{named} cannot be read: {session.what}. {why}; the other "
        f"sessions are not affected. {doctor_advice(path)}."
    )


def damage_sentence(session: SessionRecord, path: Path) -> str:
    """What of a readable session could not be read, and what is shown instead; "" when
    nothing is damaged."""
    if not session.damaged:
        return ""
    parts = [PART_WORDS[p] for p in session.damaged]
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    instead = "; ".join(SHOWN_INSTEAD[p] for p in session.damaged)
    return (
        f"Session {session.short_id} is damaged: {said} cannot be read, so {instead}. Its runs "
        f"are read as they are. {doctor_advice(path)}."
    )


def session_from_row(row: Row, path: Path) -> SessionRecord:
    """The session of a row of the sessions table (with peer_host and run counts), its damaged
    name, conditions or environment read as empty and named in `damaged`. SessionUnreadable
    when its plan, status or counts cannot be read."""
    damaged: list[str] = []
    name = row["name"]
    if not isinstance(name, str):  # a BLOB, or NULL where no NOT NULL held it
        name = ""
        damaged.append("name")
    session_id = str(row["id"])

    def unreadable(what: str) -> SessionUnreadable:
        listed = UnreadableSession(
            id=session_id,
            name=name,
            created_at=str(row["created_at"] or ""),
            what=what,
            runs_done=row["runs_done"] if isinstance(row["runs_done"], int) else 0,
        )
        return SessionUnreadable(unreadable_sentence(listed, path), listed)

    try:
        plan, plan_conditions = _plan(row["plan_json"])
    except (BadOption, ValueError, TypeError, AttributeError, RecursionError) as err:
        raise unreadable(_plan_problem(err)) from None
    conditions = _conditions(row["conditions_json"]) or plan_conditions
    if conditions is None:
        damaged.append("conditions")
        conditions = Conditions()
    environment = _environment(row["environment_json"])
    if environment is None:
        damaged.append("environment")
    try:
        status = SessionStatus(row["status"])
    except ValueError:
        raise unreadable(f"its status {str(row['status'])[:40]!r} is none LinkLab knows") from None
    counts = [row[key] for key in ("total_runs", "runs_done", "runs_failed", "runs_partial")]
    if not all(isinstance(count, int) for count in counts):
        raise unreadable("its run counts are not numbers")
    return SessionRecord(
        id=session_id,
        name=name,
        peer_host=row["peer_host"] or plan.peer.host,
        plan=replace(plan, conditions=conditions),
        environment=environment or {},
        status=status,
        status_reason=_text(row["status_reason"]),
        created_at=str(row["created_at"]),
        started_at=row["started_at"] if isinstance(row["started_at"], str) else None,
        ended_at=row["ended_at"] if isinstance(row["ended_at"], str) else None,
        app_version=_text(row["app_version"]),
        total_runs=counts[0],
        runs_done=counts[1],
        runs_failed=counts[2],
        runs_partial=counts[3],
        damaged=tuple(damaged),
        clock_step_s=clock_mark(row),
    )


def _plan_problem(err: Exception) -> str:
    """Why a stored plan cannot be read, as part of a sentence: the plan codec's own words
    without the advice it gives for a plan file ("check the file")."""
    if not isinstance(err, BadOption):
        return f"its plan is not valid JSON ({str(err)[:80] or type(err).__name__})"
    said = err.sentence.rstrip(".")
    for advice in (": check the file", ": update LinkLab", ": remove them"):
        said = said.removesuffix(advice)
    return said[:1].lower() + said[1:]


def _plan(text: object) -> tuple[Plan, Conditions | None]:
    """The plan, and the conditions it holds (None when they alone cannot be read: the plan is
    then read without them)."""
    if not isinstance(text, str | bytes):
        raise ValueError("it is not text")
    data = json.loads(text)
    try:
        plan = plan_from_dict(data)
    except BadOption:
        if not isinstance(data, dict) or "conditions" not in data:
            raise
        without = {k: v for k, v in data.items() if k != "conditions"}
        plan = plan_from_dict(without)  # its conditions alone are damaged
        return plan, None
    return plan, plan.conditions


def _conditions(text: object) -> Conditions | None:
    try:
        return conditions_from_dict(json.loads(text)) if isinstance(text, str | bytes) else None
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None


def _environment(text: object) -> dict[str, Any] | None:
    if text is None or text == "":
        return {}
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else None
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
