"""One sum object of iperf3's JSON intervals as a Sample, the server's JSON report
(--get-server-output) as Samples, and the out-of-order datagrams an end counted: shared by
the JSON parsers and the text parser, which meets that report when the server runs with -J."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from typing import Any

from app.domain.net import Flow
from app.domain.results import Sample
from app.engine.errors import ParseError
from app.engine.readings.numbers import figure, figure_int


def far_end_json(doc: Mapping[str, Any]) -> tuple[Sample, ...]:
    """The server's interval reports from its JSON document (--get-server-output), as
    Samples: the server receives the upload and sends the download (and both with --bidir)."""
    start = doc.get("start")
    test = start.get("test_start") if isinstance(start, Mapping) else None
    reverse = bool(test.get("reverse")) if isinstance(test, Mapping) else False
    intervals = doc.get("intervals")
    samples: list[Sample] = []
    # The server's report only adds to the run's own figures: what cannot be read in it is
    # left aside rather than failing the run.
    for interval in intervals if isinstance(intervals, list) else []:
        if not isinstance(interval, Mapping):
            continue
        for key in ("sum", "sum_bidir_reverse"):
            total = interval.get(key)
            if not isinstance(total, Mapping) or total.get("omitted"):
                continue
            sends = total.get("sender")
            if not isinstance(sends, bool):
                sends = reverse if key == "sum" else not reverse
            flow = Flow.DOWN if sends else Flow.UP
            try:
                samples.append(sum_sample(total, flow, sends, ()))
            except ParseError:
                continue
    return tuple(samples)


def out_of_order(end: object, *, received_unsaid: bool) -> int | None:
    """The datagrams out of order an end counted in the UDP streams it received (end.streams[]
    .udp out_of_order, per run only: iperf3 states none per interval). A stream that does not
    say whether it sent (3.1) was received when received_unsaid. None when no received stream
    states a count (TCP, or the counting end's report absent)."""
    streams = end.get("streams") if isinstance(end, Mapping) else None
    counts = []
    for stream in streams if isinstance(streams, list) else []:
        udp = stream.get("udp") if isinstance(stream, Mapping) else None
        if not isinstance(udp, Mapping) or "out_of_order" not in udp:
            continue
        sender = udp.get("sender")
        if sender is False or (not isinstance(sender, bool) and received_unsaid):
            counts.append(count(udp, "out_of_order"))
    known = [c for c in counts if c is not None]
    return sum(known) if known else None


def sum_sample(
    total: Mapping[str, Any], flow: Flow, sends: bool, streams: Iterable[Mapping[str, Any]]
) -> Sample:
    """One interval's sum as the end that reported it counted it: as sent or as received."""
    rtts = [r for s in streams if (r := rtt_ms(s.get("rtt"))) is not None]
    cwnds = [c for s in streams if (c := count(s, "snd_cwnd")) is not None]
    start, end = number(total, "start"), number(total, "end")
    if start is None or end is None:
        raise ParseError("iperf3", "an interval without start and end times")
    rate = number(total, "bits_per_second")
    sample = Sample(
        start_s=start,
        end_s=end,
        flow=flow,
        sent_bps=rate if sends else None,
        received_bps=None if sends else rate,
        bytes=count(total, "bytes"),
        retransmits=count(total, "retransmits"),
        rtt_ms=statistics.fmean(rtts) if rtts else None,
        cwnd_bytes=sum(cwnds) if cwnds else None,
        jitter_ms=number(total, "jitter_ms"),
        lost_packets=count(total, "lost_packets"),
        packets=count(total, "packets"),
        omitted=bool(total.get("omitted")),
    )
    number(total, "seconds")  # read only to refuse what is no duration
    return sample


#: What each figure of iperf3's JSON is, for the sentence that refuses a value that is none.
_WHAT = {
    "start": "interval time",
    "end": "interval time",
    "seconds": "duration",
    "bits_per_second": "throughput",
    "bytes": "byte count",
    "retransmits": "retransmit count",
    "snd_cwnd": "congestion window",
    "rtt": "round-trip time",
    "mean_rtt": "round-trip time",
    "min_rtt": "round-trip time",
    "max_rtt": "round-trip time",
    "jitter_ms": "jitter",
    "lost_packets": "lost datagram count",
    "packets": "datagram count",
    "lost_percent": "loss",
    "out_of_order": "out-of-order datagram count",
    "host_total": "CPU load",
    "remote_total": "CPU load",
}
#: iperf3 counts a datagram that arrives out of order as one loss fewer: an interval's loss
#: count (and percentage) can be negative, which says only that the interval's loss is unknown.
_NEGATIVE_UNKNOWN = frozenset({"lost_packets", "lost_percent"})


def number(obj: Mapping[str, Any], key: str) -> float | None:
    """A figure of iperf3's JSON (ImpossibleValue for one that is no number)."""
    return figure(obj.get(key), "iperf3", _WHAT[key], negative_unknown=key in _NEGATIVE_UNKNOWN)


def count(obj: Mapping[str, Any], key: str) -> int | None:
    """A count of iperf3's JSON (ImpossibleValue for one that is no whole number)."""
    return figure_int(obj.get(key), "iperf3", _WHAT[key], negative_unknown=key in _NEGATIVE_UNKNOWN)


def rtt_ms(value: object) -> float | None:
    """iperf3 reports RTT in microseconds; 0 means the OS did not say."""
    micro = figure(value, "iperf3", "round-trip time")
    return micro / 1000.0 if micro else None
