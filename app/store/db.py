"""The SQLite file: where it lives, opening it safely (corrupt or newer files are never
written), WAL and foreign keys, and forward migrations keyed by PRAGMA user_version."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from app.domain.errors import LinkLabError
from app.domain.paths import data_folder
from app.store.census import cut_short
from app.store.schema import MIGRATIONS

SCHEMA_VERSION = len(MIGRATIONS)
_HEADER = b"SQLite format 3\x00"


class StoreError(LinkLabError):
    """A database problem, with a sentence that says what to do."""


class StoreCorrupt(StoreError):
    pass


class StoreDamaged(StoreCorrupt):
    """The file is a LinkLab database, but the whole-file check found damage: it can still
    be read (read-only), and `linklab doctor --db` copies what can be read."""


class StoreTooNew(StoreError):
    pass


class StoreFull(StoreError):
    pass


class StoreReadOnly(StoreError):
    """The file or its folder refuses writes (a read-only share, medium or folder): the
    database is read, nothing is saved to it."""


def default_path(database: str | None) -> Path:
    """The database in the platform's user-data folder; database: the value of LINKLAB_DB,
    which overrides it, read by the entry point."""
    if database:
        return Path(database)
    return data_folder(None) / "linklab.sqlite3"


def translate(err: sqlite3.Error, path: Path) -> StoreError:
    """A sentence for an sqlite3 error met while reading or writing."""
    text = str(err).lower()
    if "disk is full" in text or "database or disk is full" in text:
        return StoreFull(
            f"The disk holding {path} is full, so the last result could not be saved: free "
            f"some space, then resume the session (nothing saved before is lost).",
            detail=str(err),
        )
    if "locked" in text or "busy" in text:
        return StoreError(
            f"The database {path} is busy in another program: close it there, then try again.",
            detail=str(err),
        )
    if "readonly" in text or "read-only" in text:
        return StoreReadOnly(
            unwritable_words(path) or read_only_sentence(path, "the file is write-protected"),
            detail=str(err),
        )
    if "unable to open" in text:
        return StoreError(
            unwritable_words(path)
            or f"The database {path} cannot be opened ({err}): check that its folder "
            f"{path.parent} exists and that you may read and write there, or use another file "
            f"(the window's Settings, or --db).",
            detail=str(err),
        )
    if isinstance(err, sqlite3.DatabaseError) and ("malformed" in text or "corrupt" in text):
        # A damaged page of an SQLite file: what can still be read can be recovered.
        return StoreCorrupt(_damaged_page_sentence(path, str(err)), detail=str(err))
    if isinstance(err, sqlite3.DatabaseError) and "not a database" in text:
        return StoreCorrupt(_corrupt_sentence(path, str(err)), detail=str(err))
    return StoreError(f"The database {path} reported an error ({err}).", detail=str(err))


def _text(value: bytes) -> str:
    return value.decode("utf-8", "replace")


def _damaged_page_sentence(path: Path, why: str) -> str:
    if (cut := cut_short(path)) is not None:
        why = f"{cut.words()}; SQLite says: {why}"
    return (
        f"The database {path} is damaged ({why}); LinkLab left it untouched: copy the sessions "
        f"that can still be read to a new file with `linklab doctor --db {path} --recover-to "
        f"NEW.sqlite3`, then use that file (Settings, or --db), or restore a backup."
    )


def _corrupt_sentence(path: Path, why: str) -> str:
    return (
        f"The file {path} is damaged or is not a LinkLab database ({why}); LinkLab left it "
        f"untouched and cannot save to it: restore a backup, or use another database file "
        f"(the window's Settings → Use another file…, or --db)."
    )


def read_only_sentence(path: Path, why: str) -> str:
    held = (
        f"LinkLab reads the sessions in {path} but cannot save new ones there"
        if path.is_file()
        else f"LinkLab cannot make its database {path.name} there"
    )
    return (
        f"{why[:1].upper()}{why[1:]}: {held}. To measure, make it writable, or use another "
        f"database file (the window's Settings → Use another file…, or --db)."
    )


def unwritable_words(path: Path) -> str:
    """Why LinkLab cannot write the database file or its folder, in a sentence; "" when it
    can (as far as the OS says: os.access sees read-only mounts and file modes)."""
    folder = path.parent
    if folder.is_dir() and not os.access(folder, os.W_OK):
        return read_only_sentence(path, f"the data folder {folder} is read-only")
    if path.is_file() and not os.access(path, os.W_OK):
        return read_only_sentence(path, f"the database {path} is write-protected")
    return ""


def read_uri(path: Path) -> str:
    """The URI that opens the file only to read it. SQLite reads a WAL database through a
    shared-memory file beside it: in a folder that refuses to hold one (and without one left
    there), the file is opened as immutable (nothing else can be writing to it there)."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    folder = path.parent
    shared = Path(f"{path}-shm").exists() and Path(f"{path}-wal").exists()
    if not shared and folder.is_dir() and not os.access(folder, os.W_OK):
        uri += "&immutable=1"
    return uri


def damaged_sentence(path: Path, why: str) -> str:
    return (
        f"The database {path} failed its integrity check ({why}): LinkLab left it untouched "
        f"and reads it only, so nothing new can be saved to it. To go on measuring, copy the "
        f"sessions that can still be read to a new file with `linklab doctor --db {path} "
        f"--recover-to NEW.sqlite3`, then use that file (Settings, or --db)."
    )


class Database:
    """One connection to the LinkLab database (the writer, or a reader of its own)."""

    def __init__(self, path: Path | str, *, readonly: bool = False, verify: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        #: Why it is only read when it was to be written (a read-only folder or file, a
        #: newer LinkLab's file): the sentence require_writable() raises; "" otherwise.
        self.why_readonly = ""
        # PRAGMA quick_check reads the whole file (about 0.1 s per 30 MB): done once per
        # start-up (FrontDoor.startup, off the GUI thread), not on every open. SQLite still
        # reports a damaged page it meets, as StoreCorrupt.
        self._verify = verify
        self.version = 0
        self._lock = threading.RLock()
        self.conn = self._open()

    # -- opening -------------------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        path = self.path
        exists = path.exists() and path.stat().st_size > 0
        if path.exists() and path.is_dir():
            raise StoreError(f"{path} is a folder, not a database file: choose a file with --db.")
        if exists:
            try:
                with path.open("rb") as handle:
                    header = handle.read(len(_HEADER))
            except OSError as err:
                raise StoreError(f"The database {path} cannot be read ({err}).") from None
            if header != _HEADER:
                raise StoreCorrupt(_corrupt_sentence(path, "it does not start like an SQLite file"))
        elif self.readonly:
            raise StoreError(f"There is no database at {path} yet: run a measurement first.")
        if exists and not self.readonly and (why := unwritable_words(path)):
            self.readonly, self.why_readonly = True, why  # read where it can be, said why not
        else:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreError(
                    f"The folder for the database ({path.parent}) cannot be created ({err}): "
                    f"choose another place with --db."
                ) from None
        mode = "rw" if exists else "rwc"
        uri = read_uri(path) if self.readonly else f"{path.resolve().as_uri()}?mode={mode}"
        try:
            conn = sqlite3.connect(
                uri,
                uri=True,
                timeout=10,
                check_same_thread=False,
                isolation_level=None,  # explicit transactions only
            )
        except sqlite3.Error as err:
            raise translate(err, path) from None
        # Text that is not UTF-8 (a damaged page, another tool's write) reads with U+FFFD in
        # place of the bad bytes, rather than stopping every read that meets it.
        conn.text_factory = _text
        try:
            self._check(conn, exists)
        except BaseException:
            conn.close()
            raise
        return conn

    def _check(self, conn: sqlite3.Connection, exists: bool) -> None:
        path = self.path
        try:
            if exists and self._verify:
                self._quick_check(conn)
            self.version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if exists and self.version > 0 and not _is_linklab(conn):
                raise StoreCorrupt(_corrupt_sentence(path, "it holds no LinkLab tables"))
            if exists and self.version == 0 and _has_tables(conn):
                raise StoreCorrupt(_corrupt_sentence(path, "it is another program's database"))
            if self.version > SCHEMA_VERSION:
                self.readonly = True  # readable as far as we understand it; never written
                self.why_readonly = self.why_readonly or self._too_new()
                conn.execute("PRAGMA query_only = ON")
            conn.execute("PRAGMA foreign_keys = ON")
            if not self.readonly:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                self._migrate(conn)
        except sqlite3.Error as err:
            raise translate(err, path) from None

    def _quick_check(self, conn: sqlite3.Connection) -> None:
        """The whole-file check. A LinkLab database that fails it is StoreDamaged (it can be
        read, and recovered); any other file StoreCorrupt."""
        try:
            result = conn.execute("PRAGMA quick_check").fetchone()
            why = "" if result and result[0] == "ok" else str(result[0] if result else "?")
        except sqlite3.DatabaseError as err:
            if not isinstance(translate(err, self.path), StoreCorrupt):
                raise  # busy, full, ...: said as such
            why = str(err)
        if not why:
            return
        try:
            ours = _is_linklab(conn)
        except sqlite3.Error:
            ours = False
        if ours:
            raise StoreDamaged(damaged_sentence(self.path, why), detail=why)
        if cut_short(self.path) is not None or "malformed" in why:  # its pages are damaged
            raise StoreCorrupt(_damaged_page_sentence(self.path, why), detail=why)
        raise StoreCorrupt(_corrupt_sentence(self.path, why))

    def _migrate(self, conn: sqlite3.Connection) -> None:
        if self.version >= SCHEMA_VERSION:
            return
        # A migration may rebuild a table that others reference (SQLite cannot alter a
        # CHECK): with foreign keys on, dropping the old table would cascade-delete the rows
        # that point to it. They are off meanwhile (only outside a transaction can they be
        # switched), and every reference is checked before each migration commits.
        conn.execute("PRAGMA foreign_keys = OFF")
        try:
            while self.version < SCHEMA_VERSION:
                target = self.version + 1
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for statement in MIGRATIONS[self.version]:
                        conn.execute(statement)
                    broken = conn.execute("PRAGMA foreign_key_check").fetchone()
                    if broken is not None:
                        raise sqlite3.IntegrityError(f"migration {target} broke {tuple(broken)}")
                    conn.execute(f"PRAGMA user_version = {target}")
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                self.version = target
        finally:
            conn.execute("PRAGMA foreign_keys = ON")

    # -- use -----------------------------------------------------------------------------------
    def _too_new(self) -> str:
        return (
            f"The database {self.path} was written by a newer LinkLab (schema "
            f"{self.version}; this version knows up to {SCHEMA_VERSION}): update LinkLab, "
            f"or use another database file with --db. It was left unchanged."
        )

    def require_writable(self) -> None:
        if self.version > SCHEMA_VERSION:
            raise StoreTooNew(self._too_new())
        if self.why_readonly:
            raise StoreReadOnly(self.why_readonly)
        if self.readonly:
            raise StoreReadOnly(read_only_sentence(self.path, "it was opened only to be read"))

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed on success, rolled back on any error."""
        self.require_writable()
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise translate(err, self.path) from None
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except sqlite3.Error as err:
                self._rollback()
                raise translate(err, self.path) from None
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # no transaction left to roll back (SQLite ended it itself)

    def query(
        self, sql: str, params: tuple[object, ...] | dict[str, object] = ()
    ) -> list[sqlite3.Row]:
        with self._lock:
            try:
                cursor = self.conn.execute(sql, params)
                cursor.row_factory = sqlite3.Row
                return cursor.fetchall()
            except sqlite3.Error as err:
                raise translate(err, self.path) from None

    def batches(
        self, sql: str, params: tuple[object, ...] = (), size: int = 5_000
    ) -> Iterator[list[sqlite3.Row]]:
        """The rows of sql, size at a time (a long run's samples, never all in memory)."""
        with self._lock:
            try:
                cursor = self.conn.execute(sql, params)
                cursor.row_factory = sqlite3.Row
                while rows := cursor.fetchmany(size):
                    yield rows
            except sqlite3.Error as err:
                raise translate(err, self.path) from None

    def integrity_ok(self) -> bool:
        with self._lock:
            row = self.conn.execute("PRAGMA integrity_check").fetchone()
        return bool(row) and row[0] == "ok"

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


#: Opens one database for a part of the front door: `open(write=True)` refuses, saying why,
#: when nothing can be saved to it.
Opener = Callable[..., Database]


def _has_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()
    return bool(row and row[0])


def _is_linklab(conn: sqlite3.Connection) -> bool:
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {"sessions", "runs"} <= names
