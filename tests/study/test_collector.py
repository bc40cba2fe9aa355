"""The class collector over real HTTP on the loopback, on both stores (an SQLite file and a
real PostgreSQL): a student's real runs stored once, the class view the same as the hand-in
folder's, and every bad request refused with a status and a sentence, nothing stored."""

from __future__ import annotations

import copy
import json
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.report.class_export import class_json
from app.store.class_backends import open_class_store
from app.store.class_store import ClassStore
from app.store.db import Database
from app.study.files.exchange import write_exchange
from app.study.lab.class_http import call
from app.study.lab.class_live import view_from_wire
from app.study.lab.class_push import PushItem
from app.study.lab.classroom import read_class
from app.study.lab.collector import Collector
from app.study.lab.collector_gate import Limits
from app.study.lab.handin import handin_document
from tests.classlive import (
    ADA,
    INSTRUCTOR,
    TOKEN,
    Measured,
    as_station,
    body,
    measure_ada,
    store_url,
)

STORES = ["sqlite", "postgresql"]


@pytest.fixture(scope="module")
def ada(tmp_path_factory: pytest.TempPathFactory) -> Measured:
    from tests.conftest import require_engine

    require_engine("iperf3")
    return measure_ada(tmp_path_factory.mktemp("ada"))


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


def push(collector: Collector, item: PushItem | bytes, token: str = TOKEN) -> tuple[int, str]:
    data = item if isinstance(item, bytes) else body(item)
    answer = call(collector.url, token, "/v1/push", data)
    return answer.status, answer.sentence


def runs(item: PushItem) -> list[dict[str, Any]]:
    return list(item.document["sessions"]["sessions"][0]["runs"])


def test_runs_are_stored_once_and_the_view_matches_the_handin(
    ada: Measured, collector: Collector, store: ClassStore, tmp_path: Path
) -> None:
    for item in ada.items:
        assert push(collector, item) == (200, "Stored.")
    assert store.counts() == {"work": 1, "sessions": 1, "runs": 2}
    # A resend (the station never heard the answer) is acknowledged and stores nothing.
    run_item = ada.items[2]
    assert push(collector, run_item) == (200, "Already stored: nothing new.")
    assert store.counts()["runs"] == 2
    # The class view served equals the view of Ada's hand-in read from a folder.
    answer = call(collector.url, INSTRUCTOR, "/v1/class")
    assert answer.status == 200
    live, changes = view_from_wire(answer.data)
    assert changes == store.changes()
    folder = tmp_path / "handins"
    folder.mkdir()
    with Database(ada.db, readonly=True) as db:
        write_exchange(folder / "ada.linklab", handin_document(db, ada.exercise.id, ADA))
    from_folder = class_json(read_class(folder, ada.exercise))
    served = class_json(live)
    for row in from_folder["students"]:
        row["file"] = ""
    assert served == from_folder
    (row,) = served["students"]
    # Measured on this computer's loopback, and flagged so.
    assert (row["student"], row["flags"], row["steps_done"], row["runs_done"]) == (
        ADA, ["incomplete", "this computer"], 1, 2,
    )  # fmt: skip
    assert row["answers"] == 1
    # Unchanged since: the collector says so without sending the class again.
    again = call(collector.url, INSTRUCTOR, "/v1/class", etag=answer.headers["etag"])
    assert again.status == 304


def _counts(store: ClassStore) -> tuple[dict[str, int], list[str]]:
    return store.counts(), store.run_ids()


def test_bad_requests_are_refused_and_store_nothing(
    ada: Measured, collector: Collector, store: ClassStore
) -> None:
    answers, header, first, second = ada.items
    for item in (answers, header, first):
        assert push(collector, item)[0] == 200
    before = _counts(store)

    # A wrong token, and none at all.
    status, sentence = push(collector, second, token="not-the-class-token")
    assert status == 401 and "class token is missing or wrong" in sentence
    request = urllib.request.Request(f"{collector.url}/v1/push", data=body(second))
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401
    refused.value.close()  # the refusal holds the connection's socket

    # A forged run: impossible figures are refused as an import refuses them.
    forged = copy.deepcopy(second.document)
    runs_of = forged["sessions"]["sessions"][0]["runs"]
    runs_of[0]["metrics"]["throughput_bps"] = 5e13  # 50 Tbit/s
    status, sentence = push(collector, json.dumps(forged).encode())
    assert status == 422 and "throughput_bps" in sentence and "stored nothing" in sentence
    forged["sessions"]["sessions"][0]["runs"][0]["metrics"]["throughput_bps"] = -1.0
    assert push(collector, json.dumps(forged).encode())[0] == 422

    # Too large, and not JSON at all.
    huge = b"{" + b" " * (collector.app.limits.max_body + 10) + b"}"
    status, sentence = push(collector, huge)
    assert status == 413
    assert push(collector, b'{"format": "linklab-push", ')[0] == 400
    assert push(collector, b"\xff\xfe not text")[0] == 400
    assert push(collector, b'{"format": "linklab-push", "seq": NaN}')[0] == 400
    assert push(collector, json.dumps({"format": "something else"}).encode())[0] == 422

    # A replay: Ada's measurement under another student's name and session.
    (replayed,) = [i for i in as_station(ada.items, 7) if i.item_id.startswith("run:")][:1]
    copied = copy.deepcopy(replayed.document)
    copied["sessions"]["sessions"][0]["runs"][0]["raw_output"] = runs(first)[0]["raw_output"]
    status, sentence = push(collector, json.dumps(copied).encode())
    assert status == 409 and f"already handed in ({ADA}'s run)" in sentence

    # The same run id with other figures: a run is stored once, never replaced.
    changed = copy.deepcopy(first.document)
    changed["sessions"]["sessions"][0]["runs"][0]["metrics"]["throughput_bps"] *= 0.5
    status, sentence = push(collector, json.dumps(changed).encode())
    assert status == 409 and "stored once and never replaced" in sentence

    # Another student pushing into Ada's session.
    foreign = copy.deepcopy(second.document)
    foreign["student"] = "Mallory"
    foreign["sessions"]["sessions"][0]["plan"]["assignment"]["student"] = "Mallory"
    status, sentence = push(collector, json.dumps(foreign).encode())
    assert status == 409 and f"handed in by {ADA}" in sentence

    assert _counts(store) == before
    assert push(collector, second)[0] == 200  # the real one still goes in
    assert store.counts()["runs"] == 2


def test_a_station_over_its_rate_is_told_to_wait(ada: Measured, store: ClassStore) -> None:
    server = Collector(
        store, TOKEN, "127.0.0.1", 0, instructor_token=INSTRUCTOR, limits=Limits(rate=0.5, burst=3)
    )
    server.start()
    try:
        statuses = [call(server.url, TOKEN, "/v1/health") for _ in range(5)]
    finally:
        server.stop()
    assert [a.status for a in statuses[:3]] == [200, 200, 200]
    assert statuses[3].status == 429
    assert int(statuses[3].headers["retry-after"]) >= 1
    assert "Too many requests" in statuses[3].sentence
    assert store.counts()["runs"] == 0


def test_the_pool_gives_each_station_its_own_port(collector: Collector) -> None:
    pool = json.dumps({"ports": [5301, 5302], "engine": "iperf3", "host": "192.0.2.5"})
    assert call(collector.url, INSTRUCTOR, "/v1/pool", pool.encode()).status == 200
    given = [call(collector.url, TOKEN, f"/v1/station?student=S{n}") for n in range(3)]
    assert [a.status for a in given] == [200, 200, 404]
    assert {a.data["port"] for a in given[:2]} == {5301, 5302}
    assert {a.data["host"] for a in given[:2]} == {"192.0.2.5"}
    assert "No server is free for you" in given[2].sentence
    # Asked again, a station keeps its port.
    again = call(collector.url, TOKEN, "/v1/station?student=S0")
    assert again.data == given[0].data


def test_a_student_with_the_class_token_cannot_redirect_the_class(collector: Collector) -> None:
    """The class token is in every exercise handed out: with it a student could point every
    station at a host of their choosing. Registering servers takes the instructor token."""
    honest = json.dumps({"ports": [5301, 5302], "engine": "iperf3", "host": "192.0.2.5"})
    assert call(collector.url, INSTRUCTOR, "/v1/pool", honest.encode()).status == 200
    rogue = json.dumps({"ports": [5201], "engine": "iperf3", "host": "203.0.113.9"})
    refused = call(collector.url, TOKEN, "/v1/pool", rogue.encode())
    assert refused.status == 403
    assert "needs the instructor token" in refused.sentence
    assert "not the class token" in refused.sentence
    # Not a pool without a host either: the address the request came from is not taken.
    bare = json.dumps({"ports": [5201], "engine": "iperf3"})
    assert call(collector.url, TOKEN, "/v1/pool", bare.encode()).status == 403
    # Every station is still given only the instructor's servers.
    given = [call(collector.url, TOKEN, f"/v1/station?student=S{n}") for n in range(3)]
    assert [(a.data or {}).get("host") for a in given[:2]] == ["192.0.2.5", "192.0.2.5"]
    assert given[2].status == 404  # the rogue's port 5201 was not added to the pool


def test_each_route_takes_the_credential_the_guide_names(collector: Collector) -> None:
    """The class token opens a station's routes and no more; the instructor token opens every
    route; a wrong token none. docs/guide/class.md lists the same routes and credentials."""
    from app.study.lab.collector_gate import ROUTES, Credential

    guide = (Path(__file__).parents[2] / "docs" / "guide" / "class.md").read_text("utf-8")
    for (method, path), credential in ROUTES.items():
        data = b"{}" if method == "POST" else None
        with_class = call(collector.url, TOKEN, path, data).status
        answered = call(collector.url, INSTRUCTOR, path, data)
        with_instructor = answered.status
        with_neither = call(collector.url, "not-a-token-of-this-class", path, data).status
        assert with_neither == 401, path
        assert with_instructor not in (401, 403, 405), path
        assert "This collector has no" not in answered.sentence, path  # the route is served
        if credential is Credential.INSTRUCTOR:
            assert with_class == 403, path
        else:
            assert with_class == with_instructor, path
        assert f"| `{method} {path}` | {credential.value} |" in guide, path


@pytest.mark.parametrize("code", [13, 10013])  # EACCES on POSIX, WSAEACCES on Windows
def test_a_port_the_system_refuses_is_named_with_what_to_do(code: int) -> None:
    from app.study.lab.collector import _start_sentence

    sentence = _start_sentence("127.0.0.1", 80, OSError(code, "Access denied"))
    assert "port 80" in sentence and "--listen 127.0.0.1:PORT" in sentence
    assert "Access denied" not in sentence


def _half_sent(url_port: int, source: str, count: int) -> list[socket.socket]:
    """count connections from source, each with a request begun and never finished."""
    held = []
    for _ in range(count):
        conn = socket.create_connection(
            ("127.0.0.1", url_port), timeout=5, source_address=(source, 0)
        )
        conn.sendall(b"POST /v1/push HTTP/1.1\r\nHost: x\r\n")  # headers never end
        held.append(conn)
    return held


def _closed_by_server(conn: socket.socket, within_s: float) -> bool:
    conn.settimeout(within_s)
    try:
        return conn.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
def test_half_sent_requests_cannot_stall_the_class(ada: Measured, store: ClassStore) -> None:
    """300 requests begun and never finished, from one address (no token needed), once
    exceeded the collector's 256 connections: every station's push then waited 20 s and timed
    out. One address now holds only a few connections, a request must arrive whole within its
    deadline, and an honest station is served while the flood goes on."""
    from app.study.lab.guarded_server import Bounds

    logged: list[str] = []
    bounds = Bounds(per_address=32, headers_s=2.0)
    server = Collector(
        store, TOKEN, "127.0.0.1", 0, instructor_token=INSTRUCTOR, bounds=bounds,
        limits=Limits(rate=1000, burst=1000), on_log=logged.append,
    )  # fmt: skip
    server.start()
    flood: list[socket.socket] = []
    try:
        flood = _half_sent(server.port, "127.0.0.2", 300)  # 127.0.0.0/8 is all loopback
        # An honest station (another address) is served at once, the flood still held.
        first = as_station(ada.items, 1)[0]
        answer = call(server.url, TOKEN, "/v1/push", body(first), timeout=15)
        assert answer.status == 200, answer.sentence
        # Beyond its 32, the flood's connections were closed as they were accepted ...
        closed = [c for c in flood[40:] if _closed_by_server(c, 5)]
        assert len(closed) == len(flood[40:])
        # ... and the 32 it held are closed once their requests miss the deadline.
        assert all(_closed_by_server(c, 15) for c in flood[:32])
        assert any("holds 32 open already" in line for line in logged), logged
        assert any("never arrived whole" in line for line in logged), logged
        assert sum("127.0.0.2" in line for line in logged) == 2  # each told once, not 300 times
        # A trickle (a byte a second) is no honest request either: closed at the deadline.
        trickle = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        flood.append(trickle)
        ended = False
        for byte in b"GET /v1/health HTTP/1.1\r\nHost: x\r\n":
            try:
                trickle.sendall(bytes([byte]))
            except OSError:
                ended = True
                break
            if _closed_by_server(trickle, 0.5):
                ended = True
                break
        assert ended, "a request trickled byte by byte was never closed"
    finally:
        for conn in flood:
            conn.close()
        server.stop()


def test_a_name_of_a_hundred_thousand_characters_is_refused(
    ada: Measured, collector: Collector, store: ClassStore
) -> None:
    """A station sends its student's name with every push and when it asks for its server:
    a name longer than any real one is refused there (422), named by its length, and nothing
    is stored or echoed back."""
    long_name = "A" * 100_000
    document = json.loads(body(as_station(ada.items, 1)[0]))
    document["student"] = long_name
    status, sentence = push(collector, json.dumps(document).encode())
    assert status == 422 and "100,000 characters" in sentence
    assert long_name[:300] not in sentence
    asked = call(collector.url, TOKEN, f"/v1/station?student={long_name}")
    assert asked.status == 422 and "100,000 characters" in asked.sentence
    assert store.counts()["runs"] == 0
