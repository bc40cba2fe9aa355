"""A sweep whose link went down for a while, as a technician meets it in the window: against a
second computer (a network namespace running `linklab serve`), all its packets dropped by
nftables for long enough that runs fail, the session completed with failures and its warning
pointing at Resume; Resume on the Sessions tab measures the failed runs again, and the
session reopened, its table and its runs CSV have every run its plan asked for."""

from __future__ import annotations

import csv
import io
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from app.ui.main_window import MainWindow
from tests.sentences import read_few
from tests.testbed import NeighbourBed
from tests.ui.journey import save_as
from tests.ui.shown_sentences import shown_warnings
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for

RUNS = 3
SIZES = ("128", "1408")
PORT = 5301
TABLE = ("inet", "llabdown")


def nft(bed: NeighbourBed, *args: str) -> None:
    subprocess.run(
        ["ip", "netns", "exec", bed.ns, "nft", *args], check=True, capture_output=True, timeout=20
    )


def link_down(bed: NeighbourBed) -> None:
    """Every packet arriving at the second computer dropped: the link is gone for LinkLab."""
    nft(bed, "add", "table", *TABLE)
    nft(bed, "add", "chain", *TABLE, "in", "{ type filter hook input priority 0 ; policy drop ; }")


def link_up(bed: NeighbourBed) -> None:
    nft(bed, "delete", "table", *TABLE)


def errors(user: User) -> list[str]:
    return [line for line in user.text("Log").splitlines() if "Error:" in line]


def session_row(user: User) -> dict[str, str]:
    (row,) = user.table_rows("Sessions")
    return dict(zip(user.headers("Sessions"), row, strict=True))


@pytest.mark.netns
@pytest.mark.usefixtures("iperf3_tool")
def test_a_sweep_whose_link_dropped_is_resumed_to_every_planned_run(
    window: MainWindow, user: User, neighbour: NeighbourBed, tmp_path: Path
) -> None:
    neighbour.serve("--no-netserver", "--port", str(PORT))
    user.type("Peer", neighbour.THERE4)
    user.type("iperf3 port", str(PORT))
    user.choose("Protocol", "TCP")
    user.choose("IP version", "IPv4")
    plan_sweep(user, ", ".join(SIZES), runs=RUNS, seconds=1)
    # A pause between runs: the link goes down between two runs, not in the middle of one.
    user.tab("Advanced")
    user.type("Pause between runs", "2")
    user.tab("Study")
    user.type("Session name", "link dropped")
    user.click("Start")
    progress = user.find("Progress")
    wait_for(lambda: progress.value() >= 2, 60, "two runs measured")  # type: ignore[attr-defined]
    link_down(neighbour)
    try:
        wait_for(lambda: len(errors(user)) >= 2, 90, "two runs to fail on the dropped link")
    finally:
        link_up(neighbour)
    wait_for(lambda: not window.measure.running, 120, "the sweep to end")
    assert "completed with failures" in user.text("Status"), user.text("Log")
    log = user.text("Log")

    # The Sessions tab: completed with failures, its warning pointing at Resume.
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    assert session_row(user)["Status"] == "completed with failures"
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Session warnings"), 10, "the session's warnings")
    warning = user.text("Session warnings")
    assert f"than the {RUNS} runs per point the plan asked for at " in warning
    assert "Resume on the Sessions tab" in warning
    assert "the Runs per point field" not in warning  # it says 3 already
    n = {row[1]: int(row[2]) for row in user.table_rows("Session results")}
    # Every point short of its runs is named, with its n as the table shows it.
    (said,) = [s for s in map(read_few, shown_warnings(warning)) if s is not None]
    assert [(int(v), k) for v, k, _ in said.short] == [
        (int(size), count) for size, count in n.items() if count < RUNS
    ]
    failed = sum(RUNS - count for count in n.values())
    assert failed >= 2 and f"{failed} of {RUNS * len(SIZES)} runs failed" in log

    # Resume: the failed runs measured again, on the Measure tab.
    user.click("Resume")
    wait_for(lambda: window.measure.running, 10, "the resume to start")
    wait_for(lambda: not window.measure.running, 120, "the resume to end")
    assert "completed" in user.text("Status") and "failures" not in user.text("Status")

    # Reopened: every planned run, no warning about too few, n = 3 in its table and its CSV.
    user.tab("Sessions")
    user.click("Refresh")
    wait_for(lambda: session_row(user)["Status"] == "completed", 10, "the session completed")
    assert session_row(user)["Runs"] == f"{RUNS * len(SIZES)}/{RUNS * len(SIZES)}"
    user.click_row("Sessions", 0)
    user.click("Open")
    wait_for(lambda: user.table_rows("Session results"), 10, "the session's table")
    rows = user.table_rows("Session results")
    assert {row[1]: row[2] for row in rows} == {size: str(RUNS) for size in SIZES}
    if user.can_see("Session warnings"):  # a busy CPU may be said; too few runs never
        assert not [s for s in map(read_few, shown_warnings(user.text("Session warnings"))) if s]
    runs_csv = tmp_path / "resumed.csv"
    with user.answering(save_as(runs_csv)):
        user.click("Export CSV…")
    wait_for(runs_csv.exists, 30, runs_csv.name)
    exported = list(csv.DictReader(io.StringIO(runs_csv.read_text(encoding="utf-8-sig"))))
    assert {r["status"] for r in exported} == {"ok"}
    assert Counter(r["value"] for r in exported) == {size: RUNS for size in SIZES}
