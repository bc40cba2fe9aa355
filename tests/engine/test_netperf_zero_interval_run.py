"""A netperf run whose interim results include a block of zero length goes on to its end: the
block adds no sample, and the run's figures are netperf's own final result."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.engine.drivers.netperf.driver import start_netperf
from app.engine.drivers.netperf.options import NetperfOptions, NetperfTest
from app.engine.process.tools import Capability, Source, Tool
from tests.engine.engine_replay import HOST, FakeEngine, Replay
from tests.engine.test_netperf_parse import _with_zero_interval_block

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="stand-in engines are shebang scripts"
)


def test_run_with_a_zero_length_interim_block_succeeds(tmp_path: Path) -> None:
    recording = tmp_path / "netperf-zero-interval.txt"
    recording.write_text("\n".join(_with_zero_interval_block("keyval_tcp_stream_v4.txt")) + "\n")
    script = FakeEngine([Replay(recording)], name="netperf").write(tmp_path / "bin")
    tool = Tool(
        "netperf", str(script), (2, 7, 0), "2.7.0", Source.SETTINGS,
        frozenset({Capability.INTERIM}),
    )  # fmt: skip
    run = start_netperf(tool, NetperfOptions(host=HOST, test=NetperfTest.TCP_STREAM))
    result = run.run()
    assert len(result.samples) == 3
    assert [round(s.end_s, 3) for s in result.samples] == [1.006, 2.038, 3.0]
    (flow,) = result.summary.flows
    assert flow.sender_bps == pytest.approx(8991.37e6)
    assert "NETPERF_INTERVAL[2]=0.000" in result.raw_output
