"""A class measuring together through a real collector on the loopback, on both stores (an
SQLite file and a real PostgreSQL): stations whose clocks are seconds apart start within the
tolerance once each corrects by the offset it measured; each alone, then together, gives
each station's loss under contention; a station that cannot start in time, one whose clock
offset could not be measured and reports that arrive late are each said as what they are;
every bad request is refused with a status and a sentence and stores nothing; the class
tables of schema 1 are migrated."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from app.domain.net import Protocol
from app.domain.together import StationStatus, TogetherPlan
from app.store.class_backends import open_class_store
from app.store.class_schema import CLASS_MIGRATIONS, CLASS_SCHEMA_VERSION, SQLITE, migration
from app.store.class_store import ClassStore
from app.store.db import Database
from app.store.outbox import OutboxStatus
from app.study.lab.class_http import call
from app.study.lab.clock_offset import MAX_DELAY_S, exchange_offset, measure_offset
from app.study.lab.collector import Collector
from app.study.lab.collector_gate import Limits
from app.study.lab.together import FINAL, LEAD_S, REPORT_FORMAT, start_together
from app.study.lab.together_results import LAST_WORD_S, START_TOLERANCE_S
from app.study.lab.together_wire import read_results, results_from_wire
from app.study.lab.together_words import findings
from tests.classlive import INSTRUCTOR, TOKEN, short_exercise, store_url
from tests.conftest import require_engine
from tests.togetherlab import Station, start_stations

STORES = ["sqlite", "postgresql"]
#: UDP at a low rate: three stations on one loopback cost little CPU.
PLAN = TogetherPlan(Protocol.UDP, seconds=2, rounds=2, bitrate_bps=2_000_000)


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ClassStore]:
    pg = request.getfixturevalue("pg_server") if request.param == "postgresql" else None
    opened = open_class_store(store_url(request.param, tmp_path, pg))
    yield opened
    opened.close()


@pytest.fixture
def collector(store: ClassStore) -> Iterator[Collector]:
    server = Collector(
        store,
        TOKEN,
        "127.0.0.1",
        0,
        instructor_token=INSTRUCTOR,
        limits=Limits(rate=1000, burst=1000),
    )
    server.start()
    yield server
    server.stop()


def measure_together(
    stations: list[Station], store: ClassStore, plan: TogetherPlan, lead_s: float = LEAD_S
) -> tuple[str, list[OutboxStatus]]:
    """Every station waits; the class is started; each takes part to its end, then stops
    and sends what is left: the Start together's id, and what each outbox still holds."""
    try:
        for station in stations:
            station.take_part()
        together = start_together(store, plan, time.time(), lead_s=lead_s)
        for station in stations:
            station.join()
    finally:
        statuses = [station.close() for station in stations]
    return together.id, statuses


def test_stations_seconds_apart_start_together(
    collector: Collector, store: ClassStore, tmp_path: Path
) -> None:
    """Three stations, their clocks 2.5 s ahead, right and 1.7 s behind the collector's: each
    measures its offset, and their engines start within the tolerance of one another, where
    by their own clocks they would have been 4.2 s apart."""
    require_engine("iperf3")
    skews = [2.5, 0.0, -1.7]
    stations = start_stations(tmp_path, collector.url, TOKEN, short_exercise(), skews)
    together_id, statuses = measure_together(stations, store, PLAN)
    assert [s.waiting for s in statuses] == [0, 0, 0]
    result, waiting = read_results(store, together_id, time.time() + LAST_WORD_S + 1)
    assert result is not None and result.state == "done"
    for station, skew in zip(result.stations, skews, strict=True):
        assert station.offset_s is not None and station.delay_s is not None
        print(
            f"{station.student}: clock {skew:+.1f} s, offset measured {station.offset_s:+.4f} s "
            f"over a {station.delay_s * 1000:.1f} ms round trip"
        )
        # NTP's bound: the true offset lies within half the exchange's round trip.
        assert abs(station.offset_s + skew) <= station.delay_s / 2 + 0.001
    assert {w.student for w in waiting} == {s.name for s in stations}
    for slot in result.rounds:
        assert [s.status for s in slot.stations] == [StationStatus.OK] * 3
        assert slot.start_spread_s is not None
        print(f"{slot.slot.label}: starts within {slot.start_spread_s * 1000:.1f} ms")
        assert slot.start_spread_s < START_TOLERANCE_S < max(skews) - min(skews)
        assert slot.index is not None and slot.index > 0.95  # three equal UDP flows
    assert result.index.n == 2 and result.index.ci95 is not None
    said = " ".join(findings(result))
    assert "Jain's fairness index" in said and "started within" in said


def test_alone_then_together_gives_each_station_its_loss(
    collector: Collector, store: ClassStore, tmp_path: Path
) -> None:
    """Each station alone first, then together: UDP at a rate the loopback carries three
    times over loses nothing to contention, and the figures say so station by station."""
    require_engine("iperf3")
    stations = start_stations(tmp_path, collector.url, TOKEN, short_exercise(), [0.0, 0.0])
    plan = TogetherPlan(Protocol.UDP, seconds=2, rounds=1, alone=True, bitrate_bps=2_000_000)
    together_id, _ = measure_together(stations, store, plan)
    result, _ = read_results(store, together_id, time.time() + LAST_WORD_S + 1)
    assert result is not None
    assert [s.slot.label for s in result.alone] == ["Station 1 alone", "Station 2 alone"]
    for station in result.stations:
        assert station.alone_bps == pytest.approx(2e6, rel=0.05)
        loss = station.contention_loss
        assert loss is not None and abs(loss) < 0.05
        assert f"{station.student} got" in " ".join(findings(result))


def test_a_late_station_and_one_without_a_clock_are_named_and_left_out(
    collector: Collector, store: ClassStore, tmp_path: Path
) -> None:
    """Station 2 hears of its round only after the round has begun: it does not run it and
    says so. A station whose offset could not be measured checked in without one: it is left
    out from the start, with the reason. Neither is a zero share."""
    require_engine("iperf3")
    stations = start_stations(tmp_path, collector.url, TOKEN, short_exercise(), [0.0, 0.0])
    no_clock = {
        "student": "Station 3",
        "exercise_id": "",
        "offset_s": None,
        "delay_s": None,
        "exchanges": 8,
        "clock_problem": "no exchange was answered",
    }
    answer = call(collector.url, TOKEN, "/v1/together/checkin", json.dumps(no_clock).encode())
    assert answer.status == 200, answer.sentence
    plan = TogetherPlan(Protocol.UDP, seconds=2, rounds=1, bitrate_bps=2_000_000)
    try:
        stations[0].take_part()
        together = start_together(store, plan, time.time(), lead_s=1.0)
        stations[1].take_part(delay_s=2.0)  # busy elsewhere: it asks only after the start
        for station in stations:
            station.join()
    finally:
        for station in stations:
            station.close()
    result, _ = read_results(store, together.id, time.time() + LAST_WORD_S + 1)
    assert result is not None
    (slot,) = result.rounds
    first, late = slot.stations
    assert first.status is StationStatus.OK
    assert late.status is StationStatus.LATE and "could not start in time" in late.reason
    assert "heard of its start" in late.reason
    assert slot.index is None  # one station counted: nothing shared to rate
    assert slot.share("Station 2") is None and slot.total_bps == first.mean_bps
    ((who, status, why),) = result.together.left_out
    assert (who, status) == ("Station 3", StationStatus.NO_CLOCK)
    assert "could not be measured (no exchange was answered)" in why
    said = findings(result)
    assert any(s.startswith("Station 3 did not take part: its clock offset") for s in said)
    assert any(s.startswith("Station 2 is left out of round 1 together") for s in said)


def _report(together_id: str, slot: int, student: str, part: int, **body: Any) -> bytes:
    document = {
        "format": REPORT_FORMAT,
        "format_version": 1,
        "together": together_id,
        "slot": slot,
        "student": student,
        "part": part,
        "figures": [],
        **body,
    }
    return json.dumps(document).encode()


def test_a_late_report_is_counted_when_it_arrives(collector: Collector, store: ClassStore) -> None:
    """Two stations' figures: one's last word is overdue, and it is shown as dropped with its
    reason; when the word arrives, the round is worked out again with it."""
    for name in ("Ann", "Ben"):
        checkin = {"student": name, "offset_s": 0.0, "delay_s": 0.001, "exchanges": 8}
        assert (
            call(collector.url, TOKEN, "/v1/together/checkin", json.dumps(checkin).encode()).status
            == 200
        )
    plan = TogetherPlan(seconds=2, rounds=1)
    together = start_together(store, plan, time.time(), lead_s=0.0)
    start = together.slots[0].start_at
    for name, bps in (("Ann", 4e6), ("Ben", 2e6)):
        for part, second in enumerate((1.0, 2.0)):
            sent = call(
                collector.url,
                TOKEN,
                "/v1/push",
                _report(together.id, 0, name, part, figures=[[second, bps]]),
            )
            assert sent.status == 200, sent.sentence
    final = {
        "status": "ok",
        "started_at": start + 0.01,
        "mean_bps": 4e6,
        "figures": [[1.0, 4e6], [2.0, 4e6]],
    }
    assert (
        call(
            collector.url, TOKEN, "/v1/push", _report(together.id, 0, "Ann", FINAL, **final)
        ).status
        == 200
    )
    overdue = start + 2 + LAST_WORD_S + 1
    before, _ = read_results(store, together.id, overdue)
    assert before is not None
    ann, ben = before.slots[0].stations
    assert ann.status is StationStatus.OK
    assert ben.status is StationStatus.DROPPED and "nothing was heard from it since" in ben.reason
    assert before.slots[0].index is None  # one counted
    late = {
        "status": "ok",
        "started_at": start + 0.02,
        "mean_bps": 2e6,
        "figures": [[1.0, 2e6], [2.0, 2e6]],
    }
    assert (
        call(collector.url, TOKEN, "/v1/push", _report(together.id, 0, "Ben", FINAL, **late)).status
        == 200
    )
    after, _ = read_results(store, together.id, overdue)
    assert after is not None
    slot = after.slots[0]
    assert [s.status for s in slot.stations] == [StationStatus.OK, StationStatus.OK]
    assert slot.index == pytest.approx(36 / 40)  # (4 + 2)² / (2 · (16 + 4))
    assert (slot.slowest, slot.fastest) == ("Ben", "Ann")
    assert slot.start_spread_s == pytest.approx(0.01)
    # The same read by the instructor over HTTP.
    answer = call(collector.url, INSTRUCTOR, f"/v1/together?id={together.id}")
    served, _ = results_from_wire(answer.data)
    assert served is not None and served.slots[0].index == pytest.approx(36 / 40)


def test_the_together_requests_refuse_what_is_wrong_and_store_nothing(
    collector: Collector, store: ClassStore
) -> None:
    url = collector.url

    def post(path: str, body: object, token: str = TOKEN) -> tuple[int, str]:
        answer = call(url, token, path, json.dumps(body).encode())
        return answer.status, answer.sentence

    assert post("/v1/together/clock", {"t0": "noon"})[0] == 422
    assert (
        post("/v1/together/checkin", {"student": "Ann", "offset_s": 1e300, "delay_s": 0.1})[0]
        == 422
    )
    assert post("/v1/together/checkin", {"student": "Ann", "offset_s": 0.1})[0] == 422
    assert post("/v1/together/checkin", {"student": "", "offset_s": 0.1, "delay_s": 0.1})[0] == 422
    status, sentence = post("/v1/together/start", {"plan": {"seconds": 5}})
    assert status == 403 and "needs the instructor token" in sentence
    status, sentence = post("/v1/together/start", {"plan": {"seconds": 5}}, INSTRUCTOR)
    assert status == 409 and "No station is waiting" in sentence and "--wait-for-start" in sentence
    status, sentence = post("/v1/together/start", {"plan": {"seconds": 1}}, INSTRUCTOR)
    assert status == 422 and "2 to 120 s" in sentence
    assert call(url, TOKEN, "/v1/together/next?student=Ann").status == 404
    assert call(url, TOKEN, "/v1/together").status == 403
    assert store.checkins() == [] and store.togethers() == []

    checkin = {"student": "Ann", "offset_s": 0.0, "delay_s": 0.001, "exchanges": 8}
    assert post("/v1/together/checkin", checkin)[0] == 200
    assert post("/v1/together/start", {"plan": {"seconds": 5, "rounds": 1}}, INSTRUCTOR)[0] == 200
    status, sentence = post("/v1/together/start", {"plan": {"seconds": 5}}, INSTRUCTOR)
    assert status == 409 and "measuring together already" in sentence
    (row,) = store.togethers()
    together_id = row["id"]
    next_ = call(url, TOKEN, "/v1/together/next?student=Ann")
    assert next_.status == 200 and next_.data["assignment"]["together"] == together_id

    def push(body: bytes) -> tuple[int, str]:
        answer = call(url, TOKEN, "/v1/push", body)
        return answer.status, answer.sentence

    assert push(_report("0" * 32, 0, "Ann", 0))[0] == 404
    status, sentence = push(_report(together_id, 0, "Ben", 0))
    assert status == 422 and "slot Ben was not given" in sentence
    status, sentence = push(_report(together_id, 0, "Ann", 0, figures=[[1.0, 5e13]]))
    assert status == 422 and "stored nothing" in sentence
    assert push(_report(together_id, 0, "Ann", 0, figures=[[1.0, float("nan")]]))[0] == 400
    assert push(_report(together_id, 0, "Ann", FINAL, status="perfect"))[0] == 422
    # Half a surrogate pair is no character: refused as not LinkLab's JSON, never a 500.
    assert push(_report(together_id, 0, "Ann", FINAL, reason="\ud800"))[0] == 400
    status, sentence = push(b'{"format": "linklab-push", "student": "\\ud800"}')
    assert status == 400 and "not JSON that LinkLab wrote" in sentence
    assert push(_report(together_id, 0, "Ann", 0, format_version=99))[0] == 422
    assert store.reports(together_id) == []
    assert push(_report(together_id, 0, "Ann", 0, figures=[[1.0, 3e6]])) == (200, "Stored.")
    assert (
        push(_report(together_id, 0, "Ann", 0, figures=[[1.0, 3e6]]))[1]
        == "Already stored: nothing new."
    )
    status, sentence = push(_report(together_id, 0, "Ann", 0, figures=[[1.0, 9e6]]))
    assert status == 409 and "never replaced" in sentence
    (stored,) = store.reports(together_id)
    assert json.loads(stored["body_json"])["figures"] == [[1.0, 3e6]]


def _v1_database(path: Path) -> None:
    """An instructor's LinkLab database with the class tables as LinkLab wrote them before
    measuring together (class schema 1), a student's work in them."""
    with Database(path):
        pass
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE class_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)")
        for statement in migration(0, SQLITE):
            conn.execute(statement)
        conn.execute("INSERT INTO class_meta VALUES ('schema', 1), ('changes', 3)")
        conn.execute(
            "INSERT INTO class_work (exercise_id, student, exercise_json, updated_at) VALUES "
            "('ex', 'Ann', '{}', '2026-01-01T00:00:00+00:00')"
        )
    conn.close()


def test_the_class_tables_of_schema_1_are_migrated(tmp_path: Path) -> None:
    assert CLASS_SCHEMA_VERSION == len(CLASS_MIGRATIONS) == 2
    path = tmp_path / "class.sqlite3"
    _v1_database(path)
    store = open_class_store(f"sqlite:{path}")
    try:
        assert store.counts()["work"] == 1 and store.changes() == 3  # kept as it was
        assert store.checkins() == [] and store.together_changes() == 0
    finally:
        store.close()
    conn = sqlite3.connect(path)
    try:
        (version,) = conn.execute("SELECT value FROM class_meta WHERE name = 'schema'").fetchone()
    finally:
        conn.close()
    assert version == 2


def test_the_class_tables_of_schema_1_are_migrated_in_postgresql(pg_server: Any) -> None:
    url = str(pg_server.new_database())
    import psycopg

    from app.store.class_schema import POSTGRESQL

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE class_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)")
        for statement in migration(0, POSTGRESQL):
            conn.execute(statement)
        conn.execute("INSERT INTO class_meta VALUES ('schema', 1), ('changes', 3)")
    store = open_class_store(url)
    try:
        assert store.changes() == 3 and store.checkins() == []
        row = store.together("nothing")
        assert row is None
    finally:
        store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        (version,) = conn.execute("SELECT value FROM class_meta WHERE name = 'schema'").fetchone()
    assert version == 2


class _Slow(BaseHTTPRequestHandler):
    """A collector whose clock answers take longer than an offset can be trusted over."""

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        sent = json.loads(self.rfile.read(length))["t0"]
        received = time.time()
        time.sleep(MAX_DELAY_S + 0.1)
        body = json.dumps({"t0": sent, "t1": received, "t2": received}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


def test_an_offset_over_a_slow_network_is_not_trusted() -> None:
    assert exchange_offset(10.0, 12.5, 12.6, 10.3) == pytest.approx((2.4, 0.2))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        found = measure_offset(f"http://127.0.0.1:{server.server_port}", TOKEN, exchanges=2)
    finally:
        server.shutdown()
        server.server_close()
    assert found.offset_s is None
    assert "there and back, more than 500 ms" in found.problem
    assert "could not be measured" in found.words
    gone = measure_offset("http://127.0.0.1:9", TOKEN, exchanges=2)
    assert gone.offset_s is None and "cannot be reached" in gone.problem
