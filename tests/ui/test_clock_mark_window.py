"""A session whose computer's clock was set while it ran, as the window shows it: its view
says the clock was set, by how much, and that its times follow the session's own clock."""

from __future__ import annotations

import html

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, SessionStatus
from app.store.db import Database
from app.store.run_rows import RunRows
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.domain.test_clock import Clocks
from tests.ui.shown_sentences import view_text
from tests.ui.user import User, wait_for


def test_a_session_across_a_clock_step_says_so_in_its_view(window: MainWindow, user: User) -> None:
    clocks = Clocks()
    plan = Plan(peer=Peer("192.0.2.1"), values=(1408,), repetitions=2, name="overnight")
    with Database(window.context.db_path) as db:
        store = SessionStore(db, clocks.clock())
        sid = store.create_session(plan)
        for repetition in (1, 2):
            key = RunKey(Protocol.TCP, IpVersion.V4, 0, repetition)
            run = RunRows(store).begin(sid, key, 1408.0, attempts=1, engine="iperf3")
            clocks.steady += 10
            clocks.offset = -3 * 3600 if repetition == 2 else 0  # set back 3 h in run 2
            RunRows(store).finish(run, metrics=RunMetrics(throughput_bps=9e8), elapsed_s=10.0)
        store.finish(sid, SessionStatus.COMPLETED)
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 10, "the sessions")
    user.click_row("Sessions", 0)
    wait_for(lambda: "overnight" in user.text("Session details"), 10, "the session's view")
    said = " ".join(view_text(user).split())  # the header and the Details, as a person reads
    assert (
        "The computer's clock was set back by 3 h 0 min while this session ran: its times "
        "follow the session's own clock from its start"
    ) in html.unescape(said)
