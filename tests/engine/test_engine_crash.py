"""An engine that dies of a crash signal mid-run says it crashed, not that the peer or the user
did something: a real iperf3 client against a server of the test's own, sent SIGSEGV after
its first interval as a crash would end it."""

from __future__ import annotations

import os
import signal

import psutil
import pytest

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.results import Sample
from app.engine.drivers.registry import DRIVERS
from app.engine.errors import EngineCrashed
from app.engine.process.servers import LocalServer

pytestmark = pytest.mark.skipif(os.name != "posix", reason="crash signals are POSIX's")


def _client(port: int) -> psutil.Process:
    for process in psutil.Process().children(recursive=True):
        try:
            argv = process.cmdline()
        except psutil.Error:
            continue
        if "-c" in argv and str(port) in argv:
            return process
    raise AssertionError("the iperf3 client is not running")


def test_an_engine_killed_by_a_crash_signal_says_it_crashed(
    iperf3_server_port: tuple[int, LocalServer],
) -> None:
    port, _server = iperf3_server_port
    plan = Plan(
        peer=Peer("127.0.0.1", ports={"iperf3": port}),
        protocols=(Protocol.TCP,),
        ip_versions=(IpVersion.V4,),
        values=(1408,),
        duration_s=10,
    )
    driver = DRIVERS[plan.engine]
    run = driver.start(plan, RunKey(Protocol.TCP, IpVersion.V4, 0, 1))
    with pytest.raises(EngineCrashed) as caught:
        for event in run.events():
            if isinstance(event, Sample):
                _client(port).send_signal(signal.SIGSEGV)
    sentence = caught.value.sentence
    assert sentence.startswith("iperf3 on this computer crashed during the run (SIGSEGV"), sentence
    assert "install another release of iperf3" in sentence
