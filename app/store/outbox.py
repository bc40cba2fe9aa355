"""A station's outbox file: the pushes waiting for the class's collector, kept in an SQLite
file beside the station's database until the collector acknowledges them. The file is
versioned (PRAGMA user_version) like the station's database; a newer one is never written."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.store.db import StoreTooNew, translate

__all__ = ["OUTBOX_VERSION", "Outbox", "OutboxStatus", "outbox_path"]

#: The outbox file's schema version. Version 1 is the table as first written; a file with
#: that table and no version (written before the file had one) is version 1 too.
OUTBOX_VERSION = 1

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
        try:
            with self._lock:
                self._open()
        except sqlite3.Error as err:
            self._conn.close()
            raise translate(err, path) from None
        except BaseException:
            self._conn.close()
            raise

    def _open(self) -> None:
        version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
        if version > OUTBOX_VERSION:
            raise StoreTooNew(
                f"The class outbox {self.path} was written by a newer LinkLab (version "
                f"{version}; this one knows up to {OUTBOX_VERSION}): update LinkLab. The runs "
                f"waiting in it were left unchanged."
            )
        self._conn.execute("PRAGMA journal_mode = WAL")
        if version < OUTBOX_VERSION:
            with self._transaction() as conn:
                conn.execute(_SCHEMA)
                conn.execute(f"PRAGMA user_version = {OUTBOX_VERSION}")

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
