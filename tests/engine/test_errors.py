"""Sentences of the typed engine errors: what happened, then what to do."""

from __future__ import annotations

import pytest

from app.engine.drivers.iperf3.driver import Iperf3Driver
from app.engine.drivers.iperf3.errors import NotIperf3, closed_before_start
from app.engine.drivers.netperf.errors import DataConnectionFailed
from app.engine.errors import (
    ClosedBeforeStart,
    EngineError,
    ImpossibleValue,
    Interrupted,
    ServerBusy,
)

#: How iperf3's driver names its server and the command that starts one.
IPERF3_SERVER = (Iperf3Driver.server_label, Iperf3Driver.server_command)


def test_busy_server_says_another_client_is_testing() -> None:
    err = ServerBusy("10.0.0.5", 5201, *IPERF3_SERVER)
    assert err.transient
    assert str(err) == (
        "The iperf3 server at 10.0.0.5 port 5201 is busy: another client is testing against "
        "it right now, and an iperf3 server runs one test at a time. Wait for that test to "
        "end (LinkLab tries again by itself), or start a second server on the peer on another "
        "port (iperf3 -s -p 5202) and use that port."
    )
    assert "iperf3 -s -p 65534" in str(ServerBusy("10.0.0.5", 65535, *IPERF3_SERVER))


def test_a_connection_closed_before_an_iperf3_test_says_what_may_listen_there() -> None:
    err = closed_before_start("10.0.0.5", 5201, Iperf3Driver.server_label)
    assert isinstance(err, ClosedBeforeStart) and err.kind == "ClosedBeforeStart"
    assert str(err) == (
        "The peer 10.0.0.5 accepted the connection on port 5201, then closed it before the "
        "test started: the program listening there may not be an iperf3 server (a device's "
        "built-in iperf server, such as lwIP's, closes the connection this way), the iperf3 "
        "server may be a release too far from this one, or a firewall may cut the test "
        "connections. Check what listens on port 5201 on the peer and run the same iperf3 "
        "release on both ends, then run again."
    )


@pytest.mark.parametrize(
    "err",
    [
        ServerBusy("10.0.0.5", 5201, *IPERF3_SERVER),
        ClosedBeforeStart("10.0.0.5", 5201, Iperf3Driver.server_label, "iperf3"),
        DataConnectionFailed("10.0.0.5", 12865),
        Interrupted("iperf3"),
        NotIperf3("Client connecting to 10.0.0.5, TCP port 5001"),
        ImpossibleValue("iperf3", "throughput", "1e+308 bit/s"),
    ],
)
def test_sentences_say_what_happened_and_what_to_do(err: EngineError) -> None:
    text = str(err)
    assert ":" in text and text.endswith(".")
    assert text[0].isupper() or text.startswith(("iperf3", "netserver"))
