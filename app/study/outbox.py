"""A station's pushes waiting for the class's collector: kept on disk (an SQLite file beside
the station's database) until the collector acknowledges them, and sent by a thread that
backs off exponentially, with jitter, while the collector cannot be reached or is busy.

A run is queued once and sent until acknowledged; a session's header and the answers are
queued again whenever they change. What the collector refuses (a replay, impossible figures)
is kept with its sentence and not sent again."""

from __future__ import annotations

import contextlib
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from app.study.class_http import Answer, call

__all__ = ["Outbox", "OutboxStatus", "Sender", "backoff", "outbox_path"]

#: Backoff: the first wait after a failure, its growth and its cap (seconds).
BASE_S = 1.0
FACTOR = 2.0
CAP_S = 60.0
#: Answers after which sending again cannot help: the push itself is refused.
REFUSED = frozenset({400, 409, 411, 413, 422})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY,
    url TEXT NOT NULL,
    item_id TEXT NOT NULL,
    body BLOB,
    digest TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('waiting', 'sent', 'refused')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    queued_at REAL NOT NULL,
    UNIQUE (url, item_id)
)
"""


def outbox_path(db_path: Path) -> Path:
    """The outbox of the station whose database is db_path: beside it."""
    return db_path.with_name(f"{db_path.stem}-outbox.sqlite3")


def backoff(failures: int, rng: random.Random | None = None, cap_s: float = CAP_S) -> float:
    """Seconds to wait after this many failures in a row: exponential, capped, with jitter
    (half fixed, half random) so that a class's stations do not all come back at once."""
    ceiling = min(cap_s, BASE_S * FACTOR ** max(0, min(failures, 64) - 1))
    return ceiling / 2 + (rng or random).uniform(0, ceiling / 2)


@dataclass(frozen=True)
class OutboxStatus:
    waiting: int  # queued, not acknowledged yet
    sent: int  # acknowledged by the collector
    refused: int  # refused by the collector (each with its sentence)
    problem: str = ""  # why the waiting ones wait: the last failure, in words
    next_try_s: float | None = None  # when the sender tries again
    refusals: tuple[str, ...] = ()  # the collector's sentences for what it refused

    @property
    def words(self) -> str:
        """What the exercise view says."""
        parts = [f"{self.sent} sent to the class"]
        if self.waiting:
            wait = f" (next try in {self.next_try_s:.0f} s)" if self.next_try_s else ""
            parts.append(f"{self.waiting} waiting{wait}")
        if self.refused:
            parts.append(f"{self.refused} refused")
        text = ", ".join(parts) + "."
        if self.waiting and self.problem:
            text += f" Waiting because {self.problem}"
        return text


class Outbox:
    """The queue in its file; safe to use from several threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            path, timeout=30, isolation_level=None, check_same_thread=False
        )
        self._lock = threading.Lock()
        with self._lock:
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def add(self, url: str, item_id: str, body: bytes, digest: str, once: bool) -> bool:
        """Queue a push; False when it is queued or sent already (a run: once; a header or
        answers: unchanged)."""
        with self._lock, self._transaction() as conn:
            row = conn.execute(
                "SELECT digest, state FROM outbox WHERE url = ? AND item_id = ?", (url, item_id)
            ).fetchone()
            if row is not None and (once or row[0] == digest):
                return False
            conn.execute("DELETE FROM outbox WHERE url = ? AND item_id = ?", (url, item_id))
            conn.execute(
                "INSERT INTO outbox (url, item_id, body, digest, state, queued_at) "
                "VALUES (?, ?, ?, ?, 'waiting', ?)",
                (url, item_id, body, digest, time.time()),
            )
            return True

    def known(self, url: str) -> set[str]:
        with self._lock:
            rows = self._conn.execute("SELECT item_id FROM outbox WHERE url = ?", (url,))
            return {r[0] for r in rows}

    def waiting(self, url: str, limit: int = 50) -> list[tuple[int, bytes]]:
        """The oldest pushes still waiting: (seq, body)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, body FROM outbox WHERE url = ? AND state = 'waiting' ORDER BY seq "
                "LIMIT ?",
                (url, limit),
            ).fetchall()
        return [(int(seq), bytes(body)) for seq, body in rows]

    def settle(self, seq: int, state: str, sentence: str = "") -> None:
        """A push acknowledged (sent) or refused; its body is no longer kept."""
        with self._lock, self._transaction() as conn:
            conn.execute(
                "UPDATE outbox SET state = ?, body = NULL, last_error = ?, attempts = attempts "
                "+ 1 WHERE seq = ?",
                (state, sentence, seq),
            )

    def failed(self, seq: int, sentence: str) -> None:
        with self._lock, self._transaction() as conn:
            conn.execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE seq = ?",
                (sentence, seq),
            )

    def status(self, url: str) -> OutboxStatus:
        with self._lock:
            counts = dict(
                self._conn.execute(
                    "SELECT state, count(*) FROM outbox WHERE url = ? GROUP BY state", (url,)
                ).fetchall()
            )
            refusals = self._conn.execute(
                "SELECT last_error FROM outbox WHERE url = ? AND state = 'refused' ORDER BY seq "
                "DESC LIMIT 5",
                (url,),
            ).fetchall()
        return OutboxStatus(
            counts.get("waiting", 0),
            counts.get("sent", 0),
            counts.get("refused", 0),
            refusals=tuple(r[0] for r in refusals),
        )

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise


class Sender:
    """Sends one collector's waiting pushes, oldest first, until each is acknowledged."""

    def __init__(
        self,
        outbox: Outbox,
        url: str,
        token: str,
        *,
        on_change: Callable[[OutboxStatus], None] | None = None,
        rng: random.Random | None = None,
        cap_s: float = CAP_S,
    ) -> None:
        self.outbox = outbox
        self.cap_s = cap_s
        self.url = url
        self.token = token
        self._on_change = on_change or (lambda _status: None)
        self._rng = rng or random.Random()  # noqa: S311 (jitter, not a secret)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._failures = 0
        self._problem = ""
        self._next_try: float | None = None
        self._thread = threading.Thread(target=self._loop, name="class-sender", daemon=True)

    def start(self) -> Sender:
        self._thread.start()
        return self

    def wake(self) -> None:
        """Something new is queued: send it now (unless backing off)."""
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=TIMEOUT_JOIN_S)

    def status(self) -> OutboxStatus:
        status = self.outbox.status(self.url)
        next_try = None
        if self._next_try is not None:
            next_try = max(0.0, self._next_try - time.monotonic())
        problem = self._problem if status.waiting else ""
        return OutboxStatus(status.waiting, status.sent, status.refused, problem, next_try,
                            status.refusals)  # fmt: skip

    def flush(self, timeout: float) -> OutboxStatus:
        """Wait until nothing is waiting, or timeout seconds; the status then."""
        deadline = time.monotonic() + timeout
        self.wake()
        while time.monotonic() < deadline and self.outbox.status(self.url).waiting:
            time.sleep(0.05)
        return self.status()

    def _loop(self) -> None:
        while not self._stop.is_set():
            wait = self.send_waiting()
            self._on_change(self.status())
            self._wake.wait(wait)
            self._wake.clear()

    def send_waiting(self) -> float | None:
        """Send what waits; the seconds until the next try (None: nothing waits)."""
        if self._next_try is not None and time.monotonic() < self._next_try:
            return self._next_try - time.monotonic()
        self._next_try = None
        while not self._stop.is_set():
            batch = self.outbox.waiting(self.url)
            if not batch:
                return None
            for seq, body in batch:
                if self._stop.is_set():
                    return None
                delay = self._send(seq, body)
                if delay is not None:
                    self._next_try = time.monotonic() + delay
                    return delay
        return None

    def _send(self, seq: int, body: bytes) -> float | None:
        """One push; None when it is settled, else the seconds to wait before trying again."""
        answer = call(self.url, self.token, "/v1/push", body)
        if answer.status == 200:
            self.outbox.settle(seq, "sent")
            self._failures, self._problem = 0, ""
            self._on_change(self.status())
            return None
        if answer.status in REFUSED:
            self.outbox.settle(seq, "refused", answer.sentence)
            self._on_change(self.status())
            return None
        self._failures += 1
        self._problem = _why(answer)
        self.outbox.failed(seq, self._problem)
        delay = backoff(self._failures, self._rng, self.cap_s)
        retry_after = answer.headers.get("retry-after", "")
        if retry_after.isdigit():
            delay = max(delay, float(retry_after))
        return delay


TIMEOUT_JOIN_S = 20.0


def _why(answer: Answer) -> str:
    if not answer.reached:
        return f"{answer.sentence}."
    if answer.status == 401:
        return (
            "the collector refused the class token: check the token your instructor gave "
            "(the runs wait until it is right)."
        )
    return f"the collector answered {answer.status}: {answer.sentence}"
