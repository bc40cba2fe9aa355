"""A session's report with a link rate stated, read back from its PDF: the throughput table
gives each point's expected goodput and the share of it reached, as the point summaries of
the stored runs have them, and says which link rate they are built on; and wherever the page
ends fall (paragraphs put before the series move them), each of its short tables is printed
whole, its header once: never a header repeated for the last row alone on the next page."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything loads Qt

import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from app.analysis.latency_findings import session_findings
from app.analysis.points import point_summaries
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Conditions, Medium, Peer, Plan, RunKey
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.domain.units import percent_text
from app.report.html_parts import number, scale
from app.report.html_report import report_html
from app.report.report_data import collect, sessions_comparison
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor
from tests.artifacts import NO_POPPLER, PDFTOTEXT
from tests.pdf_reading import outline, pdf_pages_text, squeezed

pytestmark = pytest.mark.skipif(PDFTOTEXT is None, reason=NO_POPPLER)

RATE = 100_000_000
SIZES = (600, 1200)
#: Throughput (Mbit/s) and datagrams out of order, per run, at each size.
RUNS = {600: [(61.0, 4), (62.0, 5)], 1200: [(81.0, 4), (82.0, 6)]}


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[FrontDoor, str]:
    """A UDP sweep across a 100 Mbit/s Ethernet link (the rate stated), with datagrams out of
    order at both sizes, stored as the runner stores one."""
    return _store(tmp_path_factory.mktemp("expected") / "linklab.sqlite3", "192.0.2.10")


def _store(
    path: Path, host: str, name: str = "reordered across the lab link", **fields: Any
) -> tuple[FrontDoor, str]:
    plan = Plan(
        peer=Peer.this_computer() if host == "this computer" else Peer(host),
        protocols=(Protocol.UDP,),
        values=SIZES,
        repetitions=2,
        duration_s=1,
        name=name,
        conditions=Conditions(medium=Medium.ETHERNET, link_rate_bps=RATE),
        **fields,
    )
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(plan, {})
        for index, size in enumerate(SIZES):
            for rep, (mbps, reordered) in enumerate(RUNS[size], start=1):
                store.add_run(
                    sid,
                    RunKey(Protocol.UDP, IpVersion.V4, index, rep),
                    float(size),
                    metrics=RunMetrics(
                        throughput_bps=mbps * 1e6,
                        out_of_order=reordered,
                        jitter_ms=0.1,
                        loss_pct=0.5,
                        lost_packets=1,
                        packets=200,
                    ),
                    started_at=utc_now(),
                    elapsed_s=1.0,
                    engine="iperf3",
                    engine_version="3.12",
                    argv=["iperf3", "-c", "192.0.2.10", "-u", "-l", str(size)],
                )
        store.finish(sid, SessionStatus.COMPLETED)
    return FrontDoor(path), sid


def _report(door: FrontDoor, sid: str) -> str:
    from app.ui.common.render_charts import chart_png

    data = collect(sessions_comparison(door, [sid]), door)
    return report_html(data, chart_png(data.comparison, None), {})


def test_the_throughput_table_gives_the_expected_goodput_and_its_share(
    stored: tuple[FrontDoor, str], tmp_path: Path
) -> None:
    from app.ui.common.pdf_pages import pdf_from_html

    door, sid = stored
    session = door.sessions().get(sid)
    points = point_summaries(session.plan, door.sessions().runs(sid))
    pdf = tmp_path / "report.pdf"
    pdf_from_html(_report(door, sid), pdf)
    text = squeezed("".join(pdf_pages_text(pdf)))
    assert squeezed("UDP · IPv4: Expected (Mbit/s)") in text
    assert squeezed("UDP · IPv4: Of expected %") in text
    assert squeezed("at the 100 Mbit/s link rate stated") in text
    unit, factor = scale(
        "throughput_bps", max(p.metrics["throughput_bps"].mean or 0 for p in points)
    )
    assert unit == "Mbit/s"
    for point in points:
        assert point.expected_bps and point.efficiency_pct is not None
        mean = point.metrics["throughput_bps"]
        # The table's row: the size, the mean ± SD, the expected goodput, the share of it.
        row = (
            f"{point.value:g}{mean.mean / 1e6:.2f}±{(mean.std or 0) / 1e6:.2f}"
            f"{number(point.expected_bps, factor)}{percent_text(point.efficiency_pct, 1)}"
        )
        assert row in text, row


def test_on_the_loopback_the_report_gives_no_column_of_dashes_for_the_share(
    tmp_path: Path,
) -> None:
    """The same sweep against this computer: the link rate stated never applied, so the
    throughput table gives the expected goodput without a share column of dashes, and says
    why, as the window's results table leaves the column out."""
    door, sid = _store(tmp_path / "linklab.sqlite3", "127.0.0.1")
    html = _report(door, sid)
    assert "UDP · IPv4: Expected (Mbit/s)" in html
    assert "Of expected %" not in html
    assert (
        "No share is given of UDP · IPv4: its traffic stayed on this computer (the loopback) "
        "and never crossed that link."
    ) in html
    rows = html.split("UDP · IPv4: Expected (Mbit/s)")[1].split("</table>")[0]
    assert "—" not in rows  # every expected goodput given


def test_the_report_names_the_peer_and_direction_as_the_window_does(tmp_path: Path) -> None:
    door, sid = _store(tmp_path / "linklab.sqlite3", "this computer", direction=Direction.DOWN)
    html = _report(door, sid)
    assert "<tr><th>Peer</th><td>This computer</td></tr>" in html
    assert "<tr><th>Direction</th><td>Download</td></tr>" in html


@pytest.mark.parametrize("start", range(0, 60, 12))
def test_a_short_table_is_never_continued_under_its_header(
    stored: tuple[FrontDoor, str], tmp_path: Path, start: int
) -> None:
    from app.ui.common.pdf_pages import pdf_from_html

    page = _report(*stored)
    # Each header row's last cell: said in the PDF as often as in the HTML (once each).
    headers = [squeezed(row) for row in outline(page).header_rows]
    assert any("(datagrams)" in header for header in headers)
    for fillers in range(start, start + 12):
        shifted = page.replace(
            "<h2>Series</h2>",
            "".join(f"<p>Filler {k}.</p>" for k in range(fillers)) + "<h2>Series</h2>",
        )
        pdf = tmp_path / f"shifted-{fillers}.pdf"
        pdf_from_html(shifted, pdf)
        text = squeezed("".join(pdf_pages_text(pdf)))
        for header in headers:
            tail = header[-40:]
            assert text.count(tail) == outline(shifted).text.count(tail), (fillers, header)


def test_a_report_of_sessions_gives_each_its_own_findings_under_its_name(tmp_path: Path) -> None:
    """Three sessions compared: the report's Findings give the comparison's sentences, then each
    session's own (its share of the expected goodput, or why there is none) under "Within
    NAME", each as its view's Findings tab gives them, the sessions in the report's order."""
    path = tmp_path / "linklab.sqlite3"
    door, first = _store(path, "192.0.2.10", "Room B12 <before> lunch")
    _, second = _store(path, "192.0.2.11", "Room B12 after lunch")
    _, loopback = _store(path, "127.0.0.1", "this computer, its own loopback")
    from app.ui.common.render_charts import chart_png

    data = collect(sessions_comparison(door, [first, second, loopback]), door)
    html = report_html(data, chart_png(data.comparison, None), {})
    findings = html.split("<h2>Findings</h2>", 1)[1].split("<h2>", 1)[0]
    said = [
        (unescape(heading), [unescape(i) for i in re.findall(r"<li>(.*?)</li>", items)])
        for heading, items in re.findall(r"<h3>(.*?)</h3>(<ul>.*?</ul>)", findings)
    ]
    compared = findings.split("<h3>", 1)[0]
    assert [unescape(i) for i in re.findall(r"<li>(.*?)</li>", compared)] == list(
        data.comparison.findings
    )
    expected = []
    for sid in (first, second, loopback):
        session = door.sessions().get(sid)
        own = session_findings(
            session.plan, point_summaries(session.plan, door.sessions().runs(sid))
        )
        if own:
            expected.append((f"Within {session.name}", own))
    assert [heading for heading, _ in expected] == [
        "Within Room B12 <before> lunch",
        "Within Room B12 after lunch",
        "Within this computer, its own loopback",
    ]
    assert said == expected
    assert all("of what the headers allow" in " ".join(own) for _, own in said[:2])
    assert "never crossed that link" in " ".join(said[2][1])
