"""A long run's output lines and samples past the memory bound go to disk and come back whole
and in order, so that an hour at 0.1-s intervals keeps memory flat (benchmarks/
fine_interval_memory.py measures it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.domain.net import Flow
from app.domain.results import Sample
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.process import spool
from app.engine.process.spool import LineSpool, SampleSpool
from app.engine.process.tools import Capability, Source, Tool
from tests.conftest import DATA
from tests.engine.engine_replay import HOST, FakeEngine, Replay

SAMPLES = [
    Sample(0.0, 0.1, Flow.UP, sent_bps=1.5e6, bytes=18750, retransmits=0, rtt_ms=0.25),
    Sample(0.1, 0.2, Flow.DOWN, received_bps=2e6, jitter_ms=0.01, lost_packets=3, packets=99),
    Sample(0.2, 0.3, Flow.UP, cwnd_bytes=4_456_448, owd_ms=1.25, omitted=True),
    Sample(0.3, 0.4),
]


def test_lines_past_the_bound_come_back_whole() -> None:
    lines = [f"line {i}" for i in range(10)] + ["", "tab\tand \u2028 and \x00", "é ✓ \ufffd"]
    kept = LineSpool(keep=3)
    kept.extend(lines)
    assert len(kept) == len(lines) and kept.lines() == lines and list(kept) == lines
    kept.append("after a read")
    assert kept.text() == "\n".join([*lines, "after a read"])
    kept.close()


def test_samples_past_the_bound_come_back_equal() -> None:
    kept = SampleSpool(keep=2)
    for sample in SAMPLES * 3:
        kept.append(sample)
    assert kept.samples() == SAMPLES * 3
    kept.close()


@pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts")
def test_a_run_longer_than_the_bound_keeps_all_its_output_and_samples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = DATA / "iperf3" / "text_tcp_get_server_output.txt"
    script = FakeEngine([Replay(recording)]).write(tmp_path)
    caps = frozenset({Capability.FORCEFLUSH, Capability.CONNECT_TIMEOUT})
    tool = Tool("iperf3", str(script), (3, 12), "iperf 3.12", Source.SETTINGS, caps)

    def run() -> tuple[str, tuple[Sample, ...], bool]:
        result = start_iperf3(tool, Iperf3Options(host=HOST)).run()
        return result.raw_output, result.samples, result.samples_revised

    whole = run()
    monkeypatch.setattr(spool, "MEMORY_LINES", 2)
    monkeypatch.setattr(spool, "MEMORY_SAMPLES", 1)
    assert run() == whole
    assert whole[0].splitlines() == recording.read_text().splitlines()
    assert len(whole[1]) == 3 and whole[2]  # the server's intervals joined in
