"""One damaged session row hides none of the others: a plan LinkLab cannot read (a value of the
wrong type, a plan of a newer format, bytes that are not text), and a damaged name, tag or
environment, each written into a real database file with SQL as damage or another tool would.
`linklab sessions` (text and --json) lists every session and marks the damaged one with
`doctor --recover-to` named; a readable session beside it is shown, compared and exported."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Peer, Plan, RunKey
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.domain.results import Sample
from app.store.damage import SessionUnreadable
from app.store.db import Database
from app.store.recover import recover
from app.store.sessions import SessionStore
from app.study.files.exchange import read_exchange
from app.study.frontdoor import FrontDoor
from tests.conftest import linklab

NAMES = ("first", "damaged", "last")


def _make(path: Path) -> dict[str, str]:
    """Three sessions of three runs each, tagged; name -> id."""
    plan = Plan(
        peer=Peer("127.0.0.1"),
        values=(1408,),
        repetitions=3,
        duration_s=1,
        conditions=Conditions(tags=(("room", "lab 2"),)),
    )
    ids = {}
    with Database(path) as db:
        store = SessionStore(db)
        for name in NAMES:
            sid = store.create_session(plan, {"host": {"name": "lab-pc"}})
            store.rename(sid, name)
            for rep in range(1, 4):
                store.add_run(
                    sid,
                    RunKey(Protocol.TCP, IpVersion.V4, 0, rep),
                    1408.0,
                    metrics=RunMetrics(throughput_bps=1e6 * (10 + rep)),
                    samples=[Sample(0.0, 1.0, received_bps=1e6 * (10 + rep))],
                    started_at=utc_now(),
                    elapsed_s=1.0,
                    engine="iperf3",
                )
            store.finish(sid, SessionStatus.COMPLETED)
            ids[name] = sid
    return ids


def _plan_value(key: str, value: object) -> Callable[[sqlite3.Connection, str], None]:
    def damage(conn: sqlite3.Connection, sid: str) -> None:
        (text,) = conn.execute("SELECT plan_json FROM sessions WHERE id = ?", (sid,)).fetchone()
        plan = json.loads(text) | {key: value}
        conn.execute("UPDATE sessions SET plan_json = ? WHERE id = ?", (json.dumps(plan), sid))

    return damage


def _set(sql: str) -> Callable[[sqlite3.Connection, str], None]:
    return lambda conn, sid: conn.execute(f"UPDATE sessions SET {sql} WHERE id = ?", (sid,))


#: Damage that leaves the plan unreadable: the session is listed, marked, never opened.
UNREADABLE = {
    "duration_s is text": (_plan_value("duration_s", "abc"), "duration_s must be a number"),
    "a plan of format 3": (_plan_value("format", 3), "newer LinkLab (format 3)"),
    "damaged bytes": (
        _set("plan_json = CAST(X'7b22706565ff72223a' AS TEXT)"),
        "its plan is not valid JSON",
    ),
}
#: Damage to one part: the session is listed and opened, the part shown empty and named.
DAMAGED_PART = {
    "a name of bytes": (_set("name = X'ff00fe'"), "name", "its name cannot be read"),
    "tags of the wrong type": (
        lambda conn, sid: (
            _set('conditions_json = \'{"tags": "abc"}\'')(conn, sid),
            _plan_value("conditions", {"tags": 5})(conn, sid),
        ),
        "conditions",
        "its tags, notes and conditions cannot be read",
    ),
    "an environment that is not JSON": (
        _set("environment_json = 'not json {'"),
        "environment",
        "its environment snapshot cannot be read",
    ),
}


def _damage(path: Path, sid: str, how: Callable[[sqlite3.Connection, str], object]) -> None:
    conn = sqlite3.connect(path)
    try:
        how(conn, sid)
        conn.commit()
    finally:
        conn.close()


def _listed(path: Path, ids: dict[str, str]) -> tuple[dict[str, str], str, str]:
    """`linklab sessions`: its rows by id prefix (every session's), the note on the damaged
    one, and its last line."""
    listed = linklab("sessions", "--db", str(path))
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    rows = {line.split()[0]: line for line in lines[1:4]}
    assert set(rows) == {sid[:8] for sid in ids.values()}
    bad = ids["damaged"][:8]
    (note,) = [line for line in lines if line.startswith(f"Session {bad}")]
    return rows, note, lines[-1]


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "linklab.sqlite3"
    return path, _make(path)


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_a_session_that_cannot_be_read_hides_no_other(
    case: str, db: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, ids = db
    how, why = UNREADABLE[case]
    _damage(path, ids["damaged"], how)
    bad = ids["damaged"][:8]

    rows, note, last = _listed(path, ids)
    assert "cannot be read" in rows[bad] and "completed" not in rows[bad]
    assert all("completed" in rows[ids[n][:8]] for n in ("first", "last"))
    assert why in note and "doctor --db" in note and "--recover-to NEW.sqlite3" in note
    assert last == "3 sessions (1 cannot be read)."

    data = json.loads(linklab("sessions", "--db", str(path), "--json").stdout)
    by_id = {item["session_id"]: item for item in data}
    assert set(by_id) == set(ids.values())
    assert by_id[ids["damaged"]]["readable"] is False
    assert "--recover-to" in by_id[ids["damaged"]]["problem"]
    assert by_id[ids["first"]]["readable"] is True and "problem" not in by_id[ids["first"]]
    assert by_id[ids["first"]]["runs_done"] == 3

    shown = linklab("sessions", "show", bad, "--db", str(path))
    assert shown.returncode != 0 and why in shown.stderr and "--recover-to" in shown.stderr

    # The readable ones beside it: shown, compared, exported (and imported elsewhere).
    first, last = ids["first"][:8], ids["last"][:8]
    assert "name        first" in linklab("sessions", "show", first, "--db", str(path)).stdout
    compared = linklab("compare", first, last, "--db", str(path))
    assert compared.returncode == 0 and "Baseline session: first" in compared.stdout
    out = tmp_path / "two.linklab"
    exported = linklab(
        "export", first, last, "--format", "json", "--out", str(out), "--db", str(path)
    )
    assert exported.returncode == 0, exported.stderr
    assert {s.record.name for s in read_exchange(out).sessions} == {"first", "last"}
    csv = linklab("export", last, "--format", "csv", "--out", "-", "--db", str(path))
    assert csv.returncode == 0 and len(csv.stdout.splitlines()) == 4  # header and 3 runs
    refused = linklab("export", bad, "--format", "json", "--out", str(out), "--db", str(path))
    assert refused.returncode != 0 and "--recover-to" in refused.stderr

    # The store says the same to the window's list: two sessions, one unreadable beside them.
    listing = FrontDoor(path).sessions().listing()
    assert {s.name for s in listing.sessions} == {"first", "last"}
    (unreadable,) = listing.unreadable
    assert unreadable.id == ids["damaged"] and unreadable.name == "damaged"
    assert why in unreadable.what and unreadable.runs_done == 3
    with Database(path, readonly=True) as opened, pytest.raises(SessionUnreadable):
        SessionStore(opened).get(bad)

    # What --recover-to (named in the sentence) does with it: the others copied, it named.
    found = recover(path, tmp_path / "copy.sqlite3")
    assert found.sessions_saved == 2 and found.sessions_lost == 1
    assert any(bad in line for line in found.lost_sessions)


@pytest.mark.parametrize("case", sorted(DAMAGED_PART))
def test_a_damaged_name_tag_or_environment_is_shown_and_named(
    case: str, db: tuple[Path, dict[str, str]]
) -> None:
    path, ids = db
    how, part, words = DAMAGED_PART[case]
    _damage(path, ids["damaged"], how)
    bad = ids["damaged"][:8]

    rows, note, last = _listed(path, ids)
    assert all("completed" in row and "3/3" in row for row in rows.values())
    assert words in note and "--recover-to" in note
    assert last == "3 sessions."

    (damaged,) = [s for s in FrontDoor(path).sessions().readable() if s.id == ids["damaged"]]
    assert damaged.damaged == (part,)
    others = [s for s in FrontDoor(path).sessions().readable() if s.id != ids["damaged"]]
    assert all(not s.damaged and s.conditions.tag_dict == {"room": "lab 2"} for s in others)
    if part == "name":
        assert damaged.name == "" and "(name unreadable)" in rows[bad]
    if part == "conditions":
        assert damaged.conditions == Conditions()
    if part == "environment":
        assert damaged.environment == {}

    shown = linklab("sessions", "show", bad, "--db", str(path), "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert words in data["problem"] and data["runs_done"] == 3 and len(data["points"]) == 1

    # Giving the part again mends it: the name by renaming, the tags by tagging.
    if part == "name":
        FrontDoor(path).sessions().rename(ids["damaged"], "mended")
    elif part == "conditions":
        FrontDoor(path).sessions().tag(ids["damaged"], "room=lab 3")
    if part != "environment":
        (mended,) = [s for s in FrontDoor(path).sessions().readable() if s.id == ids["damaged"]]
        assert mended.damaged == ()
