"""Context checks: each sentence says what its numbers are (property tests over random
sessions check every figure and every point named), and the comparison raises the checks of
the compared sessions to its warnings."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.analysis.compare import Mode, compare, series_data, within_session
from app.analysis.context_checks import (
    MIN_LOADED_S,
    MIN_RUNS,
    UDP_LOSS_PCT,
    Check,
    context_checks,
)
from app.analysis.cpu_check import CPU_CORE_PCT, run_cpu_cores
from app.analysis.expectation import expected_at
from app.analysis.expected_findings import efficiency_findings
from app.analysis.points import efficiency_text, point_summaries
from app.domain.net import IpVersion, Protocol
from app.domain.plan import (
    Conditions,
    Medium,
    Metric,
    Peer,
    Plan,
    RunKey,
    Security,
    Series,
    Variable,
)
from app.domain.records import RunMetrics, RunRecord, SessionRecord, SessionStatus, utc_now
from app.domain.units import percent_text

TCP4 = Series(Protocol.TCP, IpVersion.V4)
UDP4 = Series(Protocol.UDP, IpVersion.V4)
VALUES = (128, 384, 640, 896, 1152, 1408)
LAB_PEER = Peer("198.18.0.2", name="lab peer")
WIRED = {
    "os_name": "Debian GNU/Linux 12 (bookworm)",
    "interface": "eth0",
    "interface_speed_mbps": 1000,
    "wifi": None,
    "cpu_count": 4,
}
MAC = {**WIRED, "os_name": "macOS", "interface": "en0"}  # LinkLab asks no Wi-Fi facts there
WIRELESS = {"interface": "wlan0", "wifi": {"ssid": "lab", "phy_rate_mbps": 300}}
#: Snapshots that say the medium (format 2): Windows' adapter type, read without location
#: consent; and Windows refusing to read the Wi-Fi, which says nothing of the medium.
ETHERNET_SAID = {
    "os_name": "Windows 11",
    "interface": "Ethernet",
    "interface_speed_mbps": None,
    "wifi": None,
    "wifi_reading": {"state": "not-wireless", "source": "GetAdaptersAddresses, IfType 6: Ethernet"},
    "interface_wireless": False,
}
REFUSED = {
    "os_name": "Windows 11",
    "interface": "Wi-Fi",
    "interface_speed_mbps": 866,  # what Windows reports for a Wi-Fi adapter: no line rate
    "wifi": None,
    "wifi_reading": {"state": "refused-location", "source": "netsh wlan show interfaces"},
    "interface_wireless": None,
}


NOTHING_STATED = Conditions()


def make_plan(conditions: Conditions = NOTHING_STATED, **fields: object) -> Plan:
    base = Plan(
        peer=LAB_PEER,
        protocols=(Protocol.TCP, Protocol.UDP),
        ip_versions=(IpVersion.V4,),
        values=VALUES,
        repetitions=3,
        conditions=conditions,
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def make_session(
    plan: Plan, environment: dict[str, object] | None = None, sid: str = "s1"
) -> SessionRecord:
    return SessionRecord(
        id=sid,
        name=f"session {sid}",
        peer_host=plan.peer.host,
        plan=plan,
        environment=dict(WIRED if environment is None else environment),
        status=SessionStatus.COMPLETED,
        status_reason="",
        created_at=utc_now(),
        started_at=utc_now(),
        ended_at=utc_now(),
        app_version="test",
        total_runs=0,
        runs_done=0,
        runs_failed=0,
    )


def make_run(
    plan: Plan, series: Series, index: int, rep: int, engine: str = "iperf3", **metrics: float
) -> RunRecord:
    return RunRecord(
        id=index * 100 + rep,
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
        engine=engine,
        engine_version="1",
        argv=(),
        metrics=RunMetrics(**{"throughput_bps": 40e6, **metrics}),
    )


def by_check(session: SessionRecord, runs: list[RunRecord], check: Check) -> list[str]:
    return [w.sentence for w in context_checks(session, runs) if w.check is check]


def value_words(sentence: str) -> list[int]:
    """The packet sizes a sentence names ("at 128 B, 384 B and 640 B")."""
    return [int(v) for v in re.findall(r"(\d+) B\b", sentence)]


# -- Wi-Fi stated where no Wi-Fi link carried the traffic --------------------------------------


@pytest.mark.parametrize(
    ("peer", "environment", "conditions", "said"),
    [
        (Peer.this_computer(), {}, Conditions(security=Security.WPA2), "never left this computer"),
        (Peer.this_computer(), {}, Conditions(security=Security.OPEN), "never left this computer"),
        (Peer("127.0.0.1"), {}, Conditions(medium=Medium.AC), "never left this computer"),
        (Peer("::1"), {}, Conditions(security=Security.WPA3), "never left this computer"),
        (LAB_PEER, WIRED, Conditions(security=Security.WPA2), "over eth0, a wired interface"),
        (LAB_PEER, WIRED, Conditions(medium=Medium.N), "over eth0, a wired interface"),
        (
            LAB_PEER,
            ETHERNET_SAID,
            Conditions(security=Security.WPA2),
            "over Ethernet, a wired interface (detected by GetAdaptersAddresses, IfType 6: ",
        ),
        # Windows refused: the medium is unknown, so nothing is claimed about it.
        (LAB_PEER, REFUSED, Conditions(security=Security.WPA2), None),
        (LAB_PEER, {**REFUSED, "interface_wireless": True}, Conditions(medium=Medium.AX), None),
        # Nothing to say: Wi-Fi really used, nothing about Wi-Fi stated, or no snapshot.
        (LAB_PEER, WIRELESS, Conditions(security=Security.WPA2), None),
        (LAB_PEER, MAC, Conditions(security=Security.WPA2), None),
        (LAB_PEER, WIRED, Conditions(medium=Medium.ETHERNET, security=Security.OPEN), None),
        (Peer.this_computer(), {}, Conditions(medium=Medium.ETHERNET), None),
        (Peer.this_computer(), {}, Conditions(), None),
        (LAB_PEER, {}, Conditions(security=Security.WPA2), None),
    ],
)
def test_wifi_stated_where_the_traffic_never_crossed_wifi(
    peer: Peer, environment: dict[str, object], conditions: Conditions, said: str | None
) -> None:
    plan = make_plan(conditions, peer=peer)
    found = by_check(make_session(plan, environment), [], Check.NOT_WIFI)
    if said is None:
        assert found == []
    else:
        (sentence,) = found
        assert said in sentence
        assert "never crossed a Wi-Fi link" in sentence
        if conditions.security is not Security.UNKNOWN:
            assert f"({conditions.security.value}" in sentence
        if conditions.medium in (Medium.N, Medium.AC, Medium.AX):
            assert f"{conditions.medium.value})" in sentence


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(list(Security)),
    st.sampled_from(list(Medium)),
    st.sampled_from([Peer.this_computer(), Peer("127.0.0.1"), LAB_PEER]),
    st.sampled_from([{}, WIRED, WIRELESS, MAC, ETHERNET_SAID, REFUSED]),
)
def test_the_wifi_warning_appears_exactly_where_wifi_is_stated_and_never_crossed(
    security: Security, medium: Medium, peer: Peer, environment: dict[str, object]
) -> None:
    plan = make_plan(Conditions(security=security, medium=medium), peer=peer)
    found = by_check(make_session(plan, environment), [], Check.NOT_WIFI)
    wifi_medium = medium in (Medium.N, Medium.AC, Medium.AX)
    stated = wifi_medium or security not in (Security.UNKNOWN, Security.OPEN)
    stated = stated or (security is Security.OPEN and medium is not Medium.ETHERNET)
    loopback = peer is not LAB_PEER
    wired = environment is WIRED or environment is ETHERNET_SAID
    assert bool(found) == (stated and (loopback or wired))
    for sentence in found:
        assert "never crossed a Wi-Fi link" in sentence
        assert ("never left this computer" in sentence) == loopback
        if security is not Security.UNKNOWN and (security, medium) != (
            Security.OPEN,
            Medium.ETHERNET,
        ):
            assert f"({security.value}" in sentence
        if wifi_medium:
            assert f"{medium.value})" in sentence


# -- UDP loss ------------------------------------------------------------------------------------

losses = st.lists(st.one_of(st.none(), st.floats(0, 100, allow_nan=False)), min_size=6, max_size=6)


@settings(max_examples=150, deadline=None)
@given(losses)
def test_the_udp_loss_sentence_names_exactly_the_lossy_points(loss: list[float | None]) -> None:
    plan = make_plan()
    runs = [
        make_run(plan, UDP4, i, rep, loss_pct=value)
        for i, value in enumerate(loss)
        if value is not None
        for rep in (1, 2, 3)
    ]
    runs += [make_run(plan, TCP4, i, rep) for i in range(6) for rep in (1, 2, 3)]
    found = by_check(make_session(plan), runs, Check.UDP_LOSS)
    lossy = {
        VALUES[i]: round(v, 1) for i, v in enumerate(loss) if v is not None and round(v, 1) > 5
    }
    if not lossy:
        assert found == []
        return
    (sentence,) = found
    assert sentence.startswith("UDP · IPv4 lost more than 5 % of its datagrams at ")
    assert value_words(sentence.split("(")[0]) == sorted(lossy)
    low, high = min(lossy.values()), max(lossy.values())
    span = f"{low:.1f} %" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}–{high:.1f} %"
    assert f"({span} lost, sent without a bitrate limit)" in sentence
    shown = [float(x) for x in re.findall(r"(\d+\.\d) ?[–%]", sentence)]
    assert all(x > UDP_LOSS_PCT for x in shown)
    assert "Set a UDP bitrate under the link's rate" in sentence


def test_the_udp_loss_sentence_names_the_link_rate_and_the_bitrate() -> None:
    plan = make_plan(
        Conditions(medium=Medium.ETHERNET, link_rate_bps=50_000_000), bitrate_bps=200_000_000
    )
    runs = [make_run(plan, UDP4, 5, rep, loss_pct=74.6) for rep in (1, 2, 3)]
    (sentence,) = by_check(make_session(plan), runs, Check.UDP_LOSS)
    assert "at 1408 B (74.6 % lost, at the 200 Mbit/s it was sent at)" in sentence
    assert "Set a UDP bitrate under the 50 Mbit/s link rate stated" in sentence


def test_in_a_sweep_of_emulated_loss_only_the_loss_beyond_it_is_warned_of() -> None:
    plan = make_plan(
        protocols=(Protocol.UDP,), variable=Variable.LOSS, values=(0, 10, 20), bitrate_bps=10**7
    )
    measured = (0.2, 14.9, 26.0)  # 20 % emulated, 26 % lost: 6 points beyond it
    runs = [
        make_run(plan, UDP4, i, rep, loss_pct=v)
        for i, v in enumerate(measured)
        for rep in (1, 2, 3)
    ]
    (sentence,) = by_check(make_session(plan), runs, Check.UDP_LOSS)
    assert "datagrams beyond the 20 % emulated (26.0 % lost, at the 10 Mbit/s" in sentence
    assert "10 %" not in sentence


# -- CPU -----------------------------------------------------------------------------------------


def test_cpu_figures_are_read_in_each_engines_unit() -> None:
    plan = make_plan()
    env = {"cpu_count": 4}
    # iperf3: its process's share of one core.
    iperf = make_run(plan, TCP4, 0, 1, cpu_local_pct=95.0, cpu_remote_pct=30.0)
    assert run_cpu_cores(iperf, env, peer_is_local=False) == pytest.approx((0.95, 0.30))
    # netperf: the whole system's share of all its CPUs; the peer's count unknown (1).
    netperf = make_run(plan, TCP4, 0, 1, "netperf", cpu_local_pct=25.0, cpu_remote_pct=25.0)
    assert run_cpu_cores(netperf, env, peer_is_local=False) == pytest.approx((1.0, 0.25))
    assert run_cpu_cores(netperf, env, peer_is_local=True) == pytest.approx((1.0, 1.0))
    # LinkLab's psutil sampling, where the engine gave no figure: all CPUs too.
    sampled = make_run(plan, TCP4, 0, 1, cpu_host_mean_pct=22.5)
    assert run_cpu_cores(sampled, env, peer_is_local=False) == pytest.approx((0.9, None))


cpu_figures = st.lists(
    st.tuples(
        st.one_of(st.none(), st.floats(0, 400, allow_nan=False)),
        st.one_of(st.none(), st.floats(0, 100, allow_nan=False)),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(cpu_figures, st.sampled_from(["iperf3", "netperf"]), st.integers(1, 16))
def test_the_cpu_sentence_counts_the_busy_runs(
    figures: list[tuple[float | None, float | None]], engine: str, cpus: int
) -> None:
    plan = make_plan(protocols=(Protocol.TCP,))
    runs = [
        make_run(plan, TCP4, i, 1, engine, cpu_local_pct=local, cpu_remote_pct=remote)  # type: ignore[arg-type]
        for i, (local, remote) in enumerate(figures)
    ]
    session = make_session(plan, {**WIRED, "cpu_count": cpus})
    found = by_check(session, runs, Check.CPU_BOUND)
    scale_local = cpus if engine == "netperf" else 1
    busy_local = [
        (i, local * scale_local)
        for i, (local, _) in enumerate(figures)
        if local is not None and local * scale_local >= CPU_CORE_PCT
    ]
    busy_remote = [
        (i, r) for i, (_, r) in enumerate(figures) if r is not None and r >= CPU_CORE_PCT
    ]
    busy = sorted({i for i, _ in busy_local} | {i for i, _ in busy_remote})
    if not busy:
        assert found == []
        return
    (sentence,) = found
    assert sentence.startswith(f"In {len(busy)} of {len(figures)} run")
    assert value_words(sentence.split("(at ")[1].split(")")[0]) == [VALUES[i] for i in busy]
    up_to = "up to " if len(busy_local) > 1 else ""
    if busy_local:
        top = f"{up_to}{max(v for _, v in busy_local):.0f} % of one core"
        if engine == "iperf3":  # its own process's figure: LinkLab's engine
            assert f"on this computer iperf3 itself (LinkLab's engine) used {top}" in sentence
        else:  # netperf's is the whole computer's, whose programs it does not say
            assert f"averaged {top}" in sentence and "cannot say" in sentence
    else:
        assert "this computer" not in sentence.split(". ")[0]
    up_to = "up to " if len(busy_remote) > 1 else ""
    if busy_remote:
        assert f"on the peer {up_to}{max(v for _, v in busy_remote):.0f} % of one core" in sentence
    else:
        assert "on the peer" not in sentence
    # No link rate: whether the link set the pace is not claimed either way.
    assert "it cannot be told whether the link or the computer set the pace" in sentence


def test_the_cpu_sentence_says_whose_load_it_was_its_peak_and_whether_the_link_was_full() -> None:
    """The monitor's case: LinkLab sampled the whole computer busy, other programs using
    most of it, while the rate filled the shaped link: the link set the pace."""
    plan = make_plan(
        Conditions(medium=Medium.ETHERNET, link_rate_bps=31_000_000, frame_overhead=14),
        protocols=(Protocol.TCP,),
    )
    two_cores = {**WIRED, "cpu_count": 2}
    busy = make_run(
        plan,
        TCP4,
        5,
        1,
        throughput_bps=29.5e6,
        cpu_host_mean_pct=95.5,
        cpu_host_peak_pct=100.0,
        cpu_linklab_mean_pct=3.0,
    )
    (sentence,) = by_check(make_session(plan, two_cores), [busy], Check.CPU_BOUND)
    assert sentence.startswith(
        "In 1 of 1 run of TCP · IPv4 (at 1408 B) the CPU was busy at or above 90 % of one "
        "core: this computer's CPU (2 cores: 200 % in all) averaged 191 % of one core (peak "
        "200 %): other programs used 185 % of it and LinkLab with its engines 6 %. It still "
        "reached "
    )
    assert "of the expected goodput on the 31 Mbit/s link rate stated: the link, not the " in (
        sentence
    )
    assert sentence.endswith("CPU, set the pace.")
    # The same load with the rate far below the link's: then the computer may have.
    slow = replace(busy, metrics=replace(busy.metrics, throughput_bps=10e6))
    (sentence,) = by_check(make_session(plan, two_cores), [slow], Check.CPU_BOUND)
    expected = expected_at(plan, TCP4, 1408)
    assert expected is not None
    shown = efficiency_text(100 * 10e6 / expected.expected_bps)
    assert 33 < float(shown) < 35  # 10 of the 29.7 Mbit/s 1408 B allow on 31 Mbit/s
    assert f"It reached {shown} % of the expected goodput on the 31 Mbit/s link rate stated: " in (
        sentence
    )
    assert "the computer, not the link, may have set the pace" in sentence
    assert "Close the other programs that kept it busy" in sentence
    # Stored before LinkLab kept its own part: said so, not guessed.
    old = replace(busy, metrics=replace(busy.metrics, cpu_linklab_mean_pct=None))
    (sentence,) = by_check(make_session(plan, two_cores), [old], Check.CPU_BOUND)
    assert "which programs used it, a run stored before LinkLab kept that cannot say" in sentence


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(80.0, 100.0), min_size=1, max_size=4))
def test_the_cpu_sentence_judges_the_link_on_the_share_the_table_shows(
    shares: list[float],
) -> None:
    """Whether the link set the pace is judged on the share as the results table shows it
    (one decimal): 89.96 % reads 90.0 % and reached the link; 89.94 % reads 89.9 %."""
    plan = make_plan(
        Conditions(medium=Medium.ETHERNET, link_rate_bps=31_000_000, frame_overhead=14),
        protocols=(Protocol.TCP,),
    )
    expected = expected_at(plan, TCP4, 1408)
    assert expected is not None
    runs = [
        make_run(
            plan,
            TCP4,
            5,
            rep,
            throughput_bps=share / 100 * expected.expected_bps,
            cpu_host_mean_pct=95.0,
            cpu_host_peak_pct=100.0,
            cpu_linklab_mean_pct=2.0,
        )
        for rep, share in enumerate(shares, 1)
    ]
    (sentence,) = by_check(make_session(plan, {**WIRED, "cpu_count": 2}), runs, Check.CPU_BOUND)
    shown = sorted({efficiency_text(s) for s in shares}, key=float)
    span = shown[0] if len(shown) == 1 else f"{shown[0]}–{shown[-1]}"
    assert f"reached {span} % of the expected goodput on the 31 Mbit/s link rate stated" in (
        sentence
    )
    if float(shown[0]) >= 90:
        assert "the link, not the CPU, set the pace" in sentence
    elif float(shown[-1]) >= 90:
        assert "where below 90 %, the computer, not the link, may have set the pace" in sentence
    else:
        assert "reached " + span + " %" in sentence
        assert "the computer, not the link, may have set the pace" in sentence
        assert "where below" not in sentence


# -- more than the model allows --------------------------------------------------------------------


def test_above_the_model_on_a_shaped_link_suggests_the_frame_overhead() -> None:
    plan = make_plan(
        Conditions(medium=Medium.ETHERNET, link_rate_bps=40_000_000), protocols=(Protocol.TCP,)
    )
    # 1448 B of TCP payload in 1514 B as tc counts them: 38.26 Mbit/s; the model with
    # Ethernet's 38 B allows 37.66 Mbit/s (38.3 Mbit/s measured: 102 % of it).
    runs = [make_run(plan, TCP4, 5, rep, throughput_bps=38.3e6) for rep in (1, 2, 3)]
    session = make_session(plan)
    (sentence,) = by_check(session, runs, Check.ABOVE_MODEL)
    (point,) = [p for p in point_summaries(plan, runs) if p.n]
    assert point.efficiency_pct is not None and point.efficiency_pct > 101
    assert f"(up to {point.efficiency_pct:.1f} % of the expected goodput)" in sentence
    assert "at 1408 B" in sentence and "40 Mbit/s link rate stated" in sentence
    assert "Linux tc counts 14" in sentence and "--frame-overhead 14" in sentence
    assert "the 40 Mbit/s link rate stated is below" in sentence
    assert "faster than" not in sentence
    # The session's own finding gives the same causes.
    (finding,) = efficiency_findings(plan, point_summaries(plan, runs))
    assert "Linux tc counts 14" in finding and "faster than" not in finding
    # With the shaper's 14 B stated, the model allows it: no warning.
    shaped = replace(plan, conditions=replace(plan.conditions, frame_overhead=14))
    assert by_check(make_session(shaped), runs, Check.ABOVE_MODEL) == []


@pytest.mark.parametrize("peer", [Peer.this_computer(), Peer("127.0.0.1"), Peer("localhost")])
def test_a_link_rate_on_this_computer_gives_no_share_and_says_why(peer: Peer) -> None:
    """The loopback never crosses the link stated: its expected goodput is a reference line,
    with no share of it (no "2000 %") and no warning that blames the link or a shaper."""
    plan = make_plan(
        Conditions(medium=Medium.ETHERNET, link_rate_bps=1_000_000_000),
        protocols=(Protocol.TCP,),
        peer=peer,
    )
    runs = [make_run(plan, TCP4, 5, rep, throughput_bps=20e9) for rep in (1, 2, 3)]
    points = point_summaries(plan, runs)
    assert all(p.expected_bps for p in points if p.n)
    assert all(p.efficiency_pct is None for p in points)
    assert by_check(make_session(plan, {}), runs, Check.ABOVE_MODEL) == []
    (sentence,) = efficiency_findings(plan, points)
    assert sentence.startswith("A 1 Gbit/s link rate is stated, but the traffic never crossed")
    assert "never crossed that link (it stayed on this computer's loopback)" in sentence
    assert "%" not in sentence and "tc" not in sentence and "faster than" not in sentence


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(1e6, 60e6)), min_size=6, max_size=6))
def test_the_above_model_sentence_names_exactly_the_points_above_it(
    goodputs: list[float | None],
) -> None:
    plan = make_plan(
        Conditions(medium=Medium.ETHERNET, link_rate_bps=40_000_000), protocols=(Protocol.TCP,)
    )
    runs = [
        make_run(plan, TCP4, i, rep, throughput_bps=bps)
        for i, bps in enumerate(goodputs)
        if bps is not None
        for rep in (1, 2, 3)
    ]
    found = by_check(make_session(plan), runs, Check.ABOVE_MODEL)
    # Judged on the share as the sentence shows it (percent_text), never "up to 101.0 %" for
    # a share that rounds to 101.
    over = [
        p
        for p in point_summaries(plan, runs)
        if p.efficiency_pct is not None and float(percent_text(p.efficiency_pct, 1)) > 101
    ]
    if not over:
        assert found == []
        return
    (sentence,) = found
    assert value_words(sentence.split("(up to")[0]) == [int(p.value) for p in over]
    top = max(p.efficiency_pct or 0.0 for p in over)
    assert f"(up to {percent_text(top, 1)} % of the expected goodput" in sentence
    assert "faster than" not in sentence


def _table_share(pct: float) -> str:
    """A share as the results table's "Of expected %" shows it (all of these are above 1 %)."""
    return f"{pct:.1f}"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(st.none(), st.sampled_from([38.3e6, 38.31e6, 39e6]), st.floats(1e6, 60e6)),
        min_size=6,
        max_size=6,
    )
)
def test_the_finding_and_the_warning_name_the_same_worst_point(
    goodputs: list[float | None],
) -> None:
    """Above the model, the finding and the warning both name the point with the largest share
    and that share as the table shows it; the warning's "up to" is that largest share."""
    plan = make_plan(
        Conditions(medium=Medium.ETHERNET, link_rate_bps=40_000_000), protocols=(Protocol.TCP,)
    )
    runs = [
        make_run(plan, TCP4, i, rep, throughput_bps=bps)
        for i, bps in enumerate(goodputs)
        if bps is not None
        for rep in (1, 2, 3)
    ]
    points = [p for p in point_summaries(plan, runs) if p.efficiency_pct is not None]
    if not points:
        return
    table = {int(p.value): _table_share(p.efficiency_pct or 0.0) for p in points}
    top = max(table.values(), key=float)
    (finding,) = efficiency_findings(plan, point_summaries(plan, runs))
    warnings = by_check(make_session(plan), runs, Check.ABOVE_MODEL)
    if float(top) <= 101:
        assert warnings == []
        named = value_words(finding.split(" on the ")[0])
        assert named == [max(table)], finding
        assert f" {table[max(table)]} % of what the headers allow" in finding, finding
        return
    worst = [value for value, shown in table.items() if shown == top]
    assert finding.startswith("TCP · IPv4 measured more than the headers allow at "), finding
    (named,) = value_words(finding.split(" on the ")[0])
    assert named in worst, (table, finding)
    assert finding.split(": ")[0].endswith(f", {top} %)"), (table, finding)
    (warning,) = warnings
    up_to = re.search(r"\(up to (\d+\.\d) % of the expected goodput(?:, at (\d+) B)?\)", warning)
    assert up_to is not None, warning
    assert up_to[1] == top, (table, warning)
    over = [value for value, shown in table.items() if float(shown) > 101]
    if len(over) > 1:
        assert up_to[2] is not None and int(up_to[2]) == named, (table, warning, finding)


def test_above_the_model_with_a_frame_overhead_stated_points_at_it_and_the_rate() -> None:
    plan = make_plan(
        Conditions(link_rate_bps=40_000_000, frame_overhead=38), protocols=(Protocol.TCP,)
    )
    runs = [make_run(plan, TCP4, 5, rep, throughput_bps=39e6) for rep in (1, 2, 3)]
    (sentence,) = by_check(make_session(plan), runs, Check.ABOVE_MODEL)
    assert "fewer than the 38 B per frame stated" in sentence
    assert "the 40 Mbit/s link rate stated is below" in sentence


# -- short of the runs planned, fewer than 3 runs ------------------------------------------------

SHORT = re.compile(
    r"fewer successful runs than the (\d+) runs? per point the plan asked for at (.+?): the "
    r"others failed or were not measured\. Resume the session \(Resume on the Sessions tab, "
    r"or linklab resume\) to measure them again\."
)
FEW = re.compile(r"fewer than 3 successful runs at (.+?): with so few")


def named(where: str) -> list[tuple[int, int, int]]:
    return [
        (int(v), int(n), int(of)) for v, n, of in re.findall(r"(\d+) B \((\d+) of (\d+)\)", where)
    ]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=6, max_size=6),
    st.integers(1, 5),
    st.lists(st.integers(0, 3), min_size=6, max_size=6),
    st.sampled_from(SessionStatus),
)
def test_few_runs_names_each_point_short_and_the_way_to_more(
    counts: list[int], repetitions: int, failures: list[int], status: SessionStatus
) -> None:
    """Every point short of the runs the plan asked for (none at all included) named with its
    successful runs of those, and Resume to measure them (not while the session runs);
    then those with fewer than 3, and the runs field where the plan asked for fewer."""
    plan = make_plan(protocols=(Protocol.TCP,), repetitions=repetitions)
    runs = [make_run(plan, TCP4, i, rep) for i, n in enumerate(counts) for rep in range(1, n + 1)]
    runs += [
        replace(make_run(plan, TCP4, i, 10 + rep), ok=False, error="The link went down.")
        for i, n in enumerate(failures)
        for rep in range(n)
    ]
    session = replace(make_session(plan), status=status)
    found = by_check(session, runs, Check.FEW_RUNS)
    running = status is SessionStatus.RUNNING
    short = [] if running else [(VALUES[i], n) for i, n in enumerate(counts) if n < repetitions]
    few = [(VALUES[i], n) for i, n in enumerate(counts) if 0 < n < MIN_RUNS]
    if not short and not few:
        assert found == []
        return
    (sentence,) = found
    said_short = SHORT.search(sentence)
    assert bool(said_short) == bool(short), sentence
    if said_short:
        assert int(said_short.group(1)) == repetitions
        assert named(said_short.group(2)) == [(v, n, repetitions) for v, n in short]
    said_few = FEW.search(sentence)
    assert bool(said_few) == bool(few), sentence
    if said_few:
        assert named(said_few.group(1)) == [(v, n, repetitions) for v, n in few]
    advises_field = f"Measure {MIN_RUNS} or more runs per point (the Runs per point field" in (
        sentence
    )
    assert advises_field == (bool(few) and repetitions < MIN_RUNS)
    # Runs failed or missing, whatever the plan's count: Resume is named.
    assert ("Resume on the Sessions tab, or linklab resume" in sentence) == bool(short)


def test_a_point_with_no_run_left_is_named_short() -> None:
    """640 B with all 3 runs failed, 1408 B with 2 of 3: both named, 0 of 3 too."""
    plan = make_plan(protocols=(Protocol.TCP,), values=(128, 640, 1408), repetitions=3)
    runs = [make_run(plan, TCP4, 0, rep) for rep in (1, 2, 3)]
    runs += [replace(make_run(plan, TCP4, 1, rep), ok=False, error="down") for rep in (1, 2, 3)]
    runs += [make_run(plan, TCP4, 2, rep) for rep in (1, 2)]
    (sentence,) = by_check(make_session(plan), runs, Check.FEW_RUNS)
    assert sentence.startswith(
        "TCP · IPv4 has fewer successful runs than the 3 runs per point the plan asked for at "
        "640 B (0 of 3), 1408 B (2 of 3): "
    ), sentence
    assert "It has fewer than 3 successful runs at 1408 B (2 of 3): " in sentence


def test_a_two_run_plan_with_a_failure_points_at_resume_and_the_field() -> None:
    plan = make_plan(protocols=(Protocol.TCP,), values=(128,), repetitions=2)
    runs = [make_run(plan, TCP4, 0, 1), replace(make_run(plan, TCP4, 0, 2), ok=False)]
    (sentence,) = by_check(make_session(plan), runs, Check.FEW_RUNS)
    assert "Resume on the Sessions tab, or linklab resume" in sentence
    assert "the 2 runs per point the plan asked for at 128 B (1 of 2)" in sentence
    assert sentence.endswith(
        "Measure 3 or more runs per point (the Runs per point field, or --runs)."
    )


# -- raised to the comparison ----------------------------------------------------------------------


def test_a_comparison_raises_either_sessions_checks_named_by_session() -> None:
    wpa2 = make_plan(Conditions(security=Security.WPA2), peer=Peer.this_computer())
    open_ = make_plan(Conditions(security=Security.OPEN), peer=Peer.this_computer())
    a, b = make_session(wpa2, {}, "a"), make_session(open_, {}, "b")
    runs_a = [make_run(wpa2, s, i, r) for s in (TCP4, UDP4) for i in range(6) for r in (1, 2, 3)]
    runs_b = [make_run(open_, s, i, r) for s in (TCP4, UDP4) for i in range(6) for r in (1, 2, 3)]
    runs_b = [
        replace(r, metrics=replace(r.metrics, loss_pct=60.0))
        if r.key.protocol is Protocol.UDP
        else r
        for r in runs_b
    ]
    items = series_data(a, runs_a, "throughput_bps") + series_data(b, runs_b, "throughput_bps")
    context = context_checks(a, runs_a) + context_checks(b, runs_b)
    comparison = compare(items, mode=Mode.SESSIONS, baseline_session="a", context=context)
    wifi = [w for w in comparison.warnings if "never crossed a Wi-Fi link" in w]
    assert [w.split(":")[0] for w in wifi] == ["“session a”", "“session b”"]
    (loss,) = [w for w in comparison.warnings if "lost more than" in w]
    assert loss.startswith("“session b”: UDP · IPv4 lost more than 5 %")
    # Picked series: a check about a series left out of the comparison is not raised.
    tcp_only = [i for i in items if i.series == TCP4]
    picked = compare(tcp_only, mode=Mode.PICKED, context=context)
    assert not any("lost more than" in w for w in picked.warnings)
    assert sum("never crossed a Wi-Fi link" in w for w in picked.warnings) == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=3, max_size=3), st.booleans())
def test_a_throughput_verdict_says_where_the_lower_sides_cpu_was_busy(
    busy_runs: list[bool], udp_lower: bool
) -> None:
    """Within a session, TCP against UDP at one point, clearly apart: the finding names the
    better side, and where the lower side's CPU was busy in some of its runs there (as the CPU
    warning counts them), says in how many and that the computer may have set its pace."""
    plan = make_plan(values=(1408,), repetitions=3)
    session = make_session(plan, {**WIRED, "cpu_count": 1})
    low, high = (UDP4, TCP4) if udp_lower else (TCP4, UDP4)
    runs = [
        make_run(
            plan,
            series,
            0,
            rep,
            throughput_bps=(300e6 if series == low else 900e6) + rep * 1e6,
            **({"cpu_local_pct": 95.0} if series == low and busy_runs[rep - 1] else {}),
        )
        for series in (TCP4, UDP4)
        for rep in (1, 2, 3)
    ]
    findings = within_session(session, runs).findings
    (verdict,) = [f for f in findings if "is better there than" in f]
    assert f"{high.label} is better there than {low.label}" in verdict
    busy = sum(busy_runs)
    caveat = (
        f", though in {busy} of 3 runs of {low.label} there the CPU was busy at or above 90 % "
        "of one core: the computer, not the link, may have set its pace (see the CPU warning)."
    )
    assert verdict.endswith(caveat) == bool(busy), verdict
    if not busy:
        assert "CPU" not in verdict
    # The warning counts the same runs.
    warned = by_check(session, runs, Check.CPU_BOUND)
    assert bool(warned) == bool(busy)
    if busy:
        assert warned[0].startswith(f"In {busy} of 3 run")


def test_few_runs_alike_in_every_series_is_said_once() -> None:
    plan = make_plan(repetitions=2)
    runs = [make_run(plan, s, i, rep) for s in (TCP4, UDP4) for i in range(6) for rep in (1, 2)]
    (sentence,) = by_check(make_session(plan), runs, Check.FEW_RUNS)
    assert sentence.startswith("Every series has fewer than 3 successful runs at 128 B (2 of 2), ")
    assert sentence.count("(2 of 2)") == 6
    # One series with a third run at 1408 B: each series is named with its own points.
    runs.append(make_run(plan, UDP4, 5, 3))
    said = by_check(make_session(plan), runs, Check.FEW_RUNS)
    assert [s.split(" has")[0] for s in said] == ["TCP · IPv4", "UDP · IPv4"]
    assert "1408 B (2 of 2)" in said[0] and "1408 B" not in said[1]


@settings(max_examples=60, deadline=None)
@given(
    duration=st.integers(1, 12),
    interval=st.sampled_from([0.5, 1.0, 2.0]),
    swept=st.booleans(),
    latency=st.booleans(),
)
def test_few_loaded_probes_are_said_exactly_where_runs_leave_them_under_a_second(
    duration: int, interval: float, swept: bool, latency: bool
) -> None:
    """The warning is given exactly where a run leaves its loaded probes (from the engine's
    first report to the run's end) less than a second, and its figures are the plan's."""
    metrics = (Metric.THROUGHPUT, Metric.LATENCY) if latency else (Metric.THROUGHPUT,)
    values = (duration, duration + 5) if swept else (1408,)
    plan = make_plan(
        protocols=(Protocol.TCP,),
        values=values,
        variable=Variable.DURATION if swept else Variable.LENGTH,
        duration_s=duration,
        interval_s=interval,
        metrics=metrics,
    )
    runs = [
        make_run(plan, TCP4, i, rep, latency_ms=2.0, latency_p90_ms=2.0, latency_idle_ms=0.1)
        for i in range(len(values))
        for rep in (1, 2, 3)
    ]
    said = by_check(make_session(plan), runs, Check.FEW_PROBES)
    short = [v for v in values if v - interval < MIN_LOADED_S] if swept else []
    expected = bool(short) if swept else duration - interval < MIN_LOADED_S
    if not latency or not expected:
        assert said == []
        return
    (sentence,) = said
    start = re.search(r"first report, ([\d.]+) s into each run", sentence)
    assert start is not None and float(start.group(1)) == interval
    lasted = re.search(r"to its end: (.+) leave its probes less than 1 s", sentence)
    assert lasted is not None
    if swept:
        assert re.findall(r"(\d+) s", lasted.group(1)) == [str(v) for v in short]
    else:
        assert lasted.group(1) == f"{duration}-s runs"
    least = re.search(r"Measure for (\d+) s or more \(the Seconds per run field", sentence)
    assert least is not None and int(least.group(1)) - interval >= MIN_LOADED_S
    assert int(least.group(1)) - 1 - interval < MIN_LOADED_S  # the least that is enough
