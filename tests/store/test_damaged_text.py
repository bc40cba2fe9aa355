"""Damaged text in a real SQLite file (a value that is not UTF-8: a damaged page, another
tool's write): it reads as U+FFFD, and every other session is still listed and exported; a
damaged page met while reading names `linklab doctor --db FILE --recover-to NEW`."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.domain.results import Sample
from app.store.db import Database
from app.store.sessions import SessionStore
from tests.conftest import linklab
from tests.store.test_recover import _damaged


def _two_sessions(path: Path) -> dict[str, str]:
    plan = Plan(peer=Peer("127.0.0.1"), values=(1408,), repetitions=1, duration_s=1)
    ids = {}
    with Database(path) as db:
        store = SessionStore(db)
        for name in ("damaged", "intact"):
            sid = store.create_session(plan)
            store.rename(sid, name)
            store.add_run(
                sid,
                RunKey(Protocol.TCP, IpVersion.V4, 0, 1),
                1408.0,
                metrics=RunMetrics(throughput_bps=5e6),
                samples=[Sample(0.0, 1.0, sent_bps=5e6)],
                started_at=utc_now(),
                elapsed_s=1.0,
                engine="iperf3",
                raw_output="[  5]   0.00-1.00   sec",
            )
            ids[name] = sid
    # Bytes that are not UTF-8 ("Ann" + 0xE9, Latin-1's é) written past LinkLab, as a
    # damaged page or another tool would leave them.
    conn = sqlite3.connect(path)
    conn.execute(
        "UPDATE sessions SET name = CAST(x'416e6ee9' AS TEXT) WHERE id = ?", (ids["damaged"],)
    )
    conn.execute(
        "UPDATE runs SET error = CAST(x'ff20fe' AS TEXT) WHERE session_id = ?", (ids["damaged"],)
    )
    conn.commit()
    conn.close()
    return ids


def test_an_undecodable_name_reads_as_replacement_and_hides_nothing(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite3"
    ids = _two_sessions(db)
    listed = linklab("sessions", "--db", str(db), "--json", "list")
    assert listed.returncode == 0, listed.stderr
    names = {s["session_id"]: s["name"] for s in json.loads(listed.stdout)}
    assert names[ids["damaged"]] == "Ann\ufffd" and names[ids["intact"]] == "intact"
    plain = linklab("sessions", "--db", str(db), "list")
    assert plain.returncode == 0 and "Ann\ufffd" in plain.stdout and "intact" in plain.stdout
    for name, sid in ids.items():
        out = tmp_path / f"{name}.csv"
        done = linklab("export", "--db", str(db), "--format", "csv", "--out", str(out), sid)
        assert done.returncode == 0, done.stderr
        with out.open(encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == 1 and float(rows[0]["throughput_bps"]) == 5e6
    both = tmp_path / "both.json"
    done = linklab("export", "--db", str(db), "--format", "json", "--out", str(both),
                   *ids.values())  # fmt: skip
    assert done.returncode == 0, done.stderr
    exported = json.loads(both.read_text(encoding="utf-8"))["sessions"]
    assert sorted(s["name"] for s in exported) == ["Ann\ufffd", "intact"]


def test_a_damaged_page_met_while_reading_names_doctor_recover_to(tmp_path: Path) -> None:
    db = tmp_path / "linklab.sqlite3"
    _damaged(db)
    done = linklab("export", "--db", str(db), "--format", "csv",
                   "--out", str(tmp_path / "m.csv"), "middle")  # fmt: skip
    assert done.returncode != 0
    assert f"linklab doctor --db {db} --recover-to NEW.sqlite3" in done.stderr, done.stderr
