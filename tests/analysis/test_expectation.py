"""A session's expected goodput: point summaries gain expected_bps and efficiency_pct from the
link rate a session states, the frame breakdown's bytes and arithmetic, the plan checks that
keep a link rate answerable, and the findings that set measurements beside the model."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

import pytest

from app.analysis.compare import compare, series_data
from app.analysis.expectation import (
    NoExpectation,
    breakdown,
    expectation_problem,
    expected_at,
    expected_curve,
)
from app.analysis.expected_findings import efficiency_findings
from app.analysis.overhead import LinkInputs, expected, security_cost
from app.analysis.points import point_summaries
from app.domain.errors import BadOption
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Conditions, Medium, Peer, Plan, RunKey, Security, Series, Variable
from app.domain.plan_codec import plan_from_dict, plan_from_json
from app.domain.records import RunMetrics, RunRecord, SessionRecord, SessionStatus, utc_now
from app.report.csv_export import POINT_COLUMNS, points_csv
from app.store.sessions import SessionStore
from app.study.sweep.plan_checks import plan_problems

TCP4 = Series(Protocol.TCP, IpVersion.V4)
TCP6 = Series(Protocol.TCP, IpVersion.V6)
UDP4 = Series(Protocol.UDP, IpVersion.V4)
ETHERNET_100M = Conditions(medium=Medium.ETHERNET, link_rate_bps=100_000_000)


def plan_with(conditions: Conditions = ETHERNET_100M, **fields: object) -> Plan:
    base = Plan(
        peer=Peer("lab-peer"),
        protocols=(Protocol.TCP, Protocol.UDP),
        values=(128, 1408),
        repetitions=3,
        conditions=conditions,
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def run(plan: Plan, series: Series, index: int, rep: int, mbit: float) -> RunRecord:
    return RunRecord(
        id=rep,
        session_id="s1",
        key=RunKey(series.protocol, series.ip_version, index, rep),
        value=float(plan.values[index]),
        ok=True,
        error_kind="",
        error="",
        attempts=1,
        started_at=utc_now(),
        ended_at=utc_now(),
        elapsed_s=10.0,
        engine="iperf3",
        engine_version="3.17",
        argv=(),
        metrics=RunMetrics(throughput_bps=mbit * 1e6),
    )


def test_points_carry_the_expected_goodput_and_the_share_reached() -> None:
    plan = plan_with()
    runs = [run(plan, TCP4, 1, r, mbit) for r, mbit in enumerate((91.0, 92.0, 93.0), 1)]
    runs += [run(plan, UDP4, 1, 1, 95.0)]
    points = {(p.protocol, p.value): p for p in point_summaries(plan, runs)}
    tcp = points[(Protocol.TCP, 1408)]
    # The worked value of docs/OVERHEAD.md: 1448 of 1538 bytes of 100 Mbit/s.
    assert tcp.expected_bps == pytest.approx(100e6 * 1448 / 1538)
    assert tcp.efficiency_pct == pytest.approx(100 * 92e6 / (100e6 * 1448 / 1538))
    # TCP's segments coalesce: the write length changes nothing; UDP's datagram length does.
    assert points[(Protocol.TCP, 128)].expected_bps == tcp.expected_bps
    udp_small, udp = points[(Protocol.UDP, 128)], points[(Protocol.UDP, 1408)]
    assert udp_small.expected_bps == pytest.approx(100e6 * 128 / (128 + 8 + 20 + 38))
    assert udp.expected_bps == pytest.approx(100e6 * 1408 / (1408 + 8 + 20 + 38))
    assert udp.efficiency_pct == pytest.approx(100 * 95e6 / udp.expected_bps)
    # Nothing measured: an expected goodput, no share of it.
    assert udp_small.efficiency_pct is None
    data = tcp.as_dict()
    assert data["expected_bps"] == tcp.expected_bps
    assert data["efficiency_pct"] == tcp.efficiency_pct
    json.dumps(data)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"conditions": Conditions(medium=Medium.ETHERNET)}, "no link rate"),
        ({"direction": Direction.BIDIR}, "Both directions"),
        ({"concurrent": True}, "same time"),
    ],
)
def test_no_expected_goodput_without_what_it_needs(change: dict[str, object], why: str) -> None:
    plan = plan_with(**change)
    assert why in (expectation_problem(plan) or "")
    points = point_summaries(plan, [run(plan, TCP4, 1, 1, 90.0)])
    assert all(p.expected_bps is None and p.efficiency_pct is None for p in points)
    assert all(p.as_dict()["expected_bps"] is None for p in points)


def test_a_fixed_size_or_none_when_another_variable_is_swept() -> None:
    durations = plan_with(variable=Variable.DURATION, values=(10, 20))
    # TCP needs no length; UDP's datagram length was the engine's choice: unknown.
    assert expected_curve(durations, TCP4, durations.values) == [
        (10.0, pytest.approx(100e6 * 1448 / 1538)),
        (20.0, pytest.approx(100e6 * 1448 / 1538)),
    ]
    assert expected_at(durations, UDP4, 10) is None
    fixed = replace(durations, length=1472)
    assert expected_at(fixed, UDP4, 10).expected_bps == pytest.approx(95.71e6, rel=1e-3)  # type: ignore[union-attr]


def test_security_counts_on_wifi_only_and_a_shaper_counts_its_own_bytes() -> None:
    wifi = Conditions(security=Security.WPA2, medium=Medium.N, link_rate_bps=300_000_000)
    found = expected_at(plan_with(wifi), TCP4, 1408)
    assert found is not None and found.expected_bps == pytest.approx(220.0e6, rel=1e-3)
    # WPA2 stated for an Ethernet link adds nothing: security is Wi-Fi's.
    stated = replace(ETHERNET_100M, security=Security.WPA2)
    assert expected_at(plan_with(stated), TCP4, 1408).expected_bps == pytest.approx(  # type: ignore[union-attr]
        100e6 * 1448 / 1538
    )
    shaped = Conditions(link_rate_bps=40_000_000, frame_overhead=14)
    assert expected_at(plan_with(shaped), TCP4, 1408).expected_bps == pytest.approx(  # type: ignore[union-attr]
        40e6 * 1448 / 1514
    )


def test_the_frame_breakdown_in_bytes_and_words() -> None:
    plan = plan_with(values=(1408,))
    shown = breakdown(plan, TCP4, 1408)
    names = [layer.name for layer in shown.layers]
    # In the order the bytes pass: preamble, headers outside in, data, then FCS and gap.
    assert names == [
        "preamble + SFD",
        "Ethernet header",
        "IPv4 header",
        "TCP header",
        "TCP timestamps option",
        "payload",
        "Ethernet FCS",
        "inter-frame gap",
    ]
    assert shown.total_bytes == 1538 and shown.payload_bytes == 1448
    assert shown.arithmetic == (
        "1448 B of payload in 1538 B on the wire: 94.15 % → 100 Mbit/s × 0.9415 = 94.15 Mbit/s."
    )
    assert any("1448 bytes of data per segment" in note for note in shown.notes)
    # Without a link rate: the same bytes, and what the rate would add.
    bare = breakdown(replace(plan, conditions=Conditions(medium=Medium.ETHERNET)), TCP4, 1408)
    assert bare.total_bytes == 1538 and bare.expected is None
    assert bare.arithmetic == "1448 B of payload in 1538 B on the wire: 94.15 % of the link rate."
    assert any("no link rate" in note for note in bare.notes)


def test_the_frame_breakdown_on_wifi() -> None:
    wifi = Conditions(security=Security.WPA2, medium=Medium.N, link_rate_bps=300_000_000)
    shown = breakdown(plan_with(wifi), TCP4, 1408)
    names = [layer.name for layer in shown.layers]
    assert names.index("AIFS + backoff") < names.index("802.11 MAC header") < names.index("payload")
    assert "CCMP header + MIC" in names and names[-1] == "TCP ACKs (air time)"
    assert shown.arithmetic.endswith("→ 300 Mbit/s × 0.7334 = 220.0 Mbit/s.")
    # Without the rate the air time cannot be counted: the frame's own bytes remain.
    bare = breakdown(plan_with(replace(wifi, link_rate_bps=None)), TCP4, 1408)
    assert [layer.name for layer in bare.layers] == [
        "802.11 MAC header",
        "CCMP header + MIC",
        "LLC/SNAP",
        "IPv4 header",
        "TCP header",
        "TCP timestamps option",
        "payload",
        "802.11 FCS",
    ]
    assert bare.total_bytes == 26 + 16 + 8 + 1500 + 4
    with pytest.raises(NoExpectation, match="security"):
        breakdown(plan_with(replace(wifi, security=Security.UNKNOWN)), TCP4, 1408)


def test_a_fragmented_datagram_is_said_in_frames() -> None:
    plan = plan_with(values=(4000,))
    shown = breakdown(plan, UDP4, 4000)
    assert shown.frames == 3 and shown.total_bytes == 4182
    assert "in 4182 B on the wire in 3 frames" in shown.arithmetic


def test_plans_keep_the_link_rate_and_read_without_it() -> None:
    plan = plan_with(replace(ETHERNET_100M, frame_overhead=14))
    assert plan_from_json(plan.to_json()) == plan
    stated = json.loads(plan.to_json())["conditions"]
    assert (stated["link_rate_bps"], stated["frame_overhead"]) == (100_000_000, 14)
    # Without a link rate, the JSON is as before: earlier LinkLabs still read it.
    plain = json.loads(plan_with(Conditions()).to_json())["conditions"]
    assert "link_rate_bps" not in plain and "frame_overhead" not in plain
    old = {"peer": {"host": "lab-peer"}, "conditions": {"security": "WPA2", "tags": {}}}
    assert plan_from_dict(old).conditions.link_rate_bps is None
    with pytest.raises(BadOption, match="link_rate_bps must be a whole number"):
        plan_from_dict({"peer": {"host": "p"}, "conditions": {"link_rate_bps": 1.5}})


@pytest.mark.parametrize(
    ("conditions", "field", "words"),
    [
        (Conditions(medium=Medium.ETHERNET, link_rate_bps=0), "link_rate", "above 0"),
        (Conditions(medium=Medium.ETHERNET, link_rate_bps=10**14), "link_rate", "at most 10T"),
        (Conditions(link_rate_bps=100_000_000), "medium", "needs the medium"),
        (Conditions(medium=Medium.OTHER, link_rate_bps=10**8), "medium", "needs the medium"),
        (Conditions(medium=Medium.AC, link_rate_bps=866_700_000), "security", "the security"),
        (Conditions(frame_overhead=20_000), "frame_overhead", "between 0 and 10000"),
    ],
)
def test_plan_checks_say_what_the_link_rate_needs(
    conditions: Conditions, field: str, words: str
) -> None:
    problems = plan_problems(plan_with(conditions))
    assert [f for f, _ in problems] == [field]
    assert words in problems[0][1]


def test_plan_checks_accept_what_the_model_answers() -> None:
    for conditions in (
        ETHERNET_100M,
        Conditions(medium=Medium.AX, security=Security.WPA3, link_rate_bps=1_200_000_000),
        Conditions(link_rate_bps=40_000_000, frame_overhead=14),  # medium unknown: tc counts
        Conditions(),
    ):
        assert plan_problems(plan_with(conditions)) == []


def test_efficiency_findings_say_where_the_rest_went() -> None:
    plan = plan_with(protocols=(Protocol.TCP,), ip_versions=(IpVersion.V4, IpVersion.V6))
    runs = [run(plan, TCP4, 1, 1, 91.4), run(plan, TCP4, 0, 1, 50.0)]
    runs += [run(plan, TCP6, 1, 1, 120.0)]
    said = efficiency_findings(plan, point_summaries(plan, runs))
    assert said[0] == (
        "TCP · IPv4 reached 97.1 % of what the headers allow at 1408 B on the 100 Mbit/s link "
        "rate stated (expected 94.1 Mbit/s, measured 91.4 Mbit/s); the rest is on the hosts, "
        "not the wire: pacing, CPU, the TCP window or loss."
    )
    assert said[1].startswith("TCP · IPv6 measured more than the headers allow at 1408 B")
    # Never "the link is faster than stated" alone: a shaper's frame overhead first.
    assert "faster than" not in said[1]
    assert "Linux tc counts 14" in said[1] and "--frame-overhead 14" in said[1]
    assert "the 100 Mbit/s link rate stated is below" in said[1]
    wifi = replace(
        plan,
        ip_versions=(IpVersion.V4,),
        conditions=Conditions(security=Security.OPEN, medium=Medium.N, link_rate_bps=144_400_000),
    )
    (sentence,) = efficiency_findings(wifi, point_summaries(wifi, runs[:1]))
    assert "of what the headers and air time allow" in sentence
    assert "other stations, collisions and retries" in sentence
    assert efficiency_findings(plan_with(Conditions()), point_summaries(plan, runs)) == []


def test_far_below_the_link_rate_the_rate_is_said_not_to_be_the_bottleneck() -> None:
    """10 Gbit/s stated across a 31 Mbit/s path: the share keeps its decimal (0.3 %, not
    0 %), and the sentence doubts the rate, not the hosts."""
    plan = plan_with(
        Conditions(medium=Medium.ETHERNET, link_rate_bps=10_000_000_000),
        protocols=(Protocol.TCP,),
        ip_versions=(IpVersion.V4,),
    )
    points = point_summaries(plan, [run(plan, TCP4, 1, 1, 29.7)])
    (sentence,) = efficiency_findings(plan, points)
    (point,) = [p for p in points if p.n]
    assert point.efficiency_pct == pytest.approx(0.3155, abs=1e-3)
    assert sentence == (
        "TCP · IPv4 reached only 0.3 % of what the headers allow at 1408 B on the 10 Gbit/s "
        "link rate stated (expected 9.41 Gbit/s, measured 29.7 Mbit/s): so far below it, the "
        "10 Gbit/s link rate stated is probably not the path's bottleneck: a slower hop or a "
        "shaper on the way set the pace. State the slowest hop's rate (the Link rate field, or "
        "--link-rate) to set the results beside it."
    )
    assert "hosts" not in sentence
    # Detected, not stated: the sentence names what said it.
    detected = replace(
        plan,
        conditions=replace(plan.conditions, link_rate_detected_by="wlan0's Wi-Fi PHY rate"),
    )
    (sentence,) = efficiency_findings(
        detected, point_summaries(detected, [run(plan, TCP4, 1, 1, 29.7)])
    )
    assert "on the 10 Gbit/s link rate detected (wlan0's Wi-Fi PHY rate)" in sentence
    assert "stated" not in sentence


def test_udp_sent_at_a_target_below_the_link_names_the_target() -> None:
    plan = plan_with(protocols=(Protocol.UDP,), ip_versions=(IpVersion.V4,), bitrate_bps=10_000_000)
    udp4 = Series(Protocol.UDP, IpVersion.V4)
    (sentence,) = efficiency_findings(plan, point_summaries(plan, [run(plan, udp4, 1, 1, 9.9)]))
    assert "it was sent at 10.0 Mbit/s (the UDP bitrate field, or --bitrate)" in sentence
    assert "the sender's target, not the link, set the pace" in sentence


# -- comparisons: what the security's bytes explain -------------------------------------------


WIFI_N = Conditions(medium=Medium.N, link_rate_bps=144_400_000)


def wifi_session(
    store: SessionStore, conditions: Conditions, runs: dict[int, list[float]]
) -> SessionRecord:
    plan = plan_with(
        conditions,
        protocols=(Protocol.TCP,),
        values=tuple(sorted(runs)),
        repetitions=max(len(v) for v in runs.values()),
        name=conditions.security.value,
    )
    sid = store.create_session(plan)
    for index, value in enumerate(plan.values):
        for rep, mbit in enumerate(runs[value], start=1):
            store.add_run(
                sid,
                RunKey(Protocol.TCP, IpVersion.V4, index, rep),
                value,
                metrics=RunMetrics(throughput_bps=mbit * 1e6),
                started_at=utc_now(),
                elapsed_s=10.0,
                engine="iperf3",
            )
    store.finish(sid, SessionStatus.COMPLETED)
    return store.get(sid)


def compared(store: SessionStore, *sessions: SessionRecord) -> list[str]:
    items = []
    for session in sessions:
        items += series_data(session, store.runs(session.id), "throughput_bps")
    return compare(items, "throughput_bps").findings


def test_a_comparison_says_what_the_extra_bytes_explain(store: SessionStore) -> None:
    cost = security_cost(
        LinkInputs(144_400_000, Medium.N, IpVersion.V4, Protocol.TCP, 1408),
        Security.OPEN,
        Security.WPA2,
    )
    model = cost.difference_bps / 1e6  # about 1.5 Mbit/s: docs/OVERHEAD.md
    assert model == pytest.approx(1.5, abs=0.1)
    open_ = wifi_session(
        store, replace(WIFI_N, security=Security.OPEN), {1408: [100.0, 100.2, 99.8, 100.1]}
    )
    drop = 3 * model  # the bytes explain a third of it
    wpa2 = wifi_session(
        store,
        replace(WIFI_N, security=Security.WPA2),
        {1408: [100.0 - drop, 100.2 - drop, 99.8 - drop, 100.1 - drop]},
    )
    said = compared(store, open_, wpa2)[-1]
    assert said.startswith(
        "At 1408 B, the extra bytes per frame (WPA2: CCMP-128 16 B; open: none) cost "
    )
    assert "they explain 33 % of the" in said
    assert "(67 %) is not in the headers: air time, retries, encryption work" in said
    assert "better" not in said


def test_no_split_of_a_difference_that_is_not_significant(store: SessionStore) -> None:
    open_ = wifi_session(store, replace(WIFI_N, security=Security.OPEN), {1408: [100.0, 103.0]})
    wpa2 = wifi_session(store, replace(WIFI_N, security=Security.WPA2), {1408: [101.0, 99.0]})
    said = compared(store, open_, wpa2)[-1]
    assert "TCP · IPv4 · WPA2 against TCP · IPv4 · Open measured −1.50 Mbit/s, within the " in said
    assert said.endswith("noise, so it cannot be told how much of it the bytes explain.")
    single = wifi_session(store, replace(WIFI_N, security=Security.WPA2), {1408: [99.0]})
    said = compared(store, open_, single)[-1]
    assert said.endswith(
        "a single run there: measure more runs to tell how much of it the bytes explain."
    )


def test_no_security_sentence_without_a_link_rate_or_wifi(store: SessionStore) -> None:
    runs = {1408: [100.0, 100.2, 99.8]}
    open_ = wifi_session(store, Conditions(security=Security.OPEN, medium=Medium.N), runs)
    wpa2 = wifi_session(store, Conditions(security=Security.WPA2, medium=Medium.N), runs)
    assert not any("extra bytes" in s for s in compared(store, open_, wpa2))


def test_the_points_csv_ends_with_the_expected_columns() -> None:
    plan = plan_with(protocols=(Protocol.TCP,), values=(1408,))
    session = SessionRecord(
        id="s1",
        name="lab",
        peer_host="lab-peer",
        plan=plan,
        environment={},
        status=SessionStatus.COMPLETED,
        status_reason="",
        created_at=utc_now(),
        started_at=None,
        ended_at=None,
        app_version="",
        total_runs=1,
        runs_done=1,
        runs_failed=0,
    )
    assert POINT_COLUMNS[-2:] == ("expected_bps", "efficiency_pct")
    text = points_csv(session, [run(plan, TCP4, 0, 1, 91.4)]).lstrip("\ufeff")
    (row,) = list(csv.DictReader(io.StringIO(text)))
    assert float(row["expected_bps"]) == pytest.approx(100e6 * 1448 / 1538)
    assert float(row["efficiency_pct"]) == pytest.approx(100 * 91.4e6 / (100e6 * 1448 / 1538))


def test_the_model_here_is_the_model_of_linklab_expected() -> None:
    spec = LinkInputs(100e6, Medium.ETHERNET, IpVersion.V4, Protocol.UDP, 1472)
    found = expected_at(plan_with(values=(1472,)), UDP4, 1472)
    assert found is not None and found.expected_bps == expected(spec).expected_bps


def test_an_exercise_can_lock_the_link_rate() -> None:
    from app.domain.exercise import Step, locked_differences

    step = Step("Gigabit", "Measure the lab's link.", plan_with(), locked=("link-rate",))
    assert locked_differences(step, plan_with()) == []
    faster = plan_with(replace(ETHERNET_100M, link_rate_bps=1_000_000_000))
    assert locked_differences(step, faster) == ["link-rate"]
