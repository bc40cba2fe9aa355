"""A session's warning about its runs, read in its view against its results table, over random
per-point counts: it names exactly the points the table shows short of the runs the plan
asked for (a point with no successful run, n = 0, included), each with its n of those, and
points at Resume; then those with fewer than 3 runs, and the runs field where the plan asked
for fewer. The reader is tests/sentences.py's, as for every sentence of a session."""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan
from app.domain.records import RunRecord, SessionRecord, SessionStatus
from app.ui.sessions.view import SessionView
from tests.analysis.test_context_checks import make_run, make_session
from tests.sentences import MIN_RUNS, read_few
from tests.ui.shown_sentences import shown_warnings
from tests.ui.user import User

SIZES = (128, 640, 1408)


@dataclass(frozen=True)
class Counts:
    """A session's runs, point by point: its plan, the successful and failed runs of each
    (series, size), and its status."""

    plan: Plan
    ok: dict[tuple[int, int], int]
    failed: dict[tuple[int, int], int]
    status: SessionStatus


@st.composite
def counts(draw: st.DrawFn) -> Counts:
    protocols = draw(st.sampled_from([(Protocol.TCP,), (Protocol.TCP, Protocol.UDP)]))
    repetitions = draw(st.integers(1, 4))
    plan = Plan(
        peer=Peer("198.18.0.2"),
        protocols=protocols,
        ip_versions=(IpVersion.V4,),
        values=SIZES,
        repetitions=repetitions,
    )
    ok, failed = {}, {}
    for s in range(len(plan.series)):
        for i in range(len(SIZES)):
            ok[s, i] = draw(st.integers(0, repetitions))
            failed[s, i] = draw(st.integers(0, repetitions - ok[s, i]))
    status = draw(st.sampled_from(list(SessionStatus)))
    return Counts(plan, ok, failed, status)


def made(c: Counts) -> tuple[SessionRecord, list[RunRecord]]:
    runs = []
    for (s, i), n in c.ok.items():
        series = c.plan.series[s]
        for rep in range(1, n + c.failed[s, i] + 1):
            run = make_run(c.plan, series, i, rep, throughput_bps=90e6 + 1e6 * rep)
            runs.append(run if rep <= n else replace(run, ok=False, error="The link went down."))
    session = replace(
        make_session(c.plan),
        status=c.status,
        total_runs=c.plan.total_runs,
        runs_done=len(runs),
        runs_failed=sum(not r.ok for r in runs),
    )
    return session, runs


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(c=counts())
def test_the_warning_names_exactly_the_points_the_table_shows_short(
    session_view: SessionView, c: Counts
) -> None:
    session, runs = made(c)
    session_view.show_session(session, runs)
    user = User(session_view)
    headers = user.headers("Session results")
    at_n = headers.index("n")
    table = {(row[0], float(row[1])): int(row[at_n]) for row in user.table_rows("Session results")}
    # The table shows every planned point, with its successful runs.
    assert table == {(c.plan.series[s].label, float(SIZES[i])): n for (s, i), n in c.ok.items()}
    asked = c.plan.repetitions
    running = c.status is SessionStatus.RUNNING
    band = user.text("Session warnings") if user.can_see("Session warnings") else ""
    said = [r for r in map(read_few, shown_warnings(band)) if r is not None]
    labels = [s.label for s in c.plan.series]
    named_short, named_few = set(), set()
    for one in said:
        for label in [one.label] if one.label else labels:
            named_short |= {(label, v, n) for v, n, of in one.short if of == asked}
            named_few |= {(label, v, n) for v, n, of in one.few if of == asked}
            assert all(of == asked for _, _, of in one.short + one.few), band
    short = {(k[0], k[1], n) for k, n in table.items() if n < asked and not running}
    few = {(k[0], k[1], n) for k, n in table.items() if 0 < n < MIN_RUNS}
    assert named_short == short, band
    assert named_few == few, band
    # Runs failed or missing: Resume is named, whatever the plan's count.
    assert ("Resume on the Sessions tab, or linklab resume" in band) == bool(short), band
    assert ("or more runs per point" in band) == (bool(few) and asked < MIN_RUNS), band
