"""Within one session, series are compared like for like: every pair differs in exactly one
factor (protocol, IP version or direction), the baseline order is stable, and every series is in
some pair where a partner exists (Hypothesis over random sets of series)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.analysis.compare import Mode, SeriesData, compare, pair_one_factor
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Peer, Plan, PointValue, Series
from app.domain.records import SessionRecord
from tests.records_made import session_record


def _record(plan: Plan, sid: str = "s1") -> SessionRecord:
    return session_record(plan, sid)


def _session(protocols: tuple[Protocol, ...], ips: tuple[IpVersion, ...]) -> SessionRecord:
    plan = Plan(peer=Peer("lab-peer"), protocols=protocols, ip_versions=ips, values=(128, 1408))
    return _record(plan)


def _items(session: SessionRecord) -> list[SeriesData]:
    runs: dict[PointValue, list[float]] = {128.0: [1.0, 1.1, 0.9], 1408.0: [2.0, 2.1, 1.9]}
    return [SeriesData(session, s, dict(runs)) for s in session.plan.series]


def _factors(item: SeriesData) -> tuple[object, ...]:
    return (item.series.protocol, item.series.ip_version, item.direction)


def _order(item: SeriesData) -> tuple[int, int, int]:
    """TCP before UDP, IPv4 before IPv6, upload before download: the baseline comes first."""
    return (
        list(Protocol).index(item.series.protocol),
        int(item.series.ip_version),
        list(Direction).index(item.direction),
    )


def test_tcp_udp_ipv4_ipv6_pairs_change_one_thing_at_a_time() -> None:
    session = _session((Protocol.UDP, Protocol.TCP), (IpVersion.V6, IpVersion.V4))
    comparison = compare(_items(session), mode=Mode.WITHIN)
    said = [f"{p.other.series.label} against {p.baseline.series.label}" for p in comparison.pairs]
    assert said == [
        "UDP · IPv4 against TCP · IPv4",
        "UDP · IPv6 against TCP · IPv6",
        "TCP · IPv6 against TCP · IPv4",
        "UDP · IPv6 against UDP · IPv4",
    ]
    assert comparison.unpaired == []
    assert not any("UDP · IPv6 against TCP · IPv4" in s for s in comparison.findings)


protocol_sets = st.lists(st.sampled_from(list(Protocol)), min_size=1, max_size=2, unique=True)
ip_sets = st.lists(st.sampled_from(list(IpVersion)), min_size=1, max_size=2, unique=True)


@given(protocol_sets, ip_sets, st.randoms(use_true_random=False))
def test_every_within_pair_differs_in_one_factor(
    protocols: list[Protocol], ips: list[IpVersion], shuffle: object
) -> None:
    session = _session(tuple(protocols), tuple(ips))
    items = _items(session)
    shuffle.shuffle(items)  # type: ignore[attr-defined]
    pairs, unpaired = pair_one_factor(items)
    for base, other in pairs:
        differ = [a != b for a, b in zip(_factors(base), _factors(other), strict=True)]
        assert sum(differ) == 1, (base.series, other.series)
        assert _order(base) < _order(other)
    # A session's series form a grid, so each has a partner as soon as there are two.
    paired = {s.series for pair in pairs for s in pair}
    if len(items) > 1:
        assert unpaired == [] and paired == {i.series for i in items}
    else:
        assert pairs == [] and unpaired == items
    # Stable: the order the series come in does not change the pairs.
    again, _ = pair_one_factor(sorted(items, key=lambda i: str(i.series)))
    assert [(a.series, b.series) for a, b in again] == [(a.series, b.series) for a, b in pairs]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(list(Protocol)),
            st.sampled_from(list(IpVersion)),
            st.sampled_from(list(Direction)),
        ),
        min_size=1,
        max_size=8,
        unique=True,
    )
)
def test_any_set_of_series_pairs_only_one_factor_apart(
    wanted: list[tuple[Protocol, IpVersion, Direction]],
) -> None:
    """Series of any kind (from plans of several directions): a pair never changes two factors,
    and a series is left out only when nothing is one factor away from it."""
    items = []
    for protocol, ip, direction in wanted:
        plan = Plan(peer=Peer("p"), protocols=(protocol,), ip_versions=(ip,), direction=direction)
        session = _record(plan)  # one session id: only the series' own factors differ
        items.append(SeriesData(session, Series(protocol, ip), {128.0: [1.0]}))
    pairs, unpaired = pair_one_factor(items)
    for base, other in pairs:
        assert sum(a != b for a, b in zip(_factors(base), _factors(other), strict=True)) == 1
        assert _order(base) < _order(other)
    for alone in unpaired:
        assert all(
            sum(a != b for a, b in zip(_factors(alone), _factors(i), strict=True)) != 1
            for i in items
        )
    assert len(pairs) + len(unpaired) >= 1
