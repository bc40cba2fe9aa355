"""The class collector's web application (WSGI; served by waitress in app.study.lab.collector):
every request authenticated and bounded in size and rate; a push checked as an import is,
then stored once by its run's id; the class view served as JSON and recomputed only when a
push changed it.

Two credentials: the class token, which every exercise file handed out carries, lets a
station push its work, ask which server is its own and read the exercises; the instructor
token, which never leaves the instructor, is needed to register the class's servers (the
pool: what every station is then told to send its traffic to) and to read the whole class.
The instructor token also opens what the class token does. A class measuring together: each
station's clock exchanges, its check-in and its asking for its schedule take the class token
(its figures come as pushes); starting the class together and reading what it measured take
the instructor's (app.study.lab.together).

Statuses: 200 stored (or already stored: a resend), 400 not JSON, 401 wrong token, 403 the
class token where the instructor's is needed, 404 no such thing yet, 409 a replay or a
conflicting run, 413 too large, 422 refused by the checks, 429 too many requests, 503 the
class database does not answer. Every refusal carries a sentence, and stores nothing."""

from __future__ import annotations

import hmac
import ipaddress
import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from app import __version__
from app.domain.errors import BadOption, LinkLabError
from app.domain.exercise import student_name
from app.domain.plan import clean_text
from app.domain.together import TogetherPlan
from app.store.class_store import ClassStore, PutOutcome
from app.store.db import StoreError
from app.study.lab.class_live import choose_exercise, live_class, view_to_wire
from app.study.lab.class_push import check_push
from app.study.lab.collector_gate import (
    INSTRUCTOR_ONLY,
    REASONS,
    ROUTES,
    Buckets,
    Credential,
    Limits,
    Refusal,
)
from app.study.lab.together import (
    REPORT_FORMAT,
    TogetherRefused,
    assignment,
    check_in,
    check_report,
    start_together,
    station_name,
    within,
)
from app.study.lab.together_wire import rows_to_wire

__all__ = ["CollectorApp"]

Environ = dict[str, Any]
StartResponse = Callable[[str, list[tuple[str, str]]], Any]

#: While pushes pour in, the class view is built at most this often (a view this young is
#: served as it is): a run still shows within a second or two, and a burst of 60 stations
#: does not rebuild the view for every push.
VIEW_REUSE_S = 0.5
#: Where a request's arrival time waits for its handler.
_RECEIVED = "linklab.received"


class CollectorApp:
    """The WSGI application of one class collector."""

    def __init__(
        self,
        store: ClassStore,
        token: str,
        instructor_token: str,
        limits: Limits | None = None,
        on_log: Callable[[str], None] | None = None,
    ) -> None:
        if hmac.compare_digest(token.encode("utf-8"), instructor_token.encode("utf-8")):
            raise BadOption(
                "The instructor token must differ from the class token: the class token is "
                "in every exercise handed out."
            )
        self.store = store
        self._token = token.encode("utf-8")
        self._instructor = instructor_token.encode("utf-8")
        self.limits = limits or Limits()
        self._buckets = Buckets(self.limits)
        self.log = on_log or (lambda _line: None)
        self._views: dict[str, tuple[int, bytes, float]] = {}
        self._view_lock = threading.Lock()
        self.refused = 0  # requests refused since the start
        self.stored = 0  # runs stored since the start

    # -- WSGI --------------------------------------------------------------------------------
    def __call__(self, environ: Environ, start_response: StartResponse) -> list[bytes]:
        environ[_RECEIVED] = time.time()  # a clock exchange's arrival, as early as it can be
        address = str(environ.get("REMOTE_ADDR", "?"))
        try:
            wait = self._buckets.take(address)
            if wait:
                raise Refusal(
                    429,
                    f"Too many requests from {address}: wait {wait:.1f} s, then send again.",
                    [("Retry-After", str(max(1, round(wait))))],
                )
            status, body, headers = self._route(environ, self._authenticate(environ))
        except Refusal as refusal:
            self.refused += 1
            self.log(f"refused {address} ({refusal.status}): {refusal.sentence}")
            status, body, headers = refusal.status, _said(refusal.sentence), refusal.headers
        except TogetherRefused as err:
            self.refused += 1
            self.log(f"refused {address} ({err.status}): {err.sentence}")
            status, body, headers = err.status, _said(err.sentence), []
        except StoreError as err:  # the database is down or busy: the station sends again
            self.log(f"could not answer {address}: {err.sentence}")
            status, body, headers = 503, _said(err.sentence), [("Retry-After", "5")]
        except LinkLabError as err:
            self.log(f"refused {address} (500): {err.sentence}")
            status, body, headers = 500, _said(err.sentence), []
        all_headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        start_response(f"{status} {REASONS.get(status, '')}", all_headers + list(headers))
        return [body]

    def _authenticate(self, environ: Environ) -> Credential:
        """The credential the request carries (both compared in constant time)."""
        given = str(environ.get("HTTP_AUTHORIZATION", ""))
        scheme, _, token = given.partition(" ")
        offered = token.strip().encode("utf-8", "replace")
        instructor = hmac.compare_digest(offered, self._instructor)
        station = hmac.compare_digest(offered, self._token)
        if scheme.lower() == "bearer" and instructor:
            return Credential.INSTRUCTOR
        if scheme.lower() == "bearer" and station:
            return Credential.STATION
        raise Refusal(
            401,
            "The class token is missing or wrong: use the exercise file the instructor "
            "handed out (it carries the token), or ask the instructor for the token.",
            [("WWW-Authenticate", 'Bearer realm="LinkLab class"')],
        )

    def _route(
        self, environ: Environ, credential: Credential
    ) -> tuple[int, bytes, list[tuple[str, str]]]:
        method = environ.get("REQUEST_METHOD", "GET")
        path = environ.get("PATH_INFO", "")
        query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""), max_num_fields=10)
        routes: dict[tuple[str, str], Callable[..., tuple[int, bytes, list[tuple[str, str]]]]]
        routes = {
            ("POST", "/v1/push"): lambda: self._push(environ),
            ("GET", "/v1/class"): lambda: self._class(environ, query),
            ("GET", "/v1/exercises"): self._exercises,
            ("POST", "/v1/pool"): lambda: self._pool(environ),
            ("GET", "/v1/station"): lambda: self._station(query),
            ("GET", "/v1/health"): self._health,
            ("POST", "/v1/together/clock"): lambda: self._clock(environ),
            ("POST", "/v1/together/checkin"): lambda: self._check_in(environ),
            ("GET", "/v1/together/next"): lambda: self._next(query),
            ("POST", "/v1/together/start"): lambda: self._start_together(environ),
            ("GET", "/v1/together"): lambda: self._together(query),
        }
        handler = routes.get((method, path))
        if handler is None:
            known = {p for _, p in routes}
            if path in known:
                raise Refusal(405, f"{path} does not take {method}.")
            raise Refusal(404, f"This collector has no {path[:80]}: update LinkLab.")
        if (
            ROUTES[method, path] is Credential.INSTRUCTOR
            and credential is not Credential.INSTRUCTOR
        ):
            raise Refusal(
                403,
                f"{INSTRUCTOR_ONLY[path]} needs the instructor token (instructor.token beside "
                f"class.token on the instructor's computer, or the Class tab's Copy instructor "
                f"token), not the class token the students have: nothing was done.",
            )
        return handler()

    # -- reading a request -------------------------------------------------------------------
    def _body(self, environ: Environ) -> object:
        try:
            length = int(environ.get("CONTENT_LENGTH") or "")
        except ValueError:
            raise Refusal(411, "The request must say its length (Content-Length).") from None
        if length > self.limits.max_body:
            raise Refusal(
                413,
                f"The push is larger than {self.limits.max_body // 2**20} MB, more than one "
                f"run holds: nothing was stored.",
            )
        raw = environ["wsgi.input"].read(length)
        try:
            text = raw.decode("utf-8")
            data = json.loads(text, parse_constant=_no_constant)
            if "\\ud" in text.lower():
                # An escaped half of a surrogate pair, alone, is no character: no database
                # can store it (only then is the document written out again to find one).
                json.dumps(data, ensure_ascii=False).encode("utf-8")
        except (UnicodeError, ValueError, RecursionError):
            raise Refusal(
                400, "The push is not JSON that LinkLab wrote: nothing was stored."
            ) from None
        return data

    # -- the routes --------------------------------------------------------------------------
    def _push(self, environ: Environ) -> tuple[int, bytes, list[tuple[str, str]]]:
        data = self._body(environ)
        if isinstance(data, dict) and data.get("format") == REPORT_FORMAT:
            return self._report(environ, data)
        try:
            checked = check_push(data)
        except BadOption as err:
            raise Refusal(422, err.sentence) from None
        outcome, whose = self.store.put(checked.row)
        address = environ.get("REMOTE_ADDR", "?")
        if outcome is PutOutcome.STORED:
            if checked.row.run is not None:
                self.stored += 1
            self.log(f"stored {checked.what} from {address}")
            return 200, _said("Stored.", outcome=outcome.value), []
        if outcome is PutOutcome.ALREADY:
            self.log(f"already had {checked.what} (sent again from {address})")
            return 200, _said("Already stored: nothing new.", outcome=outcome.value), []
        sentences = {
            PutOutcome.CONFLICT: "A run with this id is stored with other figures: a run is "
            "stored once and never replaced.",
            PutOutcome.REPLAY: f"This measurement was already handed in ({whose}'s run): a "
            f"measurement counts once, for the student who measured it.",
            PutOutcome.FOREIGN: f"This session was handed in by {whose}: a session belongs to "
            f"the student who measured it.",
        }
        raise Refusal(409, sentences[outcome])

    def _class(
        self, environ: Environ, query: dict[str, list[str]]
    ) -> tuple[int, bytes, list[tuple[str, str]]]:
        wanted = (query.get("exercise") or [""])[0] or None
        changes = self.store.changes()
        try:
            exercise = choose_exercise(self.store, wanted, files=False)
        except BadOption as err:
            raise Refusal(404, err.sentence) from None
        tag = f'"{changes}-{exercise.id}"'
        if environ.get("HTTP_IF_NONE_MATCH") == tag:
            return 304, b"", [("ETag", tag)]
        with self._view_lock:
            cached = self._views.get(exercise.id)
            fresh = cached is not None and time.monotonic() - cached[2] < VIEW_REUSE_S
            if cached is None or (cached[0] != changes and not fresh):
                view = live_class(self.store, exercise)
                body = json.dumps(view_to_wire(view, changes), ensure_ascii=False).encode()
                cached = (changes, body, time.monotonic())
                self._views = {exercise.id: cached}  # one class at a time is kept
        tag = f'"{cached[0]}-{exercise.id}"'
        return 200, cached[1], [("ETag", tag)]

    def _exercises(self) -> tuple[int, bytes, list[tuple[str, str]]]:
        found = []
        for row in self.store.exercises():
            data = json.loads(row["exercise_json"])
            found.append({"id": data["id"], "title": data["title"], "students": row["students"]})
        return 200, json.dumps({"exercises": found}).encode(), []

    def _pool(self, environ: Environ) -> tuple[int, bytes, list[tuple[str, str]]]:
        data = self._body(environ)
        if not isinstance(data, dict):
            raise Refusal(422, "The pool announcement is not an object.")
        ports, engine = data.get("ports"), data.get("engine")
        host = data.get("host") or environ.get("REMOTE_ADDR", "")
        shared = data.get("shared", False)
        if (
            not isinstance(ports, list)
            or not 1 <= len(ports) <= 1000
            or not all(_is_port(p) for p in ports)
            or not isinstance(engine, str)
            or not engine.isalnum()
            or not isinstance(shared, bool)
            or not _is_address(host)
        ):
            raise Refusal(
                422, "The pool announcement needs ports 1-65535, an engine and an address."
            )
        self.store.announce_pool(str(host), sorted(set(ports)), engine, shared)
        self.log(f"pool of {len(ports)} {engine} server(s) at {host}: ports {_ports(ports)}")
        return 200, _said(f"The pool at {host} serves {len(ports)} port(s)."), []

    def _station(self, query: dict[str, list[str]]) -> tuple[int, bytes, list[tuple[str, str]]]:
        try:
            student = student_name((query.get("student") or [""])[0])
        except BadOption as err:
            raise Refusal(422, err.sentence) from None
        found = self.store.station(student)
        if found is None:
            raise Refusal(
                404,
                "No server is free for you: ask your instructor to start one for every station "
                "(linklab serve --count N, or the Server tab).",
            )
        host, port, engine = found
        return 200, json.dumps({"host": host, "port": port, "engine": engine}).encode(), []

    def _health(self) -> tuple[int, bytes, list[tuple[str, str]]]:
        counts = self.store.counts()
        body = {"linklab": __version__, "store": self.store.dialect.name, "counts": counts}
        return 200, json.dumps(body).encode(), []

    # -- measuring together -------------------------------------------------------------------
    def _clock(self, environ: Environ) -> tuple[int, bytes, list[tuple[str, str]]]:
        """One NTP-style exchange: the station's send time back, with when this collector
        received the request and when it answers, on its own clock."""
        received = float(environ[_RECEIVED])
        data = self._body(environ)
        sent = data.get("t0") if isinstance(data, dict) else None
        if not within(sent, 0, 1e11):
            raise Refusal(422, "The clock exchange gives no send time: update LinkLab.")
        body = {"t0": sent, "t1": received, "t2": time.time()}
        return 200, json.dumps(body).encode(), []

    def _check_in(self, environ: Environ) -> tuple[int, bytes, list[tuple[str, str]]]:
        data = self._body(environ)
        row = check_in(self.store, data, time.time())
        student = row.student
        clock = (
            f"clock offset {row.offset_s * 1000:+.1f} ms (round trip {row.delay_s * 1000:.1f} ms)"
            if row.offset_s is not None and row.delay_s is not None
            else f"no clock offset ({row.clock_problem.rstrip('.')})"
        )
        self.log(f"{student} waits to measure together: {clock}")
        return 200, _said(f"Checked in: {clock}."), []

    def _next(self, query: dict[str, list[str]]) -> tuple[int, bytes, list[tuple[str, str]]]:
        student = station_name((query.get("student") or [""])[0])
        now = time.time()
        if not self.store.seen(student, now):
            raise Refusal(404, f"{student} has not checked in to measure together: check in.")
        found = assignment(self.store, student, now)
        return 200, json.dumps({"now": now, "assignment": found}).encode(), []

    def _start_together(self, environ: Environ) -> tuple[int, bytes, list[tuple[str, str]]]:
        data = self._body(environ)
        if not isinstance(data, dict):
            raise Refusal(422, "The Start together is not an object.")
        try:
            plan = TogetherPlan.from_dict(data.get("plan"))
        except BadOption as err:
            raise Refusal(422, err.sentence) from None
        exercise_id = clean_text(data.get("exercise_id", ""), 100)
        together = start_together(self.store, plan, time.time(), exercise_id)
        names = ", ".join(s.student for s in together.stations)
        self.log(f"started together ({plan.words}): {names}")
        for who, _status, why in together.left_out:
            self.log(f"  not taking part: {who}: {why}")
        body = {"together": together.id, "start_at": together.start_at, "end_at": together.end_at}
        return 200, json.dumps(body).encode(), []

    def _together(self, query: dict[str, list[str]]) -> tuple[int, bytes, list[tuple[str, str]]]:
        wanted = (query.get("id") or [""])[0] or None
        try:
            rows = rows_to_wire(self.store, wanted, time.time())
        except BadOption as err:
            raise Refusal(404, err.sentence) from None
        return 200, json.dumps(rows).encode(), []

    def _report(
        self, environ: Environ, data: dict[str, Any]
    ) -> tuple[int, bytes, list[tuple[str, str]]]:
        row, what = check_report(self.store, data)
        outcome = self.store.put_report(row)
        address = environ.get("REMOTE_ADDR", "?")
        if outcome == "conflict":
            raise Refusal(
                409, "This part of the report is stored with other figures: it is never replaced."
            )
        self.log(f"{'stored' if outcome == 'stored' else 'already had'} {what} from {address}")
        said = "Stored." if outcome == "stored" else "Already stored: nothing new."
        return 200, _said(said, outcome=outcome), []


def _no_constant(text: str) -> object:
    raise ValueError(text)


def _said(sentence: str, **extra: str) -> bytes:
    return json.dumps({"sentence": sentence, **extra}, ensure_ascii=False).encode("utf-8")


def _is_address(host: object) -> bool:
    if not isinstance(host, str) or len(host) > 100:
        return False
    try:
        ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return False
    return True


def _is_port(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536


def _ports(ports: list[int]) -> str:
    ordered = sorted(ports)
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(str(p) for p in ordered)
