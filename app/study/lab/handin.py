"""Hand-ins: what a student gives the instructor for an exercise. A hand-in is a session
exchange file (so `linklab import` reads it) with the student's identity, the exercise and
the answers added; by default it carries nothing private: no MAC address, no network name
(SSID), no user or computer name, unless the exercise asks for them."""

from __future__ import annotations

import getpass
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.domain.errors import BadOption
from app.domain.exercise import (
    Exercise,
    exercise_from_dict,
    exercise_to_dict,
    group_name,
    student_name,
)
from app.domain.plan import clean_text
from app.domain.records import utc_now
from app.store.db import Database
from app.store.exercises import ExerciseStore
from app.store.sessions import SessionStore
from app.study.files.exchange import (
    ExchangeFile,
    exchange_from_data,
    export_sessions,
    load_json_file,
    write_exchange,
)

__all__ = [
    "HIDDEN",
    "Handin",
    "RunFacts",
    "handin_document",
    "read_handin",
    "scrub",
    "write_handin",
]

HIDDEN = "(hidden)"
_MAC = re.compile(r"\b[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}\b")
_MAC_KEYS = re.compile(r"mac|bssid|serial|hwaddr|permaddr", re.IGNORECASE)
_USER_KEYS = re.compile(r"hostname|user|login|home", re.IGNORECASE)
# A user's own folder names them: C:\Users\NAME (one or two backslashes: JSON text escapes
# them), /home/NAME, /Users/NAME (macOS).
_USER_FOLDER = re.compile(
    r"(\b[A-Za-z]:(?:\\{1,2}|/)(?:Users|Documents and Settings)(?:\\{1,2}|/)|/home/|/Users/)"
    r"([^\\/\s\"':;,()]+)",
    re.IGNORECASE,
)


def _hide_user_folders(text: str) -> str:
    return _USER_FOLDER.sub(lambda m: f"{m.group(1)}{HIDDEN}", text)


@dataclass(frozen=True)
class RunFacts:
    """What the class view needs of a run's raw output, worked out once: whether its stored
    throughput disagrees with it, and the marks that tell the same measurement anywhere."""

    altered: bool
    marks: frozenset[str]


@dataclass(frozen=True)
class Handin:
    student: str
    group: str
    exercise: Exercise
    answers: dict[str, str]
    handed_in_at: str
    sessions: ExchangeFile
    file: Path | None = None
    #: Facts of runs whose raw output is not held here (a class collected live keeps them
    #: from when each run arrived), by the run record's id.
    facts: dict[int, RunFacts] = field(default_factory=dict)


def _private_words(environment: dict[str, Any], reveal: Sequence[str]) -> list[str]:
    """Names that must not appear anywhere in the hand-in (raw engine output included)."""
    words = []
    if "user" not in reveal:
        host = environment.get("hostname")
        if isinstance(host, str) and len(host) >= 3:
            words += [host, host.split(".")[0]]
        try:
            user = getpass.getuser()
        except (OSError, KeyError):  # no user name known: nothing to hide
            user = ""
        if len(user) >= 3 and user not in ("root", "user"):
            words.append(user)
    if "ssid" not in reveal:
        wifi = environment.get("wifi")
        ssid = wifi.get("ssid") if isinstance(wifi, dict) else None
        if isinstance(ssid, str) and len(ssid) >= 3:
            words.append(ssid)
    # Only words with a letter: replacing digits could change a figure in the raw output.
    return sorted({w for w in words if re.search(r"[^\W\d_]", w)}, key=len, reverse=True)


def scrub(value: Any, reveal: Sequence[str], words: Sequence[str], key: str = "") -> Any:
    """The value with private facts removed: keys that name them dropped, MAC addresses and
    the private words replaced in every text."""
    if isinstance(value, dict):
        kept = {}
        for k, v in value.items():
            if "mac" not in reveal and _MAC_KEYS.search(k):
                continue
            if "user" not in reveal and _USER_KEYS.search(k):
                continue
            if "ssid" not in reveal and k.lower() == "ssid":
                continue
            kept[k] = scrub(v, reveal, words, k)
        return kept
    if isinstance(value, list):
        return [scrub(v, reveal, words, key) for v in value]
    if isinstance(value, str):
        text = value if "mac" in reveal else _MAC.sub(HIDDEN, value)
        if "user" not in reveal:
            text = _hide_user_folders(text)
        for word in words:
            text = re.sub(re.escape(word), HIDDEN, text, flags=re.IGNORECASE)
        return text
    return value


# The computer's name in an engine's own output: iperf3's "Linux NAME 6.1.0 ..." line (-V)
# and its JSON "system_info", and netperf's "... from HOST (address) ..." never names ours.
_SYSTEMS = r"(Linux|Darwin|FreeBSD|Windows\S*|CYGWIN\S*|MINGW\S*)"
_SYSTEM_INFO = re.compile(r'("system_info"\s*:\s*"|^)' + _SYSTEMS + r" (\S+) ", re.MULTILINE)


def scrub_output(text: str, reveal: Sequence[str]) -> str:
    """An engine's raw output without MAC addresses or this computer's name; its figures
    untouched, so that it still parses to the same numbers."""
    if "mac" not in reveal:
        text = _MAC.sub(HIDDEN, text)
    if "user" not in reveal:
        text = _SYSTEM_INFO.sub(lambda m: f"{m.group(1)}{m.group(2)} {HIDDEN} ", text)
        text = _hide_user_folders(text)
    return text


def _argv(argv: list[str], reveal: Sequence[str]) -> list[str]:
    """The engine's command line with the program named, not its folder (which holds the
    user's name on Windows: C:\\Users\\NAME\\...)."""
    if "user" in reveal or not argv:
        return argv
    program = re.split(r"[\\/]", argv[0])[-1]
    return [program, *argv[1:]]


def handin_document(
    db: Database,
    exercise_id: str,
    student: str,
    session_ids: Sequence[str] | None = None,
    only_runs: Collection[int] | None = None,
) -> dict[str, Any]:
    """The hand-in of a student's work on an exercise, from the database: the sessions given,
    or all the student measured for it (with only_runs, only those of their runs)."""
    work = ExerciseStore(db).work(exercise_id, student)
    exercise = work.exercise
    ids = list(session_ids or ExerciseStore(db).session_ids(exercise_id, student))
    if not ids:
        raise BadOption(
            f"{student} has measured nothing for “{exercise.title}” yet: run its first step, "
            f"then hand in."
        )
    document = export_sessions(SessionStore(db), ids, only_runs=only_runs)
    reveal = work.exercise.reveal
    words: list[str] = []
    for session in document["sessions"]:
        words += _private_words(session.get("environment") or {}, reveal)
    words = sorted(set(words), key=len, reverse=True)
    for session in document["sessions"]:
        session["environment"] = scrub(session.get("environment") or {}, reveal, words)
        for run in session["runs"]:
            run["raw_output"] = scrub_output(run["raw_output"], reveal)
            run["argv"] = _argv(run["argv"], reveal)
            run["error"] = scrub(run["error"], reveal, words)
        session["status_reason"] = scrub(session["status_reason"], reveal, words)
    document["handin"] = {
        "student": work.student,
        "group": work.group,
        # The class's collector and its token are the instructor's: not part of a hand-in.
        "exercise": exercise_to_dict(replace(work.exercise, collector=None)),
        "answers": dict(work.answers),
        "handed_in_at": utc_now(),
    }
    return document


def write_handin(path: Path | str, document: dict[str, Any]) -> Path:
    write_exchange(path, document)
    return Path(path)


def read_handin(path: Path | str) -> Handin:
    path = Path(path)
    data = load_json_file(path)
    sessions = exchange_from_data(data, path.name)
    assert isinstance(data, dict)  # exchange_from_data checked it
    about = data.get("handin")
    if not isinstance(about, dict):
        raise BadOption(
            f"{path.name} holds sessions but no hand-in (no student or exercise): it was "
            f"exported with --format json; ask for the hand-in (--format handin)."
        )
    named, group = about.get("student"), about.get("group", "")
    if not isinstance(named, str) or not named.strip():
        raise BadOption(f"{path.name} names no student: ask for the hand-in again.")
    try:
        student = student_name(named, "The student's name")
        group = group_name(group if isinstance(group, str) else "")
    except BadOption as err:
        raise BadOption(f"{path.name}: {err.sentence} Ask for the hand-in again.") from None
    exercise = exercise_from_dict(about.get("exercise"), f"The exercise in {path.name}")
    answers = about.get("answers")
    return Handin(
        student,
        group,
        exercise,
        {str(k): clean_text(v, 50_000) for k, v in answers.items()}
        if isinstance(answers, dict)
        else {},
        clean_text(about.get("handed_in_at"), 64),
        sessions,
        path,
    )
