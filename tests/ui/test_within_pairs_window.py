"""Compare its series on a TCP/UDP × IPv4/IPv6 session: the window pairs its series like for
like, each pair differing in one way only, and its table and findings follow the pairs."""

from __future__ import annotations

from pathlib import Path

from app.domain.net import IpVersion
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.ui.test_sessions_tab import VALUES, make_session
from tests.ui.user import User, wait_for


def test_compare_its_series_changes_one_thing_per_pair(
    window: MainWindow, user: User, context: AppContext
) -> None:
    make_session(
        Path(context.db_path),
        "both IP versions",
        when="2025-03-01T10:00:00+00:00",
        ip_versions=(IpVersion.V4, IpVersion.V6),
    )
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    user.click_row("Sessions", 0)
    user.click("Open")
    wait_for(lambda: user.can_see("Compare its series"), 10, "the session on view")
    user.click("Compare its series")
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 4, 10, "the four pairs")
    assert [row[0] for row in user.table_rows("Pairs compared")] == [
        "UDP · IPv4  ↔  TCP · IPv4",
        "UDP · IPv6  ↔  TCP · IPv6",
        "TCP · IPv6  ↔  TCP · IPv4",
        "UDP · IPv6  ↔  UDP · IPv4",
    ]
    rows = user.table_rows("Differences")
    assert len(rows) == 4 * len(VALUES)  # every pair, every point
    assert ["UDP · IPv6", "TCP · IPv4"] not in [row[:2] for row in rows]
    user.tab("Findings")
    said = user.text("Findings")
    assert "UDP · IPv6 against TCP · IPv6" in said
    assert "UDP · IPv6 against TCP · IPv4" not in said
