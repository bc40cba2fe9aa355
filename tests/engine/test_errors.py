"""Sentences of the typed engine errors: what happened, then what to do."""

from __future__ import annotations

import pytest

from app.engine.errors import (
    ClosedBeforeStart,
    DataConnectionFailed,
    EngineError,
    ImpossibleValue,
    Interrupted,
    NotIperf3,
    ServerBusy,
)


def test_busy_server_says_another_client_is_testing() -> None:
    err = ServerBusy("10.0.0.5", 5201)
    assert err.transient
    assert "another client is testing against it right now" in str(err)
    assert "iperf3 -s -p 5202" in str(err)
    assert "iperf3 -s -p 65534" in str(ServerBusy("10.0.0.5", 65535))


@pytest.mark.parametrize(
    "err",
    [
        ServerBusy("10.0.0.5", 5201),
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
