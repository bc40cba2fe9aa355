"""A class measuring together, on a bed of its own: six station namespaces behind one shared
link (a bridge whose port toward the server is shaped with htb, a class per station) to a
server namespace running `linklab serve --count 6`, the collector (`linklab class-server`) on
the instructor's side, and six `linklab run --exercise FILE --wait-for-start` stations. The
shares are checked against the link's rate and against each iperf3 server's own report, the
index against what the rates predict, and a station killed, the collector killed and started
again, and reports arriving late each against what they are."""

from __future__ import annotations

import csv
import io
import json
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.analysis.fairness import jain_index
from app.store.class_backends import open_class_store
from app.study.lab.class_http import call
from app.study.lab.exercises import write_exercise
from app.study.lab.together import read_together
from app.study.lab.together_results import LAST_WORD_S, START_TOLERANCE_S, together_result
from tests.classlive import INSTRUCTOR, TOKEN, short_exercise
from tests.conftest import free_port, linklab, require_engine
from tests.testbed import Bed, ClassBed
from tests.togetherbed import (
    PYTHON,
    agree_with_servers,
    goodput,
    size,
    start_pool,
    start_stations,
    station_ports,
    total_within,
    wait_for_line,
    wait_for_stations,
)

STATIONS = 6
RATE_MBIT = 24.0  # the shared link: a few tens of Mbit/s, so the bed costs little CPU
SLOW_MBIT = 1.0  # one station's own access link, shaped below its fair share (4 Mbit/s)
SECONDS = 3
BED = Bed(stations=STATIONS, rate_mbit=RATE_MBIT, needs=("nft",))


@dataclass
class Lab:
    bed: ClassBed
    root: Path
    port: int
    exercise: Path
    collector: subprocess.Popen[str]
    stations: list[subprocess.Popen[str]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://{self.bed.HERE4}:{self.port}"

    @property
    def store(self) -> str:
        return f"sqlite:{self.root / 'class.sqlite3'}"

    @property
    def instructor_file(self) -> str:
        return str(self.root / "instructor.token")

    def log(self, name: str) -> Path:
        return self.root / f"{name}.log"

    def start_collector(self) -> None:
        argv = [
            *PYTHON, "class-server", "--listen", f"{self.bed.HERE4}:{self.port}",
            "--store", self.store, "--token-file", str(self.root / "class.token"),
            "--rate", "1000",
        ]  # fmt: skip
        mark = size(self.log("collector"))
        self.collector = self.bed.start(None, argv, self.log("collector"))
        wait_for_line(self.log("collector"), "Press Ctrl+C to stop.", mark, self.collector)

    def serve_log_mark(self) -> int:
        return size(self.log("serve"))


@pytest.fixture(scope="module")
def lab(bed: ClassBed, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    require_engine("iperf3")
    root = tmp_path_factory.mktemp("together")
    for name, token in (("class.token", TOKEN), ("instructor.token", INSTRUCTOR)):
        (root / name).write_text(token + "\n", encoding="utf-8")
        (root / name).chmod(0o600)
    exercise = write_exercise(root / "lab.linklab-exercise", short_exercise())
    started = Lab(bed, root, free_port(), exercise, None)  # type: ignore[arg-type]
    started.start_collector()
    from app.study.lab.collector import write_into_exercise

    write_into_exercise(exercise, started.url, TOKEN)
    start_pool(bed, started.url, root / "instructor.token", started.log("serve"))
    started.stations = start_stations(bed, exercise, root)
    wait_for_stations(started.store, STATIONS, root)
    yield started
    for proc in started.stations:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in started.stations:
        proc.wait(timeout=30)


def together(lab: Lab, *more: str) -> dict[str, Any]:
    done = linklab(
        "class", lab.url, "--together", "--seconds", str(SECONDS),
        "--instructor-token-file", lab.instructor_file, "--json", *more,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def check_against_servers(lab: Lab, data: dict[str, Any], since: int) -> None:
    slots = [
        (slot["label"], [(s["student"], s["mean_bps"]) for s in slot["stations"]])
        for slot in data["slots"]
    ]
    agree_with_servers(slots, station_ports(lab.store), lab.log("serve"), since)


def test_six_stations_share_the_link_evenly(lab: Lab) -> None:
    since = lab.serve_log_mark()
    grades, report = lab.root / "grades.csv", lab.root / "class.html"
    data = together(lab, "--rounds", "2", "--csv", str(grades), "--report", str(report))
    assert data["state"] == "done"
    # The grades table and the class report say the figures the JSON says.
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(grades.read_text("utf-8-sig")))}
    for station in data["stations"]:
        share = station["share"]["mean"]
        assert float(rows[station["student"]]["together_share_pct"]) == round(share * 100, 2)
    page = report.read_text(encoding="utf-8")
    for slot in data["slots"]:
        assert f">{slot['index']:.3f}<" in page
    assert data["findings"][0].replace("'", "&#x27;") in page
    best = goodput(RATE_MBIT)
    rounds = [s for s in data["slots"] if s["kind"] == "together"]
    assert len(rounds) == 2
    for slot in rounds:
        assert [s["status"] for s in slot["stations"]] == ["ok"] * STATIONS, slot
        total = slot["total_bps"]
        print(
            f"{slot['label']}: total {total / 1e6:.3f} Mbit/s of {RATE_MBIT:g} Mbit/s on the "
            f"wire ({best / 1e6:.3f} Mbit/s of TCP goodput), index {slot['index']:.4f}, starts "
            f"within {slot['start_spread_s'] * 1000:.1f} ms"
        )
        # The shares add up to the link's rate less its frame overhead: within that
        # overhead's size of the goodput the model gives (and the starts' spread's share).
        assert total_within(total, RATE_MBIT, SECONDS, slot["start_spread_s"])
        shares = [s["share"] for s in slot["stations"]]
        assert sum(shares) == pytest.approx(1.0)
        # Equal stations, a link shared station by station: the index is 1 within the noise
        # of 3-s rounds (0.98: every station within about ±14 % of the mean).
        assert slot["index"] >= 0.98
        assert slot["index"] == pytest.approx(jain_index([s["mean_bps"] for s in slot["stations"]]))
        # The starts agree: every engine started within the tolerance, and the spread is said.
        assert 0 <= slot["start_spread_s"] < START_TOLERANCE_S
    assert data["index"]["n"] == 2 and data["index"]["ci95_low"] <= data["index"]["mean"]
    assert any("started within" in s for s in data["findings"])
    for station in data["stations"]:
        assert station["rounds_counted"] == 2
        assert station["share"]["mean"] == pytest.approx(1 / STATIONS, rel=0.2)
        assert station["clock_offset_s"] is not None
    check_against_servers(lab, data, since)


def test_a_slower_station_lowers_the_index_as_the_rates_say(lab: Lab) -> None:
    """Station 6's own link shaped to 1 Mbit/s: it gets that, the other five share the rest
    evenly (max-min fair), and Jain's index falls to what those rates give. Alone, each
    station had the whole link: the others lose 5/6 of it and more under contention,
    station 6 nothing."""
    lab.bed.set_access(STATIONS, SLOW_MBIT)
    since = lab.serve_log_mark()
    try:
        data = together(lab, "--rounds", "2", "--alone")
    finally:
        lab.bed.set_access(STATIONS, None)
    # Over a short round, the access link's bucket (its first 16 KB at the veth's speed)
    # adds its bytes to the rate.
    burst_mbit = ClassBed.ACCESS_BURST_BYTES * 8 / SECONDS / 1e6
    best, slow = goodput(RATE_MBIT), goodput(SLOW_MBIT + burst_mbit)
    others = (best - slow) / (STATIONS - 1)
    predicted = jain_index([others] * (STATIONS - 1) + [slow])
    assert predicted is not None
    print(
        f"predicted: station 6 {slow / 1e6:.3f} Mbit/s, the others {others / 1e6:.3f} Mbit/s "
        f"each, index {predicted:.4f} (equal stations: 1)"
    )
    rounds = [s for s in data["slots"] if s["kind"] == "together"]
    for slot in rounds:
        assert [s["status"] for s in slot["stations"]] == ["ok"] * STATIONS, slot
        print(f"{slot['label']}: index {slot['index']:.4f}, slowest {slot['slowest']}")
        assert slot["slowest"] == f"Station {STATIONS}"
        assert slot["index"] == pytest.approx(predicted, abs=0.02)
    assert data["index"]["mean"] == pytest.approx(predicted, abs=0.02)
    by_name = {s["student"]: s for s in data["stations"]}
    for name, station in by_name.items():
        alone, loss = station["alone_bps"], station["contention_loss"]
        print(f"{name}: alone {alone / 1e6:.3f} Mbit/s, loss under contention {loss:.1%}")
        if name == f"Station {STATIONS}":
            # Within 5 %: alone, its short round ends on its own bucket's timing (966 kbit/s
            # of the 998 predicted was seen beside a whole test suite).
            assert alone == pytest.approx(slow, rel=0.05)
            assert abs(loss) <= 0.03
        else:
            # Alone it had the whole link, not a fifth of it: within 5 % on a quiet computer;
            # on a busy one its engine waits for a core now and then and the short round
            # leaves the link idle meanwhile (20.8 of 23.0 Mbit/s seen beside a busy core), so
            # the model is its ceiling, and its loss together is reckoned from its own alone.
            assert best * 0.8 <= alone <= best * 1.05
            assert loss == pytest.approx(1 - others / alone, abs=0.05)
    check_against_servers(lab, data, since)


def _result_now(lab: Lab, together_id: str, at: float) -> Any:
    """The results as the store holds them, read as an instructor would at time at."""
    store = open_class_store(lab.store)
    try:
        row = store.together(together_id)
        assert row is not None
        return together_result(read_together(row), store.reports(together_id), at)
    finally:
        store.close()


def _parts(lab: Lab, together_id: str) -> list[tuple[int, str, int]]:
    store = open_class_store(lab.store)
    try:
        return [(r["slot"], r["student"], r["part"]) for r in store.reports(together_id)]
    finally:
        store.close()


def _slots_of(lab: Lab, student: str) -> int:
    """How many slots the station was given over every Start together of the module."""
    store = open_class_store(lab.store)
    try:
        togethers = [read_together(store.together(r["id"]) or {}) for r in store.togethers()]
    finally:
        store.close()
    return sum(1 for t in togethers for slot in t.slots if student in slot.stations)


def test_a_dropped_station_a_late_report_and_a_collector_restart(lab: Lab) -> None:
    """Mid-round, station 3 is killed and so is the collector. What was stored stays; with
    the collector away, every station's end is unheard; once it is back, the others' reports
    arrive late and the round is worked out again with them; station 3 stays out, named with
    its reason, never a zero share."""
    plan = {"plan": {"seconds": 4, "rounds": 1}}
    answer = call(lab.url, INSTRUCTOR, "/v1/together/start", json.dumps(plan).encode())
    assert answer.status == 200, answer.sentence
    together_id, start_at = answer.data["together"], answer.data["start_at"]
    end = start_at + 4
    while time.time() < start_at + 2.0:
        time.sleep(0.05)
    lab.stations[2].kill()  # Station 3, mid-run
    lab.stations[2].wait()
    time.sleep(0.3)
    lab.collector.kill()  # the collector too, while the others measure and push
    lab.collector.wait()
    stored = _parts(lab, together_id)
    assert any(student == "Station 3" for _, student, _ in stored)
    while time.time() < end + 1.5:  # the round ends with nobody to hear it
        time.sleep(0.1)
    # As the instructor would see it once the last words are overdue: nothing was lost of
    # what was stored, every station went silent, none counts.
    away = _result_now(lab, together_id, end + LAST_WORD_S + 1)
    assert set(_parts(lab, together_id)) >= set(stored)
    (slot,) = away.slots
    print([(s.student, s.status.value, s.reason) for s in slot.stations])
    assert {s.status.value for s in slot.stations} <= {"dropped", "silent"}
    lab.start_collector()  # started again on the same store and port
    deadline = time.monotonic() + 60
    while sum(1 for _, s, p in _parts(lab, together_id) if p == -1) < STATIONS - 1:
        assert time.monotonic() < deadline, _parts(lab, together_id)
        time.sleep(0.3)
    while time.time() < end + LAST_WORD_S + 0.5:  # station 3's last word is overdue
        time.sleep(0.1)
    done = linklab(
        "class", lab.url, "--together-result", together_id,
        "--instructor-token-file", lab.instructor_file, "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    (round_,) = data["slots"]
    status = {s["student"]: s for s in round_["stations"]}
    for name, station in status.items():
        print(f"{name}: {station['status']} {station['reason']}")
    dropped = status.pop("Station 3")
    assert dropped["status"] == "dropped" and not dropped["counted"]
    assert re.search(r"dropped out after \d s of 4", dropped["reason"]), dropped["reason"]
    assert dropped["share"] is None  # never a zero share
    assert {s["status"] for s in status.values()} == {"ok"}
    means = [s["mean_bps"] for s in status.values()]
    assert round_["index"] == pytest.approx(jain_index(means))
    assert any("Station 3 is left out of round 1 together" in s for s in data["findings"])
    # The same, as the command line prints it for a person.
    text = linklab(
        "class", lab.url, "--together-result", together_id,
        "--instructor-token-file", lab.instructor_file,
    ).stdout  # fmt: skip
    assert f"round 1 together: Jain's index {round_['index']:.3f}" in text
    assert "    Station 3: left out: it dropped out after" in text
    # Each station kept its runs in its own database, whatever the collector went through.
    with_runs = linklab("sessions", "--db", str(lab.root / "station1.sqlite3"), "--json")
    sessions = json.loads(with_runs.stdout)
    kept = [s for s in sessions if s["name"].startswith("Together: Station 1,")]
    assert len(kept) == _slots_of(lab, "Station 1")
    assert {s["status"] for s in kept} == {"completed"}
