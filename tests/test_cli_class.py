"""`linklab class DIR` on hand-ins measured for real: students run a short two-step exercise on
the loopback (`linklab run --exercise ... --peer this-computer`, each with their own database,
as on their own laptops), hand in with `linklab export --format handin`, and the instructor
reads the folder: status and flags per student, and the grades table in a spreadsheet."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from app.domain.exercise import Exercise, Step, new_exercise_id
from app.domain.net import Protocol
from app.domain.plan import Variable
from app.study.lab.exercises import find_ready, write_exercise
from tests.conftest import linklab, require_engine

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
ADA, BJORN, CLEO = "Ada Lovelace", "Björn Ødegård", "Cleo"


def short_exercise() -> Exercise:
    """The student lab's experiments 1 and 4, cut to seconds: TCP and UDP at two packet sizes,
    then TCP at two window sizes; one 1-s run per point."""
    lab = find_ready("student-lab")
    sizes = replace(
        lab.steps[0].plan,
        protocols=(Protocol.TCP, Protocol.UDP),
        variable=Variable.LENGTH,
        values=(256, 1408),
        repetitions=1,
        duration_s=1,
        bitrate_bps=50_000_000,
    )
    window = replace(lab.steps[3].plan, values=(65536, 262144), repetitions=1, duration_s=1)
    return Exercise(
        new_exercise_id(),
        "Loopback lab",
        "To see what LinkLab's class view makes of real hand-ins.",
        (
            Step("Step 1: packet size", "Press Start.", sizes, ("protocol", "sizes", "runs")),
            Step("Step 2: TCP window", "Press Start.", window, ("protocol", "sizes", "runs")),
        ),
        ("What did you learn?",),
    )


@dataclass(frozen=True)
class Lab:
    folder: Path  # hand-ins: complete, incomplete, and the complete one copied under another name
    honest: Path  # the complete and the incomplete one only
    altered: Path  # the complete one with a stored figure edited
    exercise_file: Path
    exercise: Exercise


def measure(exercise_file: Path, student: str, group: str, db: Path) -> str:
    """One step, the next the student has not done; returns the session's id."""
    done = linklab(
        "run", "--exercise", str(exercise_file), "--student", student, "--group", group,
        "--peer", "this-computer", "--db", str(db), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed", result
    return str(result["session_id"])


def hand_in(db: Path, sessions: list[str], out: Path) -> None:
    done = linklab("export", *sessions, "--format", "handin", "--out", str(out), "--db", str(db))
    assert done.returncode == 0, done.stderr
    count = f"{len(sessions)} session{'s' if len(sessions) != 1 else ''}"  # "1 session"
    assert f"hand-in of “Loopback lab” ({count})" in done.stderr


def read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    """Measured once for every test here: six real runs for Ada, four for Björn."""
    require_engine("iperf3")
    root = tmp_path_factory.mktemp("class")
    exercise = short_exercise()
    exercise_file = write_exercise(root / "loopback.linklab-exercise", exercise)
    folder, honest, altered = root / "handins", root / "honest", root / "altered"
    for path in (folder, honest, altered):
        path.mkdir()
    ada_db, bjorn_db = root / "ada.sqlite3", root / "bjorn.sqlite3"
    ada = [measure(exercise_file, ADA, "G1", ada_db) for _ in exercise.steps]
    bjorn = [measure(exercise_file, BJORN, "G2", bjorn_db)]  # step 1 only
    hand_in(ada_db, ada, folder / "ada.linklab")
    hand_in(bjorn_db, bjorn, folder / "bjorn.linklab")
    for name in ("ada.linklab", "bjorn.linklab"):
        shutil.copy(folder / name, honest / name)
    # Cleo hands in Ada's file with her own name on it.
    copied = read(folder / "ada.linklab")
    copied["handin"]["student"] = CLEO
    write(folder / "cleo.linklab", copied)
    # Ada's file with one run's stored throughput raised by a fifth.
    edited = read(folder / "ada.linklab")
    run = next(r for r in edited["sessions"][0]["runs"] if r["status"] == "ok")
    run["metrics"]["throughput_bps"] *= 1.2
    write(altered / "ada.linklab", edited)
    return Lab(folder, honest, altered, exercise_file, exercise)


HERE = "this computer"  # the flag of a step measured on the loopback


def class_json(folder: Path, *options: str) -> dict[str, Any]:
    done = linklab("class", str(folder), "--json", *options)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def by_student(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["student"]: row for row in data["students"]}


# Over 10 s: the module's set-up measures three students' exercises for real, shared by its tests.
def test_complete_incomplete_and_duplicate(lab: Lab) -> None:
    data = class_json(lab.folder)
    assert data["exercise"] == {"id": lab.exercise.id, "title": "Loopback lab"}
    assert data["unreadable"] == []
    rows = by_student(data)
    assert set(rows) == {ADA, BJORN, CLEO}
    ada, bjorn, cleo = rows[ADA], rows[BJORN], rows[CLEO]
    # Measured on the loopback (this test has no second computer): flagged so, as it must be.
    assert (ada["status"], ada["flags"]) == ("complete", [HERE, "duplicate"])
    assert (cleo["status"], cleo["flags"]) == ("complete", [HERE, "duplicate"])
    assert (bjorn["status"], bjorn["flags"]) == ("incomplete", ["incomplete", HERE])
    assert "The same measurements as Cleo." in ada["notes"]
    assert f"The same measurements as {ADA}." in cleo["notes"]
    assert "Steps not finished: 2." in bjorn["notes"]
    # Steps and runs: Ada measured 4 + 2 runs, Björn 4 of his 6.
    assert (ada["steps_done"], ada["steps"], ada["runs_done"], ada["runs_planned"]) == (2, 2, 6, 6)
    assert (bjorn["steps_done"], bjorn["runs_done"], bjorn["runs_planned"]) == (1, 4, 6)
    assert (ada["group"], bjorn["group"], cleo["group"]) == ("G1", "G2", "G1")
    first, second = ada["results"]
    assert first["series"] == "TCP · IPv4" and first["mean_throughput_bps"] > 0
    assert second["done"] and second["mean_throughput_bps"] > 0
    assert bjorn["results"][1]["mean_throughput_bps"] is None
    # The class median of step 1 over three hand-ins (two of them the same measurement).
    means = sorted(r["results"][0]["mean_throughput_bps"] for r in rows.values())
    assert first["class_median_bps"] == pytest.approx(means[1])
    assert second["class_median_bps"] == pytest.approx(second["mean_throughput_bps"])


def test_honest_handins_carry_no_flag_but_incomplete(lab: Lab) -> None:
    rows = by_student(class_json(lab.honest, "--exercise", str(lab.exercise_file)))
    ada = rows[ADA]
    assert (ada["status"], ada["flags"]) == ("complete", [HERE])  # the loopback, said so
    assert all("was measured against this computer (the loopback)" in n for n in ada["notes"])
    assert rows[BJORN]["flags"] == ["incomplete", HERE]


def test_an_edited_figure_is_flagged_altered(lab: Lab) -> None:
    (edited,) = class_json(lab.altered)["students"]
    assert edited["student"] == ADA
    assert edited["flags"] == ["altered", HERE]
    assert edited["status"] == "complete"
    assert any("disagrees with the engine's own output" in n for n in edited["notes"])


def test_class_as_text(lab: Lab) -> None:
    done = linklab("class", str(lab.folder))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Loopback lab: 3 hand-ins"
    assert any(line.startswith(f"{BJORN} (G2): incomplete, steps 1/2, runs 4/6") for line in lines)
    assert any(line.startswith("Class median: 1: ") for line in lines)


def test_grades_csv(lab: Lab, tmp_path: Path) -> None:
    grades = tmp_path / "grades.csv"
    done = linklab("class", str(lab.folder), "--csv", str(grades))
    assert done.returncode == 0, done.stderr
    assert f"Wrote {grades}." in done.stderr
    raw = grades.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with a byte-order mark: Excel reads it so
    table = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert [r["student"] for r in table] == [ADA, CLEO, BJORN]  # by group, then name
    ada = table[0]
    assert (ada["status"], ada["flags"], ada["steps_done"], ada["runs_done"]) == (
        "complete", f"{HERE}; duplicate", "2", "6",
    )  # fmt: skip
    assert float(ada["step1_mbit_s"]) > 0 and float(ada["step1_class_median_mbit_s"]) > 0
    assert table[2]["step2_mbit_s"] == ""


@pytest.mark.skipif(
    SOFFICE is None,
    reason="LibreOffice is missing: scripts/ensure-desktop.sh --with-screenshots installs it",
)
def test_libreoffice_opens_the_grades(lab: Lab, tmp_path: Path) -> None:
    """A spreadsheet reads the grades table: names with their accents, figures as numbers."""
    grades = tmp_path / "grades.csv"
    assert linklab("class", str(lab.folder), "--csv", str(grades)).returncode == 0
    argv = [str(SOFFICE), f"-env:UserInstallation={(tmp_path / 'lo').resolve().as_uri()}"]
    # Comma-separated, quoted by ", UTF-8 (76): what Calc's import dialog offers.
    argv += ["--headless", "--infilter=CSV:44,34,76,1", "--convert-to", "html"]
    argv += ["--outdir", str(tmp_path), str(grades)]
    subprocess.run(argv, capture_output=True, timeout=180, check=True)
    page = (tmp_path / "grades.html").read_text(encoding="utf-8", errors="replace")
    cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", page)]
    assert cells[0] == "student"  # the byte-order mark is not part of the first header
    assert BJORN in cells and ADA in cells
    assert "incomplete; this computer" in cells and f"{HERE}; duplicate" in cells
    assert 'sdval="6"' in page  # Ada's runs done, read as a number
