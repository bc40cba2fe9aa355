"""Plans in words: what a preset changed, how long a plan takes, a default session name."""

from __future__ import annotations

from dataclasses import fields, replace

from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Conditions, EarlyStop, Engine, Peer, Plan, Security, Variable
from app.study.sweep.describe import FIELD_LABELS, changes, default_name, extent_text


def test_every_setting_has_words() -> None:
    # The assignment (student, group, exercise step) comes from an exercise, never from a preset.
    assert set(FIELD_LABELS) | {"peer", "conditions", "assignment"} == {
        f.name for f in fields(Plan)
    }


def test_changes_name_each_field_that_differs() -> None:
    before = Plan(peer=Peer("a"))
    after = replace(
        before,
        engine=Engine.NETPERF,
        protocols=(Protocol.TCP, Protocol.UDP),
        repetitions=40,
        duration_s=60,
    )
    assert changes(before, after) == [
        "engine iperf3 → netperf",
        "protocol TCP → TCP and UDP",
        "runs per point 3 → 40",
        "seconds per run 10 s → 60 s",
    ]
    assert changes(before, before) == []


def test_extent_and_default_name() -> None:
    plan = Plan(
        peer=Peer("a"),
        protocols=(Protocol.TCP, Protocol.UDP),
        ip_versions=(IpVersion.V4, IpVersion.V6),
        repetitions=40,
        duration_s=60,
        conditions=Conditions(security=Security.WPA2),
    )
    assert extent_text(plan) == "960 runs, about 16 h 16 min"  # 1 s per run to start it
    early = replace(plan, early_stop=EarlyStop(0.01, 5))
    assert extent_text(early) == (
        "at most 960 runs, about 16 h 16 min, less as points become precise enough"
    )
    assert default_name(plan) == "TCP and UDP · IPv4 and IPv6 · 128–1408 B · WPA2"
    duration = replace(plan, variable=Variable.DURATION, values=(10, 60), direction=Direction.DOWN)
    assert default_name(duration) == (
        "TCP and UDP · IPv4 and IPv6 · run duration 10–60 s · download · WPA2"
    )
