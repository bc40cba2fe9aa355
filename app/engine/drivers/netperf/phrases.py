"""What LinkLab's sentences outside the driver say of netperf (EngineDriver.phrases): the
options the form's tooltips cite, its tests and what it cannot report."""

from __future__ import annotations

from collections.abc import Mapping

PHRASES: Mapping[str, str] = {
    # A plan setting's option, by the field's key (the form's tooltips, `linklab run --help`).
    "duration": "netperf -l",
    "length": "netperf -m",
    "congestion": "netperf -K",
    "interval": "netperf -D",
    # The Study page's metrics.
    "throughput": "netperf *_STREAM",
    "rtt": "netperf's request/response tests (TCP_RR, UDP_RR)",
    "cpu": "netperf -c -C",
    # `linklab measure --test`, working latency measured by it, a run without the receiver's
    # intervals.
    "test": "netperf test (default: TCP_STREAM or UDP_STREAM by --protocol)",
    "rr_latency": "netperf's request/response test",
    "sender_only": "netperf UDP",
}
