"""Where a class is kept: this computer's SQLite database (or another SQLite file), or a
department's PostgreSQL through psycopg 3; opened by the URL of --store, with the store's
problems (a server that does not answer, a user without rights) said in sentences."""

from __future__ import annotations

import sqlite3
import urllib.parse
from pathlib import Path

from app.domain.errors import LinkLabError
from app.store.class_schema import POSTGRESQL, SQLITE
from app.store.class_store import MIGRATION_LOCK, ClassStore, ClassStoreDown, Connection
from app.store.db import Database, StoreError, translate

__all__ = ["open_class_store", "shown_url"]


def shown_url(url: str) -> str:
    """A store's address as it may be shown: a password in it replaced by ***."""
    try:
        parts = urllib.parse.urlsplit(url)
        if parts.password:
            netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
            return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        pass
    return url


class _SqliteClassStore(ClassStore):
    def __init__(self, path: Path) -> None:
        self.path = path
        # The file's own checks first (damaged, another program's, written by a newer
        # LinkLab): the class tables are added only to a LinkLab database this one can write.
        with Database(path) as db:
            db.require_writable()
        super().__init__(SQLITE, str(path))

    def _connect(self) -> Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def _begin(self, conn: Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")

    def _translate(self, err: Exception) -> LinkLabError | None:
        if isinstance(err, sqlite3.Error):
            return translate(err, self.path)
        return None


class _PostgresClassStore(ClassStore):
    def __init__(self, url: str) -> None:
        import psycopg  # only a PostgreSQL store needs it

        self._psycopg = psycopg
        self.url = url
        super().__init__(POSTGRESQL, shown_url(url))

    def _connect(self) -> Connection:
        conn = self._psycopg.connect(self.url, autocommit=True, connect_timeout=5)
        return conn

    def _begin(self, conn: Connection) -> None:
        conn.execute("BEGIN")

    def _migrate(self, conn: Connection) -> None:
        conn.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        super()._migrate(conn)

    def _translate(self, err: Exception) -> LinkLabError | None:
        psycopg = self._psycopg
        if isinstance(err, psycopg.OperationalError | psycopg.InterfaceError):
            words = str(err).strip().splitlines()[0][:300] if str(err).strip() else type(err)
            return ClassStoreDown(
                f"The class database {self.where} does not answer ({words}): start it (or "
                f"check the address and credentials in --store); the stations keep their runs "
                f"until it is back.",
                detail=str(err),
            )
        if isinstance(err, psycopg.Error):
            return StoreError(
                f"The class database {self.where} refused the request ({str(err).strip()[:300]})"
                f": check that the user in --store may create and write tables there.",
                detail=str(err),
            )
        return None


def open_class_store(url: str) -> ClassStore:
    """The store of --store: sqlite:PATH (this computer's own LinkLab database when --store is
    not given), postgresql://… (postgres://…)."""
    if url.startswith(("postgresql://", "postgres://")):
        return _PostgresClassStore(url)
    if url.startswith("sqlite:"):
        path = url.removeprefix("sqlite:").removeprefix("//")
        if not path:
            raise StoreError("Give the SQLite file after sqlite:, as in sqlite:class.sqlite3.")
        return _SqliteClassStore(Path(path).expanduser())
    raise StoreError(
        f"{shown_url(url)[:80]!r} is not a store LinkLab knows: give sqlite:PATH or "
        f"postgresql://USER:PASSWORD@HOST:PORT/DATABASE."
    )
