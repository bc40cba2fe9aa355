"""Intervals that carry no bytes count as silence: a stand-in iperf3 that goes on reporting
empty intervals (as iperf3 does behind a firewall that drops everything) has its run ended,
with the samples so far; one direction still carrying data is no silent link."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app.domain.net import Direction, Protocol
from app.domain.results import Sample
from app.engine.drivers.iperf3.driver import silence_s, start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.errors import DataStopped, EngineFailed
from app.engine.process.tools import Capability, Source, Tool
from app.engine.readings.run import SILENT_DATA_S
from tests.engine.engine_replay import FakeEngine, Replay

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts"),
    pytest.mark.usefixtures("no_engine_left"),
]


def _interval(start: int, up: int, down: int | None = None) -> str:
    def total(count: int) -> dict[str, float]:
        return {"start": start, "end": start + 1, "bytes": count, "bits_per_second": count * 8}

    data: dict[str, object] = {"streams": [], "sum": total(up)}
    if down is not None:
        data["sum_bidir_reverse"] = total(down)
    return json.dumps({"event": "interval", "data": data})


def _engine(folder: Path, lines: list[str]) -> Tool:
    recording = folder / "recording.jsonl"
    recording.write_text("\n".join(lines) + "\n")
    script = FakeEngine([Replay(recording)]).write(folder)
    caps = frozenset({Capability.JSON_STREAM, Capability.BIDIR})
    return Tool("iperf3", str(script), (3, 17), "iperf 3.17", Source.SETTINGS, caps)


def test_empty_intervals_end_the_run_with_what_came_before(tmp_path: Path) -> None:
    lines = [_interval(t, 125_000) for t in range(3)]
    lines += [_interval(t, 0) for t in range(3, 30)]
    run = start_iperf3(_engine(tmp_path, lines), Iperf3Options(host="127.0.0.1", duration_s=30))
    seen: list[Sample] = []
    with pytest.raises(DataStopped) as info:
        seen.extend(e for e in run.events() if isinstance(e, Sample))
    assert f"the last {SILENT_DATA_S:.0f} s of intervals carried 0 bytes" in str(info.value)
    assert "stopped arriving" in str(info.value) and "samples so far are kept" in str(info.value)
    # Passed on as they came: 3 with data, then empty ones until SILENT_DATA_S of them.
    assert [s.bytes for s in seen] == [125_000] * 3 + [0] * int(SILENT_DATA_S)
    assert info.value.detail is not None and _interval(2, 125_000) in info.value.detail


def test_one_direction_still_flowing_is_no_silence(tmp_path: Path) -> None:
    lines = [_interval(t, 0, 125_000) for t in range(12)]
    opts = Iperf3Options(host="127.0.0.1", duration_s=12, direction=Direction.BIDIR)
    run = start_iperf3(_engine(tmp_path, lines), opts)
    samples: list[Sample] = []
    with pytest.raises(EngineFailed, match="without a summary"):  # the stand-in prints none
        samples.extend(e for e in run.events() if isinstance(e, Sample))
    assert len(samples) == 24  # every interval passed on: the run went to its end


def test_silence_allows_for_slow_udp_and_long_intervals() -> None:
    assert silence_s(Iperf3Options(host="h")) == SILENT_DATA_S
    assert silence_s(Iperf3Options(host="h", interval_s=10.0)) == 20.0
    # 1408-byte datagrams at 1 kbit/s: one every 11 s; three of them before it counts.
    slow = Iperf3Options(host="h", protocol=Protocol.UDP, length=1408, bitrate_bps=1000)
    assert silence_s(slow) == pytest.approx(3 * 8 * 1408 / 1000)
