"""What LinkLab must make of real netperf -k output."""

from __future__ import annotations

from app.engine.errors import ConnectTimeout, NoNetserver
from tests.engine.engine_replay import HOST, Case

NETPERF_CASES = [
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
