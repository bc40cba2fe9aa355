"""Every setting of a plan can be set from a visible, enabled, labelled control, and the presets
go through those controls and come back as the same plan."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import EarlyStop, Engine, Medium, Metric, Order, Plan, Security, Variable
from app.study.sweep.presets import list_presets
from app.ui.main_window import MainWindow
from tests.ui.user import Unreachable, User

#: Plan field -> (page, the controls' visible labels or accessible names).
CONTROLS: dict[str, tuple[str, tuple[str, ...]]] = {
    "peer": (
        "Study",
        ("Peer", "iperf3 port", "netserver port", "iperf 2 port", "Peer IPv6 address"),
    ),
    "engine": ("Study", ("Engine",)),
    "protocols": ("Study", ("Protocol",)),
    "ip_versions": ("Study", ("IP version",)),
    "direction": ("Study", ("Direction",)),
    "variable": ("Study", ("Sweep",)),
    "values": ("Study", ("Values list", "Values from", "Values to", "Values step")),
    "repetitions": ("Study", ("Runs per point",)),
    "duration_s": ("Study", ("Seconds per run",)),
    "metrics": ("Study", ("Throughput", "RTT", "CPU")),
    "name": ("Study", ("Session name",)),
    "conditions": ("Study", ("Security", "Medium", "Link rate")),
    "length": ("Advanced", ("Packet size (when not swept)",)),
    "window": ("Advanced", ("TCP window",)),
    "parallel": ("Advanced", ("Parallel streams",)),
    "bitrate_bps": ("Advanced", ("UDP bitrate",)),
    "congestion": ("Advanced", ("TCP congestion control",)),
    "dscp": ("Advanced", ("DSCP / access category",)),
    "omit_s": ("Advanced", ("Warm-up (omit)",)),
    "interval_s": ("Advanced", ("Report interval",)),
    "pause_s": ("Advanced", ("Pause between runs",)),
    "order": ("Advanced", ("Order",)),
    "seed": ("Advanced", ("Shuffle seed",)),
    "concurrent": ("Advanced", ("Run the series at the same time",)),
    "clocks_synchronised": ("Advanced", ("Clocks synchronised",)),
    "early_stop": (
        "Advanced",
        (
            "Stop a point early when precise enough",
            "Early-stop precision",
            "Early-stop minimum runs",
        ),
    ),
    "max_consecutive_failures": ("Advanced", ("Failures in a row allowed",)),
}
CONDITION_CONTROLS = {  # on the Advanced page
    "tags": "Tags",
    "notes": "Notes",
    "frame_overhead": "Frame overhead",
}


def test_every_plan_field_has_a_control() -> None:
    # The assignment is set by opening an exercise (tests/ui/test_exercise_flow.py), not typed.
    assert set(CONTROLS) | {"assignment"} == {f.name for f in fields(Plan)}


def test_every_control_is_visible_at_1280x800_without_scrolling(
    window: MainWindow, user: User
) -> None:
    """The Study page and the Advanced page each fit the window: nothing clipped."""
    for page in ("Study", "Advanced"):
        user.tab(page)
        names = [n for p, group in CONTROLS.values() if p == page for n in group]
        if page == "Advanced":
            names += CONDITION_CONTROLS.values()
        for name in names:
            widget = user.find(name)
            assert User.on_screen(widget) == widget.rect(), f"{name!r} is clipped"


@pytest.mark.usefixtures("iperf3_tool", "netperf_tool")  # both engines are chosen
def test_every_field_is_set_by_a_person(window: MainWindow, user: User) -> None:
    user.type("Peer", "lab-peer.example")
    user.type("iperf3 port", "5301")
    user.type("netserver port", "12866")
    user.type("Peer IPv6 address", "fd00::20")
    user.choose("Engine", "iperf3")
    user.choose("Protocol", "TCP and UDP")
    user.choose("IP version", "IPv4 and IPv6")
    user.choose("Direction", "Download")
    user.type("Runs per point", "4")
    user.type("Seconds per run", "12")
    user.choose("Sweep", "Run duration")  # so that the packet size can be held fixed
    user.type("Values list", "10, 20")
    user.check("CPU", False)
    user.type("Session name", "every field")
    user.choose("Security", "WPA2")
    user.choose("Medium", "802.11ac")
    user.type("Link rate", "866.7M")
    user.tab("Advanced")
    user.type("Packet size (when not swept)", "1408")
    user.type("TCP window", "64K")
    user.type("Parallel streams", "2")
    user.type("UDP bitrate", "30M")
    user.type("Warm-up (omit)", "1")
    user.type("Report interval", "0.5")
    user.type("Pause between runs", "0.5")
    user.choose("Order", "Shuffled")
    user.type("Shuffle seed", "42")
    user.check("Run the series at the same time")
    user.check("Stop a point early when precise enough")
    user.type("Early-stop precision", "5")
    user.type("Early-stop minimum runs", "3")
    user.type("Failures in a row allowed", "7")
    user.type("Tags", "open, room=B12")
    user.type("Notes", "walked through")
    user.type("Frame overhead", "14")
    plan = window.measure.setup.plan()
    assert plan is not None, window.measure.setup.problems_label.text()
    assert plan.peer.host == "lab-peer.example" and plan.peer.host6 == "fd00::20"
    assert (plan.peer.ports["iperf3"], plan.peer.ports["netperf"]) == (5301, 12866)
    assert plan.engine is Engine.IPERF3
    assert plan.protocols == (Protocol.TCP, Protocol.UDP)
    assert plan.ip_versions == (IpVersion.V4, IpVersion.V6)
    assert plan.direction is Direction.DOWN
    assert plan.variable is Variable.DURATION and plan.values == (10, 20)
    assert (plan.repetitions, plan.duration_s) == (4, 12)
    assert plan.metrics == (Metric.THROUGHPUT,)
    assert plan.name == "every field"
    assert plan.conditions.security is Security.WPA2
    assert plan.conditions.medium is Medium.AC
    assert plan.conditions.tags == (("open", ""), ("room", "B12"))
    assert plan.conditions.notes == "walked through"
    assert plan.conditions.link_rate_bps == 866_700_000
    assert plan.conditions.frame_overhead == 14
    assert (plan.length, plan.window, plan.parallel) == (1408, 65536, 2)
    assert plan.bitrate_bps == 30_000_000
    assert (plan.omit_s, plan.interval_s, plan.pause_s) == (1, 0.5, 0.5)
    assert plan.order is Order.SHUFFLED and plan.seed == 42
    assert plan.concurrent
    assert plan.early_stop == EarlyStop(0.05, 3)
    assert plan.max_consecutive_failures == 7
    # RTT comes with netperf, which has no window, streams, bitrate, warm-up or download:
    # those are refused at their fields until set back, then greyed out with the reason.
    user.tab("Study")
    user.choose("Direction", "Upload")
    user.choose("Engine", "netperf")
    user.check("RTT")
    user.tab("Advanced")
    user.check("Run the series at the same time", False)
    for name, neutral in (
        ("TCP window", ""),
        ("Parallel streams", "1"),
        ("UDP bitrate", "0"),
        ("Warm-up (omit)", "0"),
    ):
        assert user.find(name).isEnabled()  # its value is the problem: fix it there
        user.type(name, neutral)
        assert not user.find(name).isEnabled()
        assert "iperf3" in user.find(name).toolTip()
    plan = window.measure.setup.plan()
    assert plan is not None and Metric.RTT in plan.metrics and plan.engine is Engine.NETPERF


@pytest.mark.usefixtures("iperf3_tool")  # the form as it starts with iperf3 installed
def test_options_that_do_not_apply_are_greyed_out_saying_why(
    window: MainWindow, user: User
) -> None:
    user.tab("Advanced")
    for name, why in (
        ("UDP bitrate", "Only UDP runs have a target bitrate"),
        ("Shuffle seed", "shuffled plan only"),
        ("Run the series at the same time", "needs two series"),
        ("Packet size (when not swept)", "is what is swept"),
    ):
        control = user.find(name)
        assert not control.isEnabled() and why in control.toolTip(), name
    user.tab("Study")
    rtt = user.find("RTT")
    assert not rtt.isEnabled() and "netperf" in rtt.toolTip()
    user.choose("Protocol", "UDP")
    user.tab("Advanced")
    user.type("UDP bitrate", "50M")  # enabled now
    with pytest.raises(Unreachable, match="disabled"):
        user.type("Shuffle seed", "3")


@pytest.mark.usefixtures("iperf3_tool")  # the form as it starts with iperf3 installed
def test_presets_are_listed_in_order_and_say_what_they_change(
    window: MainWindow, user: User
) -> None:
    titles = [a.text() for a in window.presets_menu.actions() if a.text()]
    shipped = [p.title for p in list_presets()]
    assert titles[: len(shipped)] == shipped
    labs = [t for t in titles if t.startswith("Lab ")]
    assert labs == sorted(labs, key=lambda t: int(t.split()[1].rstrip(":")))
    user.menu("Presets", "802.11n study: open vs WPA2, IPv4 vs IPv6")
    notice = user.text("Preset changes")
    assert "engine iperf3 → netperf" in notice
    assert "protocol TCP → TCP and UDP" in notice
    assert "960 runs, about 16 h" in notice
    assert user.text("Engine") == "netperf"  # the visible controls show the preset
    assert user.text("Protocol") == "TCP and UDP"
    assert user.text("Runs per point") == "40"


def test_every_preset_goes_through_the_form_unchanged(window: MainWindow, user: User) -> None:
    """plan -> form -> plan is lossless: the form holds every field a preset sets."""
    setup = window.measure.setup
    for preset in list_presets():
        user.menu("Presets", preset.title)
        before = setup.build_candidate()[0]
        expected = replace(preset.for_peer(before.peer), conditions=before.conditions)
        assert before == expected, preset.name


def test_the_udp_bitrate_reads_unlimited_until_a_rate_is_typed(
    window: MainWindow, user: User
) -> None:
    """An unlimited UDP bitrate is the empty field with its hint, never a "0" that reads as
    nothing sent; typed rates, 0 and an emptied field each give the plan's bitrate."""
    user.choose("Protocol", "UDP")
    user.tab("Advanced")
    field = user.find("UDP bitrate")
    assert user.text("UDP bitrate") == "" and field.placeholderText() == "unlimited"
    assert "empty (or 0) sends as fast as possible" in field.toolTip()
    for typed, bitrate in (("30M", 30_000_000), ("", 0), ("0", 0), ("1G", 1_000_000_000)):
        user.type("UDP bitrate", typed)
        plan = window.measure.setup.plan()
        assert plan is not None and plan.bitrate_bps == bitrate, typed
    user.type("UDP bitrate", "fast")
    error = "The UDP bitrate must be a rate such as 30M or 1G, or empty (unlimited)."
    assert user.can_see(error)
    # A plan of an unlimited bitrate put back on the form (here a preset's) shows the empty
    # field again.
    user.type("UDP bitrate", "1G")
    user.menu("Presets", "802.11n study: open vs WPA2, IPv4 vs IPv6")
    assert "UDP bitrate 1.00 Gbit/s → unlimited" in user.text("Preset changes")
    user.tab("Advanced")
    assert user.text("UDP bitrate") == ""
    assert window.measure.setup.build_candidate()[0].bitrate_bps == 0
