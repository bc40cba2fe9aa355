"""Start together from the Class tab, as an instructor does it: Collect live, six stations of
a lab behind one shared link waiting (`linklab run --exercise FILE --wait-for-start` in their
namespaces, each with its own server of a `linklab serve --count 6` pool), Start together
pressed by its label, and Jain's index and each station's share read off the Together page;
then the class report (HTML and PDF) and the grades table saved through their dialogs and
opened, their figures checked against the stored ones and against the servers' reports."""

from __future__ import annotations

import csv
import io
import re
import signal
import time
from dataclasses import replace
from html import unescape
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from app.analysis.stats import Summary
from app.domain.collector import Collector as CollectorAddress
from app.store.class_backends import open_class_store
from app.study.lab.exercises import write_exercise
from app.study.lab.together_wire import read_results
from app.study.lab.together_words import (
    bounds_text,
    index_text,
    interval_text,
    mbit_text,
    percent_text,
)
from app.ui.main_window import MainWindow
from tests.artifacts import NO_POPPLER, PDFTOTEXT, html_images, pdf_text
from tests.classlive import short_exercise
from tests.conftest import free_port, require_engine
from tests.testbed import Bed, ClassBed
from tests.togetherbed import (
    agree_with_servers,
    size,
    start_pool,
    start_stations,
    station_ports,
    total_within,
)
from tests.ui.journey import save_as
from tests.ui.user import User, wait_for

STATIONS = 6
RATE_MBIT = 24.0
BED = Bed(stations=STATIONS, rate_mbit=RATE_MBIT, needs=("nft",))


def with_interval(mean: str, summary: Summary, kind: str) -> str:
    """A mean with its 95 % interval as the table gives it: "16.6 % (15.9 % to 17.3 %)", or
    the mean alone for a figure of one round."""
    if summary.n < 2:
        assert bounds_text(summary, kind=kind) == "—"
        return mean
    return f"{mean} ({bounds_text(summary, kind=kind)})"


@pytest.mark.skipif(PDFTOTEXT is None, reason=NO_POPPLER)
def test_start_together_from_the_class_tab(
    window: MainWindow, user: User, bed: ClassBed, tmp_path: Path
) -> None:
    require_engine("iperf3")
    user.tab("Class")
    port = free_port()
    user.type("Collector port", str(port))
    user.check("Collect live")
    wait_for(lambda: "Students send to" in user.text("Collector address"), 10, "the address")
    shown = re.search(r"Students send to \S+ · token (\S+)", user.text("Collector address"))
    assert shown is not None
    token = shown.group(1)
    url = f"http://{bed.HERE4}:{port}"  # where the lab's stations reach this computer
    exercise = write_exercise(
        tmp_path / "lab.linklab-exercise",
        replace(short_exercise(), collector=CollectorAddress(url, token)),
    )
    instructor_file = window.context.db_path.with_name("instructor.token")
    serve_log = tmp_path / "serve.log"
    stations = []
    pool = None
    try:
        pool = start_pool(bed, url, instructor_file, serve_log)
        stations = start_stations(bed, exercise, tmp_path)
        user.tab("Together")
        waiting = f"{STATIONS} stations waiting"
        wait_for(lambda: waiting in user.text("Stations waiting"), 90, "the stations to wait")
        user.type("Seconds a round", "3")
        user.type("Rounds", "2")
        since = size(serve_log)
        user.click("Start together")
        wait_for(lambda: "over 2 rounds" in user.text("Fairness index"), 60, "both rounds' results")
        store = open_class_store(f"sqlite:{window.context.db_path}")
        try:
            result, _ = read_results(store, None, time.time())
        finally:
            store.close()
        assert result is not None and result.state == "done"
        # The index and the shares on screen are the stored ones.
        index = user.text("Fairness index")
        print(index)
        assert f"Jain's fairness index: {interval_text(result.index)} over 2 rounds" in index
        assert result.index.mean is not None and result.index.mean >= 0.98  # equal stations
        headers = user.headers("Stations together")
        rows = {row[0]: row for row in user.table_rows("Stations together")}
        assert set(rows) == {f"Station {n}" for n in range(1, STATIONS + 1)}
        for station in result.stations:
            row = rows[station.student]
            # A figure of one round counted (one a busy computer started late) has no interval.
            share = with_interval(percent_text(station.share.mean), station.share, "share")
            assert row[headers.index("Share (95 % interval)")] == share
            together = with_interval(mbit_text(station.throughput.mean), station.throughput, "mbit")
            assert row[headers.index("Together (Mbit/s, 95 % interval)")] == together
        for number, slot in enumerate(result.rounds, 1):
            column = headers.index(f"Round {number} (Mbit/s)")
            for s in slot.stations:
                assert s.mean_bps is not None
                assert rows[s.student][column] == f"{s.mean_bps / 1e6:.2f}"
            # Together they had the link: its rate less the frame overhead.
            assert slot.total_bps is not None and slot.start_spread_s is not None
            assert total_within(slot.total_bps, RATE_MBIT, 3, slot.start_spread_s)
        agree_with_servers(
            [
                (slot.slot.label, [(s.student, s.mean_bps or 0.0) for s in slot.stations])
                for slot in result.slots
            ],
            station_ports(f"sqlite:{window.context.db_path}"),
            serve_log,
            since,
        )
        findings = user.text("Findings together")
        assert "started within" in findings and "Slowest:" in findings

        # The class report, as HTML and as PDF: the chart and the figures stored.
        page, pdf = tmp_path / "class.html", tmp_path / "class.pdf"
        for path in (page, pdf):
            with user.answering(save_as(path)):
                user.click("Class report…")
            wait_for(path.exists, 30, path.name)
        html = unescape(page.read_text(encoding="utf-8")).replace("\xa0", " ")
        (chart,) = html_images(page)
        image = QImage.fromData(chart)
        assert image.width() >= 1000 and image.height() >= 400
        text = pdf_text(pdf)
        for slot in result.rounds:
            assert f">{index_text(slot.index)}<" in html
            assert index_text(slot.index) in text
        for station in result.stations:
            cells = [
                mbit_text(station.throughput.mean),
                bounds_text(station.throughput, kind="mbit"),
                percent_text(station.share.mean),
                bounds_text(station.share, kind="share"),
            ]
            assert "".join(f"<td class='num'>{c}</td>" for c in cells) in html
            # The PDF's row: the same figures, in the same order.
            line = next(x for x in text.splitlines() if x.strip().startswith(station.student))
            assert " ".join(line.split()).startswith(" ".join([station.student, *cells]))
        assert interval_text(result.index) in html

        # The grades table holds each station's share too.
        grades = tmp_path / "grades.csv"
        user.tab("Students")
        wait_for(lambda: len(user.table_rows("Students")) == STATIONS, 30, "the students")
        with user.answering(save_as(grades)):
            user.click("Grades CSV…")
        wait_for(grades.exists, 10, "the grades")
        table = csv.DictReader(io.StringIO(grades.read_text(encoding="utf-8-sig")))
        by_name = {row["student"]: row for row in table}
        for station in result.stations:
            assert station.share.mean is not None
            row = by_name[station.student]
            assert float(row["together_share_pct"]) == round(station.share.mean * 100, 2)
    finally:
        for proc in stations:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in stations:
            proc.wait(timeout=30)
        if pool is not None:  # its iperf3 servers are this test's engines: none outlives it
            pool.send_signal(signal.SIGTERM)
            pool.wait(timeout=30)
        user.tab("Class")
        user.check("Collect live", False)
