"""A stored monitor over time as CSV: every interval on the monitor's own time axis (seconds
since it started), with the seconds without an interval before it where the peer was gone."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from app.analysis.monitor_trace import gaps, placed
from app.domain.metrics import SAMPLE_FIGURES
from app.domain.records import RunRecord, SessionRecord
from app.domain.results import Sample
from app.report.csv_export import BOM, safe_cell

MONITOR_COLUMNS = (
    "time_s",  # the interval's end, seconds since the monitor started
    "gap_before_s",  # seconds without an interval before this one (the peer gone), else 0
    "run_id",
    "repetition",
    "flow",
    # every figure an interval keeps, as the metric table lists them
    *(figure.name for figure in SAMPLE_FIGURES),
)


def monitor_csv(
    session: SessionRecord, runs: Sequence[RunRecord], samples: Mapping[int, Sequence[Sample]]
) -> str:
    """The monitor's intervals in time order, one row each (samples: per run id)."""
    stamped = [(run, samples.get(run.id, ())) for run in runs]
    by_sample = {id(s): run for run, here in stamped for s in here}
    points = placed([(run.started_at, here) for run, here in stamped])
    times = [t for t, _ in points]
    out = io.StringIO()
    out.write(BOM)  # as every CSV LinkLab writes: a spreadsheet reads it as UTF-8
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(MONITOR_COLUMNS)
    for (t, sample), gap in zip(points, gaps(times, session.plan.interval_s), strict=True):
        run = by_sample[id(sample)]
        row = [
            round(t, 3),
            round(gap, 3),
            run.id,
            run.key.repetition,
            sample.flow.value,
            *(getattr(sample, figure.name) for figure in SAMPLE_FIGURES),
        ]
        writer.writerow([safe_cell(v) for v in row])
    return out.getvalue()
