"""Whose CPU it was, as a newcomer meets it: a monitor against a second computer behind a
30 Mbit/s link (tc tbf) while other programs keep this computer's two cores busy at the
lowest priority. Find computers, the Monitor tab, Stop, then the monitor in Sessions, before
and after the window is closed and opened again: the CPU sentence says the load was other
programs', with LinkLab's and its engines' part, and the run's peak (not its mean) as its
peak, each figure as the command line's JSON and runs CSV of the same session give it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.burners import other_programs_busy
from tests.conftest import linklab
from tests.sentences import check_session
from tests.testbed import NeighbourBed
from tests.ui.conftest import open_window
from tests.ui.journey import choose_the_neighbour
from tests.ui.shown_sentences import shown_warnings
from tests.ui.user import User, wait_for


def cpu_sentence(user: User) -> str:
    """The monitor's CPU warning, as its view's band shows it."""
    wait_for(lambda: user.can_see("Session warnings"), 10, "the session's warnings")
    (said,) = [w for w in shown_warnings(user.text("Session warnings")) if "of one core" in w]
    return said


def open_the_monitor(user: User) -> None:
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the monitor in Sessions")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Session details"), 10, "the monitor's view")


@pytest.mark.netns
@pytest.mark.usefixtures("iperf3_tool")
def test_the_cpu_sentence_says_other_programs_kept_it_busy(
    qtbot,  # type: ignore[no-untyped-def]
    window: MainWindow,
    user: User,
    context: AppContext,
    shaped_neighbour: NeighbourBed,
    tmp_path: Path,
) -> None:
    choose_the_neighbour(user, context, shaped_neighbour)
    user.tab("Monitor")
    with other_programs_busy(2):
        user.click("Start monitor")
        chart = user.find("Monitor chart")

        def points() -> int:
            chart.redraw()  # type: ignore[attr-defined]
            return sum(chart.drawn("throughput").values())  # type: ignore[attr-defined]

        wait_for(lambda: points() >= 5, 60, "five intervals charted")
        user.click("Stop monitor")
        wait_for(lambda: not window.measure.running, 20, "the monitor to stop")

    open_the_monitor(user)
    said = cpu_sentence(user)
    db = str(context.db_path)
    data = json.loads(linklab("sessions", "show", data_ref(db), "--json", "--db", db).stdout)
    runs = linklab("export", data["session_id"], "--format", "csv", "--out", "-", "--db", db)
    check_session(data, runs.stdout, warnings=shown_warnings(user.text("Session warnings")))
    assert said in data["warnings"]
    assert said.startswith("In 1 of 1 run of TCP · IPv4 the CPU was busy at or above 90 % ")
    assert "this computer's CPU (2 cores: 200 % in all) averaged " in said
    others, own = (float(x) for x in _parts(said))
    assert others > own  # the spinning programs, not LinkLab and its engines
    assert "Close the other programs that kept it busy" in said
    # No link rate is known for a monitor: whether the link set the pace is not claimed.
    assert "it cannot be told whether the link or the computer set the pace" in said

    # Closed and opened again: the stored run says the same.
    window.shutdown()
    window.close()
    again = open_window(qtbot, context, tmp_path)
    after = User(again)
    open_the_monitor(after)
    assert cpu_sentence(after) == said
    again.shutdown()


def data_ref(db: str) -> str:
    """The one session's id, as `linklab sessions --json` lists it."""
    (session,) = json.loads(linklab("sessions", "--json", "--db", db).stdout)
    return str(session["session_id"])


def _parts(sentence: str) -> tuple[str, str]:
    """(other programs', LinkLab's) share of one core the sentence gives."""
    tail = sentence.split(": other programs used ", 1)[1]
    others, rest = tail.split(" % of it and LinkLab with its engines ", 1)
    return others, rest.split(" %", 1)[0]
