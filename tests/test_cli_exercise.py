"""Lab exercises from the command line: an instructor writes one, a student follows it with
`linklab run --exercise` (real iperf3 on the loopback), answers, and drafts the report; locked
fields and steps out of order are refused with a sentence; damaged or hostile exercise files
are refused without a trace of Python."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from app.domain.errors import BadOption
from app.domain.exercise import (
    LOCKABLE,
    exercise_from_dict,
    exercise_to_dict,
    locked_differences,
    with_id,
)
from app.study.lab.exercises import find_ready, ready_exercises, write_exercise
from tests.conftest import linklab as run_linklab


def linklab(*args: str) -> subprocess.CompletedProcess[str]:
    return run_linklab(*args, env={"QT_QPA_PLATFORM": "offscreen"}, timeout=180)


def test_ready_exercises_read_back_as_written() -> None:
    for exercise in ready_exercises():
        again = exercise_from_dict(json.loads(json.dumps(exercise_to_dict(exercise))))
        assert again == exercise
        assert all(set(step.locked) <= set(LOCKABLE) for step in exercise.steps)
    lab = find_ready("student-lab")
    assert [s.plan.variable.value for s in lab.steps] == ["duration", "duration", "loss", "window"]
    assert lab.question_ids()[0][0] == "1.1" and lab.question_ids()[-1][0] == "E.1"


def test_locked_differences_name_the_fields() -> None:
    step = find_ready("student-lab").steps[0]
    changed = replace(step.plan, repetitions=9, bitrate_bps=1, values=(5,))
    assert locked_differences(step, changed) == ["sizes", "bitrate"]  # runs is not locked


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("not json", "not valid JSON"),
        ('{"format": "something else"}', "is not a LinkLab exercise"),
        ("[1, 2]", "is not a LinkLab exercise"),
        (None, "newer LinkLab"),
        ("locks", "locks fields LinkLab does not know"),
        ("reveal", "asks to reveal"),
        ("plan", "has a plan for step 1 that LinkLab cannot use"),
    ],
)
def test_damaged_exercise_files_are_refused(tmp_path: Path, content: str | None, said: str) -> None:
    data = exercise_to_dict(find_ready("open-vs-wpa2"))
    if content is None:
        data["format_version"] = 99
    elif content == "locks":
        data["steps"][0]["locked"] = ["protocol", "everything"]
    elif content == "reveal":
        data["reveal"] = ["passwords"]
    elif content == "plan":
        data["steps"][0]["plan"]["repetitions"] = "many"
    path = tmp_path / "bad.linklab-exercise"
    path.write_text(json.dumps(data) if content in (None, "locks", "reveal", "plan") else content)
    done = linklab("exercise", "show", str(path))
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    with pytest.raises(BadOption):
        from app.study.lab.exercises import read_exercise

        read_exercise(path)


# The instructor's exercise commands.
def test_an_instructor_writes_exercises(tmp_path: Path) -> None:
    listed = linklab("exercise", "new", "--list")
    assert "student-lab:" in listed.stdout and "open-vs-wpa2:" in listed.stdout
    out = tmp_path / "mine.linklab-exercise"
    done = linklab(
        "exercise", "new", "--preset", "lab-tcp-window", "--preset", "lab-packet-loss",
        "--title", "Windows and loss", "--lock", "protocol,sizes", "--question", "Why?",
        "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = json.loads(linklab("exercise", "show", str(out), "--json").stdout)
    assert shown["title"] == "Windows and loss" and len(shown["steps"]) == 2
    assert all(s["locked"] == ["protocol", "sizes"] for s in shown["steps"])
    assert shown["questions"] == ["Why?"]
    wrong = linklab("exercise", "new", "--preset", "lab-tcp-window", "--title", "x",
                    "--lock", "colour", "--out", str(out))  # fmt: skip
    assert wrong.returncode == 2 and "field colour unknown" in wrong.stderr
    copy = tmp_path / "lab.linklab-exercise"
    assert linklab("exercise", "new", "--ready", "student-lab", "--out", str(copy)).returncode == 0
    first = json.loads(linklab("exercise", "show", str(copy), "--json").stdout)
    assert first["id"] != find_ready("student-lab").id  # a class of its own


@pytest.fixture(scope="module")
def short_lab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lab = find_ready("student-lab")
    first = lab.steps[0]
    steps = (replace(first, plan=replace(first.plan, values=(1,), repetitions=1)), *lab.steps[1:])
    folder = tmp_path_factory.mktemp("exercise")
    return write_exercise(folder / "lab.linklab-exercise", with_id(replace(lab, steps=steps)))


# Over 10 s: a student's exercise in the CLI: refusals, locked values, step order, real runs.
@pytest.mark.usefixtures("iperf3_tool")
def test_a_student_follows_the_exercise(short_lab: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "ann.sqlite3")
    base = ["run", "--exercise", str(short_lab), "--peer", "this-computer", "--db", db]
    nameless = linklab(*base)
    assert nameless.returncode == 2 and "--student NAME" in nameless.stderr
    student = [*base, "--student", "Ann Lee", "--group", "G1"]
    locked = linklab(*student, "--sizes", "1,2")
    assert locked.returncode == 2
    assert (
        "locks the swept values, --sizes (its value: 1)" in locked.stderr
        and "ask your instructor" in locked.stderr
    )
    ahead = linklab(*student, "--step", "2")
    assert ahead.returncode == 2 and "Step 2 opens when step 1 is done" in ahead.stderr
    done = linklab(*student, "--json")  # step 1, the first not done
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout)
    shown = json.loads(
        linklab("sessions", "show", session["session_id"], "--db", db, "--json").stdout
    )
    assert shown["assignment"] == {
        "exercise_id": json.loads(short_lab.read_text(encoding="utf-8"))["id"],
        "exercise_title": "Transport protocols on a LAN (student lab)",
        "step": 1,
        "student": "Ann Lee",
        "group": "G1",
    }
    answered = linklab("exercise", "answer", str(short_lab), "--student", "Ann Lee",
                       "--question", "1.1", "--text", "About the same.", "--db", db)  # fmt: skip
    assert answered.returncode == 0, answered.stderr
    nowhere = linklab("exercise", "answer", str(short_lab), "--student", "Ann Lee",
                      "--question", "9.9", "--text", "x", "--db", db)  # fmt: skip
    assert nowhere.returncode == 2 and "has no question 9.9" in nowhere.stderr
    progress = json.loads(
        linklab(
            "exercise", "show", str(short_lab), "--student", "Ann Lee", "--db", db, "--json"
        ).stdout
    )
    assert [s["state"] for s in progress["steps"]] == ["done", "to do", "locked", "locked"]
    assert progress["answers"] == {"1.1": "About the same."} and progress["group"] == "G1"
    report = tmp_path / "ann.docx"
    written = linklab("export", session["session_id"], "--format", "report", "--out", str(report),
                      "--db", db)  # fmt: skip
    assert written.returncode == 0, written.stderr
    from docx import Document

    text = "\n".join(p.text for p in Document(str(report)).paragraphs)
    assert "About the same." in text and "Experiment 2" in text and "Not measured yet." in text
    plain = linklab("sessions", "list", "--db", db, "--json")
    other = linklab("export", json.loads(plain.stdout)[0]["session_id"], "--format", "report",
                    "--out", str(tmp_path / "r.txt"), "--db", db)  # fmt: skip
    assert other.returncode == 2 and ".html, .pdf, .docx" in other.stderr


# Over 10 s: the ready bufferbloat exercise measures working latency for real.
@pytest.mark.usefixtures("iperf3_tool")
def test_the_bufferbloat_exercise_measures_working_latency(tmp_path: Path) -> None:
    """The ready bufferbloat exercise: both load directions on an open network and with WPA2,
    working latency in every step; a step cut to seconds runs on the loopback and its points
    carry idle and loaded latency."""
    bloat = find_ready("bufferbloat")
    assert [(s.plan.direction.value, s.plan.conditions.security.value) for s in bloat.steps] == [
        ("up", "open"),
        ("down", "open"),
        ("up", "WPA2"),
        ("down", "WPA2"),
    ]
    for step in bloat.steps:
        assert [m.value for m in step.plan.metrics] == ["throughput", "latency"]
        assert {"direction", "security", "metric"} <= set(step.locked)
    # Runs of 2 s: a 1-s run beside a busy suite once left a point with no loaded probe
    # counted (no loaded latency); 2 s give the probes under load twice the time.
    first = replace(bloat.steps[0].plan, values=(1, 4), repetitions=1, duration_s=2)
    short = with_id(replace(bloat, steps=(replace(bloat.steps[0], plan=first), *bloat.steps[1:])))
    path = write_exercise(tmp_path / "bloat.linklab-exercise", short)
    db = str(tmp_path / "ann.sqlite3")
    base = ["run", "--exercise", str(path), "--peer", "this-computer", "--db", db]
    student = [*base, "--student", "Ann Lee"]
    refused = linklab(*student, "--direction", "down")
    assert refused.returncode == 2 and "locks the direction" in refused.stderr, refused.stderr
    done = linklab(*student, "--json")
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout)
    shown = json.loads(
        linklab("sessions", "show", session["session_id"], "--db", db, "--json").stdout
    )
    assert [p["value"] for p in shown["points"]] == [1, 4]
    for point in shown["points"]:
        assert point["latency_idle_ms"]["mean"] > 0 and point["latency_ms"]["mean"] > 0
    # The finding says how much longer a probe waited under load than idle.
    (said,) = [f for f in shown["findings"] if "a probe waited" in f]
    assert said.startswith("TCP · IPv4: under upload load, a probe waited "), said


def test_a_flag_changing_a_locked_field_is_refused_before_any_plan_check(tmp_path: Path) -> None:
    """`--runs 1` against an exercise that locks 5 runs: the sentence is the lock's, with the
    exercise's value, not the plan check that 1 run meets first (early stop's minimum)."""
    path = tmp_path / "open-vs-wpa2.linklab-exercise"
    made = linklab("exercise", "new", "--ready", "open-vs-wpa2", "--out", str(path))
    assert made.returncode == 0, made.stderr
    db = str(tmp_path / "ann.sqlite3")
    base = ["run", "--exercise", str(path), "--peer", "this-computer", "--db", db]
    refused = linklab(*base, "--student", "Ann Lee", "--runs", "1")
    assert refused.returncode == 2
    assert "locks the runs per point, --runs (its value: 5)" in refused.stderr, refused.stderr
    assert "Early stop" not in refused.stderr
    sizes = linklab(*base, "--student", "Ann Lee", "--sizes", "64", "--runs", "1")
    assert "--sizes (its value: 128, 384, 640, 896, 1152, 1408)" in sizes.stderr, sizes.stderr
    assert "--runs (its value: 5)" in sizes.stderr


def test_a_name_longer_than_any_real_one_is_refused_not_printed(tmp_path: Path) -> None:
    """--student and --group take a name as the window does: one of 100,000 characters is
    refused with its length before anything is stored, and not printed back."""
    exercise = write_exercise(tmp_path / "lab.linklab-exercise", find_ready("student-lab"))
    db = str(tmp_path / "s.sqlite3")
    long_name = "B" * 100_000
    for args in (
        ("exercise", "answer", str(exercise), "--student", long_name, "--question", "E.1",
         "--text", "x", "--db", db),
        ("run", "--exercise", str(exercise), "--student", "Ann", "--group", long_name,
         "--db", db),
    ):  # fmt: skip
        done = run_linklab(*args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "100,000 characters long; a name is at most 200" in done.stderr
        assert long_name[:300] not in done.stdout + done.stderr
    assert not Path(db).exists() or Path(db).stat().st_size < 200_000
