"""Comparisons: Welch statistics against SciPy, Holm's correction by hand, pairing like with
like, the caveats when sessions differ otherwise, and findings whose words match the
statistics (checked by hand on known data and by Hypothesis over generated data)."""

from __future__ import annotations

import warnings
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from app.analysis.compare import (
    Mode,
    SeriesData,
    compare,
    compare_pair,
    format_value,
    holm,
    legend_labels,
    series_data,
    welch,
)
from app.analysis.findings import pair_findings
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Engine, Peer, Plan, RunKey, Security, Series
from app.domain.records import RunMetrics, SessionRecord, SessionStatus, utc_now
from app.store.db import Database
from app.store.sessions import SessionStore
from tests.analysis.findings_text import covered_points, statement_points

A = [45.2, 45.7, 46.2, 45.4, 45.5]
B = [42.1, 43.0, 42.6, 42.2, 42.9]
TCP4 = Series(Protocol.TCP, IpVersion.V4)
UDP4 = Series(Protocol.UDP, IpVersion.V4)


def test_welch_matches_scipy() -> None:
    difference, low, high, p = welch(A, B)
    result = stats.ttest_ind(B, A, equal_var=False)
    interval = result.confidence_interval(0.95)
    assert difference == pytest.approx(sum(B) / 5 - sum(A) / 5)
    assert (low, high) == (pytest.approx(interval.low), pytest.approx(interval.high))
    assert p == pytest.approx(result.pvalue)
    # By hand: means 45.6 and 42.56, so the difference is -3.04.
    assert difference == pytest.approx(-3.04)


def test_welch_edge_cases() -> None:
    assert welch([], [1.0]) == (None, None, None, None)
    assert welch([5.0], [7.0, 8.0]) == (2.5, None, None, None)  # one run: not testable
    assert welch([3.0, 3.0], [3.0, 3.0]) == (0.0, 0.0, 0.0, 1.0)


def test_nearly_identical_runs_raise_no_python_warning() -> None:
    """SciPy warns of catastrophic cancellation on such data; the user never sees it."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        welch([1e9, 1e9, 1e9 + 1e-6], [1e9, 1e9 + 1e-6, 1e9])
        welch([5.0, 5.0, 5.0], [5.0, 5.0, 5.0 + 1e-12])


def test_holm_by_hand() -> None:
    # Sorted 0.01, 0.02, 0.04 times 3, 2, 1 -> 0.03, 0.04, 0.04 (kept monotone).
    assert holm([0.04, 0.01, None, 0.02]) == [
        pytest.approx(0.04),
        pytest.approx(0.03),
        None,
        pytest.approx(0.04),
    ]
    assert holm([0.5, 0.9]) == [pytest.approx(1.0), pytest.approx(1.0)]  # capped at 1
    assert holm([]) == []


def make_session(
    store: SessionStore,
    security: Security,
    runs: dict[int, list[float]],
    name: str,
    *,
    protocols: tuple[Protocol, ...] = (Protocol.TCP,),
    engine: Engine = Engine.NETPERF,
    duration_s: int = 60,
    udp_scale: float = 0.5,
    bitrate_bps: int = 0,
) -> SessionRecord:
    """A session whose TCP runs carry runs[value] (Mbit/s); UDP runs, if any, udp_scale of it."""
    values = tuple(sorted(runs))
    plan = Plan(
        peer=Peer("lab-peer"),
        engine=engine,
        protocols=protocols,
        values=values,
        repetitions=max(len(v) for v in runs.values()),
        duration_s=duration_s,
        name=name,
        conditions=Conditions(security=security),
        bitrate_bps=bitrate_bps,
    )
    sid = store.create_session(plan)
    for protocol in protocols:
        scale = 1.0 if protocol is Protocol.TCP else udp_scale
        for index, value in enumerate(values):
            for rep, mbit in enumerate(runs[value], start=1):
                store.add_run(
                    sid,
                    RunKey(protocol, IpVersion.V4, index, rep),
                    value,
                    metrics=RunMetrics(throughput_bps=mbit * scale * 1e6),
                    started_at=utc_now(),
                    elapsed_s=float(duration_s),
                    engine=engine.value,
                )
    store.finish(sid, SessionStatus.COMPLETED)
    return store.get(sid)


def items_of(store: SessionStore, *sessions: SessionRecord) -> list[SeriesData]:
    found: list[SeriesData] = []
    for session in sessions:
        found += series_data(session, store.runs(session.id), "throughput_bps")
    return found


def test_findings_on_known_differences(store: SessionStore) -> None:
    open_ = make_session(
        store, Security.OPEN, {128: [20.0, 20.5, 19.5, 20.2], 640: A, 1408: [44.0]}, "open"
    )
    wpa2 = make_session(
        store, Security.WPA2, {128: [20.1, 19.8, 20.4, 19.9], 640: B, 1408: [41.2]}, "wpa2"
    )
    items = items_of(store, open_, wpa2)
    assert legend_labels(items) == ["TCP · IPv4 · Open", "TCP · IPv4 · WPA2"]
    comparison = compare(items, "throughput_bps")
    assert comparison.warnings == []  # alike in every way but security
    (pair,) = comparison.pairs
    assert pair.baseline.session.id == open_.id and pair.other.session.id == wpa2.id
    by_value = {p.value: p for p in pair.points}
    assert by_value[640].significant is True
    assert by_value[640].p_value is not None and by_value[640].p_value < 0.001
    assert by_value[640].difference == pytest.approx(-3.04e6)
    assert by_value[640].relative_pct == pytest.approx(-3.04 / 45.6 * 100)
    assert by_value[128].significant is False  # within the noise
    assert by_value[1408].significant is None  # one run a side: untested
    # Holm over the two tested points: the smaller p doubled, the larger kept (monotone).
    assert by_value[640].p_holm == pytest.approx(2 * by_value[640].p_value)
    text = " ".join(comparison.findings)
    assert "1 of 2 points differs significantly" in text and "Holm" in text
    assert "At 640 B, TCP · IPv4 · WPA2 had 3.04 Mbit/s (6.7 %) less throughput" in text
    assert "TCP · IPv4 · Open is better there than TCP · IPv4 · WPA2" in text
    assert "At 128 B there is no significant difference" in text
    assert "At 1408 B a side has a single run" in text


def test_two_tcp_udp_sessions_pair_only_the_same_series(store: SessionStore) -> None:
    both = (Protocol.TCP, Protocol.UDP)
    open_ = make_session(store, Security.OPEN, {1408: A}, "open", protocols=both)
    wpa2 = make_session(store, Security.WPA2, {1408: B}, "wpa2", protocols=both)
    comparison = compare(items_of(store, open_, wpa2))
    assert comparison.mode is Mode.SESSIONS and comparison.unpaired == []
    pairs = [(p.baseline.series, p.other.series) for p in comparison.pairs]
    assert pairs == [(TCP4, TCP4), (UDP4, UDP4)]
    assert all(p.baseline.session.id == open_.id for p in comparison.pairs)
    text = " ".join(comparison.findings)
    assert "UDP · IPv4 · WPA2 against UDP · IPv4 · Open" in text
    assert "UDP · IPv4 · Open against TCP" not in text and "TCP · IPv4 · Open against" not in text


def test_the_user_picks_the_baseline_and_unpartnered_series_are_listed(
    store: SessionStore,
) -> None:
    open_ = make_session(store, Security.OPEN, {1408: A}, "open")
    wpa2 = make_session(
        store, Security.WPA2, {1408: B}, "wpa2", protocols=(Protocol.TCP, Protocol.UDP)
    )
    comparison = compare(items_of(store, open_, wpa2), baseline_session=wpa2.id)
    (pair,) = comparison.pairs
    assert pair.baseline.session.id == wpa2.id and pair.other.session.id == open_.id
    assert pair.points[0].difference == pytest.approx((45.6 - 42.56) * 1e6)
    assert [(c.session.id, c.series) for c in comparison.unpaired] == [(wpa2.id, UDP4)]
    assert comparison.sessions[0].id == wpa2.id
    assert any("has no partner" in s for s in comparison.findings)


def test_within_one_session_compares_its_series_against_the_first(store: SessionStore) -> None:
    session = make_session(
        store, Security.OPEN, {1408: A}, "one", protocols=(Protocol.TCP, Protocol.UDP)
    )
    comparison = compare(items_of(store, session), mode=Mode.WITHIN)
    (pair,) = comparison.pairs
    assert (pair.baseline.series, pair.other.series) == (TCP4, UDP4)
    assert pair.points[0].relative_pct == pytest.approx(-50.0)
    assert comparison.warnings == []  # one session: nothing else can differ
    # By default a single session pairs nothing: shown, not compared.
    alone = compare(items_of(store, session))
    assert alone.pairs == [] and len(alone.unpaired) == 2


def test_engine_and_duration_differences_are_warned(store: SessionStore) -> None:
    netperf = make_session(store, Security.OPEN, {1408: A}, "netperf", duration_s=10)
    iperf3 = make_session(
        store, Security.WPA2, {1408: B}, "iperf3", engine=Engine.IPERF3, duration_s=30
    )
    said = compare(items_of(store, netperf, iperf3)).warnings
    assert len(said) == 2, said
    engine, duration = said
    assert engine.startswith("“iperf3” differs from “netperf” in engine (iperf3 against netperf)")
    assert "run duration (30 s against 10 s)" in duration
    matched = make_session(store, Security.WPA2, {1408: B}, "matched", duration_s=10)
    assert compare(items_of(store, netperf, matched)).warnings == []


def test_loss_differences_are_in_percentage_points(store: SessionStore) -> None:
    session = make_session(store, Security.OPEN, {1408: [1.0]}, "s")
    base = SeriesData(session, UDP4, {1408.0: [1.0, 1.1, 0.9, 1.0]})
    other = SeriesData(session, UDP4, {1408.0: [3.0, 3.1, 2.9, 3.0]})
    sentences = pair_findings(compare_pair(base, other), "loss_pct", "B", "Packet size")
    text = " ".join(sentences)
    assert "2 percentage points more" in text and "%)" not in text


def test_counts_in_the_thousands_read_whole() -> None:
    """Out-of-order counts reach thousands a run: never in exponent form."""
    assert format_value("out_of_order", 1234.5) == "1234 datagrams"
    assert format_value("out_of_order", 86.5) == "86.5 datagrams"
    assert format_value("jitter_ms", 0.30549) == "0.305 ms"


def test_lower_is_better_for_rtt(store: SessionStore) -> None:
    fast = make_session(store, Security.OPEN, {128: [1.0, 1.1, 0.9]}, "fast")
    slow = make_session(store, Security.WPA2, {128: [2.0, 2.1, 1.9]}, "slow")
    # Reuse the throughput numbers as if they were RTTs, to check the wording flips.
    rtt_items = [
        SeriesData(i.session, i.series, {k: [v / 1e6 for v in vs] for k, vs in i.values.items()})
        for i in items_of(store, fast, slow)
    ]
    comparison = compare(rtt_items, "rtt_ms")
    assert any(
        "TCP · IPv4 · Open is better than TCP · IPv4 · WPA2 (lower round-trip time" in s
        for s in comparison.findings
    ), comparison.findings


def test_legend_adds_session_names_when_nothing_else_differs(store: SessionStore) -> None:
    one = make_session(store, Security.WPA2, {128: [1.0, 2.0]}, "Monday")
    two = make_session(store, Security.WPA2, {128: [1.0, 2.0]}, "Tuesday")
    assert legend_labels(items_of(store, one, two)) == [
        "TCP · IPv4 (Monday)",
        "TCP · IPv4 (Tuesday)",
    ]


# -- findings never overstate: generated data ------------------------------------------------

runs = st.lists(
    st.floats(min_value=0.0, max_value=1e3, allow_nan=False, allow_infinity=False),
    min_size=0,
    max_size=6,
)
sweeps = st.dictionaries(st.sampled_from([64.0, 128.0, 512.0, 1408.0]), runs, max_size=4)


@pytest.fixture(scope="module")
def one_session(tmp_path_factory: pytest.TempPathFactory) -> SessionRecord:
    with Database(tmp_path_factory.mktemp("gen") / "db.sqlite3") as db:
        return make_session(SessionStore(db), Security.OPEN, {128: [1.0]}, "gen")


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(base=sweeps, other=sweeps, metric=st.sampled_from(["throughput_bps", "rtt_ms", "loss_pct"]))
def test_no_finding_calls_a_side_better_without_a_significant_difference(
    one_session: SessionRecord,
    base: dict[float, list[float]],
    other: dict[float, list[float]],
    metric: str,
) -> None:
    a = SeriesData(one_session, TCP4, base, "Baseline side")
    b = SeriesData(one_session, TCP4, other, "Other side")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no Python warning on any data
        comparison = compare([a, b], metric, mode=Mode.PICKED)
    (pair,) = comparison.pairs
    significant = {p.value for p in pair.points if p.significant}
    for sentence in comparison.findings:
        if "better" in sentence:
            assert significant, f"'better' with nothing significant: {sentence}"
    values = [p.value for p in pair.points]
    for covered, sentence in statement_points(comparison.findings, values, "B"):
        if "better" in sentence:  # names its points: each must be significant
            assert set(covered) <= significant, sentence
    assert covered_points(comparison.findings, values, "B") == values, comparison.findings
    for point in pair.points:
        if point.significant:
            assert point.p_holm is not None and point.p_holm < 0.05
            assert point.p_value is not None and point.p_value <= point.p_holm


def test_latency_findings_say_what_a_setting_added_under_which_load(
    store: SessionStore,
) -> None:
    def latency_session(security: Security, loaded: list[float], idle: float) -> SessionRecord:
        plan = Plan(
            peer=Peer("lab-peer"),
            values=(1408,),
            repetitions=len(loaded),
            duration_s=10,
            name=security.value,
            conditions=Conditions(security=security),
        )
        sid = store.create_session(plan)
        for rep, ms in enumerate(loaded, start=1):
            metrics = RunMetrics(
                throughput_bps=9e6, latency_ms=ms, latency_idle_ms=idle, latency_method="udp-echo"
            )
            key = RunKey(Protocol.TCP, IpVersion.V4, 0, rep)
            store.add_run(
                sid,
                key,
                1408,
                metrics=metrics,
                started_at=utc_now(),
                elapsed_s=10.0,
                engine="iperf3",
            )
        store.finish(sid, SessionStatus.COMPLETED)
        return store.get(sid)

    open_ = latency_session(Security.OPEN, [30.2, 31.0, 29.5, 30.8], 0.40)
    wpa2 = latency_session(Security.WPA2, [242.0, 240.5, 243.1, 241.7], 0.41)
    items = []
    for session in (open_, wpa2):
        items += series_data(session, store.runs(session.id), "latency_ms")
    comparison = compare(items, "latency_ms")
    text = " ".join(comparison.findings)
    assert "At 1408 B, under upload load, TCP · IPv4 · WPA2 added 211 ms (" in text
    assert "of working latency against TCP · IPv4 · Open (p < 0.001" in text
    assert "TCP · IPv4 · Open is better there than TCP · IPv4 · WPA2" in text
    (pair,) = comparison.pairs
    assert pair.points[0].significant
    # The other way round, the lower latency is what is better.
    reverse = compare(list(reversed(items)), "latency_ms")
    assert "Open had 211 ms (87.4 %) less working latency than TCP · IPv4 · WPA2" in " ".join(
        reverse.findings
    )


def test_a_session_with_nothing_to_compare_says_so_once(store: SessionStore) -> None:
    """As found: a single-series session's findings said both "has no partner that differs
    from it in one way only… so it is not compared." and "This session has one series:
    nothing to compare it with."."""
    alone = make_session(store, Security.OPEN, {1408: A}, "alone")
    said = compare(items_of(store, alone), mode=Mode.WITHIN).findings
    assert said == ["This session has one series: nothing to compare it with."], said
    # Series none of which differs from another in one way only: one sentence for them all.
    both = (Protocol.TCP, Protocol.UDP)
    tcp4 = items_of(store, make_session(store, Security.OPEN, {1408: A}, "tcp", protocols=both))
    udp6 = [
        replace(item, series=Series(Protocol.UDP, IpVersion.V6), label="UDP · IPv6")
        for item in tcp4
        if item.series == UDP4
    ]
    apart = compare([item for item in tcp4 if item.series == TCP4] + udp6, mode=Mode.WITHIN)
    assert apart.pairs == [] and len(apart.unpaired) == 2
    assert apart.findings == ["No two of these series differ in one way only, so none is compared."]


def test_udp_that_carried_the_bitrate_asked_for_is_not_called_worse(store: SessionStore) -> None:
    """As found: "TCP · IPv4 is better there than UDP · IPv4" where UDP was sent at the 20
    Mbit/s the user's bitrate asked for: its rate was set, not measured against the link."""
    both = (Protocol.TCP, Protocol.UDP)
    scale = 20.0 / (sum(A) / len(A))  # UDP at 20 Mbit/s beside TCP's 45.6
    capped = make_session(
        store,
        Security.OPEN,
        {1408: A},
        "capped",
        protocols=both,
        udp_scale=scale,
        bitrate_bps=20_000_000,
    )
    said = compare(items_of(store, capped), mode=Mode.WITHIN).findings
    (statement,) = [s for s in said if s.startswith("At 1408 B,")]
    assert "UDP · IPv4 had 25.6 Mbit/s (56.1 %) less throughput than TCP · IPv4" in statement
    assert "UDP · IPv4 carried the 20.0 Mbit/s it was asked to send" in statement, said
    assert "neither is better there" in statement, said
    assert not any("better than" in s or "better there than" in s for s in said), said
    # Sent as fast as it could, or below the rate asked for: the link set it, and TCP is better.
    for name, bitrate in (("unlimited", 0), ("under its bitrate", 100_000_000)):
        free = make_session(
            store,
            Security.OPEN,
            {1408: A},
            name,
            protocols=both,
            udp_scale=scale,
            bitrate_bps=bitrate,
        )
        said = compare(items_of(store, free), mode=Mode.WITHIN).findings
        assert any("TCP · IPv4 is better there than UDP · IPv4" in s for s in said), said
