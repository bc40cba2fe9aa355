"""A loss sweep with emulated loss, run in a namespace test bed of its own: the nftables rule
goes on the interface toward the peer, so it must never be the loopback other tests use."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from app.domain.records import SessionStatus
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.host.shaping import TABLE
from tests.carried import udp_drops
from tests.testbed import ROOT, Bed, TestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

PORT = 5201  # inside the test bed's own namespaces: no other test can hold it


BED = Bed(server_port=PORT, needs=("nft",))


def test_loss_sweep_with_emulated_loss(bed: TestBed, tmp_path: Path) -> None:
    db = tmp_path / "loss.sqlite3"
    sweep = ["run", "--peer", bed.B4, "--port", str(PORT), "--protocol", "udp"]
    sweep += ["--vary", "loss", "--values", "0,20", "--runs", "1", "--duration", "2"]
    sweep += ["--bitrate", "20M", "--length", "1000", "--db", str(db)]
    before = udp_drops(bed.b)
    done = subprocess.run(
        bed.linklab(bed.a, *sweep), cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    # On a busy computer the receiving iperf3 server's socket may overflow while it waits for a
    # core (the kernel counts each such datagram): that loss is the computer's, not nftables'.
    dropped = udp_drops(bed.b) - before
    with Database(db, readonly=True) as opened:
        store = SessionStore(opened)
        (session,) = store.list_sessions()
        runs = {r.value: r for r in store.runs(session.id)}
        assert session.status is SessionStatus.COMPLETED
    busy = {value: 100 * dropped / (run.metrics.packets or 1) for value, run in runs.items()}
    assert runs[0.0].metrics.loss_pct is not None
    assert runs[0.0].metrics.loss_pct < 2 + busy[0.0], (runs[0.0].metrics, dropped)
    assert runs[20.0].metrics.loss_pct is not None
    assert 20 - 3 <= runs[20.0].metrics.loss_pct <= 20 + 3 + busy[20.0], (
        runs[20.0].metrics,
        dropped,
    )
    assert "-l" in runs[20.0].argv  # the engine ran as usual; the loss came from nftables
    tables = subprocess.run(
        ["ip", "netns", "exec", bed.a, "nft", "list", "tables"],
        capture_output=True,
        text=True,
        timeout=20,
    ).stdout
    assert TABLE not in tables  # the rule is gone after the session
