"""Plans: validation in sentences, JSON round trip, run order, presets."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from app.domain.errors import BadOption
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import (
    Conditions,
    EarlyStop,
    Engine,
    Medium,
    Metric,
    Order,
    Peer,
    Plan,
    RunKind,
    Security,
    Variable,
)
from app.domain.plan_codec import plan_from_json
from app.domain.run_settings import RunSettings, run_settings
from app.study.host.shaping import unavailable_reason
from app.study.sweep.plan_checks import plan_problems, validate_plan
from app.study.sweep.presets import find_preset, list_presets, load_preset_file, save_preset

BASE = Plan(
    peer=Peer("127.0.0.1", host6="::1"),
    protocols=(Protocol.TCP, Protocol.UDP),
    ip_versions=(IpVersion.V4, IpVersion.V6),
    values=(128, 1408),
    repetitions=2,
)


def fields(plan: Plan) -> dict[str, str]:
    return dict(plan_problems(plan))


def test_valid_plan_has_no_problems() -> None:
    assert plan_problems(BASE) == []
    assert BASE.total_runs == 2 * 2 * 2 * 2


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"values": (8,), "protocols": (Protocol.UDP,)}, "values", "between 16 and 65507"),
        ({"values": (70000,), "protocols": (Protocol.UDP,)}, "values", "between 16 and 65507"),
        ({"values": (2 * 1024 * 1024,), "protocols": (Protocol.TCP,)}, "values", "1 MiB"),
        ({"duration_s": 0}, "duration", "between 1 and 86400"),
        ({"duration_s": 86401}, "duration", "between 1 and 86400"),
        ({"repetitions": 0}, "repetitions", "between 1 and 1000"),
        ({"repetitions": 1001}, "repetitions", "between 1 and 1000"),
        ({"values": ()}, "values", "at least one value"),
        ({"values": (128, 128)}, "values", "once"),
        ({"metrics": (Metric.RTT,)}, "metrics", "netperf"),
        ({"metrics": ()}, "metrics", "at least one metric"),
        ({"protocols": ()}, "protocols", "at least one protocol"),
        ({"peer": Peer("-R")}, "peer", "starts with '-'"),
        ({"peer": Peer("a b")}, "peer", "spaces"),
        ({"peer": Peer("127.0.0.1", {"iperf3": 0})}, "iperf3_port", "between 1 and 65535"),
        ({"peer": Peer("127.0.0.1")}, "peer", "give the peer's IPv6 address as well"),
        ({"peer": Peer("::1")}, "peer", "IPv4 is measured too"),
        ({"peer": Peer("127.0.0.1", host6="10.0.0.1")}, "peer", "is not an IPv6 address"),
        ({"omit_s": 5, "duration_s": 3}, "omit", "shorter than the run"),
        (
            {"engine": Engine.NETPERF, "variable": Variable.WINDOW, "values": (4096,)},
            "variable",
            "needs the iperf3 engine",
        ),
        ({"early_stop": EarlyStop(0.05, 5)}, "early_stop", "no more than the repetitions"),
    ],
)
def test_problems_are_sentences_at_the_field(
    change: dict[str, object], field: str, words: str
) -> None:
    plan = replace(BASE, **change)  # type: ignore[arg-type]
    problems = fields(plan)
    assert field in problems, plan_problems(plan)
    assert words in problems[field]
    assert problems[field].endswith(".")
    with pytest.raises(BadOption):
        validate_plan(plan)


def test_json_round_trip() -> None:
    plan = replace(
        BASE,
        engine=Engine.IPERF3,
        direction=Direction.DOWN,
        variable=Variable.WINDOW,
        values=(2048, 4096),
        order=Order.SHUFFLED,
        seed=7,
        early_stop=EarlyStop(0.1, 2),
        metrics=(Metric.THROUGHPUT, Metric.CPU),
        pause_s=0.5,
        name="Lab <1>",
        conditions=Conditions(
            Security.WPA2, Medium.N, (("os", "Windows 7"), ("room", "A")), "notes\nline 2"
        ),
    )
    again = plan_from_json(plan.to_json())
    assert again == plan
    assert json.loads(plan.to_json())["conditions"]["tags"] == {"os": "Windows 7", "room": "A"}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"values": [128]}', "names no peer"),
        ('{"peer": {"host": "x"}, "colour": "red"}', "unknown fields: colour"),
        ('{"peer": {"host": "x"}, "protocols": ["sctp"]}', "cannot use"),
        ('{"peer": {"host": "x"}, "values": [1.5]}', "cannot use"),
        ('{"peer": {"host": "x"}, "repetitions": "3"}', "cannot use"),
        ('{"peer": {"host": "x"}, "format": 99}', "newer LinkLab"),
        ('{"peer": {"host": "x", "user": "y"}}', "cannot use"),
    ],
)
def test_bad_plan_files_say_why(text: str, words: str) -> None:
    with pytest.raises(BadOption, match=words):
        plan_from_json(text)


def test_run_orders() -> None:
    plan = replace(BASE, repetitions=2)
    sequential = plan.run_keys()
    assert len(sequential) == plan.total_runs == len(set(sequential))
    # Sequential: all runs of a point together, series after series.
    assert [(k.protocol, k.ip_version, k.value_index, k.repetition) for k in sequential[:4]] == [
        (Protocol.TCP, IpVersion.V4, 0, 1),
        (Protocol.TCP, IpVersion.V4, 0, 2),
        (Protocol.TCP, IpVersion.V4, 1, 1),
        (Protocol.TCP, IpVersion.V4, 1, 2),
    ]
    interleaved = replace(plan, order=Order.INTERLEAVED).run_keys()
    assert [k.series for k in interleaved[:4]] == plan.series  # series alternate
    shuffled = replace(plan, order=Order.SHUFFLED, seed=3).run_keys()
    assert sorted(shuffled) == sorted(sequential) and shuffled != sequential
    assert shuffled == replace(plan, order=Order.SHUFFLED, seed=3).run_keys()  # reproducible


def test_rtt_adds_request_response_runs() -> None:
    plan = replace(BASE, engine=Engine.NETPERF, metrics=(Metric.THROUGHPUT, Metric.RTT))
    kinds = {k.kind for k in plan.run_keys()}
    assert kinds == {RunKind.STREAM, RunKind.RR}
    assert plan.total_runs == 2 * BASE.total_runs


def test_settings_apply_the_swept_variable() -> None:
    plan = replace(
        BASE, variable=Variable.DURATION, values=(10, 20), length=1408, bitrate_bps=30_000_000
    )
    udp = next(k for k in plan.run_keys() if k.protocol is Protocol.UDP and k.value_index == 1)
    assert run_settings(plan, udp) == RunSettings(
        duration_s=20, length=1408, bitrate_bps=30_000_000, congestion=None
    )
    tcp = next(k for k in plan.run_keys() if k.protocol is Protocol.TCP)
    assert run_settings(plan, tcp).bitrate_bps is None
    named = replace(plan, variable=Variable.CONGESTION, values=("reno", "bbr"))
    assert run_settings(named, replace(tcp, value_index=1)).congestion == "bbr"
    assert run_settings(named, udp).congestion is None  # a TCP setting
    marked = replace(plan, variable=Variable.DSCP, values=("BK", "VO"), congestion="bbr")
    assert run_settings(marked, udp).value("dscp") == "VO"  # a mark reaches UDP runs too
    assert run_settings(marked, replace(tcp, value_index=0)).value("dscp") == "BK"
    assert plan.estimated_seconds(overhead_s=0) == (10 + 20) * 4 * 2


def test_presets_are_valid_and_match_the_papers() -> None:
    presets = {p.name: p for p in list_presets()}
    assert {
        "80211n-study",
        "80211ac-study",
        "quick-check",
        "lab-tcp-vs-udp-duration",
        "lab-tcp-window",
    } <= set(presets)
    # A loss sweep says why it cannot run where loss cannot be emulated (off Linux, no root).
    cannot_emulate = unavailable_reason()
    for preset in presets.values():
        plan = preset.for_peer(Peer("lab-peer.local"))
        expected = (
            []
            if plan.variable is not Variable.LOSS or cannot_emulate is None
            else [("variable", cannot_emulate)]
        )
        assert plan_problems(plan) == expected, preset.name
    n = presets["80211n-study"].plan
    assert n.values == (128, 384, 640, 896, 1152, 1408)
    assert (n.repetitions, n.duration_s) == (40, 60)
    assert set(n.protocols) == {Protocol.TCP, Protocol.UDP}
    assert set(n.ip_versions) == {IpVersion.V4, IpVersion.V6}
    ac = presets["80211ac-study"].plan
    assert ac.repetitions == 20 and set(ac.metrics) == {Metric.THROUGHPUT, Metric.RTT, Metric.CPU}
    quick = presets["quick-check"].plan
    assert (len(quick.values), quick.repetitions, quick.duration_s) == (3, 3, 3)
    window = presets["lab-tcp-window"].plan
    assert window.values[0] == 2048 and window.values[-1] == 512 * 1024
    assert presets["lab-tcp-vs-udp-duration"].plan.values[0] == 10
    assert presets["lab-tcp-vs-udp-duration"].plan.values[-1] == 120
    with pytest.raises(BadOption, match="no preset"):
        find_preset("nope")


def test_save_and_load_a_user_preset(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = save_preset(BASE, "my-lab", "My lab", "two sizes", tmp_path)
    loaded = load_preset_file(path)
    assert loaded.title == "My lab"
    assert loaded.for_peer(Peer("127.0.0.1")).values == BASE.values
    with pytest.raises(BadOption):
        save_preset(BASE, "../evil", "x", "", tmp_path)
