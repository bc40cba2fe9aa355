"""Parsers for iperf3's JSON: the live --json-stream events (3.17+) and the one -J document.

Both carry the same objects: `start`, one `interval` per report (streams + sum, and
sum_bidir_reverse with --bidir), and `end` with the totals.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from app.domain.net import Flow
from app.domain.results import (
    EngineFailure,
    EngineMessage,
    FarEndIntervals,
    FlowSummary,
    ParseEvent,
    RunSummary,
    Sample,
)
from app.engine.drivers.iperf3 import udp_totals
from app.engine.drivers.iperf3.parse_text import far_end_text, out_of_order_text
from app.engine.drivers.iperf3.sums import (
    count,
    far_end_json,
    number,
    out_of_order,
    rtt_ms,
    sum_sample,
)
from app.engine.errors import ParseError
from app.engine.process.lines import split_lines

_MAX_DOCUMENT = 64 * 1024 * 1024


class _Context:
    """What the start event tells about the run, needed to label later flows."""

    def __init__(self) -> None:
        self.reverse = False
        self.bidir = False
        self.streams = 1
        self.started = False
        # What this end received, from its own UDP interval reports (for old -J output).
        self.received_bytes = 0
        self.received_s = 0.0
        # The datagrams out of order the server counted in what it received (the upload),
        # from its report (--get-server-output).
        self.far_out_of_order: int | None = None

    def learn(self, start: object) -> None:
        if not isinstance(start, Mapping):
            return
        self.started = True
        test = start.get("test_start")
        if isinstance(test, Mapping):
            self.reverse = bool(test.get("reverse"))
            self.bidir = bool(test.get("bidir"))
            streams = test.get("num_streams")
            self.streams = streams if isinstance(streams, int) and streams > 1 else 1

    @property
    def main_flow(self) -> Flow:
        return Flow.DOWN if self.reverse and not self.bidir else Flow.UP


def parse_stream(lines: Iterable[str]) -> Iterator[ParseEvent]:
    """Parse `iperf3 --json-stream` output: one {"event": ..., "data": ...} object per line."""
    context = _Context()
    for line in split_lines(lines):
        if not isinstance(line, str):
            raise ParseError("iperf3", "a line that is not text")
        text = line.strip()
        if not text:
            continue
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            if text.startswith("iperf3: "):
                yield EngineFailure(text.split(" - ", 1)[-1])
                continue
            raise ParseError("iperf3", "a line of --json-stream output that is not JSON") from None
        if not isinstance(obj, Mapping) or not isinstance(obj.get("event"), str):
            raise ParseError("iperf3", "a --json-stream line without an event name")
        yield from _event(obj["event"], obj.get("data"), context)


def parse_document(lines: Iterable[str]) -> Iterator[ParseEvent]:
    """Parse `iperf3 -J` output, which arrives as one document when the run ends."""
    parts: list[str] = []
    size = 0
    for line in split_lines(lines):
        if not isinstance(line, str):
            raise ParseError("iperf3", "a line that is not text")
        size += len(line) + 1
        if size > _MAX_DOCUMENT:
            raise ParseError("iperf3", "a JSON document larger than 64 MiB")
        parts.append(line)
    text = "\n".join(parts).strip()
    if not text:
        return
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        raise ParseError("iperf3", "JSON output that is not valid JSON") from None
    if not isinstance(doc, Mapping):
        raise ParseError("iperf3", "JSON output that is not an object")
    context = _Context()
    yield from _event("start", doc.get("start"), context)
    intervals = doc.get("intervals")
    if isinstance(intervals, list):
        for interval in intervals:
            yield from _event("interval", interval, context)
    for name in ("server_output_json", "server_output_text"):
        if name in doc:
            yield from _event(name, doc[name], context)
    if "error" in doc:
        yield from _event("error", doc.get("error"), context)
    else:
        yield from _event("end", doc.get("end"), context)


def _event(name: str, data: Any, context: _Context) -> Iterator[ParseEvent]:
    if name == "start":
        context.learn(data)
        if isinstance(data, Mapping):
            connecting = data.get("connecting_to")
            if isinstance(connecting, Mapping):
                host, port = connecting.get("host"), connecting.get("port")
                yield EngineMessage(f"Connecting to host {host}, port {port}")
    elif name == "interval":
        yield from _interval_samples(data, context)
    elif name == "end":
        if isinstance(data, Mapping) and data:
            summary = _summary(data, context)
            for flow in summary.flows:
                if (note := udp_totals.note(flow)) is not None:
                    yield EngineMessage(note)
            yield summary
    elif name == "error":
        yield EngineFailure(str(data) if data is not None else "unknown error")
    elif name == "server_output_json" and isinstance(data, Mapping):
        context.far_out_of_order = out_of_order(
            data.get("end"), received_unsaid=not context.reverse
        )
        if far := far_end_json(data):
            yield FarEndIntervals(far)
    elif name == "server_output_text" and isinstance(data, str):
        lines = data.splitlines()
        context.far_out_of_order = out_of_order_text(lines)
        if far := far_end_text(lines, reverse=context.reverse, streams=context.streams):
            yield FarEndIntervals(far)
    # Unknown future events: nothing to measure.


def _interval_samples(data: Any, context: _Context) -> Iterator[Sample]:
    if not isinstance(data, Mapping):
        raise ParseError("iperf3", "an interval that is not an object")
    streams = data.get("streams")
    streams = [s for s in streams if isinstance(s, Mapping)] if isinstance(streams, list) else []
    main = context.main_flow
    total = data.get("sum")
    if not context.started and isinstance(total, Mapping) and total.get("sender") is False:
        main = Flow.DOWN  # a fragment without its start event: this end received (-R)
    sums: list[tuple[Flow, Any]] = [(main, total)]
    if context.bidir or "sum_bidir_reverse" in data:
        sums = [(Flow.UP, data.get("sum")), (Flow.DOWN, data.get("sum_bidir_reverse"))]
    elif isinstance(total, Mapping) and "jitter_ms" in total and not total.get("omitted"):
        _count_received(total, context)
    for flow, total in sums:
        if not isinstance(total, Mapping):
            continue
        own = [s for s in streams if _stream_flow(s, context) is flow]
        sends = total.get("sender")
        if not isinstance(sends, bool):  # iperf3 3.6 and older do not say
            sends = flow is Flow.UP and "jitter_ms" not in total
        yield sum_sample(total, flow, sends, own)


def _count_received(total: Mapping[str, Any], context: _Context) -> None:
    """UDP intervals with a jitter figure are this end's receiving reports."""
    received = count(total, "bytes")
    seconds = number(total, "seconds")
    if seconds is None:
        start, end = number(total, "start"), number(total, "end")
        seconds = end - start if start is not None and end is not None else None
    if received is not None and seconds is not None:
        context.received_bytes += received
        context.received_s += seconds


def _stream_flow(stream: Mapping[str, Any], context: _Context) -> Flow:
    sender = stream.get("sender")
    if isinstance(sender, bool) and context.bidir:
        return Flow.UP if sender else Flow.DOWN
    return context.main_flow


def _summary(end: Mapping[str, Any], context: _Context) -> RunSummary:
    flows = [_flow_summary(end, context.main_flow if not context.bidir else Flow.UP, "", context)]
    if context.bidir or "sum_sent_bidir_reverse" in end:
        flows.append(_flow_summary(end, Flow.DOWN, "_bidir_reverse", context))
    # Each end counts what it received: this end the download, the server the upload.
    ooo = {
        Flow.DOWN: out_of_order(end, received_unsaid=context.reverse),
        Flow.UP: context.far_out_of_order,
    }
    flows = [
        replace(f, out_of_order=ooo[f.flow]) if f is not None and f.packets is not None else f
        for f in flows
    ]
    rtt_mean: list[float] = []
    rtt_min: list[float] = []
    rtt_max: list[float] = []
    streams = end.get("streams")
    for stream in streams if isinstance(streams, list) else []:
        sender = stream.get("sender") if isinstance(stream, Mapping) else None
        # RTT is known only where this end sent (the client's own sockets).
        if not isinstance(sender, Mapping) or sender.get("sender") is False:
            continue
        for key, bucket in (("mean_rtt", rtt_mean), ("min_rtt", rtt_min), ("max_rtt", rtt_max)):
            if (value := rtt_ms(sender.get(key))) is not None:
                bucket.append(value)
    cpu = end.get("cpu_utilization_percent")
    cpu = cpu if isinstance(cpu, Mapping) else {}
    return RunSummary(
        flows=tuple(f for f in flows if f is not None),
        rtt_mean_ms=statistics.fmean(rtt_mean) if rtt_mean else None,
        rtt_min_ms=min(rtt_min) if rtt_min else None,
        rtt_max_ms=max(rtt_max) if rtt_max else None,
        cpu_local_pct=number(cpu, "host_total"),
        cpu_remote_pct=number(cpu, "remote_total"),
    )


def _flow_summary(
    end: Mapping[str, Any], flow: Flow, suffix: str, context: _Context
) -> FlowSummary | None:
    sent = end.get(f"sum_sent{suffix}")
    received = end.get(f"sum_received{suffix}")
    udp = end.get("sum") if not suffix else None  # UDP totals before 3.x added sum_received
    sent = sent if isinstance(sent, Mapping) else {}
    received = received if isinstance(received, Mapping) else {}
    udp = udp if isinstance(udp, Mapping) else {}
    if not sent and not received and not udp:
        return None
    loss = received if "lost_packets" in received else udp
    derive = not received and bool(udp)
    if not sent and udp:
        sent = udp
    for totals in (sent, received):
        number(totals, "seconds")  # read only to refuse what is no duration
    summary = FlowSummary(
        flow=flow,
        sender_bps=number(sent, "bits_per_second"),
        receiver_bps=number(received, "bits_per_second"),
        sender_bytes=count(sent, "bytes"),
        receiver_bytes=count(received, "bytes"),
        retransmits=count(sent, "retransmits"),
        jitter_ms=number(loss, "jitter_ms"),
        lost_packets=count(loss, "lost_packets"),
        packets=count(loss, "packets"),
        loss_pct=number(loss, "lost_percent"),
    )
    if not derive:
        return summary
    if flow is Flow.DOWN and context.received_s > 0:
        return udp_totals.from_intervals(summary, context.received_bytes, context.received_s)
    return udp_totals.from_loss_counters(summary)
