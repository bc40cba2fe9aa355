"""The database schema as forward migrations: MIGRATIONS[n] takes user_version n to n + 1.

Never edit a released migration; append a new one. From version 11 on, a metric's columns
are not written here: the migration to the version its spec names (Figure.since_schema in
app.domain.metrics) adds them.
"""

from __future__ import annotations

from app.domain.metrics import FIGURES, Figure

_V1 = [
    """
    CREATE TABLE peers (
        id INTEGER PRIMARY KEY,
        host TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL DEFAULT '',
        iperf3_port INTEGER NOT NULL DEFAULT 5201,
        netperf_port INTEGER NOT NULL DEFAULT 12865,
        last_used TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL DEFAULT '',
        peer_id INTEGER REFERENCES peers(id) ON DELETE SET NULL,
        plan_json TEXT NOT NULL,
        conditions_json TEXT NOT NULL,
        environment_json TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL CHECK (status IN
            ('running', 'completed', 'stopped', 'interrupted', 'failed')),
        status_reason TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        started_at TEXT,
        ended_at TEXT,
        app_version TEXT NOT NULL,
        total_runs INTEGER NOT NULL,
        owner_host TEXT NOT NULL DEFAULT '',
        owner_pid INTEGER,
        owner_started REAL
    )
    """,
    "CREATE INDEX sessions_created ON sessions(created_at)",
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        protocol TEXT NOT NULL,
        ip_version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        value_index INTEGER NOT NULL,
        value REAL NOT NULL,
        repetition INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
        error_kind TEXT NOT NULL DEFAULT '',
        error TEXT NOT NULL DEFAULT '',
        attempts INTEGER NOT NULL DEFAULT 1,
        started_at TEXT NOT NULL,
        ended_at TEXT NOT NULL,
        elapsed_s REAL,
        engine TEXT NOT NULL,
        engine_version TEXT NOT NULL DEFAULT '',
        argv_json TEXT NOT NULL DEFAULT '[]',
        raw_output TEXT NOT NULL DEFAULT '',
        throughput_bps REAL,
        sender_bps REAL,
        receiver_bps REAL,
        bytes_sent INTEGER,
        bytes_received INTEGER,
        retransmits INTEGER,
        rtt_mean_ms REAL,
        rtt_min_ms REAL,
        rtt_max_ms REAL,
        jitter_ms REAL,
        lost_packets INTEGER,
        packets INTEGER,
        loss_pct REAL,
        cpu_local_pct REAL,
        cpu_remote_pct REAL,
        cpu_host_mean_pct REAL,
        cpu_host_peak_pct REAL,
        transactions_per_s REAL,
        flows_json TEXT NOT NULL DEFAULT '[]',
        UNIQUE (session_id, protocol, ip_version, kind, value_index, repetition)
    )
    """,
    """
    CREATE TABLE samples (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        flow TEXT NOT NULL,
        start_s REAL NOT NULL,
        end_s REAL NOT NULL,
        bits_per_second REAL,
        bytes INTEGER,
        retransmits INTEGER,
        rtt_ms REAL,
        cwnd_bytes INTEGER,
        jitter_ms REAL,
        lost_packets INTEGER,
        packets INTEGER,
        PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID
    """,
]

# Version 2: a run is stored as it starts, as 'partial', and its samples as they arrive; it
# becomes 'ok' or 'failed' when it ends. A run that never ended (LinkLab died, or the user
# stopped it) stays 'partial': kept and exportable, never a done repetition — so only
# finished runs are unique per key (a resumed session measures that key again). SQLite
# cannot alter a CHECK: the table is rebuilt (foreign keys off meanwhile, see Database).
_V2 = [
    """
    CREATE TABLE runs_v2 (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        protocol TEXT NOT NULL,
        ip_version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        value_index INTEGER NOT NULL,
        value REAL NOT NULL,
        repetition INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'partial')),
        error_kind TEXT NOT NULL DEFAULT '',
        error TEXT NOT NULL DEFAULT '',
        attempts INTEGER NOT NULL DEFAULT 1,
        started_at TEXT NOT NULL,
        ended_at TEXT NOT NULL,
        elapsed_s REAL,
        engine TEXT NOT NULL,
        engine_version TEXT NOT NULL DEFAULT '',
        argv_json TEXT NOT NULL DEFAULT '[]',
        raw_output TEXT NOT NULL DEFAULT '',
        throughput_bps REAL,
        sender_bps REAL,
        receiver_bps REAL,
        bytes_sent INTEGER,
        bytes_received INTEGER,
        retransmits INTEGER,
        rtt_mean_ms REAL,
        rtt_min_ms REAL,
        rtt_max_ms REAL,
        jitter_ms REAL,
        lost_packets INTEGER,
        packets INTEGER,
        loss_pct REAL,
        cpu_local_pct REAL,
        cpu_remote_pct REAL,
        cpu_host_mean_pct REAL,
        cpu_host_peak_pct REAL,
        transactions_per_s REAL,
        flows_json TEXT NOT NULL DEFAULT '[]'
    )
    """,
    """
    INSERT INTO runs_v2 (
        id, session_id, protocol, ip_version, kind, value_index, value, repetition, status,
        error_kind, error, attempts, started_at, ended_at, elapsed_s, engine, engine_version,
        argv_json, raw_output, throughput_bps, sender_bps, receiver_bps, bytes_sent,
        bytes_received, retransmits, rtt_mean_ms, rtt_min_ms, rtt_max_ms, jitter_ms,
        lost_packets, packets, loss_pct, cpu_local_pct, cpu_remote_pct, cpu_host_mean_pct,
        cpu_host_peak_pct, transactions_per_s, flows_json
    ) SELECT
        id, session_id, protocol, ip_version, kind, value_index, value, repetition, status,
        error_kind, error, attempts, started_at, ended_at, elapsed_s, engine, engine_version,
        argv_json, raw_output, throughput_bps, sender_bps, receiver_bps, bytes_sent,
        bytes_received, retransmits, rtt_mean_ms, rtt_min_ms, rtt_max_ms, jitter_ms,
        lost_packets, packets, loss_pct, cpu_local_pct, cpu_remote_pct, cpu_host_mean_pct,
        cpu_host_peak_pct, transactions_per_s, flows_json
    FROM runs
    """,
    "DROP TABLE runs",
    "ALTER TABLE runs_v2 RENAME TO runs",
    "CREATE INDEX runs_session ON runs (session_id)",
    """
    CREATE UNIQUE INDEX runs_finished_key
        ON runs (session_id, protocol, ip_version, kind, value_index, repetition)
        WHERE status != 'partial'
    """,
]

# Version 3: a student's work on a lab exercise — the exercise as handed out, who they are,
# and their answers; the sessions they measured for it carry the same exercise id and
# student in their plan's assignment.
_V3 = [
    """
    CREATE TABLE exercise_work (
        exercise_id TEXT NOT NULL,
        student TEXT NOT NULL,
        group_name TEXT NOT NULL DEFAULT '',
        exercise_json TEXT NOT NULL,
        answers_json TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (exercise_id, student)
    )
    """,
]

# Version 4: working latency per run (plans with the latency metric): the median round trip
# of the probes before the run and during it, the loaded p90 and loss, and the method used.
# Older runs have none (NULL).
_V4 = [
    "ALTER TABLE runs ADD COLUMN latency_idle_ms REAL",
    "ALTER TABLE runs ADD COLUMN latency_ms REAL",
    "ALTER TABLE runs ADD COLUMN latency_p90_ms REAL",
    "ALTER TABLE runs ADD COLUMN latency_loss_pct REAL",
    "ALTER TABLE runs ADD COLUMN latency_method TEXT",
]

# Version 5: a sample's throughput in two columns, the sender's rate (sent_bps) and what the
# receiver got (received_bps), instead of one bits_per_second that held whichever end the
# client was. Older rows are sorted by what the client was in them: the sender of an upload
# (flow 'up') unless its report had the receiver's jitter, the receiver of a download. The
# same rule, for a file that is read without being migrated (rows.readable_sample_columns):
LEGACY_SENT_BPS = "CASE WHEN flow = 'up' AND jitter_ms IS NULL THEN bits_per_second END"
LEGACY_RECEIVED_BPS = "CASE WHEN flow = 'down' OR jitter_ms IS NOT NULL THEN bits_per_second END"
_V5 = [
    """
    CREATE TABLE samples_v5 (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        flow TEXT NOT NULL,
        start_s REAL NOT NULL,
        end_s REAL NOT NULL,
        sent_bps REAL,
        received_bps REAL,
        bytes INTEGER,
        retransmits INTEGER,
        rtt_ms REAL,
        cwnd_bytes INTEGER,
        jitter_ms REAL,
        lost_packets INTEGER,
        packets INTEGER,
        PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID
    """,
    """
    INSERT INTO samples_v5 (
        run_id, seq, flow, start_s, end_s, sent_bps, received_bps, bytes, retransmits, rtt_ms,
        cwnd_bytes, jitter_ms, lost_packets, packets
    ) SELECT
        run_id, seq, flow, start_s, end_s,
        CASE WHEN flow = 'up' AND jitter_ms IS NULL THEN bits_per_second END,
        CASE WHEN flow = 'down' OR jitter_ms IS NOT NULL THEN bits_per_second END,
        bytes, retransmits, rtt_ms, cwnd_bytes, jitter_ms, lost_packets, packets
    FROM samples
    """,
    "DROP TABLE samples",
    "ALTER TABLE samples_v5 RENAME TO samples",
]

# Version 6: a peer's ports are a mapping by engine ("iperf3": 5201, "netperf": 12865), one
# row per engine whose server it runs, instead of a column per engine.
_V6 = [
    """
    CREATE TABLE peer_ports (
        peer_id INTEGER NOT NULL REFERENCES peers(id) ON DELETE CASCADE,
        engine TEXT NOT NULL,
        port INTEGER NOT NULL,
        PRIMARY KEY (peer_id, engine)
    ) WITHOUT ROWID
    """,
    "INSERT INTO peer_ports SELECT id, 'iperf3', iperf3_port FROM peers",
    "INSERT INTO peer_ports SELECT id, 'netperf', netperf_port FROM peers",
    "ALTER TABLE peers DROP COLUMN iperf3_port",
    "ALTER TABLE peers DROP COLUMN netperf_port",
]

# Version 7: one-way delay (iperf 2's --trip-times, the clocks stated synchronised), the
# receiver's mean, per run and per interval sample. Older runs and samples have none (NULL).
_V7 = [
    "ALTER TABLE runs ADD COLUMN owd_ms REAL",
    "ALTER TABLE samples ADD COLUMN owd_ms REAL",
]

# Version 8: responsiveness results kept like sessions: the test's header (peer, how latency
# was measured, idle latency, settings), each load direction's result, and each step of its
# ramp with the round trips of its probes (what a comparison tests the difference with).
# RPM and rating are not stored: they follow from the loaded latency.
_V8 = [
    """
    CREATE TABLE responsiveness (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL DEFAULT '',
        host TEXT NOT NULL,
        this_computer INTEGER NOT NULL DEFAULT 0,
        method TEXT NOT NULL,
        method_sentence TEXT NOT NULL DEFAULT '',
        idle_latency_ms REAL NOT NULL,
        idle_answered INTEGER NOT NULL,
        elapsed_s REAL NOT NULL,
        settings_json TEXT NOT NULL DEFAULT '{}',
        notes_json TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        app_version TEXT NOT NULL
    )
    """,
    "CREATE INDEX responsiveness_created ON responsiveness (created_at)",
    """
    CREATE TABLE responsiveness_loads (
        result_id TEXT NOT NULL REFERENCES responsiveness(id) ON DELETE CASCADE,
        phase TEXT NOT NULL CHECK (phase IN ('download', 'upload', 'both')),
        loaded_latency_ms REAL,
        confidence TEXT NOT NULL,
        goodput_bps REAL,
        flows INTEGER NOT NULL,
        answered INTEGER NOT NULL,
        lost INTEGER NOT NULL,
        stable INTEGER NOT NULL,
        PRIMARY KEY (result_id, phase)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE responsiveness_steps (
        result_id TEXT NOT NULL REFERENCES responsiveness(id) ON DELETE CASCADE,
        phase TEXT NOT NULL,
        step INTEGER NOT NULL,
        flows INTEGER NOT NULL,
        goodput_bps REAL,
        latency_ms REAL,
        answered INTEGER NOT NULL,
        lost INTEGER NOT NULL,
        start_s REAL NOT NULL,
        end_s REAL NOT NULL,
        rtts_json TEXT NOT NULL DEFAULT '[]',
        PRIMARY KEY (result_id, phase, step)
    ) WITHOUT ROWID
    """,
]

# Deleting a session can be undone for a while: it is marked deleted (hidden everywhere) and
# its rows go once DELETED_KEPT has passed.
_V9 = [
    "ALTER TABLE sessions ADD COLUMN deleted_at TEXT",
    "CREATE INDEX sessions_deleted ON sessions(deleted_at)",
]

# Version 10: the class token kept apart, like a password: an exercise names its class's
# collector by address in exercise_work, and the token to push there is a row of its own per
# collector (the latest given), never in the stored exercise. Older rows move theirs out.
_V10 = [
    """
    CREATE TABLE class_tokens (
        collector_url TEXT PRIMARY KEY,
        token TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )
    """,
    """
    INSERT OR REPLACE INTO class_tokens (collector_url, token, updated_at)
        SELECT json_extract(exercise_json, '$.collector.url'),
            json_extract(exercise_json, '$.collector.token'), updated_at
        FROM exercise_work
        WHERE json_valid(exercise_json)
            AND json_type(exercise_json, '$.collector.url') = 'text'
            AND json_type(exercise_json, '$.collector.token') = 'text'
            AND json_extract(exercise_json, '$.collector.token') != ''
        ORDER BY updated_at
    """,
    """
    UPDATE exercise_work SET exercise_json = json_remove(exercise_json, '$.collector.token')
        WHERE json_valid(exercise_json)
            AND json_type(exercise_json, '$.collector.token') IS NOT NULL
    """,
]

#: Released migrations written by hand, up to the last whose metric columns were written too.
_WRITTEN = [_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V10]
# Version 12: a run's working latency under load per second (each second's median round trip,
# its probes answered and lost), as a monitor charts it live, so that a stored monitor shows
# what it showed (app.store.latency_seconds).
_V12 = [
    """
    CREATE TABLE latency_seconds (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        second INTEGER NOT NULL,
        median_ms REAL,
        answered INTEGER NOT NULL,
        lost INTEGER NOT NULL,
        PRIMARY KEY (run_id, second)
    ) WITHOUT ROWID
    """,
]

# Version 14: where the computer's clock was set while a session ran, how far it was from the
# session's own time (app.domain.clock), kept with the session and each run it marks.
_V14 = [
    "ALTER TABLE sessions ADD COLUMN clock_step_s REAL",
    "ALTER TABLE runs ADD COLUMN clock_step_s REAL",
]

#: Migrations written by hand after it, by the version they lead to (run before the columns of
#: the metrics arriving in that version).
_WRITTEN_LATER: dict[int, list[str]] = {12: _V12, 14: _V14}
_SQL_TYPES = {int: "INTEGER", float: "REAL", str: "TEXT"}


def figure_columns(figure: Figure) -> list[str]:
    """The statements that add a figure's columns: to runs and/or samples, as its spec says."""
    tables = [t for t, where in (("runs", figure.run), ("samples", figure.interval)) if where]
    kind = _SQL_TYPES[figure.kind]
    return [f"ALTER TABLE {table} ADD COLUMN {figure.name} {kind}" for table in tables]


def _migration_to(version: int) -> list[str]:
    arriving = [figure for figure in FIGURES if figure.since_schema == version]
    return _WRITTEN_LATER.get(version, []) + [s for f in arriving for s in figure_columns(f)]


_LATEST = max(len(_WRITTEN), *_WRITTEN_LATER, *(figure.since_schema for figure in FIGURES))
MIGRATIONS: list[list[str]] = _WRITTEN + [
    _migration_to(version) for version in range(len(_WRITTEN) + 1, _LATEST + 1)
]
