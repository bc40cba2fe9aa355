"""The expected goodput as the session's exports carry it: a stored session across a link
with a link rate stated, opened in Sessions and exported with Export CSV…; the CSV says the
link rate and that it was stated, the frame overhead, and for each run the expected goodput
at its point and its share of it, whose means are the results table's figures."""

from __future__ import annotations

import csv
import io
import statistics
from pathlib import Path

import pytest

from app.domain.units import format_rate, percent_text
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.ui.journey import confirmed, save_as
from tests.ui.test_expected import open_across_a_link
from tests.ui.user import User, wait_for

RATE = 100_000_000


def test_the_runs_csv_carries_the_link_rate_and_the_expected_goodput(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    session_id = open_across_a_link(window, user, "lab link", RATE, repetitions=3)
    with Database(window.context.db_path, readonly=True) as db:
        stored = SessionStore(db).runs(session_id)
    headers = user.headers("Session results")
    assert {"Expected", "Of expected %"} <= set(headers)
    table = {
        (row[0], row[1]): (row[headers.index("Expected")], row[headers.index("Of expected %")])
        for row in user.table_rows("Session results")
    }
    assert len(table) == 6  # TCP and UDP at three packet sizes

    path = tmp_path / "lab link.csv"
    with user.answering(save_as(path)):
        user.click("Export CSV…")
    wait_for(path.exists, 20, "the CSV")
    confirmed(user, path)
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    assert len(rows) == len(stored) == 18
    points: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in rows:
        # Where the expected goodput came from, on every row.
        assert row["link_rate_bps"] == str(RATE)
        assert row["link_rate_source"] == "stated"
        assert row["frame_overhead_bytes"] == ""  # none stated: the Ethernet model's
        series = f"{row['protocol'].upper()} · IPv{row['ip_version']}"
        points.setdefault((series, row["value"]), []).append(row)
        # The run's share: its own throughput over the expected goodput of its point.
        share = 100 * float(row["throughput_bps"]) / float(row["expected_bps"])
        assert float(row["efficiency_pct"]) == pytest.approx(share)
    assert set(points) == set(table)
    for key, runs in points.items():
        expected, of_expected = table[key]
        (expected_bps,) = {float(r["expected_bps"]) for r in runs}  # one per point
        assert format_rate(expected_bps) == expected, key
        mean_share = statistics.fmean(float(r["efficiency_pct"]) for r in runs)
        assert percent_text(mean_share, 1) == of_expected, key
