"""Sentences of the typed engine errors: what happened, then what to do."""

from __future__ import annotations

from app.engine.errors import ServerBusy


def test_busy_server_says_another_client_is_testing() -> None:
    err = ServerBusy("10.0.0.5", 5201)
    assert err.transient
    assert "another client is testing against it right now" in str(err)
    assert "iperf3 -s -p 5202" in str(err)
    assert "iperf3 -s -p 65534" in str(ServerBusy("10.0.0.5", 65535))
    text = str(err)
    assert ":" in text and text.endswith(".")
