"""A monitor reopened shows what it showed live: in the real window, a monitor with working
latency across a link of the test's own shaped to 31 Mbit/s (a second computer in a network
namespace running `linklab serve`), its runs chained every few seconds so that one ends while
it runs. Live, the figures are the receiver's once a run's come (never above what the link
carries) and the sender's, said so, for the run still going; the latency chart and column
fill. Stopped and reopened from Sessions by its row, the stored monitor has the same chart (each
plot on a tab of its own) and the same figures, latency included; Export HTML… and Export PDF…
write its report, which is opened and holds the same table; every run kept the engine's
output."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from app.domain.units import parse_rate
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from app.ui.monitor import panel
from tests.artifacts import NO_POPPLER, PDFTOPPM
from tests.testbed import NeighbourBed, unavailable_reason
from tests.ui.journey import confirmed, save_as
from tests.ui.test_export_journey import check_pdf
from tests.ui.test_monitor import stored_plot_tabs
from tests.ui.user import User, wait_for

pytestmark = [pytest.mark.netns, pytest.mark.usefixtures("iperf3_tool")]

LINK_MBIT = 31.0
#: Seconds per chained run: short, so that a run ends (and its receiver's figures come) while
#: the monitor runs; the window's own is five minutes.
RUN_S = 6


@pytest.fixture
def shaped() -> Iterator[NeighbourBed]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with NeighbourBed() as bed:
        bed.set_rate(LINK_MBIT)
        bed.serve("--no-netserver")
        yield bed


def table(user: User, name: str) -> dict[str, list[str]]:
    """A figures table by column: {'Upload (received)': [now, mean, min, max]}."""
    rows, names = user.table_rows(name), user.headers(name)
    return {column: [row[i] for row in rows] for i, column in enumerate(names)}


class _Tables(HTMLParser):
    """The cells of every table of a page, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def test_a_monitor_reopened_shows_its_latency_and_figures_as_live_and_exports_them(
    window: MainWindow,
    user: User,
    shaped: NeighbourBed,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(panel, "DEFAULT_RUN_S", RUN_S)
    user.type("Peer", shaped.THERE4)
    user.type("iperf3 port", "5201")
    user.tab("Monitor")
    user.check("Monitor working latency")
    user.click("Start monitor")
    chart = user.find("Monitor chart")
    # The first run's receiver's figures come as it ends: they take the place of its sender's.
    wait_for(lambda: "Upload (received)" in table(user, "Monitor figures"), 40, "a run's end")
    wait_for(lambda: "Upload (sent)" in table(user, "Monitor figures"), 20, "the next run")
    wait_for(lambda: "Latency" in table(user, "Monitor figures"), 10, "the latency column")
    chart.redraw()  # type: ignore[attr-defined]
    assert chart.drawn("latency").get("latency", 0) >= 3  # type: ignore[attr-defined]
    live = table(user, "Monitor figures")
    # The receiver's count never exceeds what the link carries (the sender's may: its socket
    # takes more than the link at first); and "now" is the sender's, of the run going on.
    now, _mean, _low, high = live["Upload (received)"]
    assert now == "—" and parse_rate(high.replace(" ", "")) <= LINK_MBIT * 1e6
    assert live["Upload (sent)"][0] != "—"
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 15, "the monitor to stop")
    live = table(user, "Monitor figures")
    chart.redraw()  # type: ignore[attr-defined]
    live_points = {
        plot: chart.drawn(plot)  # type: ignore[attr-defined]
        for plot in ("throughput", "loss", "latency")
    }
    assert live["Latency"][1:] and all(text.endswith("ms") for text in live["Latency"])

    # Reopened from Sessions by its row: the same chart, latency included, and figures.
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the monitor in Sessions")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Stored monitor chart"), 10, "the stored monitor")
    stored_chart = user.find("Stored monitor chart")
    # Each plot on a tab of its own there: the latency's is one of them, and opens.
    (latency_tab,) = [t for t in stored_plot_tabs(user) if t.startswith("Working latency")]
    user.tab(latency_tab)
    assert user.can_see("Monitor latency chart")
    stored_chart.redraw()  # type: ignore[attr-defined]
    stored = table(user, "Stored monitor figures")
    assert list(stored) == list(live), (stored, live)
    for column, figures in live.items():
        # Mean, lowest and highest the same; the last value too, where live had one now.
        assert stored[column][1:] == figures[1:], (column, stored[column], figures)
        assert figures[0] in ("—", stored[column][0]), (column, stored[column], figures)
    assert stored["Latency"][0] == live["Latency"][0]
    for plot, drawn in live_points.items():
        assert stored_chart.drawn(plot) == drawn, plot  # type: ignore[attr-defined]

    # Its report, exported and opened: the same figures, its runs, how it was measured.
    page, pdf = tmp_path / "monitor.html", tmp_path / "monitor.pdf"
    for button, path in (("Export HTML…", page), ("Export PDF…", pdf)):
        with user.answering(save_as(path)):
            user.click(button)
        wait_for(path.exists, 60, path.name)
        wait_for(lambda p=path: p.name in user.find("Saved files").toolTip(), 10, "the notice")
        confirmed(user, path)
    parser = _Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    over_whole = parser.tables[0]
    assert over_whole[0][1:] == list(stored)
    for index, row in enumerate(over_whole[1:]):
        assert row[1:] == [stored[column][index] for column in stored], row
    runs = parser.tables[1]
    assert len(runs) - 1 >= 2 and "Working latency (median)" in runs[0]
    if PDFTOPPM is None:
        pytest.skip(NO_POPPLER)
    text = " ".join(check_pdf(pdf, tmp_path).split())
    for heading in ("Over time", "Over the whole monitor", "Runs chained back to back"):
        assert heading in text, heading
    assert all(cell in text for cell in stored["Latency"])

    # Every run kept what the engine printed, the one Stop cut short too.
    with Database(window.context.db_path, readonly=True) as db:
        store = SessionStore(db)
        (session,) = store.list_sessions()
        kept = [store.run(session.id, run.id) for run in store.runs(session.id, partial=True)]
    assert len(kept) >= 2 and all(run.raw_output.strip() for run in kept), [
        (run.key.repetition, run.status, len(run.raw_output)) for run in kept
    ]
