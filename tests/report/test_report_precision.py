"""Over random runs stored in a real SQLite file: every mean printed beside its spread in the
HTML report (mean ± SD tables), the Pairs table (a difference beside its interval), the lab
report's tables and the command line's points table shares its spread's precision, and the
CSV keeps every digit."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.analysis.points import point_summaries
from app.cli.output import print_points
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.precision import SPREAD_DIGITS, places
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.domain.units import MINUS
from app.report.compare_export import comparison_csv
from app.report.html_report import report_html
from app.report.lab_report import _mean_sd
from app.report.report_data import collect
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor
from tests.conftest import linklab
from tests.report.test_reports import ENVIRONMENT, add_session, load

runs = st.lists(st.floats(0.05, 5_000.0), min_size=3, max_size=4)  # Mbit/s per run
points = st.fixed_dictionaries({128: runs, 1408: runs})
NUMBER = r"[+−-]?\d+(?:\.\d+)?"


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


@pytest.mark.timeout(900)  # each example a real store and report: seconds on a busy machine
@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(points, points)
def test_every_mean_and_interval_shares_its_spreads_precision(
    tmp_path_factory: object, baseline: dict[int, list[float]], other: dict[int, list[float]]
) -> None:
    folder = tmp_path_factory.mktemp("precision")  # type: ignore[attr-defined]
    path = Path(folder) / "linklab.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        ids = (
            add_session(store, "baseline", "", baseline, ENVIRONMENT),
            add_session(store, "other", "", other, {}),
        )
    comparison = load(path, ids)
    page = report_html(collect(comparison, FrontDoor(path)), b"", {})
    pairs = re.findall(rf"({NUMBER})&nbsp;±&nbsp;({NUMBER})", page)
    assert len(pairs) == 4  # two sides at two points
    for mean, spread in pairs:
        assert decimals(mean) == decimals(spread), (mean, spread)
        if float(spread) == 0:  # runs all alike: nothing to round to
            continue
        assert decimals(spread) == places(float(spread.replace(MINUS, "-")), SPREAD_DIGITS) or (
            float(spread) >= 10
        )
    # The Pairs table: each difference to the precision of its interval's bounds.
    rows = re.findall(
        rf'<td class="num">({NUMBER})</td><td class="num">[+−-]?[\d.%&nbsp;]+</td>'
        rf'<td class="num">({NUMBER}) to ({NUMBER}) \(',
        page,
    )
    assert rows, "no difference with its interval"
    for difference, low, high in rows:
        assert decimals(difference) == decimals(low) == decimals(high), (difference, low, high)
    # The CSV is data: every digit of the figures, as computed.
    table = list(csv.DictReader(io.StringIO(comparison_csv(comparison))))
    computed = [p for pair in comparison.pairs for p in pair.points]
    assert [float(row["difference"]) for row in table] == [p.difference for p in computed]
    assert [float(row["ci_low"]) for row in table] == [p.ci_low for p in computed]
    # The command line's points table: mean, std and interval in one unit and precision.
    with Database(path, readonly=True) as db:
        store = SessionStore(db)
        session, stored = store.get(ids[0]), store.runs(ids[0])
    out = io.StringIO()
    print_points(session, stored, out)
    for line in out.getvalue().splitlines()[1:]:
        found = re.findall(rf"({NUMBER}) (\S*bit/s)", line)
        if len(found) >= 3:
            (mean, unit), (std, unit2), (ci, unit3) = found[:3]
            assert unit == unit2 == unit3 and decimals(mean) == decimals(std) == decimals(ci), line
    # The lab report's tables, from the same summaries.
    for point in point_summaries(session.plan, stored):
        summary = point.metrics["throughput_bps"]
        mean, spread, unit = re.fullmatch(
            rf"({NUMBER}) ± ({NUMBER}) (\S+)", _mean_sd("throughput_bps", summary.mean, summary.std)
        ).groups()  # type: ignore[union-attr]
        assert decimals(mean) == decimals(spread), (mean, spread)
        assert unit.endswith("bit/s")


def test_a_tiny_significant_difference_keeps_its_percentage_and_sign_everywhere(
    tmp_path: Path,
) -> None:
    """As found: 2 kbit/s less on 20 Mbit/s, significant, was "-0.0" (a hyphen) in the % column
    beside "−2.00 kbit/s", and "(0.0 %) less" in the finding. The HTML report's Pairs table, the
    command line's table and the finding say −0.01 %, with one minus sign."""
    path = tmp_path / "linklab.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        ids = (
            add_session(store, "base", "", {1408: [20.0, 20.0001, 19.9999]}, ENVIRONMENT),
            add_session(store, "less", "", {1408: [19.998, 19.9981, 19.9979]}, {}),
        )
    comparison = load(path, ids)
    ((point,),) = [pair.points for pair in comparison.pairs]
    assert point.significant and point.relative_pct == pytest.approx(-0.01, rel=1e-3)
    (finding,) = [f for f in comparison.findings if f.startswith("At 1408 B,")]
    assert "had 2.00 kbit/s (0.01 %) less throughput" in finding, finding
    page = report_html(collect(comparison, FrontDoor(path)), b"", {})
    row = re.search(r'<td class="num">([^<]*)</td><td class="num">([^<]*&nbsp;%)</td>', page)
    assert row, "no difference with its percentage"
    assert row.group(1).startswith(MINUS) and row.group(2) == f"{MINUS}0.01&nbsp;%"
    printed = linklab("compare", *ids, "--db", str(path))
    assert printed.returncode == 0, printed.stderr
    (line,) = [line for line in printed.stdout.splitlines() if line.strip().startswith("1408 ")]
    assert f"{MINUS}2.00 kbit/s" in line and f" {MINUS}0.01 " in line, line
    assert "-" not in line, line  # every minus the minus sign


def test_runs_alike_show_their_zero_spread_to_the_means_places(tmp_path: Path) -> None:
    """As found in a walkthrough: the CPU table printed "1.60000 ± 0.00000" (an SD of float
    noise) and a throughput table "1.10 ± 0" (an SD of 0). In the generated report both are
    the mean to the four digits of runs all alike beside a zero to the same places."""
    path = tmp_path / "linklab.sqlite3"
    cpu = [1.6, 1.6000000000000003, 1.6]  # alike but for the last bit: an SD of ~1e-16
    with Database(path) as db:
        store = SessionStore(db)
        ids = []
        for name, rate in (("base", 1.1), ("other", 2.0)):
            plan = Plan(peer=Peer("192.0.2.10"), values=(1408,), repetitions=3, name=name)
            sid = store.create_session(plan, ENVIRONMENT if name == "base" else {})
            for rep, load_pct in enumerate(cpu, start=1):
                store.add_run(
                    sid,
                    RunKey(Protocol.TCP, IpVersion.V4, 0, rep),
                    1408.0,
                    metrics=RunMetrics(throughput_bps=rate * 1e6, cpu_local_pct=load_pct),
                    started_at=utc_now(),
                    elapsed_s=10.0,
                    engine="iperf3",
                )
            store.finish(sid, SessionStatus.COMPLETED)
            ids.append(sid)
    comparison = load(path, (ids[0], ids[1]))
    page = report_html(collect(comparison, FrontDoor(path)), b"", {})
    pairs = re.findall(rf"({NUMBER})&nbsp;±&nbsp;({NUMBER})", page)
    assert ("1.600", "0.000") in pairs, pairs  # the CPU table
    assert ("1.100", "0.000") in pairs and ("2.000", "0.000") in pairs, pairs  # throughput
    for mean, spread in pairs:
        assert decimals(mean) == decimals(spread), (mean, spread)
    assert "0.00000" not in page and not re.search(r"±&nbsp;0(?![.\d])", page)


def test_the_pairs_means_read_as_their_difference(tmp_path: Path) -> None:
    """As the window's Differences table: two means 667 bit/s apart are not both "27.7"."""
    path = tmp_path / "linklab.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        ids = []
        for name, mbits in (("alike", [27.739033] * 3), ("spread", [27.7391, 27.7397, 27.7403])):
            plan = Plan(peer=Peer("192.0.2.10"), values=(1408,), repetitions=3, name=name)
            sid = store.create_session(plan, ENVIRONMENT if name == "alike" else {})
            for rep, mbit in enumerate(mbits, start=1):
                store.add_run(
                    sid,
                    RunKey(Protocol.TCP, IpVersion.V4, 0, rep),
                    1408.0,
                    metrics=RunMetrics(throughput_bps=mbit * 1e6),
                    started_at=utc_now(),
                    elapsed_s=10.0,
                    engine="iperf3",
                )
            store.finish(sid, SessionStatus.COMPLETED)
            ids.append(sid)
    page = report_html(collect(load(path, (ids[0], ids[1])), FrontDoor(path)), b"", {})
    assert re.search(r">27\.7390</td>\s*<td[^>]*>27\.7397</td>", page), page
