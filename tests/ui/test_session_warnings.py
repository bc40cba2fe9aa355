"""The context checks in the window: a stored session on this computer labelled WPA2, whose
UDP lost most of its datagrams, shows both warnings above its details in the session view; the
Compare tab's banner raises them, named by session."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Peer, Plan, Security
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for


def _session(path: Path, name: str, security: Security, udp_loss: float) -> None:
    """A session on this computer's loopback, stored as the runner stores one."""
    plan = Plan(
        peer=Peer.this_computer(),
        protocols=(Protocol.TCP, Protocol.UDP),
        ip_versions=(IpVersion.V4,),
        values=(1408,),
        repetitions=3,
        duration_s=1,
        name=name,
        conditions=Conditions(security=security),
    )
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(plan)
        for key in plan.run_keys():
            udp = key.protocol is Protocol.UDP
            store.add_run(
                sid,
                key,
                1408.0,
                metrics=RunMetrics(
                    throughput_bps=2e9 + key.repetition * 1e7,
                    loss_pct=udp_loss + key.repetition if udp else None,
                ),
                started_at=utc_now(),
                elapsed_s=1.0,
                engine="iperf3",
            )
        store.finish(sid, SessionStatus.COMPLETED)


def test_the_session_view_and_the_compare_banner_show_the_warnings(
    window: MainWindow, user: User
) -> None:
    _session(window.context.db_path, "loopback WPA2", Security.WPA2, 60.0)
    _session(window.context.db_path, "loopback open", Security.OPEN, 0.0)
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the sessions")
    row = [r[1] for r in user.table_rows("Sessions")].index("loopback WPA2")
    user.click_row("Sessions", row)
    wait_for(lambda: user.can_see("Session warnings"), 10, "the session's warnings")
    said = user.text("Session warnings")
    assert "labelled Wi-Fi (WPA2)" in said and "never crossed a Wi-Fi link" in said
    # The mean loss of the three runs (61, 62 and 63 %), as the results table has it.
    assert "UDP · IPv4 lost more than 5 % of its datagrams at 1408 B (62.0 %" in said
    # Above the details and the charts: read before any number.
    warnings, details = user.find("Session warnings"), user.find("Session details")
    assert (
        warnings.mapTo(window, warnings.rect().topLeft()).y()
        < details.mapTo(window, details.rect().topLeft()).y()
    )

    user.click_row("Sessions", 1 - row, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: user.can_see("Comparison warnings"), 10, "the comparison's warnings")
    banner = user.text("Comparison warnings")
    assert "“loopback WPA2”: The session is labelled Wi-Fi (WPA2)" in banner
    assert "“loopback open”: The session is labelled Wi-Fi (open)" in banner
    assert "“loopback WPA2”: UDP · IPv4 lost more than 5 %" in banner
    assert "“loopback open”: UDP · IPv4 lost" not in banner
