"""One sum object of iperf3's JSON intervals as a Sample, and the server's JSON report
(--get-server-output) as Samples: shared by the JSON parsers and the text parser, which meets
that report when the server runs with -J."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from typing import Any

from app.domain.net import Flow
from app.domain.results import Sample
from app.engine.errors import ParseError
from app.engine.numbers import measured, measured_int


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


def sum_sample(
    total: Mapping[str, Any], flow: Flow, sends: bool, streams: Iterable[Mapping[str, Any]]
) -> Sample:
    """One interval's sum as the end that reported it counted it: as sent or as received."""
    rtts = [r for s in streams if (r := rtt_ms(s.get("rtt"))) is not None]
    cwnds = [c for s in streams if (c := measured_int(s.get("snd_cwnd"))) is not None]
    start, end = measured(total.get("start")), measured(total.get("end"))
    if start is None or end is None:
        raise ParseError("iperf3", "an interval without start and end times")
    rate = measured(total.get("bits_per_second"))
    return Sample(
        start_s=start,
        end_s=end,
        flow=flow,
        sent_bps=rate if sends else None,
        received_bps=None if sends else rate,
        bytes=measured_int(total.get("bytes")),
        retransmits=measured_int(total.get("retransmits")),
        rtt_ms=statistics.fmean(rtts) if rtts else None,
        cwnd_bytes=sum(cwnds) if cwnds else None,
        jitter_ms=measured(total.get("jitter_ms")),
        lost_packets=measured_int(total.get("lost_packets")),
        packets=measured_int(total.get("packets")),
        omitted=bool(total.get("omitted")),
    )


def rtt_ms(value: object) -> float | None:
    """iperf3 reports RTT in microseconds; 0 means the OS did not say."""
    micro = measured(value)
    return micro / 1000.0 if micro else None
