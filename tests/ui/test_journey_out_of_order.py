"""The out-of-order journey in the real window: a UDP study measured across a link of the
test's own that reorders datagrams (namespaces, a share of the data through a slower htb
class, as tests/study/test_out_of_order_netns.py), its database then opened by the window.
In Sessions the session's table has an "Out of order" column whose figures are the stored
runs' means; Export CSV… holds each run's count, and the table's means are theirs; Compare
charts and tables "out of order" for its two series with the same means, and its findings say
of each point what its table says."""

from __future__ import annotations

import csv
import io
import json
import statistics
import subprocess
from pathlib import Path

import pytest

from app.analysis.compare import METRIC_INFO
from app.analysis.pair_words import means_text
from app.domain.records import RunRecord
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.analysis.findings_text import covered_points, statement_verdicts
from tests.conftest import require_engine
from tests.testbed import ROOT, Bed, TestBed
from tests.ui.journey import confirmed, save_as
from tests.ui.user import User, wait_for

pytestmark = [pytest.mark.netns, pytest.mark.slow]

BED = Bed(needs=("nft",))
PORT = 5201
NAME = "UDP across a reordering link"
SIZES = ("600", "1200")
SERIES = {"UDP · IPv4": 4, "UDP · IPv6": 6}


@pytest.fixture
def reordered(tmp_path: Path) -> str:
    """A UDP upload study over IPv4 and IPv6 across a link that reorders a fifth of the data,
    stored in the database the window will open; the link and its server gone again (the
    window test owns no engine)."""
    reason = BED.unavailable()
    if reason:
        pytest.skip(reason)
    require_engine("iperf3")
    with BED.build() as bed:
        assert isinstance(bed, TestBed)
        bed.start_server(PORT, "--no-echo")
        bed.set_reorder(20)
        peer = ["--peer", TestBed.B4, "--peer6", TestBed.B6, "--port", str(PORT)]
        traffic = ["--protocol", "udp", "--ip", "4,6", "--direction", "up", "--bitrate", "20M"]
        points = ["--sizes", ",".join(SIZES), "--runs", "2", "--duration", "1"]
        stored = ["--name", NAME, "--db", str(tmp_path / "linklab.sqlite3"), "--json"]
        argv = bed.linklab(bed.a, "run", *peer, *traffic, *points, *stored)
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    session: str = json.loads(done.stdout)["session_id"]
    return session


def _means(runs: list[RunRecord]) -> dict[tuple[int, str], float]:
    """The stored runs' mean out-of-order count per (IP version, packet size)."""
    counts: dict[tuple[int, str], list[int]] = {}
    for run in runs:
        assert run.ok and run.metrics.out_of_order is not None, run
        key = (int(run.key.ip_version), f"{run.value:g}")
        counts.setdefault(key, []).append(run.metrics.out_of_order)
    return {key: statistics.fmean(values) for key, values in counts.items()}


def test_out_of_order_in_the_table_the_comparison_and_the_csv(
    reordered: str, window: MainWindow, user: User, tmp_path: Path
) -> None:
    with Database(window.context.db_path, readonly=True) as db:
        runs = SessionStore(db).runs(reordered)
    means = _means(runs)
    assert len(means) == 4 and all(mean > 0 for mean in means.values()), means  # reordered

    # The session opened in Sessions: its table's "Out of order" column, the stored means.
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    assert user.table_rows("Sessions")[0][1] == NAME
    user.click_row("Sessions", 0)
    wait_for(lambda: len(user.table_rows("Session results")) == 4, 10, "the session's results")
    headers = user.headers("Session results")
    assert "Out of order" in headers, headers
    table = {}
    for row in user.table_rows("Session results"):
        cells = dict(zip(headers, row, strict=True))
        key = (SERIES[cells["Series"]], cells["Packet size (B)"])
        table[key] = float(cells["Out of order"])
        assert cells["Out of order"] == f"{means[key]:.1f}", (cells, means[key])
    assert table.keys() == means.keys()

    # Export CSV…: each run's count, and per point their mean is the table's figure.
    runs_csv = tmp_path / "reordered runs.csv"
    with user.answering(save_as(runs_csv)):
        user.click("Export CSV…")
    wait_for(runs_csv.exists, 20, "the CSV")
    confirmed(user, runs_csv)
    rows = list(csv.DictReader(io.StringIO(runs_csv.read_text(encoding="utf-8-sig"))))
    assert len(rows) == len(runs)
    exported: dict[tuple[int, str], list[int]] = {}
    for row in rows:
        key = (int(row["ip_version"]), row["value"])
        exported.setdefault(key, []).append(int(row["out_of_order"]))
    assert sorted(int(r["out_of_order"]) for r in rows) == sorted(
        r.metrics.out_of_order or 0 for r in runs
    )
    for key, counts in exported.items():
        assert round(statistics.fmean(counts), 1) == table[key], (key, counts)

    # Its two series compared on "out of order": charted and tabled with the same means.
    user.click("Compare its series")
    wait_for(lambda: user.table_rows("Pairs compared"), 10, "the comparison")
    assert user.table_rows("Pairs compared") == [["UDP · IPv6  ↔  UDP · IPv4"]]
    user.choose("Metric", "out of order (datagrams)")
    tab = window.compare_tab
    wait_for(
        lambda: tab.comparison is not None and tab.comparison.metric == "out_of_order",
        20,
        "the out-of-order comparison",
    )
    chart = user.find("Comparison chart")
    assert chart.getPlotItem().titleLabel.text.startswith("Out of order")  # type: ignore[attr-defined]
    assert all(chart.point_count(s) == len(SIZES) for s in chart.series_names)  # type: ignore[attr-defined]
    drawn = sorted(
        round(float(y), 6)
        for item in chart.getPlotItem().listDataItems()  # type: ignore[attr-defined]
        if item.name() in chart.series_names  # type: ignore[attr-defined]
        for y in item.getData()[1]
    )
    assert drawn == sorted(round(m, 6) for m in means.values()), drawn
    user.tab("Differences")
    headers = user.headers("Differences")
    differences = [dict(zip(headers, r, strict=True)) for r in user.table_rows("Differences")]
    assert [c["Value"] for c in differences] == list(SIZES)
    for cells in differences:
        assert (cells["Series"], cells["Against"]) == ("UDP · IPv6", "UDP · IPv4")
        # The same stored means, both to the digits that let their difference be read.
        shown = means_text("out_of_order", means[(4, cells["Value"])], means[(6, cells["Value"])])
        assert (cells["Baseline mean"], cells["Mean"]) == shown, (cells, shown)
    # The findings say of each point what the table says: significant or not.
    user.tab("Findings")
    said = [s for s in user.text("Findings").split("\n\n") if s]
    values = [float(v) for v in SIZES]
    assert covered_points(said, values, "B") == values, said
    verdicts = statement_verdicts(
        said,
        "UDP · IPv4",
        "UDP · IPv6",
        "B",
        higher_is_better=METRIC_INFO["out_of_order"][2],
        values=values,
    )
    for cells in differences:
        verdict = verdicts[float(cells["Value"])]
        significant = cells["Significant (α = 0.05)"]
        assert (significant == "yes") == (verdict in ("higher", "lower")), (cells, said)
        assert (significant == "no") == (verdict == "same"), (cells, said)
