"""The newcomer's monitor journey, end to end in the real window against an iperf3 server of
the test's own on a free port: Start monitor, the server stopped (the figures say the peer is
down, not its last value) and started again, Stop monitor, then the monitor opened in Sessions
shows its time chart with the gap (not a sweep chart over "Monitor 0"), warnings fit for a
monitor, one status in the list, `linklab sessions` and `sessions --json`, and its export over
time, opened, holds every interval with the gap."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from app.engine.process.servers import LocalServer
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.test_cli import linklab
from tests.ui.journey import save_as
from tests.ui.shown_sentences import view_text
from tests.ui.test_monitor import charted, figures
from tests.ui.user import User, wait_for


def test_a_monitor_with_a_gap_is_read_afterwards_in_sessions(
    window: MainWindow,
    user: User,
    tmp_path: Path,
    iperf3_server_port: tuple[int, LocalServer],
) -> None:
    port, server = iperf3_server_port
    user.type("Peer", "127.0.0.1")
    user.type("iperf3 port", str(port))
    user.tab("Monitor")
    user.click("Start monitor")

    def points() -> int:
        return charted(user)

    wait_for(lambda: points() >= 3, 30, "three points charted")
    server.stop()  # the peer's server goes away mid-run
    wait_for(lambda: "stopped answering" in user.text("Monitor status"), 20, "the sentence")
    # While the peer is down, "Now" has no value: it says so.
    wait_for(lambda: figures(user) and figures(user)[next(iter(figures(user)))][0], 5, "figures")
    now = {name: column[0] for name, column in figures(user).items()}
    assert set(now.values()) == {"peer down"}, now
    # Gone long enough to be a gap on any chart: until the monitor waits 2 s between tries.
    wait_for(lambda: "tries again in 2 s" in user.text("Monitor status"), 20, "a longer wait")
    before = points()
    server.start()  # back, on the same port
    wait_for(lambda: "answers again" in user.text("Monitor status"), 30, "the peer back")
    wait_for(lambda: points() >= before + 2, 15, "points after the gap")
    assert "peer down" not in {column[0] for column in figures(user).values()}
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 10, "the monitor to stop")
    # The log stamps each line once: no line carries two times.
    twice = re.compile(r"^\d\d:\d\d:\d\d  \d\d:\d\d:\d\d ")
    assert not any(twice.match(line) for line in user.text("Log").splitlines())

    with Database(window.context.db_path, readonly=True) as db:
        store = SessionStore(db)
        (session,) = store.list_sessions()
        runs = store.runs(session.id, partial=True)
        samples = {run.id: store.samples(run.id) for run in runs}
    # The run the peer's absence cut kept its intervals and is stored as finished.
    assert runs[0].ok and len(samples[runs[0].id]) >= 3, [r.status for r in runs]
    assert any(not run.ok for run in runs)  # the tries while the peer was gone
    total = sum(len(s) for s in samples.values())

    # Sessions: one status wording in the list, `linklab sessions` and `sessions --json`.
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the monitor in Sessions")
    (row,) = user.table_rows("Sessions")
    listed = dict(zip(user.headers("Sessions"), row, strict=True))
    assert listed["Status"] == session.status_text == "completed with failures", listed
    db_path = str(window.context.db_path)
    text = linklab("sessions", "--db", db_path)
    assert "completed with failures" in text.stdout, text.stdout
    as_json = json.loads(linklab("sessions", "--json", "--db", db_path).stdout)
    assert [s["status_text"] for s in as_json] == [listed["Status"]]

    # Opened: its time chart with the gap, as it was shown live; no sweep chart.
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Stored monitor chart"), 10, "the monitor's time chart")
    assert not user.can_see("Session throughput chart")
    assert not user.can_see("Session results")
    stored = user.find("Stored monitor chart")
    stored.redraw()  # type: ignore[attr-defined]
    assert stored.breaks("throughput") >= 1  # type: ignore[attr-defined]  # the gap
    assert sum(stored.drawn("throughput").values()) == total  # type: ignore[attr-defined]
    # The warnings band shows only when the stored monitor has a warning (a gap need not).
    band = user.text("Session warnings") if user.can_see("Session warnings") else ""
    warnings = band + view_text(user)
    assert "at 0" not in warnings and "fewer than 3 successful runs" not in warnings, warnings
    rows = user.table_rows("Stored monitor figures")
    assert [r[0] for r in rows][:1] and user.headers("Stored monitor figures")

    # Its export over time, opened: every interval, the gap where the peer was gone.
    out = tmp_path / "monitor over time.csv"
    with user.answering(save_as(out)):
        user.click("Export over time CSV…")
    wait_for(lambda: "Saved" in user.text("Monitor export status"), 5, "the confirmation")
    with out.open(encoding="utf-8-sig") as handle:
        exported = list(csv.DictReader(handle))
    assert len(exported) == total
    times = [float(r["time_s"]) for r in exported]
    assert times == sorted(times)
    gaps = [float(r["gap_before_s"]) for r in exported if float(r["gap_before_s"]) > 0]
    assert gaps, "the stretch without the server is in the export"
    print(f"{total} intervals, runs {[r.status for r in runs]}, gaps of {gaps} s")
    assert all(float(r["received_bps"] or r["sent_bps"] or 0) > 0 for r in exported[:2])
