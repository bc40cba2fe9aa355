"""A study with iperf3 3.1 (no --connect-timeout, no --forceflush), as the README promises."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app.domain.net import Protocol
from app.domain.plan import Peer, Plan
from app.domain.records import SessionStatus
from app.engine.drivers.registry import registry
from app.engine.process.tools import EngineSettings
from app.store.sessions import SessionStore
from app.study.sweep.runner import StudyRunner
from tests.engine.engine_replay import ENGINE_OUTPUTS, iperf3_3_1_3

pytestmark = [
    pytest.mark.skipif(
        not ENGINE_OUTPUTS.is_dir(),
        reason=f"the real engine outputs are not beside the repository ({ENGINE_OUTPUTS})",
    ),
    pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts"),
    pytest.mark.usefixtures("no_engine_left"),
]


def test_a_udp_study_runs_with_iperf3_3_1(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The iperf3 in Settings: the driver finds it as a user's own would be found.
    settings = EngineSettings.of({"iperf3": iperf3_3_1_3(tmp_path / "engine")})
    plan = Plan(
        peer=Peer("127.0.0.1"),
        protocols=(Protocol.UDP,),
        values=(1408,),
        repetitions=1,
        duration_s=3,
        bitrate_bps=10_000_000,
    )
    outcome = StudyRunner(store, plan, drivers=registry(settings)).run()
    assert outcome.status is SessionStatus.COMPLETED, outcome.reason
    (run,) = store.runs(outcome.session_id)
    assert run.ok and run.engine_version == "3.1.3"
    assert "--connect-timeout" not in run.argv and "-J" in run.argv
    # What arrived, not what was sent: 381 of 441 datagrams.
    assert run.metrics.throughput_bps == pytest.approx(9697822.025529 * 381 / 441)
    assert run.metrics.loss_pct == pytest.approx(100 * 60 / 441)
    rows = store.db.query("SELECT flows_json FROM runs WHERE id = ?", (run.id,))
    (flow,) = json.loads(rows[0]["flows_json"])
    assert flow["receiver_derived"] == "loss counters"
