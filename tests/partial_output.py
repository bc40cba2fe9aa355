"""What a run stopped part way keeps as its raw output: the engine's output until then, which
its own parser reads again into every interval the run kept."""

from __future__ import annotations

from pathlib import Path

from app.domain.plan import Engine
from app.domain.records import RunRecord
from app.domain.results import Sample
from app.engine.drivers.registry import DRIVERS
from app.store.db import Database
from app.store.sessions import SessionStore


def stopped_run(db_path: Path) -> tuple[RunRecord, list[Sample]]:
    """The one session's one run, read from the database opened again, with its samples."""
    with Database(db_path, readonly=True) as db:
        store = SessionStore(db)
        (session,) = store.list_sessions()
        (run,) = store.runs(session.id, with_raw=True, partial=True)
        return run, list(store.samples(run.id))


def assert_output_holds_the_intervals(run: RunRecord, samples: list[Sample]) -> None:
    """The raw output, read again by the engine's own parser, states every interval the run
    kept, with the same figures."""
    assert run.status == "partial" and len(samples) >= 2
    assert run.raw_output, "the stopped run's raw output is empty"
    parser = DRIVERS[Engine(run.engine)].parser_for(run.argv)
    assert parser is not None
    stated = [e for e in parser(run.raw_output.splitlines()) if isinstance(e, Sample)]
    kept = [s for s in stated if not s.omitted]
    assert len(kept) >= len(samples)
    for sample, line in zip(samples, kept, strict=False):
        assert (sample.start_s, sample.end_s, sample.sent_bps, sample.received_bps) == (
            line.start_s,
            line.end_s,
            line.sent_bps,
            line.received_bps,
        )
