"""What a session's view shows, read off its labels, against the session's figures, over
random sessions: the findings in its details, the warnings of its band and its status, each
parsed and recomputed from `sessions show --json` and the runs CSV (tests/sentences.py), as
for the command line (tests/analysis/test_sentences_agree.py). The real window on a shaped
link is tests/ui/test_journey_link_rate.py."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from app.cli.output import session_json
from app.report.csv_export import runs_csv
from app.ui.sessions.view import SessionView
from tests.sentences import check_session
from tests.sessions_made import Made, sessions
from tests.ui.shown_sentences import (
    shown_conditions,
    shown_findings,
    shown_status,
    shown_warnings,
    view_text,
)
from tests.ui.user import User


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(made=sessions())
def test_the_view_says_what_its_figures_say(session_view: SessionView, made: Made) -> None:
    session_view.show_session(made.session, made.runs)
    user = User(session_view)
    details = view_text(user)
    band = user.text("Session warnings") if user.can_see("Session warnings") else ""
    warnings = shown_warnings(band)
    data = session_json(made.session, made.runs)
    check_session(
        data,
        runs_csv(made.session, made.runs),
        findings=shown_findings(details),
        warnings=warnings,
        conditions=shown_conditions(details),
    )
    assert shown_findings(details) == data["findings"]
    assert warnings == data["warnings"]
    status = shown_status(details)
    assert status.startswith(data["status_text"])
    if data["status_reason"]:
        assert status == f"{data['status_text']} ({data['status_reason']})"
