"""Kept responsiveness results on the command line: `linklab sessions` lists them beside the
sessions (JSON with their kind), shows, renames and deletes them; `linklab export` writes their
CSV, JSON, card PNG and HTML report; `linklab compare` compares two per direction."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

import pytest

from app.report.responsiveness_export import step_rows, summary_rows
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.comparison import compare_results
from app.study.responsiveness.kept import KeptResult
from tests.conftest import linklab as run_linklab
from tests.responsiveness_made import SETTINGS, three_ways
from tests.ui.test_sessions_tab import make_session


def linklab(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_linklab(*args, "--db", str(db), timeout=60)


@pytest.fixture
def kept(tmp_path: Path) -> tuple[Path, KeptResult, KeptResult]:
    db = tmp_path / "lab.sqlite3"
    make_session(db, "A sweep", when="2025-01-01T08:00:00+00:00")
    results = FrontDoor(db).results()
    evening = results.keep(three_ways(8.0, 12.0, 20.0, seed=1), SETTINGS, name="Lab B, evening")
    morning = results.keep(three_ways(30.0, 12.2, 45.0, seed=2), SETTINGS, name="Lab B, morning")
    return db, results.get(evening.id), results.get(morning.id)


def test_sessions_lists_results_with_their_kind(kept: tuple[Path, KeptResult, KeptResult]) -> None:
    db, evening, _ = kept
    done = linklab(db, "sessions", "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert [item["kind"] for item in listed] == ["responsiveness", "responsiveness", "sweep"]
    assert [item["name"] for item in listed] == ["Lab B, morning", "Lab B, evening", "A sweep"]
    assert listed[1]["session_id"] == evening.id
    assert listed[1]["rpm"]["download"] == round(evening.result.loads[0].rpm or 0)
    assert "plan" not in listed[1] and listed[2]["status"] == "completed"
    text = linklab(db, "sessions").stdout
    assert "Responsiveness results" in text and "Lab B, evening" in text and "A sweep" in text
    assert f"{evening.result.loads[0].rpm:,.0f} RPM" in text
    assert text.rstrip().endswith("1 session, 2 responsiveness results.")
    stopped = json.loads(linklab(db, "sessions", "list", "--status", "stopped", "--json").stdout)
    assert stopped == []  # a result is a finished test


def test_show_rename_delete_by_reference(kept: tuple[Path, KeptResult, KeptResult]) -> None:
    db, evening, _ = kept
    shown = linklab(db, "sessions", "show", evening.short_id)
    assert shown.returncode == 0, shown.stderr
    assert "Lab B, evening" in shown.stdout and "Downlink responsiveness" in shown.stdout
    data = json.loads(linklab(db, "sessions", "show", evening.short_id, "--json").stdout)
    assert data["kind"] == "responsiveness" and len(data["steps"]["download"]) == 4
    renamed = linklab(db, "sessions", "rename", evening.short_id, "After the fix")
    assert renamed.returncode == 0, renamed.stderr
    assert "name 'After the fix'" in renamed.stdout
    tagged = linklab(db, "sessions", "tag", "After the fix", "room=B12")
    assert tagged.returncode != 0 and "has no tags" in tagged.stderr
    gone = linklab(db, "sessions", "delete", "After the fix", "--yes")
    assert gone.returncode == 0 and "Deleted responsiveness result" in gone.stderr
    assert [k.name for k in FrontDoor(db).results().kept()] == ["Lab B, morning"]


# Over 10 s: a kept responsiveness result exported in all four formats holds the table's figures.
def test_exports_hold_the_tables_figures(
    kept: tuple[Path, KeptResult, KeptResult], tmp_path: Path
) -> None:
    db, evening, _ = kept
    out = {kind: tmp_path / f"evening.{kind}" for kind in ("csv", "json", "png", "html")}
    for kind, path in out.items():
        done = linklab(db, "export", evening.short_id, "--format", kind, "--out", str(path))
        assert done.returncode == 0, done.stderr
    head, tail = out["csv"].read_text(encoding="utf-8-sig").split("\n\n")
    assert list(csv.reader(io.StringIO(head)))[1:] == summary_rows(evening)
    assert list(csv.reader(io.StringIO(tail)))[1:] == step_rows(evening)
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    assert data["format_version"] == 1 and data["session_id"] == evening.id
    assert out["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = out["html"].read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 2 and "Lab B, evening" in page


def test_compare_two_results(kept: tuple[Path, KeptResult, KeptResult], tmp_path: Path) -> None:
    db, evening, morning = kept
    expected = compare_results(evening, morning)
    done = linklab(db, "compare", evening.short_id, morning.short_id, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["findings"] == expected.findings
    assert [d["significant"] for d in data["directions"]] == [r.significant for r in expected.rows]
    table = tmp_path / "cmp.csv"
    text = linklab(db, "compare", evening.short_id, morning.short_id, "--csv", str(table))
    assert text.returncode == 0, text.stderr
    for sentence in expected.findings:
        assert sentence in text.stdout
    rows = list(csv.reader(io.StringIO(table.read_text(encoding="utf-8-sig"))))
    assert [r[0] for r in rows[1:]] == ["Download", "Upload", "Both at once"]
    assert [r[-1] for r in rows[1:]] == [r[-1] for r in expected.table()]
