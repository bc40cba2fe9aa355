"""Every output carries exactly the metric table's figures, so a new metric cannot be left out
of one: the typed values, the bounds, the runs and samples tables (a new database, one of
schema 10 migrated, one only read), the runs, samples and points CSV, the monitor's CSV,
exchange files (and one without the later figures: absent, not 0) and the CLI's points table.
Each figure gets a value of its own, so a column that swapped or lost one shows."""

from __future__ import annotations

import csv
import dataclasses
import io
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.cli.output import EXTRA_COLUMNS, print_points
from app.domain.metrics import COLUMNS, FIGURES, POINT_METRICS, SAMPLE_FIGURES, Figure, ranked
from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, RunRecord, SessionRecord, utc_now
from app.domain.results import FlowSummary, Sample
from app.engine.readings.bounds import LIMITS
from app.report.csv_export import POINT_COLUMNS, RUN_COLUMNS, runs_csv, write_samples_csv
from app.report.monitor_export import MONITOR_COLUMNS, monitor_csv
from app.store.db import SCHEMA_VERSION, Database
from app.store.sessions import SessionStore
from app.study.files.exchange import export_sessions, import_sessions, read_exchange, write_exchange
from tests.store.old_files import figures_before

PROTOCOLS = (Protocol.TCP, Protocol.UDP)


def _value(figure: Figure, seed: int) -> Any:
    """A value of the figure's own, within its bounds."""
    number = FIGURES.index(figure) + seed
    if figure.kind is str:
        return "udp-echo"
    if figure.kind is int:
        return number
    return min(number + 0.25, figure.largest)


def _metrics(seed: int) -> RunMetrics:
    return RunMetrics(**{f.name: _value(f, seed) for f in COLUMNS})


def _samples(seed: int) -> tuple[Sample, ...]:
    return tuple(
        Sample(
            float(i), float(i + 1), Flow.UP, **{f.name: _value(f, seed + i) for f in SAMPLE_FIGURES}
        )
        for i in range(2)
    )


def _store(path: Path) -> str:
    with Database(path) as db:
        store = SessionStore(db)
        plan = Plan(peer=Peer("127.0.0.1"), protocols=PROTOCOLS, values=(1408,), repetitions=1)
        sid = store.create_session(plan)
        for index, protocol in enumerate(PROTOCOLS):
            store.add_run(
                sid,
                RunKey(protocol, IpVersion.V4, 0, 1),
                1408.0,
                metrics=_metrics(index),
                samples=_samples(index),
                started_at=utc_now(),
                elapsed_s=1.0,
                engine="iperf3",
            )
    return sid


def _read(
    path: Path, sid: str, readonly: bool = False
) -> list[tuple[RunMetrics, tuple[Sample, ...]]]:
    with Database(path, readonly=readonly) as db:
        store = SessionStore(db)
        return [(r.metrics, tuple(store.samples(r.id))) for r in store.runs(sid)]


def _stored(seed: int) -> tuple[RunMetrics, tuple[Sample, ...]]:
    return _metrics(seed), _samples(seed)


def test_the_typed_values_and_the_bounds_hold_every_figure() -> None:
    assert [f.name for f in dataclasses.fields(RunMetrics)] == [f.name for f in COLUMNS]
    sample_fields = {f.name for f in dataclasses.fields(Sample)}
    assert {f.name for f in SAMPLE_FIGURES} <= sample_fields
    flow_fields = {f.name for f in dataclasses.fields(FlowSummary)}
    assert {f.name for f in FIGURES if f.flow} <= flow_fields
    assert {f.name for f in FIGURES if f.kind is not str} == set(LIMITS)
    assert len({f.name for f in FIGURES}) == len(FIGURES)
    # Every point metric reads a run's figure (or the one property that picks between two).
    assert {m.read for m in POINT_METRICS} <= {f.name for f in COLUMNS} | {"cpu_local"}


def test_the_store_keeps_every_figure_per_run_and_per_interval(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    sid = _store(path)
    assert _read(path, sid) == [_stored(0), _stored(1)]
    conn = sqlite3.connect(path)
    for table, figures in (("runs", COLUMNS), ("samples", SAMPLE_FIGURES)):
        present = {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}
        assert {f.name for f in figures} <= present
    conn.close()


@pytest.mark.parametrize("readonly", [False, True])
def test_a_schema_10_file_gains_the_later_figures(tmp_path: Path, readonly: bool) -> None:
    """Migrated, the figures that arrived after schema 10 get their columns (from the specs);
    only read, they are unknown. Either way absent, never 0."""
    path = tmp_path / "old.sqlite3"
    sid = _store(path)
    conn = sqlite3.connect(path)
    figures_before(conn, 10)
    conn.execute("PRAGMA user_version = 10")
    conn.commit()
    conn.close()
    later = {f.name for f in FIGURES if f.since_schema > 10}
    assert later  # out_of_order arrived in schema 11
    for seed, (metrics, samples) in enumerate(_read(path, sid, readonly)):
        wanted, wanted_samples = _stored(seed)
        absent = {name: None for name in later if name in RunMetrics.__dataclass_fields__}
        assert metrics == dataclasses.replace(wanted, **absent)
        absent_samples = {name: None for name in later if name in Sample.__dataclass_fields__}
        assert samples == tuple(dataclasses.replace(s, **absent_samples) for s in wanted_samples)
    with Database(path, readonly=True) as db:
        assert db.version == (10 if readonly else SCHEMA_VERSION)


def _stored_session(
    tmp_path: Path,
) -> tuple[SessionRecord, list[RunRecord], Callable[[int], list[Sample]]]:
    """The stored session, its runs and their samples (read while the database is open)."""
    path = tmp_path / "db.sqlite3"
    sid = _store(path)
    with Database(path, readonly=True) as db:
        store = SessionStore(db)
        session, runs = store.get(sid), store.runs(sid)
        samples = {run.id: store.samples(run.id) for run in runs}
    return session, runs, samples.__getitem__


def test_the_csv_files_carry_every_figure(tmp_path: Path) -> None:
    session, runs, samples_of = _stored_session(tmp_path)
    rows = list(csv.DictReader(io.StringIO(runs_csv(session, runs).lstrip("\ufeff"))))
    out = io.StringIO()
    write_samples_csv(out, session, runs, samples_of)
    names = [f.name for f in COLUMNS]
    assert [c for c in RUN_COLUMNS if c in names] == names
    for seed, row in enumerate(rows):
        for figure in COLUMNS:
            assert row[figure.name] == str(_value(figure, seed)), figure.name
    samples = list(csv.DictReader(io.StringIO(out.getvalue().lstrip("\ufeff"))))
    assert len(samples) == 4
    for index, row in enumerate(samples):
        for figure in SAMPLE_FIGURES:
            assert row[figure.name] == str(_value(figure, index // 2 + index % 2)), figure.name
    for metric in POINT_METRICS:
        assert (f"{metric.name}_mean" in POINT_COLUMNS) == metric.shown.csv


def test_the_monitor_csv_carries_every_figure_of_an_interval(tmp_path: Path) -> None:
    session, runs, samples_of = _stored_session(tmp_path)
    text = monitor_csv(session, runs, {run.id: samples_of(run.id) for run in runs})
    names = [f.name for f in SAMPLE_FIGURES]
    assert [c for c in MONITOR_COLUMNS if c in names] == names
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    assert len(rows) == 4
    order = [run.id for run in runs]
    for row in rows:
        # The run's seed, and the interval's index in its run (ending at 1 s or 2 s).
        seed = order.index(int(row["run_id"])) + int(float(row["time_s"]) > 1.5)
        for figure in SAMPLE_FIGURES:
            assert row[figure.name] == str(_value(figure, seed)), figure.name


def test_exchange_files_carry_every_figure_and_older_ones_lack_them(tmp_path: Path) -> None:
    sid = _store(tmp_path / "a.sqlite3")
    with Database(tmp_path / "a.sqlite3", readonly=True) as db:
        document = export_sessions(SessionStore(db), [sid])
    (session,) = document["sessions"]
    for run in session["runs"]:
        assert set(run["metrics"]) == {f.name for f in COLUMNS}
        for sample in run["samples"]:
            assert set(sample) - {"flow", "start_s", "end_s"} == {f.name for f in SAMPLE_FIGURES}
    path = tmp_path / "lab.linklab"
    write_exchange(path, document)
    with Database(tmp_path / "b.sqlite3") as db:
        import_sessions(SessionStore(db), read_exchange(path))
    assert _read(tmp_path / "b.sqlite3", sid) == [_stored(0), _stored(1)]
    # A file from before each later figure: the key absent, the figure unknown.
    later = [f for f in FIGURES if f.since_schema > 1]
    for run in session["runs"]:
        for figure in later:
            run["metrics"].pop(figure.name, None)
            for sample in run["samples"]:
                sample.pop(figure.name, None)
    write_exchange(path, document)
    with Database(tmp_path / "c.sqlite3") as db:
        import_sessions(SessionStore(db), read_exchange(path))
    for metrics, samples in _read(tmp_path / "c.sqlite3", sid):
        for figure in later:
            if figure.run:
                assert getattr(metrics, figure.name) is None, figure.name
            if figure.interval:
                assert {getattr(s, figure.name) for s in samples} == {None}, figure.name


def test_the_cli_table_shows_every_metric_the_table_ranks_there(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    sid = _store(path)
    with Database(path, readonly=True) as db:
        store = SessionStore(db)
        out = io.StringIO()
        print_points(store.get(sid), store.runs(sid), out)
    (header,) = [line for line in out.getvalue().splitlines() if line.startswith("series")]
    assert [name for name, _ in EXTRA_COLUMNS] == [m.name for m in ranked("terminal")]
    for _name, label in EXTRA_COLUMNS:
        assert label in header
