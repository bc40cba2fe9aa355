"""The expected goodput in the window, as a person meets it: a link rate typed on the Study
page, the expected curve beside the measured one on a real loopback sweep, the Expected
columns, the session's Frame breakdown tab with its arithmetic, field errors for a rate the
model cannot use, and the detected rate that fills the field until the user types one."""

from __future__ import annotations

import pytest

from app.domain.plan import Conditions, Medium
from app.study.host.environment import DetectedLink
from app.ui.common.charts import SweepChart
from app.ui.main_window import MainWindow
from tests.ui.test_measure import plan_sweep, sessions
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, wait_for

ARITHMETIC_1G = (
    "1448 B of payload in 1538 B on the wire: 94.15 % → 1 Gbit/s × 0.9415 = 941.5 Mbit/s."
)


def open_across_a_link(
    window: MainWindow, user: User, name: str, rate_bps: int, repetitions: int = 2
) -> str:
    """A session stored of the lab's second computer across an Ethernet link of that rate,
    opened in Sessions as a person opens it; its id."""
    session_id = make_session(
        window.context.db_path,
        name,
        when="2025-03-01T10:00:00+00:00",
        host="192.0.2.10",  # the lab's second computer, across the link
        conditions=Conditions(medium=Medium.ETHERNET, link_rate_bps=rate_bps),
        repetitions=repetitions,
    )
    user.tab("Sessions")
    user.click("Refresh")
    wait_for(lambda: user.table_rows("Sessions"), 5, "the session list")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Session details"), 5, "the session's view")
    return session_id


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_a_link_rate_draws_the_expected_curve_and_explains_the_frame(
    window: MainWindow, user: User
) -> None:
    user.choose("Protocol", "TCP")
    user.choose("IP version", "IPv4")
    plan_sweep(user, "128, 1408")
    user.choose("Medium", "Ethernet")
    user.type("Link rate", "1G")
    user.type("Session name", "gigabit")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 60, "the sweep to finish")
    assert "completed" in user.text("Status")
    # The sweep chart: the measured curve and, thin and grey, what the headers allow.
    user.tab("Sweep")
    # Each expected curve is named after its series, as the legend shows them.
    wanted = "Curves: IPv4; Expected (IPv4)"
    wait_for(
        lambda: user.description("Sweep chart") == wanted,
        5,
        lambda: (
            f"{wanted!r}; the chart says {user.description('Sweep chart')!r}, the table "
            f"{user.table_rows('Results')}, the status {user.text('Status')!r}"
        ),
    )
    # The table gives the expected goodput; the traffic stayed on this computer, where the
    # link rate does not apply, so no share of it (no "1086.9 %").
    headers = user.headers("Results")
    assert "Expected" in headers and "Of expected %" not in headers
    for row in user.table_rows("Results"):
        assert row[headers.index("Expected")] == "941 Mbit/s"
    (session,) = sessions(window)
    assert session.plan.conditions.link_rate_bps == 1_000_000_000

    # The session view: the same curve, a sentence on why no share is given, and the frame.
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 5, "the session list")
    assert "1 Gbit/s link" in user.table_rows("Sessions")[0][5]
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Session details"), 5, "the session's view")
    assert "Of expected %" not in user.headers("Session results")
    user.tab("Findings")
    assert (
        "A 1 Gbit/s link rate is stated, but the traffic never crossed that link (it stayed "
        "on this computer" in user.text("Session findings")
    )
    user.tab("Frame breakdown")
    user.choose("Series", "TCP · IPv4")
    user.choose("Point", "1408 B")
    assert user.text("Frame shown") == "TCP · IPv4 at 1408 B: one segment in one frame"
    assert user.text("Frame arithmetic") == ARITHMETIC_1G
    assert "% of the expected" not in user.text("Measured at this point")
    assert "never crossed that link" in user.text("How the bytes add up")
    layers = user.text("Frame layers")
    for words in ("payload", "1448 B", "TCP timestamps option", "inter-frame gap", "1538 B"):
        assert words in layers
    # TCP fills its segments whatever the write length: 128-byte writes, the same frame.
    user.choose("Point", "128 B")
    assert user.text("Frame arithmetic") == ARITHMETIC_1G
    assert "(128-byte writes coalesce)" in user.text("How the bytes add up")


def test_across_a_link_the_share_of_the_expected_goodput_is_given(
    window: MainWindow, user: User
) -> None:
    open_across_a_link(window, user, "lab link", 1_000_000_000)
    headers = user.headers("Session results")
    assert {"Expected", "Of expected %"} <= set(headers)
    for row in user.table_rows("Session results"):
        assert float(row[headers.index("Of expected %")]) > 0
    user.tab("Findings")
    assert "the headers allow at" in user.text("Session findings")
    assert "loopback" not in user.text("Session findings")


def test_the_frame_breakdown_gives_each_point_the_share_the_table_gives(
    window: MainWindow, user: User
) -> None:
    """A 100 Gbit/s rate stated over a path that carried a few Mbit/s: shares below 0.1 %, and
    the Frame breakdown's sentence for each point says the share its table row says."""
    open_across_a_link(window, user, "nominal rate", 100_000_000_000)
    headers = user.headers("Session results")
    rows = user.table_rows("Session results")
    assert rows, headers
    shares = [row[headers.index("Of expected %")] for row in rows]
    assert any(float(share) < 0.05 for share in shares) and "0.0" not in shares
    user.tab("Frame breakdown")
    for row, share in zip(rows, shares, strict=True):
        series, value = row[headers.index("Series")], row[headers.index("Packet size (B)")]
        user.choose("Series", series)
        user.choose("Point", f"{value} B")
        measured = user.text("Measured at this point")
        assert f", {share} % of the expected " in measured, (series, value, measured)


def test_a_rate_the_model_cannot_use_is_marked_at_its_field(window: MainWindow, user: User) -> None:
    user.type("Link rate", "fast")
    sentence = "Write the link rate such as 100M or 1G, or leave it empty."
    assert user.can_see(sentence)  # right below the field
    user.click("Start")
    assert not window.measure.running
    assert user.text("Status") == f"Fix Link rate before starting: {sentence}"
    assert user.find("Link rate").hasFocus()
    # A rate needs the medium: the sentence moves to the Medium field.
    user.type("Link rate", "1G")
    assert not user.can_see(sentence)
    assert user.can_see(
        "The expected goodput needs the medium: choose Ethernet, 802.11n, 802.11ac or "
        "802.11ax (or give the frame overhead), or leave the link rate empty."
    )
    user.choose("Medium", "Ethernet")
    assert window.measure.setup.plan() is not None
    # On the Advanced page, a frame overhead that is not a byte count.
    user.tab("Advanced")
    user.type("Frame overhead", "lots")
    assert user.can_see("Write the frame overhead in bytes (e.g. 14), or leave it empty.")
    user.type("Frame overhead", "14")
    plan = window.measure.setup.plan()
    assert plan is not None and plan.conditions.frame_overhead == 14


def test_the_detected_rate_fills_the_field_until_the_user_types(
    window: MainWindow, user: User
) -> None:
    detection = window.measure.detection
    wait_for(lambda: detection.answered, 10, "the start-up detection")  # the loopback: no rate
    assert user.text("Link rate") == ""
    assert not user.can_see("Detected link")
    # A wired adapter toward the peer: its medium, and its speed said as the adapter's only.
    detection.link_detected.emit(
        DetectedLink("eth0", Medium.ETHERNET, adapter_speed_bps=10_000_000_000), ""
    )
    wait_for(lambda: user.text("Medium") == "Ethernet", 5, "the detected medium")
    assert user.text("Link rate") == ""
    said = user.text("Detected link")
    assert "Medium Ethernet detected from eth0, a wired adapter." in said
    assert "eth0 runs at 10 Gbit/s: the adapter's own speed, not the path's" in said
    plan = window.measure.setup.plan()
    assert plan is not None and plan.conditions.link_rate_bps is None
    assert plan.conditions.medium_detected_by == "eth0, a wired adapter"
    # A Wi-Fi security chosen: the wired adapter says nothing of the Wi-Fi hop beyond it.
    user.choose("Security", "WPA2")
    assert user.text("Medium") == "unknown"
    assert window.measure.setup.plan() is not None  # no "WPA2 protects Wi-Fi frames" refusal
    user.choose("Security", "unknown")
    assert user.text("Medium") == "Ethernet"
    # Wi-Fi: its PHY rate in use is the hop's rate, taken once the security is known.
    detection.link_detected.emit(DetectedLink("wlan0", Medium.AC, 866_700_000, wireless=True), "")
    wait_for(lambda: user.text("Medium") == "802.11ac", 5, "the Wi-Fi medium")
    assert user.text("Link rate") == ""
    assert "wlan0's Wi-Fi PHY rate is 866.7 Mbit/s: choose the security" in user.text(
        "Detected link"
    )
    user.choose("Security", "WPA2")
    assert user.text("Link rate") == "866.7M"
    assert "(detected)" in user.visible_text()
    plan = window.measure.setup.plan()
    assert plan is not None
    assert plan.conditions.link_rate_detected_by == "wlan0's Wi-Fi PHY rate"
    # Another peer with nothing reported: what detection filled is taken back.
    detection.link_detected.emit(None, "")
    wait_for(lambda: user.text("Link rate") == "", 5, "the rate to go")
    assert user.text("Medium") == "unknown" and not user.can_see("Detected link")
    # Once the user types, detection leaves the field alone.
    user.type("Link rate", "100M")
    detection.link_detected.emit(DetectedLink("wlan0", Medium.AC, 866_700_000, wireless=True), "")
    assert user.text("Link rate") == "100M"
    assert "(detected)" not in user.visible_text()
    plan = window.measure.setup.plan()
    assert plan is not None and plan.conditions.link_rate_detected_by == ""
    # The detected figure is still said, as what the typed rate stands in for.
    assert user.text("Detected link").endswith(
        "wlan0's Wi-Fi PHY rate is 866.7 Mbit/s: the link rate typed is used instead."
    )
    # Emptied, the field is unknown again (not refilled under the user's hands), the sentence
    # says how to take the detected rate, and the next detection fills it.
    user.type("Link rate", "")
    assert user.text("Link rate") == ""
    assert "866.7 Mbit/s: type it as the link rate to use it, or leave it unknown." in (
        user.text("Detected link")
    )
    plan = window.measure.setup.plan()
    assert plan is not None and plan.conditions.link_rate_bps is None
    detection.link_detected.emit(DetectedLink("wlan0", Medium.AC, 866_700_000, wireless=True), "")
    wait_for(lambda: user.text("Link rate") == "866.7M", 5, "the detected rate again")
    wait_for(lambda: "(detected)" in user.visible_text(), 5, "its mark")


def test_without_a_link_rate_the_frame_still_shows_its_bytes(
    window: MainWindow, user: User
) -> None:
    make_session(
        window.context.db_path,
        "no rate",
        when="2025-03-01T10:00:00+00:00",
        conditions=Conditions(medium=Medium.ETHERNET),
    )
    user.tab("Sessions")
    user.click("Refresh")
    wait_for(lambda: user.table_rows("Sessions"), 5, "the session list")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Session details"), 5, "the session's view")
    user.tab("Frame breakdown")
    user.choose("Series", "UDP · IPv4")
    user.choose("Point", "128 B")
    assert user.text("Frame arithmetic") == (
        "128 B of payload in 194 B on the wire: 65.98 % of the link rate."
    )
    assert "no link rate" in user.text("How the bytes add up")
    assert user.text("Measured at this point").startswith("Measured: ")
    assert "Expected" not in user.headers("Session results")


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_stopped_before_a_series_its_expected_curve_is_not_in_the_legend(
    window: MainWindow, user: User
) -> None:
    user.choose("Protocol", "TCP and UDP")
    user.choose("IP version", "IPv4")
    plan_sweep(user, "128, 1408")
    user.choose("Medium", "Ethernet")
    user.type("Link rate", "1G")
    user.tab("Advanced")
    user.type("Pause between runs", "3")  # Stop lands between two TCP runs
    user.tab("Study")
    user.click("Start")
    progress = user.find("Progress")
    wait_for(lambda: progress.value() >= 1, 60, "the first run")  # type: ignore[attr-defined]
    user.click("Stop")
    wait_for(lambda: not window.measure.running, 30, "the study to stop")
    assert "stopped" in user.text("Status"), user.text("Log")
    user.tab("Sweep")
    chart = user.find("Sweep chart", SweepChart)
    chart.redraw()
    legend = [label.text for _, label in chart.getPlotItem().legend.items]
    # TCP measured at 128 B before Stop, and its yardstick; UDP never measured: neither.
    assert chart.series_names == ["TCP · IPv4"] and chart.point_count() == 1
    # Where 128-byte writes on a busy computer stay far below 941 Mbit/s, the yardstick is
    # left above the chart, its legend saying how high it goes: the same curve.
    names = [name.split(": up to ")[0] for name in legend]
    assert names == ["TCP · IPv4", "Expected (TCP · IPv4)"]
    assert user.description("Sweep chart").startswith("Curves: TCP · IPv4; Expected (TCP · IPv4)")
