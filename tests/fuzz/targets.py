"""What `make fuzz` puts through the harness: the five engine parsers, the exchange-file and
hand-in readers, and the collector's reading of a request, each with its seeds and mutator."""

from __future__ import annotations

import atexit
import io
import json
import random
import shutil
import tempfile
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

from app.domain.results import ParseEvent
from app.engine.drivers.iperf2.parse import parse_iperf2
from app.engine.drivers.iperf3.parse_json import parse_document, parse_stream
from app.engine.drivers.iperf3.parse_text import far_end_text, parse_text
from app.engine.drivers.netperf.parse import parse_keyval
from app.store.class_backends import open_class_store
from app.study.files.exchange import read_exchange
from app.study.lab.collector_app import CollectorApp
from app.study.lab.collector_gate import Limits
from app.study.lab.handin import read_handin
from tests.fuzz.harness import Target
from tests.fuzz.mutate import json_text, mutate_json, mutate_text, split_lines
from tests.fuzz.seeds import outputs, written

__all__ = ["TARGETS", "line_target"]


# -- the engine parsers ---------------------------------------------------------------------
def _lines_of(rng: random.Random, text: str) -> list[str]:
    return split_lines(rng, mutate_text(rng, text))


def _json_lines(rng: random.Random, text: str) -> list[str]:
    """A JSON document's lines: its values changed (and written out again), or its text."""
    if rng.random() < 0.6:
        try:
            document = json.loads(text)
        except ValueError:
            pass
        else:
            return split_lines(rng, json_text(rng, document).replace("{", "{\n", 3))
    return _lines_of(rng, text)


def _stream_lines(rng: random.Random, text: str) -> list[str]:
    """--json-stream lines: one event's values changed, or the text."""
    lines = text.split("\n")
    if rng.random() < 0.6:
        at = rng.randrange(len(lines))
        try:
            event = json.loads(lines[at])
        except ValueError:
            pass
        else:
            lines[at] = json.dumps(mutate_json(rng, event))
            return split_lines(rng, "\n".join(lines))
    return _lines_of(rng, text)


def _read_all(parser: Callable[[Iterable[str]], Iterable[ParseEvent]]) -> Callable[[Any], object]:
    def call(lines: list[str]) -> object:
        return list(parser(lines))

    return call


def _text_and_far_end(lines: list[str]) -> object:
    events = list(parse_text(lines))
    far = far_end_text(lines, reverse=len(lines) % 2 == 0, streams=1 + len(lines) % 4)
    return events, far


def _shown_lines(lines: list[str]) -> str:
    return "\n".join(lines)


def line_target(
    name: str,
    kind: str,
    call: Callable[[Any], object],
    mutate: Callable[[random.Random, str], list[str]] = _lines_of,
) -> Target:
    return Target(name, lambda: outputs(kind), mutate, call, describe=_shown_lines)


# -- the files LinkLab reads ----------------------------------------------------------------
@cache
def _scratch() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="linklab-fuzz-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _file_bytes(rng: random.Random, document: dict[str, Any]) -> bytes:
    data = json_text(rng, document).encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:  # bytes no text has: a damaged copy
        at = rng.randrange(len(data) + 1)
        data = data[:at] + bytes([rng.randrange(0x80, 0x100)]) + data[at:]
    return data


def _read_file(reader: Callable[[Path], object], name: str) -> Callable[[Any], object]:
    def call(data: bytes) -> object:
        path = _scratch() / name
        path.write_bytes(data)
        return reader(path)

    return call


def _shown_bytes(data: bytes) -> str:
    return data.decode("utf-8", "backslashreplace")


# -- the collector's reading of a request ---------------------------------------------------
#: The instructor's credential of the fuzzed collector (the class token is the written exercise's).
INSTRUCTOR_TOKEN = "instructor-token-for-the-fuzzer"
ROUTES = (
    ("POST", "/v1/push"), ("POST", "/v1/push"), ("POST", "/v1/push"), ("POST", "/v1/pool"),
    ("GET", "/v1/station"), ("GET", "/v1/class"), ("GET", "/v1/exercises"),
    ("GET", "/v1/health"), ("PUT", "/v1/push"), ("GET", "/v1/../push"),
    ("POST", "/v1/together/clock"), ("POST", "/v1/together/checkin"),
    ("GET", "/v1/together/next"), ("POST", "/v1/together/start"), ("GET", "/v1/together"),
)  # fmt: skip


@cache
def _collector() -> CollectorApp:
    store = open_class_store(f"sqlite:{_scratch() / 'class.sqlite3'}")
    atexit.register(store.close)
    # No rate limit: every input is read, none told to wait.
    limits = Limits(rate=1e12, burst=10**12)
    return CollectorApp(store, written().token, INSTRUCTOR_TOKEN, limits)


def _request_seeds() -> list[dict[str, Any]]:
    pool = {"ports": [5301, 5302], "engine": "iperf3", "host": "192.0.2.9", "shared": False}
    # A class measuring together: a clock exchange, a check-in, a Start together, a report.
    checkin = {"student": "Ada Lovelace", "offset_s": 0.25, "delay_s": 0.002, "exchanges": 8}
    start = {"plan": {"protocol": "tcp", "direction": "up", "seconds": 5, "rounds": 3}}
    report = {
        "format": "linklab-together", "format_version": 1, "together": "0" * 32, "slot": 0,
        "student": "Ada Lovelace", "part": -1, "status": "ok", "started_at": 1.7e9,
        "mean_bps": 4.2e6, "figures": [[1.0, 4.1e6], [2.0, 4.3e6]],
    }  # fmt: skip
    return [*written().pushes, pool, {"t0": 1.7e9}, checkin, start, report]


def _request(rng: random.Random, document: dict[str, Any]) -> dict[str, Any]:
    method, path = rng.choice(ROUTES)
    body = _file_bytes(rng, document)
    length = str(len(body))
    roll = rng.random()
    if roll < 0.05:
        length = rng.choice(("", "-1", "abc", "1e3", str(len(body) * 2), "0", "99999999999"))
    query = rng.choice(("", "student=Ada+Lovelace", "exercise=x", "student=", "student=%ff"))
    if rng.random() < 0.3:
        query = mutate_text(rng, query or "student=Ada", 1)
    # Mostly the instructor's token (it opens every route), some the class token (the
    # station's routes, the rest refused), some a damaged one.
    choice = rng.random()
    token = (
        INSTRUCTOR_TOKEN
        if choice < 0.6
        else written().token
        if choice < 0.9
        else mutate_text(rng, written().token, 1)
    )
    return {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "CONTENT_LENGTH": length,
        "REMOTE_ADDR": "192.0.2.1",
        "HTTP_AUTHORIZATION": f"Bearer {token}",
        "body": body,
    }


def _answer(request: dict[str, Any]) -> object:
    environ = dict(request)
    environ["wsgi.input"] = io.BytesIO(environ.pop("body"))
    said: list[str] = []
    body = _collector()(environ, lambda status, _headers: said.append(status))
    if len(said) != 1 or not body:
        raise AssertionError(f"the collector answered {said!r}")
    if said[0].startswith("500"):
        # Every refusal is a 4xx with its sentence; a 500 is a reader that gave up.
        raise AssertionError(f"the collector answered {said[0]}: {body[0][:300]!r}")
    return said[0]


def _shown_request(request: dict[str, Any]) -> str:
    head = {k: v for k, v in request.items() if k != "body"}
    return f"{json.dumps(head)}\n{_shown_bytes(request['body'])}"


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        line_target("iperf3-text", "iperf3-text", _text_and_far_end),
        line_target("iperf3-json", "iperf3-json", _read_all(parse_document), _json_lines),
        line_target("iperf3-stream", "iperf3-stream", _read_all(parse_stream), _stream_lines),
        line_target("iperf2", "iperf2", _read_all(parse_iperf2)),
        line_target("netperf", "netperf", _read_all(parse_keyval)),
        Target(
            "exchange-file",
            lambda: [written().exchange],
            _file_bytes,
            _read_file(read_exchange, "fuzz.linklab"),
            describe=_shown_bytes,
        ),
        Target(
            "handin",
            lambda: [written().handin],
            _file_bytes,
            _read_file(read_handin, "fuzz-handin.linklab"),
            describe=_shown_bytes,
        ),
        Target("collector-request", _request_seeds, _request, _answer, describe=_shown_request),
    )
}
