"""netperf reports every interval on a slow link: the argv LinkLab builds, run across a link
shaped to 20 Mbit/s, gives an interim figure about once a second from the start (a count of
bytes to wait for, the earlier form, gave one in 6 s, and none in time on slower links)."""

from __future__ import annotations

import subprocess
import time

import pytest

from app.domain.net import IpVersion
from app.domain.results import Sample
from app.engine.drivers.netperf.driver import build_argv
from app.engine.drivers.netperf.options import NetperfOptions, NetperfTest
from app.engine.drivers.netperf.parse import parse_keyval
from app.engine.drivers.registry import find_tool
from app.engine.process.tools import Tool
from tests.testbed import Bed, TestBed

pytestmark = [pytest.mark.netns, pytest.mark.netperf]

PORT = 12865
SECONDS = 6


BED = Bed(rate_mbit=20)


@pytest.fixture(scope="module", autouse=True)
def netserver_in_b(bed: TestBed, netperf_tool: Tool) -> None:
    """netserver in B on PORT, ended with the test bed; returns once it listens."""
    server = subprocess.Popen(
        ["ip", "netns", "exec", bed.b, find_tool("netserver").path, "-D", "-p", str(PORT)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    bed._procs.append(server)  # ended with the test bed
    listening = ["ip", "netns", "exec", bed.b, "ss", "-Hltn", f"sport = :{PORT}"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and server.poll() is None:
        if subprocess.run(listening, capture_output=True, text=True, timeout=10).stdout.strip():
            return
        time.sleep(0.05)
    raise RuntimeError("netserver did not start listening in the test bed")


@pytest.mark.parametrize(
    ("test", "size"), [(NetperfTest.TCP_STREAM, 1408), (NetperfTest.TCP_STREAM, 128)]
)
def test_interim_figures_come_every_second_on_a_slow_link(
    bed: TestBed, netperf_tool: Tool, test: NetperfTest, size: int
) -> None:
    opts = NetperfOptions(
        host=TestBed.B4,
        port=PORT,
        test=test,
        ip_version=IpVersion.V4,
        duration_s=SECONDS,
        message_size=size,
        interval_s=1.0,
    )
    argv = build_argv(netperf_tool, opts)
    done = subprocess.run(
        ["ip", "netns", "exec", bed.a, *argv], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    samples = [e for e in parse_keyval(done.stdout.splitlines()) if isinstance(e, Sample)]
    assert len(samples) >= SECONDS - 1, done.stdout
    assert samples[0].end_s <= 2.0  # the first figure within two intervals of the start
    assert all(s.end_s - s.start_s <= 1.5 for s in samples)
