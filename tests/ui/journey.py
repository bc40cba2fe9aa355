"""Steps the newcomer's journeys share: a session's series compared from Sessions, its chart
and table exported through the file dialogs, the on-screen confirmation of each, and the files
opened and checked (the PNG's pixels, the CSV's figures against the stored runs)."""

from __future__ import annotations

import csv
import io
import math
import socket
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QImage

from app.domain.records import RunRecord
from app.engine.serving.discovery import discover
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.conftest import free_port
from tests.testbed import NeighbourBed
from tests.ui.user import User, wait_for


@contextmanager
def nothing_answers(context: AppContext) -> Iterator[None]:
    """The default iperf3 and netserver ports on the loopback held by listeners that never
    accept (their queues full): a handshake there gets no reply at all, as at an address
    where no computer is."""
    held = []
    for name in ("iperf3", "netperf"):
        server = socket.socket()
        server.bind(("127.0.0.1", context.default_port(name)))
        server.listen(0)
        held.append(server)
        for _ in range(2):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(server.getsockname())
            held.append(filler)
    try:
        yield
    finally:
        for sock in held:
            sock.close()


def choose_the_neighbour(user: User, context: AppContext, neighbour: NeighbourBed) -> None:
    """`linklab serve` started on the second computer (iperf3 on a free port), Find computers
    asking on its link only, and that computer chosen under Peer from what it found."""
    neighbour.serve("--no-netserver", "--port", str(free_port()))
    context.find_peers = lambda echo: discover(echo, interfaces=[neighbour.here])
    user.click("Find computers")
    wait_for(lambda: "Found 1 computer" in user.text("Peer check"), 20, "the search")
    (offered,) = [o for o in user.options("Peer") if neighbour.THERE4 in o]
    user.choose("Peer", offered)


def save_as(path: Path) -> Callable[[User], None]:
    """What a person does in a save dialog: type the file name, press Save."""

    def answer(dialog: User) -> None:
        dialog.type("File name", str(path))
        dialog.click("Save")

    return answer


class UrlsOpened(QObject):
    """Where the window asks the desktop to open a URL (Open folder, a Settings page): no
    file manager or Settings app is started in a test."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def confirmed(user: User, path: Path) -> None:
    """The file is named on screen in the status bar's notice, and Open folder opens its
    folder."""
    notice = user.find("Saved files")
    assert path.name in notice.toolTip() and str(path.parent) in notice.toolTip()
    opened = UrlsOpened()
    QDesktopServices.setUrlHandler("file", opened, "open")
    try:
        user.click("Open folder")
        wait_for(lambda: opened.urls, 5, "the folder to be opened")
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert Path(opened.urls[0].toLocalFile()) == path.parent


def compare_session(user: User, window: MainWindow, name: str) -> None:
    """Sessions: the session chosen, Compare: its series side by side."""
    user.tab("Sessions")
    wait_for(lambda: any(r[1] == name for r in user.table_rows("Sessions")), 10, "the session")
    row = next(i for i, r in enumerate(user.table_rows("Sessions")) if r[1] == name)
    user.click_row("Sessions", row)
    user.click("Compare")
    assert window.tabs.currentWidget() is window.compare_tab
    wait_for(lambda: user.table_rows("Pairs compared"), 10, "the series to be compared")


def export_chart_and_table(user: User, folder: Path) -> tuple[Path, Path]:
    """Chart PNG… and Table CSV… saved into folder, each confirmed on screen."""
    png, table = folder / "chart.png", folder / "table.csv"
    with user.answering(lambda size: size.click("OK"), save_as(png)):
        user.click("Chart PNG…")
    wait_for(png.exists, 20, "the PNG")
    confirmed(user, png)
    with user.answering(save_as(table)):
        user.click("Table CSV…")
    wait_for(table.exists, 10, "the CSV")
    confirmed(user, table)
    return png, table


def check_png(path: Path) -> None:
    """The image loads, shows a chart (not one colour), and nothing drawn touches its edge."""
    image = QImage(str(path))
    assert not image.isNull(), f"{path.name} does not load as an image"
    width, height = image.width(), image.height()
    background = image.pixelColor(0, 0).rgb()
    colours = {
        image.pixelColor(x, y).rgb() for x in range(0, width, 7) for y in range(0, height, 7)
    }
    assert len(colours) > 8, "the chart is blank"
    edge = [(x, y) for x in range(width) for y in (0, 1, height - 2, height - 1)]
    edge += [(x, y) for y in range(height) for x in (0, 1, width - 2, width - 1)]
    touching = [p for p in edge if image.pixelColor(*p).rgb() != background]
    assert not touching, f"drawn up to the image's edge at {touching[:5]}"


def check_csv(path: Path, runs: list[RunRecord]) -> int:
    """Each row's n and mean throughput of both sides are those of the stored runs of its
    series and point; the number of rows checked."""
    text = path.read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows, "the CSV has no rows"
    for row in rows:
        assert row["metric"] == "throughput_bps"
        for side in ("", "baseline_"):
            good = [
                r.metrics.throughput_bps
                for r in runs
                if r.ok
                and r.key.protocol.value == row[f"{side}protocol"]
                and int(r.key.ip_version) == int(row[f"{side}ip_version"])
                and float(r.value) == float(row["value"])
                and r.metrics.throughput_bps is not None
            ]
            which = "baseline" if side else "other"
            assert int(row[f"{which}_n"]) == len(good), row
            mean = float(row[f"{which}_mean"])
            assert math.isclose(mean, statistics.fmean(good), rel_tol=1e-6), row
    return len(rows)


def visible_whole(user: User, name: str) -> bool:
    """The control is on screen, every pixel of it inside the panes that hold it."""
    widget = user.find(name)
    area = user.on_screen(widget)
    return area.size() == widget.size() and widget.width() > 0
