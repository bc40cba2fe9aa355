"""A client that holds one of the window's iperf3 servers (CVE-2023-7250: iperf3 3.12 waits
for ever for a client that sends five bytes), as a person at the window meets it: the Server
tab's log says the server was started again and why, and a study against this computer says
why a run failed, tries it again and completes. Real iperf3, a real socket that holds, the
real window driven by its labels."""

from __future__ import annotations

import pytest

from app.domain.plan import Engine
from app.engine.process.servers import EXPOSED_STALL_TIMEOUT_S
from app.ui.main_window import MainWindow
from tests.conftest import free_port
from tests.held_client import held_by, holding
from tests.ui.test_measure import sessions
from tests.ui.test_second_computer import run_one_second
from tests.ui.user import User, wait_for

pytestmark = pytest.mark.usefixtures("iperf3_tool")

#: A held server is started again after its stall time, a look a second, and its start.
RESTARTED_WITHIN_S = EXPOSED_STALL_TIMEOUT_S + 20


# Over 10 s: the server is held for its stall time.
def test_the_server_tab_says_a_held_server_was_started_again(
    window: MainWindow, user: User
) -> None:
    user.tab("Server")
    port = free_port()
    user.type("iperf3 server port", str(port))
    user.click("Start the iperf3 server")
    wait_for(lambda: "Listening on port" in user.text("iperf3 server status"), 10, "the server")
    if "3.12" in user.text("Server log"):  # Debian 12's iperf3: the flaw and its fix, said
        assert "CVE-2023-7250" in user.text("Server log")
    with holding(port) as client:
        holder = held_by(client)
        wait_for(
            lambda: "was held for" in user.text("Server log"), RESTARTED_WITHIN_S, "the restart"
        )
    log = user.text("Server log")
    assert f"The iperf3 server on port {port} was held for " in log
    assert f"by a client ({holder}) that made no progress" in log
    assert "LinkLab started it again" in log
    wait_for(lambda: "Listening on port" in user.text("iperf3 server status"), 10, "serving")
    user.click("Stop the iperf3 server")
    wait_for(lambda: "Stopped" in user.text("iperf3 server status"), 10, "the server to stop")


# Over 10 s: the second study's first run waits behind the held server.
def test_a_study_against_this_computer_says_why_its_run_waited(
    window: MainWindow, user: User
) -> None:
    run_one_second(user, window)
    # This computer's server stays up between studies; a program here now holds it.
    port = window.context.loopback.port(Engine.IPERF3)
    assert port is not None
    with holding(port) as client:
        holder = held_by(client)
        user.click("Start")
        wait_for(lambda: window.measure.running, 10, "the second study to start")
        wait_for(lambda: not window.measure.running, RESTARTED_WITHIN_S + 30, "the study")
    log = user.text("Log")
    assert f"by a client ({holder}) that made no progress" in log, log
    assert "LinkLab started it again" in log
    assert "did not start at once" in log and "trying again" in log  # the run, tried again
    assert "Error:" not in log
    second = sessions(window)[0]
    assert second.runs_done == 1 and second.runs_failed == 0
    assert "completed" in user.text("Status")
