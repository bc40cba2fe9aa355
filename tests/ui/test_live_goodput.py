"""The Measure tab's live chart during an upload against this computer's real iperf3, UDP and
TCP: while the run goes on it draws the sender's rate, named "upload (sent)"; when the run
ends, what the server received takes its place as "upload", the same figures the database
keeps."""

from __future__ import annotations

import pytest

from app.domain.net import Protocol
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for


@pytest.mark.parametrize("protocol", [Protocol.UDP, Protocol.TCP])
@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_an_upload_shows_sent_live_then_what_was_received(
    window: MainWindow, user: User, protocol: Protocol
) -> None:
    user.choose("Engine", "iperf3")
    user.choose("Protocol", protocol.value.upper())
    user.choose("IP version", "IPv4")
    user.choose("Direction", "Upload")
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "3")
    if protocol is Protocol.UDP:
        user.tab("Advanced")
        user.type("UDP bitrate", "500M")
        user.tab("Study")
    chart = user.find("Current run chart")
    user.click("Start")
    wait_for(lambda: "upload (sent)" in chart.curve_names(), 20, "the sender's live rate")  # type: ignore[attr-defined]
    assert "upload" not in chart.curve_names()  # type: ignore[attr-defined]
    wait_for(lambda: not window.measure.running, 30, "the run to finish")
    assert "completed" in user.text("Status")
    # Redrawn on the chart's timer: the receiver's figures in place of the sender's.
    wait_for(lambda: chart.curve_names() == ["upload"], 10, "what the server received")  # type: ignore[attr-defined]
    with Database(window.context.db_path, readonly=True) as db:
        store = SessionStore(db)
        (session,) = store.list_sessions()
        (run,) = store.runs(session.id)
        samples = store.samples(run.id)
    assert samples and all(s.received_bps is not None for s in samples)
    assert all(s.sent_bps is not None for s in samples)
    drawn = chart.curve_rates("upload")  # type: ignore[attr-defined]
    assert drawn == [s.goodput_bps(protocol) for s in samples] == [s.received_bps for s in samples]
