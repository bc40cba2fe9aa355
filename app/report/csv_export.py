"""Tidy CSV: one row per run, ISO 8601 UTC times, units in column names, and text cells that
a spreadsheet cannot mistake for formulas."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from typing import TextIO

from app.analysis.points import plain_number, run_link_figures
from app.domain.metrics import LINK_FIGURES, SAMPLE_FIGURES
from app.domain.metrics import POINT_METRICS as ALL_POINT_METRICS
from app.domain.records import METRIC_FIELDS, RunRecord, SessionRecord
from app.domain.results import Sample
from app.domain.tags import tags_text

RUN_COLUMNS = (
    "session_id",
    "session_name",
    "peer",
    "engine",
    "engine_version",
    "protocol",
    "ip_version",
    "direction",
    "test",
    "variable",
    "value",
    "repetition",
    "status",
    "error",
    "attempts",
    "started_at_utc",
    "ended_at_utc",
    "elapsed_s",
    *METRIC_FIELDS,
    "security",
    "medium",
    # The link rate and where it came from, the frame overhead, the expected goodput at the
    # run's point and a successful run's share of it, as the metric table lists them.
    *(figure.name for figure in LINK_FIGURES),
    "tags",
    "command",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")
#: Excel reads a CSV as UTF-8 only when it starts with a byte-order mark ("·", "µ", names).
BOM = "\ufeff"


def safe_cell(value: object) -> object:
    """Numbers stay numbers; text that a spreadsheet would run as a formula gets a leading
    apostrophe (the OWASP CSV-injection advice), so it shows as typed."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    text = str(value)
    if text.startswith(_FORMULA_START):
        return "'" + text
    return text


def write_rows(out: TextIO, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """One header row, then the rows, after the byte-order mark a spreadsheet needs."""
    out.write(BOM)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([safe_cell(v) for v in row])


def run_rows(session: SessionRecord, runs: Iterable[RunRecord]) -> Iterable[list[object]]:
    plan = session.plan
    for run in runs:
        link = run_link_figures(plan, run)
        yield [
            session.id,
            session.name,
            session.peer_host,
            run.engine,
            run.engine_version,
            run.key.protocol.value,
            int(run.key.ip_version),
            plan.direction.value,
            run.key.kind.value,
            plan.variable.value,
            plain_number(run.value),
            run.key.repetition,
            run.status,  # ok or failed (a partial run, when one is given, says so)
            run.error,
            run.attempts,
            run.started_at,
            run.ended_at,
            run.elapsed_s,
            *(getattr(run.metrics, name) for name in METRIC_FIELDS),
            plan.conditions.security.value,
            plan.conditions.medium.value,
            *(link[figure.name] for figure in LINK_FIGURES),
            tags_text(plan.conditions.tags, "; "),
            " ".join(run.argv),
        ]


def runs_csv(session: SessionRecord, runs: Iterable[RunRecord]) -> str:
    out = io.StringIO()
    write_rows(out, RUN_COLUMNS, run_rows(session, runs))
    return out.getvalue()


POINT_METRICS = tuple(m.name for m in ALL_POINT_METRICS if m.shown.csv)
POINT_COLUMNS = (
    "session_id",
    "session_name",
    "protocol",
    "ip_version",
    "direction",
    "variable",
    "value",
    "n",
    "failed",
    *(
        f"{metric}_{stat}"
        for metric in POINT_METRICS
        for stat in ("mean", "std", "min", "max", "ci95")
    ),
    # The link rate and its kind, the frame overhead, the overhead model's best goodput and
    # the mean's share of it, when the session has a link rate.
    *(figure.name for figure in LINK_FIGURES),
)


def points_csv(session: SessionRecord, runs: Iterable[RunRecord]) -> str:
    """One row per series and swept value: n and mean, std, min, max, 95 % CI per metric."""
    from app.analysis.points import point_summaries  # loaded when a points CSV is asked for

    out = io.StringIO()
    rows = []
    for point in point_summaries(session.plan, list(runs)):
        row: list[object] = [
            session.id,
            session.name,
            point.protocol.value,
            int(point.ip_version),
            point.direction.value,
            point.variable.value,
            plain_number(point.value),
            point.n,
            point.failed,
        ]
        for metric in POINT_METRICS:
            summary = point.metrics[metric]
            row += [summary.mean, summary.std, summary.min, summary.max, summary.ci95]
        link = point.link_figures(session.plan)
        row += [link[figure.name] for figure in LINK_FIGURES]
        rows.append(row)
    write_rows(out, POINT_COLUMNS, rows)
    return out.getvalue()


# -- samples: one row per interval sample ---------------------------------------------------------
SAMPLE_COLUMNS = (
    "session_id",
    "run_id",
    "run_status",
    "protocol",
    "ip_version",
    "test",
    "variable",
    "value",
    "repetition",
    "flow",
    "start_s",
    "end_s",
    # received_bps (what the receiver got: the throughput, goodput), then the sender's rate
    # in the same interval (sent_bps) and the other figures per interval, as the metric
    # table lists them.
    *(figure.name for figure in SAMPLE_FIGURES),
)


def write_samples_csv(
    out: TextIO,
    session: SessionRecord,
    runs: Iterable[RunRecord],
    samples_of: Callable[[int], Iterable[Sample]],
) -> int:
    """Every interval sample of the runs given (partial runs too), run by run, so a long
    session is never held in memory whole; run_status says ok, failed or partial. Returns
    the number of rows written."""
    out.write(BOM)  # as every CSV LinkLab writes: a spreadsheet reads it as UTF-8
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SAMPLE_COLUMNS)
    plan = session.plan
    count = 0
    for run in runs:
        head = [
            session.id,
            run.id,
            run.status,
            run.key.protocol.value,
            int(run.key.ip_version),
            run.key.kind.value,
            plan.variable.value,
            plain_number(run.value),
            run.key.repetition,
        ]
        for sample in samples_of(run.id):
            row = [
                *head,
                sample.flow.value,
                sample.start_s,
                sample.end_s,
                *(getattr(sample, figure.name) for figure in SAMPLE_FIGURES),
            ]
            writer.writerow([safe_cell(v) for v in row])
            count += 1
    return count
