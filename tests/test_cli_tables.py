"""The command line's tables as a newcomer reads them: `run` and `sessions show` give UDP loss
and jitter and TCP retransmits in columns of their own when measured (and no empty columns
when not), the peer named "this computer" as the window names it, and nouns that agree with
their numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import linklab


@pytest.mark.usefixtures("iperf3_tool")
def test_run_and_show_tables_give_loss_jitter_and_retransmits(tmp_path: Path) -> None:
    db = str(tmp_path / "lab.sqlite3")
    done = linklab(
        "run", "--db", db, "--peer", "this-computer", "--protocol", "tcp,udp",
        "--sizes", "1408", "--runs", "1", "--duration", "1", "--bitrate", "20M", "--name", "lab",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ": 2 runs." in done.stderr  # "Session 3f2a…: 2 runs."
    table = done.stdout
    header = next(line for line in table.splitlines() if line.startswith("series"))
    for words in ("UDP loss %", "jitter ms", "retransmits"):
        assert words in header
    rows = {line.split()[0]: line for line in table.splitlines() if line[:3] in ("TCP", "UDP")}
    tcp, udp = rows["TCP"], rows["UDP"]
    # UDP has loss and jitter, no retransmits; TCP the other way round.
    loss_at = header.index("UDP loss %")
    retrans_at = header.index("retransmits")
    assert re.match(r"\s*\d+\.\d\d", udp[loss_at - 1 : loss_at + 11]), udp
    assert tcp[loss_at - 1 : loss_at + 11].strip() == "—"
    assert udp[retrans_at - 1 : retrans_at + 11].strip() == "—"
    assert re.match(r"\s*\d+\.\d", tcp[retrans_at - 1 : retrans_at + 11]), tcp

    shown = linklab("sessions", "--db", db, "show", "lab")
    assert shown.returncode == 0, shown.stderr
    assert "  peer        this computer (iperf3)" in shown.stdout
    assert "UDP loss %" in shown.stdout and "retransmits" in shown.stdout

    listing = linklab("sessions", "--db", db)
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert "this computer" in lines[1]
    assert lines[-1] == "1 session."


@pytest.mark.usefixtures("iperf3_tool")
def test_tcp_alone_has_no_udp_columns(tmp_path: Path) -> None:
    db = str(tmp_path / "lab.sqlite3")
    done = linklab(
        "run", "--db", db, "--peer", "this-computer", "--protocol", "tcp",
        "--sizes", "1408", "--runs", "1", "--duration", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ": 1 run." in done.stderr
    header = next(line for line in done.stdout.splitlines() if line.startswith("series"))
    assert "retransmits" in header
    assert "UDP loss %" not in header and "jitter ms" not in header
