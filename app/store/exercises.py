"""A student's work on a lab exercise: the exercise as handed out, name and group, answers;
and the sessions measured for it (those whose plan names the exercise and the student). The
class token of the exercise's collector is kept apart from the stored exercise."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from app.domain.collector import Collector
from app.domain.errors import BadOption
from app.domain.exercise import MAX_ANSWER, Exercise, exercise_from_text, exercise_json
from app.domain.plan import clean_text
from app.domain.records import SessionRecord, utc_now
from app.store.db import Database
from app.store.trash import DELETABLE_SINCE

__all__ = ["ExerciseStore", "Work"]

#: The schema version from which class tokens live in their own table.
CLASS_TOKENS_SINCE = 10


_ALL_SESSIONS = (
    "SELECT id FROM sessions WHERE json_extract(plan_json, '$.assignment.exercise_id') = ?"
    " AND json_extract(plan_json, '$.assignment.student') = ? ORDER BY created_at"
)
#: Those not deleted (a file of schema 9 or later).
_LIVE_SESSIONS = _ALL_SESSIONS.replace(" ORDER BY", " AND deleted_at IS NULL ORDER BY")


@dataclass(frozen=True)
class Work:
    exercise: Exercise
    student: str
    group: str = ""
    answers: dict[str, str] = field(default_factory=dict)  # question id ("2.1") -> text
    updated_at: str = ""


class ExerciseStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def begin(self, exercise: Exercise, student: str, group: str = "") -> Work:
        """The student's work on this exercise, created on first use; the group is updated
        and the exercise kept as first handed out (answers and sessions refer to it)."""
        now = utc_now()
        named = exercise.collector
        # The token is a password: the stored exercise keeps the collector's address only.
        stored = exercise if named is None else replace(exercise, collector=Collector(named.url))
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO exercise_work (exercise_id, student, group_name, exercise_json, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (exercise_id, student) DO UPDATE SET group_name = excluded.group_name",
                (exercise.id, student, group, exercise_json(stored), now, now),
            )
            if named is not None and named.token:
                conn.execute(
                    "INSERT INTO class_tokens (collector_url, token, updated_at) VALUES (?, ?, ?) "
                    "ON CONFLICT (collector_url) DO UPDATE SET token = excluded.token, "
                    "updated_at = excluded.updated_at",
                    (named.url, named.token, now),
                )
        return self.work(exercise.id, student)

    def _with_token(self, exercise: Exercise) -> Exercise:
        """The exercise with its collector's class token, kept apart (a file not yet migrated,
        read only, has none apart: its stored exercise may still hold it)."""
        named = exercise.collector
        if named is None or named.token or self.db.version < CLASS_TOKENS_SINCE:
            return exercise
        rows = self.db.query("SELECT token FROM class_tokens WHERE collector_url = ?", (named.url,))
        return (
            replace(exercise, collector=Collector(named.url, rows[0]["token"]))
            if rows
            else exercise
        )

    def work(self, exercise_id: str, student: str) -> Work:
        rows = self.db.query(
            "SELECT * FROM exercise_work WHERE exercise_id = ? AND student = ?",
            (exercise_id, student),
        )
        if not rows:
            raise BadOption(
                f"{student} has not started this exercise in {self.db.path}: open the exercise "
                f"and start its first step."
            )
        row = rows[0]
        answers = json.loads(row["answers_json"] or "{}")
        return Work(
            self._with_token(exercise_from_text(row["exercise_json"], "The stored exercise")),
            row["student"],
            row["group_name"],
            {str(k): str(v) for k, v in answers.items()} if isinstance(answers, dict) else {},
            row["updated_at"],
        )

    def students(self, exercise_id: str) -> list[str]:
        rows = self.db.query(
            "SELECT student FROM exercise_work WHERE exercise_id = ? ORDER BY updated_at DESC",
            (exercise_id,),
        )
        return [r["student"] for r in rows]

    def answer(self, exercise_id: str, student: str, question: str, text: str) -> Work:
        """Keep one answer (an empty text removes it)."""
        work = self.work(exercise_id, student)
        known = {qid for qid, _ in work.exercise.question_ids()}
        if question not in known:
            raise BadOption(
                f"The exercise has no question {question}: its questions are "
                f"{', '.join(sorted(known)) or 'none'}."
            )
        answers = dict(work.answers)
        text = clean_text(text, MAX_ANSWER)
        if text:
            answers[question] = text
        else:
            answers.pop(question, None)
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE exercise_work SET answers_json = ?, updated_at = ? "
                "WHERE exercise_id = ? AND student = ?",
                (json.dumps(answers, ensure_ascii=False), utc_now(), exercise_id, student),
            )
        return self.work(exercise_id, student)

    def session_ids(self, exercise_id: str, student: str) -> list[str]:
        """The sessions measured for the exercise by the student, oldest first."""
        query = _LIVE_SESSIONS if self.db.version >= DELETABLE_SINCE else _ALL_SESSIONS
        rows = self.db.query(query, (exercise_id, student))
        return [r["id"] for r in rows]


def step_of(session: SessionRecord) -> int | None:
    return session.plan.assignment.step if session.plan.assignment else None
