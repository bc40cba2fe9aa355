"""Every finding, warning and status sentence of a session against the figures it describes,
over random sessions: what `linklab sessions show --json` says, read back against that JSON's
points and the session's runs CSV (tests/sentences.py), shares below 1 % and the CPU's
attribution among them."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from app.cli.output import session_json
from app.report.csv_export import runs_csv
from tests.sentences import check_session
from tests.sessions_made import Made, sessions


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_every_sentence_agrees_with_its_table(made: Made) -> None:
    data = session_json(made.session, made.runs)
    read = check_session(data, runs_csv(made.session, made.runs))
    assert len(read.checked) == len(data["findings"]) + len(data["warnings"]) + 1
