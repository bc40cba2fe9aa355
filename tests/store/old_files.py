"""Helpers that turn a database LinkLab writes now back into the shape older LinkLabs wrote."""

from __future__ import annotations

import sqlite3

from app.domain.metrics import FIGURES
from app.store.schema import MIGRATIONS

_KEPT = (
    "run_id, seq, flow, start_s, end_s, bytes, retransmits, rtt_ms, cwnd_bytes, jitter_ms, "
    "lost_packets, packets"
)


#: Columns that migrations written by hand after schema 10 add, by the version they arrived in.
_LATER_COLUMNS = {13: (("sessions", "clock_step_s"), ("runs", "clock_step_s"))}


def figures_before(conn: sqlite3.Connection, version: int) -> None:
    """No columns of the figures that arrived after this schema version (those the metric
    table's since_schema adds from schema 11 on), nor the seconds of working latency (schema
    12), nor the others added since."""
    if version < 12:
        conn.execute("DROP TABLE IF EXISTS latency_seconds")
    for table, where in (("runs", "run"), ("samples", "interval")):
        present = {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}
        for figure in FIGURES:
            if figure.since_schema > max(version, 10) and getattr(figure, where):
                if figure.name in present:
                    conn.execute(f"ALTER TABLE {table} DROP COLUMN {figure.name}")
    for since, columns in _LATER_COLUMNS.items():
        for table, column in columns if since > max(version, 10) else ():
            present = {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}
            if column in present:
                conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")


def samples_before_schema_5(conn: sqlite3.Connection) -> None:
    """The samples table as schemas 1 to 4 made it: one bits_per_second column, which held
    the client's count (the receiver's where there was one, as the client reported it)."""
    figures_before(conn, 4)
    conn.execute("ALTER TABLE samples RENAME TO samples_now")
    conn.execute(MIGRATIONS[0][4])  # version 1's CREATE TABLE samples
    conn.execute(
        f"INSERT INTO samples ({_KEPT}, bits_per_second) "
        f"SELECT {_KEPT}, coalesce(received_bps, sent_bps) FROM samples_now"
    )
    conn.execute("DROP TABLE samples_now")


def peers_before_schema_6(conn: sqlite3.Connection) -> None:
    """The peers table as schemas 1 to 5 made it: a port column per engine, no peer_ports."""
    figures_before(conn, 5)
    conn.execute("ALTER TABLE peers ADD COLUMN iperf3_port INTEGER NOT NULL DEFAULT 5201")
    conn.execute("ALTER TABLE peers ADD COLUMN netperf_port INTEGER NOT NULL DEFAULT 12865")
    conn.execute(
        "UPDATE peers SET iperf3_port = coalesce((SELECT port FROM peer_ports "
        "WHERE peer_id = peers.id AND engine = 'iperf3'), 5201)"
    )
    conn.execute("DROP TABLE peer_ports")


def runs_before_schema_7(conn: sqlite3.Connection) -> None:
    """The runs and samples tables as schemas 1 to 6 made them: no one-way delay column."""
    figures_before(conn, 6)
    conn.execute("ALTER TABLE runs DROP COLUMN owd_ms")
    samples = {str(row[1]) for row in conn.execute("PRAGMA table_info(samples)")}
    if "owd_ms" in samples:  # not after samples_before_schema_5, which rebuilt the table
        conn.execute("ALTER TABLE samples DROP COLUMN owd_ms")


def responsiveness_before_schema_8(conn: sqlite3.Connection) -> None:
    """No responsiveness tables (and none of what later schemas add), as schemas 1 to 7 had."""
    class_tokens_before_schema_10(conn)
    for table in ("responsiveness_steps", "responsiveness_loads", "responsiveness"):
        conn.execute(f"DROP TABLE {table}")
    sessions_before_schema_9(conn)  # and what schema 9 added was not there either


def sessions_before_schema_9(conn: sqlite3.Connection) -> None:
    """The sessions table as schemas 1 to 8 made it: no deleted_at (a delete was final), and
    none of what later schemas add."""
    class_tokens_before_schema_10(conn)
    conn.execute("DROP INDEX sessions_deleted")
    conn.execute("ALTER TABLE sessions DROP COLUMN deleted_at")


def class_tokens_before_schema_10(conn: sqlite3.Connection) -> None:
    """No class_tokens table, as schemas 1 to 9 had: an exercise's collector token was kept
    inside its stored exercise."""
    figures_before(conn, 9)
    conn.execute("DROP TABLE IF EXISTS class_tokens")
