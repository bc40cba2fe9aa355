"""Engines older or other than the ones LinkLab is built with: iperf3 3.0.x, and iperf 2 under
iperf3's name. Stand-ins answer the probes as those releases do."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.engine.errors import EngineTooOld, NotIperf3
from app.engine.tools import find_tool
from tests.engine.engine_replay import FakeEngine, Probe

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts"),
    pytest.mark.usefixtures("no_engine_left"),
]


def test_iperf3_3_0_is_refused_by_the_probe(tmp_path: Path) -> None:
    script = FakeEngine([], probes=[Probe(("--version",), "iperf 3.0.7\n")]).write(tmp_path)
    with pytest.raises(EngineTooOld, match=r"iperf3 3\.0\.7 .* is too old"):
        find_tool("iperf3", str(script))


def test_iperf_2_is_refused_by_the_probe(tmp_path: Path) -> None:
    version = "iperf version 2.0.13 (21 Jan 2019) pthreads\n"
    script = FakeEngine([], probes=[Probe(("--version",), version)]).write(tmp_path)
    with pytest.raises(NotIperf3) as info:
        find_tool("iperf3", str(script))
    assert "is iperf 2" in str(info.value) and "install iperf3" in str(info.value)
