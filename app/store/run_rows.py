"""A run's row as the run is measured, so that a crash loses at most its last second: begun
as partial, its samples and seconds of working latency a batch at a time, then finished (ok
or failed), left partial (stopped) or discarded (it measured nothing), each in one
transaction and on its session's own time (the store's stamps)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from app.domain.plan import RunKey
from app.domain.records import METRIC_FIELDS, RunMetrics
from app.domain.results import LatencySecond, Sample
from app.store.latency_seconds import insert_seconds
from app.store.rows import insert_run, insert_samples, plain
from app.store.sessions import SessionStore


class RunRows:
    """The rows of the runs measured through one store (its connection and its sessions'
    times): what a SampleWriter writes as a run goes on."""

    def __init__(self, store: SessionStore) -> None:
        self.db = store.db
        self.stamps = store.stamps

    def begin(
        self,
        session_id: str,
        key: RunKey,
        value: float | str,
        *,
        attempts: int,
        engine: str,
        engine_version: str = "",
        argv: Sequence[str] = (),
        started_at: str | None = None,
    ) -> int:
        """The row of a run that starts now (unless given), as 'partial' until finish()."""
        stamp = self.stamps.now(session_id, started_at)
        with self.db.transaction() as conn:
            run_id = insert_run(
                conn,
                session_id,
                key,
                value,
                ok=False,
                partial=True,
                error_kind="",
                error="",
                attempts=attempts,
                started_at=stamp.iso,
                ended_at=stamp.iso,
                elapsed_s=None,
                engine=engine,
                engine_version=engine_version,
                argv=argv,
                raw_output="",
                flows_json="[]",
                metrics=RunMetrics(),
            )
            return self.stamps.run_begun(conn, run_id, session_id, stamp)

    def add_samples(
        self,
        run_id: int,
        first_seq: int,
        samples: Sequence[Sample],
        seconds: Sequence[LatencySecond] = (),
    ) -> None:
        """A batch of a running run's samples (and the seconds of its working latency that
        completed meanwhile), in one transaction (the run's end moves on)."""
        if not samples and not seconds:
            return
        with self.db.transaction() as conn:
            insert_samples(conn, run_id, samples, first_seq)
            insert_seconds(conn, run_id, seconds)
            ended = self.stamps.run_now(conn, run_id)
            conn.execute("UPDATE runs SET ended_at = ? WHERE id = ?", (ended, run_id))

    def finish(
        self,
        run_id: int,
        *,
        metrics: RunMetrics | None,
        first_seq: int = 0,
        samples: Sequence[Sample] = (),
        error_kind: str = "",
        error: str = "",
        attempts: int = 1,
        started_at: str | None = None,
        started_steady: float | None = None,
        elapsed_s: float | None = None,
        engine_version: str | None = None,
        argv: Sequence[str] | None = None,
        raw_output: str = "",
        flows: Iterable[object] = (),
        replace_samples: bool = False,
        seconds: Sequence[LatencySecond] = (),
    ) -> None:
        """The run's end: ok (metrics) or failed (error), its last samples and seconds of
        working latency, in one transaction.
        With replace_samples, `samples` are all the run's samples and take the place of those
        stored while it ran (the far end's figures joined in when the run ended)."""
        metrics = metrics or RunMetrics()
        started_at = self.stamps.started(run_id, started_steady) or started_at
        columns: dict[str, object] = {
            "status": "failed" if error else "ok",
            "error_kind": error_kind,
            "error": error,
            "attempts": attempts,
            "elapsed_s": elapsed_s,
            "raw_output": raw_output,
            "flows_json": json.dumps([plain(f) for f in flows]),
            **{name: getattr(metrics, name) for name in METRIC_FIELDS},
        }
        if started_at is not None:
            columns["started_at"] = started_at
        if engine_version is not None:
            columns["engine_version"] = engine_version
        if argv is not None:
            columns["argv_json"] = json.dumps(list(argv))
        with self.db.transaction() as conn:
            columns["ended_at"] = self.stamps.run_now(conn, run_id)
            assignments = ", ".join(f"{name} = ?" for name in columns)
            # A key's newest finished attempt is its run: a failed one measured again (a
            # resume) is kept as an attempt tried again, as a retry's is (partial, its error,
            # samples and output kept), never counted as a done or a failed run.
            conn.execute(
                "UPDATE runs SET status = 'partial' WHERE status = 'failed' AND id != :run "
                "AND (session_id, protocol, ip_version, kind, value_index, repetition) = ("
                "SELECT session_id, protocol, ip_version, kind, value_index, repetition "
                "FROM runs WHERE id = :run)",
                {"run": run_id},
            )
            if replace_samples:
                conn.execute("DELETE FROM samples WHERE run_id = ?", (run_id,))
                first_seq = 0
            insert_samples(conn, run_id, samples, first_seq)
            insert_seconds(conn, run_id, seconds)
            conn.execute(
                f"UPDATE runs SET {assignments} WHERE id = ?",
                (*columns.values(), run_id),
            )

    def leave_partial(
        self,
        run_id: int,
        first_seq: int,
        samples: Sequence[Sample],
        reason: str,
        seconds: Sequence[LatencySecond] = (),
        raw_output: str = "",
    ) -> None:
        """A run that ends unfinished (stopped, or an attempt tried again): its last samples
        and seconds, why, and the engine's output until then; it stays partial."""
        with self.db.transaction() as conn:
            insert_samples(conn, run_id, samples, first_seq)
            insert_seconds(conn, run_id, seconds)
            conn.execute(
                "UPDATE runs SET ended_at = ?, error = ?, raw_output = ? WHERE id = ?",
                (self.stamps.run_now(conn, run_id), reason, raw_output, run_id),
            )

    def discard(self, run_id: int) -> None:
        """An attempt that measured nothing and is tried again: its row goes."""
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM runs WHERE id = ? AND status = 'partial'", (run_id,))
