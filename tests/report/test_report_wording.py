"""A report's smaller wording: "1 run" in its Plan table, warnings of one session said for one
session, a heading never alone at a page's foot in the PDF, table headers broken only between
words."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from app.domain.net import Protocol
from app.domain.plan import Peer, Plan
from app.domain.records import RunMetrics, utc_now
from app.report.html_parts import STYLE
from app.report.html_report import report_html
from app.report.report_data import collect, sessions_comparison
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor
from tests.artifacts import NO_POPPLER, PDFTOTEXT


def one_session_report(tmp_path: Path, repetitions: int) -> str:
    path = tmp_path / "linklab.sqlite3"
    plan = Plan(
        peer=Peer("lab-peer"),
        protocols=(Protocol.TCP,),
        values=(128, 1408),
        repetitions=repetitions,
        duration_s=1,
    )
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(plan)
        for key in plan.run_keys():
            store.add_run(
                sid,
                key,
                plan.values[key.value_index],
                metrics=RunMetrics(throughput_bps=9e6 + key.repetition),
                started_at=utc_now(),
                elapsed_s=1.0,
                engine="iperf3",
            )
    door = FrontDoor(path)
    return report_html(collect(sessions_comparison(door, [sid]), door), b"", {})


def test_one_run_is_said_in_the_singular(tmp_path: Path) -> None:
    assert "1 run × 1 s per point" in one_session_report(tmp_path, 1)
    assert "2 runs × 1 s per point" in one_session_report(tmp_path / "two", 2)


def test_one_sessions_warnings_are_said_for_one_session(tmp_path: Path) -> None:
    page = one_session_report(tmp_path, 1)  # one run per point: a warning says so
    assert 'id="warnings"' in page
    assert "Where the numbers cannot mean what the labels say:" in page
    assert "Where the sessions differ" not in page


def test_table_headers_break_between_words_only() -> None:
    anywhere = [rule for rule in STYLE.splitlines() if "overflow-wrap: anywhere" in rule]
    assert anywhere and not any(re.search(r"\bth\b", rule) for rule in anywhere), anywhere


@pytest.mark.skipif(PDFTOTEXT is None, reason=NO_POPPLER)
def test_no_heading_ends_a_pdf_page_without_its_table(tmp_path: Path) -> None:
    from app.ui.common.pdf_pages import pdf_from_html

    # Headings after fillers of every length: some fall at a page's foot.
    parts = []
    for number in range(60):
        parts += [f"<p>Filler line {number}.{k}</p>" for k in range(number % 7)]
        parts.append(f"<h4>Heading {number}</h4>")
        parts.append(f"<table><tr><th>Value</th></tr><tr><td>row-{number}</td></tr></table>")
    page = f"<html><head><style>{STYLE}</style></head><body>{''.join(parts)}</body></html>"
    pdf = tmp_path / "report.pdf"
    pdf_from_html(page, pdf)
    done = subprocess.run(
        [str(PDFTOTEXT), "-layout", str(pdf), "-"], check=True, capture_output=True, timeout=60
    )
    pages = done.stdout.decode("utf-8").split("\f")
    assert len(pages) > 3
    apart = [
        n
        for n in range(60)
        if not any(
            re.search(rf"\bHeading {n}\b", p) and re.search(rf"\brow-{n}\b", p) for p in pages
        )
    ]
    assert not apart, f"headings on another page than their table: {apart}"
