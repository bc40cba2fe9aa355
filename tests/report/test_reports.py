"""Reports for real: sessions in a SQLite store, compared; the PNG, the HTML (opened in headless
Chromium), the PDF and the CSV checked as files, with hostile text in names and notes."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything loads Qt

import html
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from app.analysis.compare import Comparison, compare, series_data
from app.domain.errors import BadOption
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Medium, Peer, Plan, RunKey, Security
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.report.compare_export import comparison_csv
from app.report.html_report import report_html
from app.report.report_data import ReportData, collect
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor
from app.ui.common.report_files import write_outputs
from tests.artifacts import html_screenshot
from tests.conftest import ROOT_DIR

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
FORMULA = '=HYPERLINK("http://x","y")'
HOSTILE = (SCRIPT, IMG, FORMULA)
CHROMIUM = Path("/usr/bin/chromium")

# Throughput per run (Mbit/s) at 128 B and 1408 B: alike at 128 B, 10 Mbit/s apart at 1408 B.
BASELINE = {128: [40.0, 41.0, 39.0, 40.5, 39.5, 40.0], 1408: [90.0, 91.0, 89.0, 90.0, 90.5, 89.5]}
OTHER = {128: [40.2, 39.8, 40.4, 39.6, 40.1, 39.9], 1408: [80.0, 81.0, 79.0, 80.0, 80.5, 79.5]}
ENVIRONMENT = {
    "format_version": 1,
    "os_name": "Debian GNU/Linux 12 (bookworm)",
    "os_version": "6.1.0-18-amd64",
    "cpu_model": "Intel(R) Core(TM) i5-8250U <b>",
    "cpu_count": 8,
    "engine_versions": {"iperf3": "3.12"},
    "interface": "wlan0",
    "interface_speed_mbps": None,
    "wifi": {"ssid": "<lab & co>", "security": "WPA2", "phy_rate_mbps": 866.7, "channel": 36},
}


@dataclass(frozen=True)
class Stored:
    db: Path
    ids: tuple[str, str]
    comparison: Comparison
    data: ReportData


def add_session(
    store: SessionStore,
    name: str,
    notes: str,
    runs: dict[int, list[float]],
    env: dict[str, object],
    duration_s: int = 10,
) -> str:
    conditions = Conditions(
        security=Security.WPA2, medium=Medium.AC, notes=notes, tags=(("room", "<b>lab</b>"),)
    )
    plan = Plan(
        peer=Peer("192.0.2.10"),
        values=tuple(runs),
        repetitions=len(next(iter(runs.values()))),
        duration_s=duration_s,
        name=name,
        conditions=conditions,
    )
    sid = store.create_session(plan, env)
    for index, (value, mbps) in enumerate(runs.items()):
        for rep, rate in enumerate(mbps, start=1):
            store.add_run(
                sid,
                RunKey(Protocol.TCP, IpVersion.V4, index, rep),
                float(value),
                metrics=RunMetrics(throughput_bps=rate * 1e6),
                started_at=utc_now(),
                elapsed_s=10.0,
                engine="iperf3",
                engine_version="3.12",
                argv=["iperf3", "-c", "192.0.2.10", "-l", str(value)],
            )
    store.finish(sid, SessionStatus.COMPLETED)
    return sid


def load(db_path: Path, ids: tuple[str, ...]) -> Comparison:
    with Database(db_path, readonly=True) as db:
        store = SessionStore(db)
        items = []
        for sid in ids:
            items += series_data(store.get(sid), store.runs(sid), "throughput_bps")
    return compare(items, "throughput_bps")


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    """Two sessions alike in every stated way, so their names (hostile) label the curves."""
    path = tmp_path_factory.mktemp("reports") / "linklab.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        first = add_session(store, FORMULA, IMG, BASELINE, ENVIRONMENT)
        second = add_session(store, SCRIPT, FORMULA + "\n" + SCRIPT, OTHER, {})
    ids = (first, second)
    comparison = load(path, ids)
    return Stored(path, ids, comparison, collect(comparison, FrontDoor(path)))


@pytest.fixture(scope="module")
def chart(stored: Stored) -> bytes:
    from app.ui.common.render_charts import chart_png

    return chart_png(stored.comparison, None)


def image_stats(image: QImage, step: int = 3) -> tuple[int, float]:
    """(distinct colours, share of non-white pixels) over a grid of sampled pixels."""
    colours: set[int] = set()
    inked = total = 0
    for y in range(0, image.height(), step):
        for x in range(0, image.width(), step):
            rgb = image.pixel(x, y) & 0xFFFFFF
            colours.add(rgb)
            inked += rgb != 0xFFFFFF
            total += 1
    return len(colours), inked / max(total, 1)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_the_data_gives_one_significant_and_one_untelling_difference(stored: Stored) -> None:
    (pair,) = stored.comparison.pairs
    small, large = pair.points
    assert small.value == 128 and small.significant is False
    assert large.value == 1408 and large.significant is True
    assert large.p_value is not None and large.p_value < 1e-6
    assert large.p_holm is not None and large.p_value <= large.p_holm <= 2 * large.p_value
    assert [s.id for s in stored.comparison.sessions] == list(stored.ids)
    assert stored.comparison.warnings == []  # alike in engine, duration, sizes: nothing to warn


def test_chart_png_has_the_asked_size_and_is_drawn(stored: Stored, chart: bytes) -> None:
    from app.ui.common.render_charts import chart_png

    assert png_size(chart) == (1200, 700)
    image = QImage.fromData(chart)
    colours, inked = image_stats(image)
    assert colours >= 8 and 0.01 < inked < 0.6
    assert image.pixelColor(2, 2).name() == "#ffffff"  # print-friendly: white background
    small = chart_png(stored.comparison, None, 640, 360, spread="ci")
    assert png_size(small) == (640, 360) and small != chart


def test_html_escapes_every_piece_of_user_text(stored: Stored, chart: bytes) -> None:
    page = report_html(stored.data, chart, {})
    assert "<script" not in page.lower() and "<img src=x" not in page
    assert "onerror=alert(1)>" not in page
    for text in HOSTILE:
        assert html.escape(text) in page
    assert "&lt;b&gt;lab&lt;/b&gt;" in page and "&lt;lab &amp; co&gt;" in page
    # Nothing is fetched: only the escaped user text may mention a web address.
    rest = page
    for text in HOSTILE:
        rest = rest.replace(html.escape(text), "").replace(html.escape(text, quote=False), "")
    assert "http://" not in rest and "https://" not in rest
    assert not re.search(r"(href|src)\s*=\s*(?![\"']?data:)", rest, re.IGNORECASE)
    assert "default-src 'none'; img-src data:; style-src 'unsafe-inline'" in page
    assert '<html lang="en">' in page and '<meta charset="utf-8">' in page
    assert "α = 0.05" in page and "data:image/png;base64," in page
    for fact in ("iperf3 3.12", "Debian GNU/Linux 12", "802.11ac", "WPA2", "completed", "866.7"):
        assert fact in page
    assert "Mbit/s" in page


def test_csv_keeps_formulas_as_text(stored: Stored) -> None:
    text = comparison_csv(stored.comparison)
    assert "'=HYPERLINK" in text
    assert not re.search(r'(^|,)"?=HYPERLINK', text, re.MULTILINE)


def test_write_outputs_writes_png_html_pdf(stored: Stored, tmp_path: Path) -> None:
    png, page, pdf = tmp_path / "c.png", tmp_path / "r.html", tmp_path / "r.pdf"
    written = write_outputs(stored.data, png=png, html=page, pdf=pdf)
    assert written == [png, page, pdf]
    assert png_size(png.read_bytes()) == (1200, 700)
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-")
    assert len(re.findall(rb"/Type\s*/Page\b", data)) >= 1
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm:
        subprocess.run(
            [pdftoppm, "-png", "-r", "60", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "page")],
            check=True,
            timeout=60,
        )
        (first,) = tmp_path.glob("page-*1.png")
        colours, inked = image_stats(QImage(str(first)), step=2)
        assert colours >= 8 and inked > 0.02


def test_unwritable_place_is_a_sentence(stored: Stored, tmp_path: Path) -> None:
    with pytest.raises(BadOption, match=r"Cannot write .*: choose another place\."):
        write_outputs(stored.data, html=tmp_path / "no" / "such" / "r.html")


@pytest.mark.skipif(
    sys.platform == "win32", reason="the page is checked with Linux's chromium (/usr/bin/chromium)"
)
@pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing: scripts/ensure-desktop.sh --with-screenshots installs it",
)
def test_chromium_shows_the_report(stored: Stored, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    write_outputs(stored.data, html=page)
    shot = tmp_path / "shot.png"
    screenshot(page, shot, tmp_path / "profile")
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1280, 2000)
    colours, inked = image_stats(image, step=4)
    assert colours >= 16 and inked > 0.03


def screenshot(page: Path, shot: Path, profile: Path, size: str = "1280,2000") -> None:
    html_screenshot(page, shot, profile, size)


# Over 10 s: one `compare` command writes the PNG, HTML, PDF and CSV (Qt renders offscreen).
def test_cli_compare_writes_all_four(stored: Stored, tmp_path: Path) -> None:
    out = {name: tmp_path / name for name in ("x.png", "r.html", "r.pdf", "t.csv")}
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    argv = [sys.executable, "-m", "app", "compare", *stored.ids, "--db", str(stored.db)]
    argv += ["--png", str(out["x.png"]), "--html", str(out["r.html"])]
    argv += ["--pdf", str(out["r.pdf"]), "--csv", str(out["t.csv"])]
    done = subprocess.run(
        argv, cwd=ROOT_DIR, env=env, capture_output=True, text=True, encoding="utf-8", timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert all(path.stat().st_size > 0 for path in out.values())
    assert png_size(out["x.png"].read_bytes()) == (1200, 700)
    assert out["r.pdf"].read_bytes().startswith(b"%PDF")
    assert "'=HYPERLINK" in out["t.csv"].read_text(encoding="utf-8-sig")
    assert "Warning" not in done.stderr  # no library warnings reach the user
    big = tmp_path / "big.png"
    base = [sys.executable, "-m", "app", "compare", *stored.ids, "--db", str(stored.db)]
    sized = subprocess.run(
        [*base, "--png", str(big), "--png-size", "1600x900"],
        cwd=ROOT_DIR,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert sized.returncode == 0, sized.stderr
    assert png_size(big.read_bytes()) == (1600, 900)


def test_sessions_that_differ_otherwise_are_flagged_in_the_report(tmp_path: Path) -> None:
    """A 10 s session against a 30 s one: the report's banner says so before any difference."""
    path = tmp_path / "linklab.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        ids = (
            add_session(store, "short", "", BASELINE, {}),
            add_session(store, "long", "", OTHER, {}, duration_s=30),
        )
    comparison = load(path, ids)
    assert any("10 s" in w and "30 s" in w for w in comparison.warnings), comparison.warnings
    page = report_html(collect(comparison, FrontDoor(path)), b"", {})
    banner = page.index('id="warnings"')
    assert banner < page.index("<h2>Pairs</h2>")
    assert html.escape(comparison.warnings[0]) in page


def test_report_has_mean_and_sd_tables_and_single_sessions_report(stored: Stored) -> None:
    page = report_html(stored.data, b"", {})
    assert "Throughput: mean ± SD" in page or "mean ± SD" in page
    # The baseline's 1408 B point in Mbit/s, its mean to the place of its SD's second digit.
    assert "90.00&nbsp;±&nbsp;0.71" in page
    with Database(stored.db, readonly=True) as db:
        store = SessionStore(db)
        items = series_data(store.get(stored.ids[0]), store.runs(stored.ids[0]), "throughput_bps")
    single = compare(items, "throughput_bps")
    assert single.pairs == [] and len(single.curves) == 1
    one = report_html(collect(single, FrontDoor(stored.db)), b"", {})
    assert "LinkLab report:" in one and "90.00&nbsp;±&nbsp;0.71" in one


@pytest.mark.skipif(
    sys.platform == "win32", reason="the page is checked with Linux's chromium (/usr/bin/chromium)"
)
@pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is missing: scripts/ensure-desktop.sh --with-screenshots installs it",
)
def test_chromium_renders_the_warnings_banner_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        ids = (
            add_session(store, "short", "", BASELINE, {}),
            add_session(store, "long", "", OTHER, {}, duration_s=30),
        )
    page = tmp_path / "report.html"
    write_outputs(collect(load(path, ids), FrontDoor(path)), html=page)
    argv = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    argv += ["--disable-background-networking", f"--user-data-dir={tmp_path / 'profile'}"]
    argv += ["--dump-dom", page.resolve().as_uri()]
    done = subprocess.run(
        argv, capture_output=True, text=True, encoding="utf-8", timeout=90, check=True
    )
    dom = done.stdout
    assert 'id="warnings"' in dom and "Before reading the numbers" in dom
    assert dom.count("<table") >= 3  # differences, mean ± SD, standard deviation


SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")


# Over 10 s: LibreOffice itself (headless) reads the CSV export as written.
@pytest.mark.skipif(
    SOFFICE is None,
    reason="LibreOffice is missing: scripts/ensure-desktop.sh --with-screenshots installs it",
)
def test_libreoffice_reads_the_csv_as_written(stored: Stored, tmp_path: Path) -> None:
    """A spreadsheet opens the CSV with "·" intact and sizes as whole numbers."""
    source = tmp_path / "comparison.csv"
    source.write_text(comparison_csv(stored.comparison), encoding="utf-8", newline="")
    argv = [str(SOFFICE), f"-env:UserInstallation={(tmp_path / 'lo').resolve().as_uri()}"]
    # Comma-separated, quoted by ", UTF-8 (76): what Calc's import dialog offers.
    argv += ["--headless", "--infilter=CSV:44,34,76,1", "--convert-to", "html"]
    argv += ["--outdir", str(tmp_path), str(source)]
    subprocess.run(argv, capture_output=True, timeout=180, check=True)
    page = (tmp_path / "comparison.html").read_text(encoding="utf-8", errors="replace")
    cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", page)]
    assert cells[0] == "metric"  # the byte-order mark is not part of the first header
    assert "TCP · IPv4 (<script>alert(1)</script>)" in cells
    assert 'sdval="1408"' in page and "1408.0" not in cells  # a whole number, as a number
    assert 'href="http://x"' not in page  # the hostile name stayed text, not a link
