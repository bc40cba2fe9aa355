"""What LinkLab must make of real netperf -k output."""

from __future__ import annotations

from app.engine.errors import ConnectTimeout, DataConnectionFailed, NoNetserver
from tests.engine.engine_replay import HOST, Case

NETPERF_CASES = [
    Case(
        "netperf-2.5.0-err-connect-data-socket.txt",
        "2.5.0",
        error=DataConnectionFailed,
        says="refused the data connection",
    ),
    Case(
        "netperf-flent-err-establish-control.txt",
        "2.7.0",
        error=NoNetserver,
        says=f"No netserver answered at {HOST} port 12865",
    ),
    Case(
        "netperf-starry-udp_stream-err-no-response.txt",
        "2.7.0",
        error=ConnectTimeout,
        says=f"No answer from {HOST} on port 12865",
    ),
]
