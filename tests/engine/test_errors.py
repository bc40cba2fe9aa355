"""Sentences of the typed engine errors: what happened, then what to do."""

from __future__ import annotations

import pytest

from app.engine.errors import (
    ClosedBeforeStart,
    DataConnectionFailed,
    EngineError,
    ImpossibleValue,
    Interrupted,
    ServerBusy,
)
from app.engine.iperf3 import Iperf3Driver
from app.engine.iperf3_errors import NotIperf3

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


@pytest.mark.parametrize(
    "err",
    [
        ServerBusy("10.0.0.5", 5201, *IPERF3_SERVER),
        ClosedBeforeStart("10.0.0.5", 5201),
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
