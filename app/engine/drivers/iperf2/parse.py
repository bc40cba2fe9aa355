"""iperf 2's client output (-e enhanced reports, -f k) read line by line into samples and a
summary: TCP and UDP, upload (the client sends), -R download and --full-duplex (the client
receives, its lines marked "*"), -P streams added up, the UDP server's report at the end,
--bounceback round trips, with --trip-times the receiver's one-way delay (the avg of its
Latency columns), and a UDP receiver's datagrams out of order (a line of their own after its
report, printed only when there were some). 2.2's columns (in-flight bytes before the
window, intervals in hundredths, failures on numbered lines) and older 2.0 output without -e
(its fewer columns) read too."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from app.domain.net import Flow
from app.domain.results import (
    EngineFailure,
    EngineMessage,
    FlowSummary,
    LateCounts,
    ParseEvent,
    RunSummary,
    Sample,
)
from app.engine.process.lines import split_lines
from app.engine.readings.numbers import figure, figure_int

ENGINE = "iperf"

#: "[  1] ", "[ *1] ", "[SUM] ", "[SUM-2] ", "[FD1] ", "[ CT] ".
#: Possessive: spaces on both sides of an optional "*" would otherwise be tried every way
#: (a "[" and 100,000 spaces took minutes).
_ID = re.compile(r"^\s*+\[\s*+(\*?)\s*+(\d+|SUM(?:-\d+)?|FD\d+|CT)\]\s*(.*)$")
#: "0.0000-1.0000 sec  828416 KBytes  6786384 Kbits/sec  rest".
_REPORT = re.compile(
    r"^(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s+sec\s+(\S+)\s+([KMGT]?)Bytes\s+"
    r"(\S+)\s+([KMGT]?)bits/sec\s*(.*)$"
)
#: UDP receiver: "0.001 ms 0/5589 (0%)" (2.0: "0.017 ms    0/ 5350 (0%)").
_UDP_RECEIVED = re.compile(r"^(\S+)\s+ms\s+(\d+)/\s*(\d+)\s+\((\S+?)%\)")
#: TCP sender with -e: writes/errors, retries, then cwnd/rtt: "6472/0  9  1023K/245(225) us"
#: (2.1), or in-flight/cwnd/rtt with packet counts in brackets: "8579/0  20  127K(2)/1023K(16)/
#: 118(22) us" (2.2).
_TCP_SENT = re.compile(
    r"^\d+/\d+\s+(\d+)\s+(?:[^\s/(]+\(\d+\)/(?=[^\s/]+/))?"
    r"([^\s/(]+?)([KMG]?)(?:\(\d+\))?/(\d+)(?:\(\d+\))?\s+us"
)
#: Bounceback: "10=0.078/0.039/0.343/0.094 ms": count=avg/min/max/stdev.
#: (Each figure without a "/": a long run of them would otherwise be split every way.)
_BOUNCEBACK = re.compile(r"^(\d+)=([^/\s]+)/([^/\s]+)/([^/\s]+)/(\S+)\s+ms")
#: A receiver's Latency avg/min/max/stdev: first in TCP's tail ("3.510/0.043/13.109/1.981 ms
#: (13431/131072)"), after the loss in UDP's ("0.001 ms 1/893 (0.11%) 0.006/0.002/0.179/0.006
#: ms"). iperf 2 prints it without --trip-times too, then between unsynchronised ends.
_LATENCY = re.compile(r"(?:^|\)\s+)(\d+(?:\.\d+)?)/\d+(?:\.\d+)?/\d+(?:\.\d+)?/\S+\s+ms")
#: A UDP receiver's "0.00-1.00 sec  3 datagrams received out-of-order", after its report.
_OUT_OF_ORDER = re.compile(
    r"^(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s+sec\s+(\d+)\s+datagrams\s+received\s+out-of-order"
)
_BYTES = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_BITS = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
#: Words iperf 2 prints when a test fails, sometimes with a zero exit status.
_FAILED = re.compile(
    r"(connect failed|unknown host|did not receive ack|write failed|read failed|"
    r"failed to connect|connection refused|network is unreachable|no route to host|"
    r"invalid option|unrecognized option|ignoring extra argument)",
    re.IGNORECASE,
)


@dataclass
class _Report:
    """One report line of one stream."""

    stream: str
    flow: Flow
    start_s: float
    end_s: float
    bytes: int | None
    bps: float | None
    retransmits: int | None = None
    cwnd_bytes: int | None = None
    rtt_ms: float | None = None
    jitter_ms: float | None = None
    lost: int | None = None
    packets: int | None = None
    bounceback: tuple[int, float, float, float] | None = None  # count, avg, min, max (ms)
    owd_ms: float | None = None  # the receiver's one-way delay, mean (--trip-times)
    out_of_order: int | None = None  # a UDP receiver's (0 unless a line of its own says more)
    passed: bool = False  # in a Sample passed on already


@dataclass
class _State:
    streams: dict[str, float] = field(default_factory=dict)  # stream -> end of its last report
    only: dict[tuple[str, Flow], list[_Report]] = field(default_factory=dict)  # its reports
    totals: dict[tuple[str, Flow], _Report] = field(default_factory=dict)
    server: dict[str, _Report] = field(default_factory=dict)  # UDP server reports, by stream
    pending: dict[tuple[Flow, float], list[_Report]] = field(default_factory=dict)
    server_next: set[str] = field(default_factory=set)  # streams whose next line is the server's
    udp: bool = False
    connected: set[str] = field(default_factory=set)
    trip_times: bool = False  # the test runs with --trip-times: its Latency is one-way delay
    last: dict[str, _Report] = field(default_factory=dict)  # each stream's latest report


def parse_iperf2(lines: Iterable[str]) -> Iterator[ParseEvent]:
    """Samples as the interval reports arrive (streams added up once each has reported the
    interval), then one RunSummary; an EngineFailure for iperf 2's own failure words."""
    state = _State()
    for raw in split_lines(lines):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        lowered = line.lower()
        if "udp port" in lowered and "client connecting" in lowered:
            state.udp = True
        if _FAILED.search(line) and not _ID.match(line):
            yield EngineFailure(line.strip())
            continue
        match = _ID.match(line)
        if match is None:
            if line.lower().startswith(("warn", "warning")):
                yield EngineMessage(f"iperf 2 warned: {line.strip()}")
            continue
        star, stream, rest = match.groups()
        if "did not receive ack" in rest.lower():
            yield EngineFailure(rest.strip())
            continue
        if _FAILED.search(rest) and " connected with " not in rest and not _REPORT.match(rest):
            # 2.2 numbers its failures: "[  1] tcp connect to … failed (Connection refused)".
            yield EngineFailure(rest.strip())
            continue
        if rest.startswith("local ") and " connected with " in rest:
            state.connected.add(stream)
            state.trip_times = state.trip_times or "(trip-times)" in rest
            continue
        if rest.strip() == "Server Report:":
            state.server_next.add(stream)
            continue
        if found := _OUT_OF_ORDER.match(rest.strip()):
            yield from _out_of_order(state.last.get(stream), found)
            continue
        report = _report(stream, Flow.DOWN if star else Flow.UP, rest, state.trip_times)
        if report is None or stream == "CT" or stream.startswith("FD"):
            continue
        state.last[stream] = report
        if stream in state.server_next:
            state.server_next.discard(stream)
            state.server[stream] = report
            continue
        if stream.startswith("SUM"):
            continue  # added up from the streams (iperf 2 leaves some sums out)
        key = (stream, report.flow)
        last_end = state.streams.get(f"{stream}{report.flow}")
        if last_end is not None and report.start_s < last_end - 1e-6:
            state.totals[key] = report  # back to the start: the stream's total
            continue
        state.streams[f"{stream}{report.flow}"] = report.end_s
        state.only.setdefault(key, []).append(report)
        yield from _interval(state, report)
    yield from _flush(state)
    for key, reports in state.only.items():
        if key not in state.totals and len(reports) == 1:
            # One report and no total: a run no longer than one interval (or without -i).
            state.totals[key] = reports[0]
    summary = _summary(state)
    if (
        summary is not None
        and summary.flows
        and not any(f.sender_bytes or f.receiver_bytes for f in summary.flows)
    ):
        # A total of nothing: the connection was made, yet no data went through.
        yield EngineFailure("no data: iperf 2's totals carry 0 bytes")
    if summary is not None:
        yield summary


def _out_of_order(report: _Report | None, found: re.Match[str]) -> Iterator[LateCounts]:
    """The count on the line after a receiver's report, given to that report; passed on as
    LateCounts when the report's sample has been passed on already."""
    start, end, counted = found.groups()
    what = "interval time"
    if report is None or report.out_of_order is None:
        return  # no UDP receiver's report before it
    if (
        abs(report.start_s - _number(start, what)) > 1e-3
        or abs(report.end_s - _number(end, what)) > 1e-3
    ):
        return
    number = _whole(counted, "out-of-order datagram count")
    more, report.out_of_order = number - report.out_of_order, number
    if report.passed and more > 0:
        yield LateCounts((Sample(report.start_s, report.end_s, report.flow, out_of_order=more),))


def _interval(state: _State, report: _Report) -> Iterator[Sample]:
    slot = (report.flow, round(report.start_s, 1))
    waiting = state.pending.setdefault(slot, [])
    waiting.append(report)
    streams = {s for s in state.connected if not s.startswith("SUM")} or {report.stream}
    if len({r.stream for r in waiting}) >= len(streams):
        del state.pending[slot]
        yield _sample(waiting)


def _flush(state: _State) -> Iterator[Sample]:
    for slot in sorted(state.pending, key=lambda s: (s[1], s[0].value)):
        yield _sample(state.pending[slot])
    state.pending.clear()


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _fsum(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _sample(reports: list[_Report]) -> Sample:
    first = reports[0]
    rate = _fsum([r.bps for r in reports])
    sent = first.flow is Flow.UP  # the client's own end: the sender of an upload
    rtts = [r.rtt_ms for r in reports if r.rtt_ms is not None]
    jitters = [r.jitter_ms for r in reports if r.jitter_ms is not None]
    bounce = [r.bounceback for r in reports if r.bounceback is not None]
    delays = [r.owd_ms for r in reports if r.owd_ms is not None]
    for report in reports:
        report.passed = True
    return Sample(
        first.start_s,
        max(r.end_s for r in reports),
        first.flow,
        sent_bps=rate if sent else None,
        received_bps=None if sent else rate,
        bytes=_sum([r.bytes for r in reports]),
        retransmits=_sum([r.retransmits for r in reports]),
        rtt_ms=(bounce[0][1] if bounce else (max(rtts) if rtts else None)),
        cwnd_bytes=_sum([r.cwnd_bytes for r in reports]),
        jitter_ms=max(jitters) if jitters else None,
        lost_packets=_sum([r.lost for r in reports]),
        packets=_sum([r.packets for r in reports]),
        owd_ms=max(delays) if delays else None,
        out_of_order=_sum([r.out_of_order for r in reports]),
    )


def _summary(state: _State) -> RunSummary | None:
    if not state.totals:
        return None
    flows = []
    for flow in (Flow.UP, Flow.DOWN):
        totals = [r for (_, f), r in state.totals.items() if f is flow]
        if not totals:
            continue
        bps = _fsum([r.bps for r in totals])
        size = _sum([r.bytes for r in totals])
        servers = [state.server[r.stream] for r in totals if r.stream in state.server]
        if flow is Flow.UP:
            received = servers if servers else None
            lost = _sum([r.lost for r in received]) if received else None
            packets = _sum([r.packets for r in received]) if received else None
            jitters = [r.jitter_ms for r in received or [] if r.jitter_ms is not None]
            delays = [r.owd_ms for r in received or [] if r.owd_ms is not None]
            flows.append(
                FlowSummary(
                    flow,
                    sender_bps=bps,
                    receiver_bps=_fsum([r.bps for r in received]) if received else None,
                    sender_bytes=size,
                    receiver_bytes=_sum([r.bytes for r in received]) if received else None,
                    retransmits=_sum([r.retransmits for r in totals]),
                    jitter_ms=max(jitters) if jitters else None,
                    lost_packets=lost,
                    packets=packets,
                    loss_pct=100.0 * lost / packets if lost is not None and packets else None,
                    owd_ms=max(delays) if delays else None,
                    out_of_order=_sum([r.out_of_order for r in received]) if received else None,
                )
            )
        else:
            lost = _sum([r.lost for r in totals])
            packets = _sum([r.packets for r in totals])
            jitters = [r.jitter_ms for r in totals if r.jitter_ms is not None]
            delays = [r.owd_ms for r in totals if r.owd_ms is not None]
            flows.append(
                FlowSummary(
                    flow,
                    receiver_bps=bps,
                    receiver_bytes=size,
                    jitter_ms=max(jitters) if jitters else None,
                    lost_packets=lost,
                    packets=packets,
                    loss_pct=100.0 * lost / packets if lost is not None and packets else None,
                    owd_ms=max(delays) if delays else None,
                    out_of_order=_sum([r.out_of_order for r in totals]),
                )
            )
    bounce = [r.bounceback for r in state.totals.values() if r.bounceback is not None]
    if bounce:
        _, avg, low, high = bounce[0]
        return RunSummary(
            flows=(),
            rtt_mean_ms=avg,
            rtt_min_ms=low,
            rtt_max_ms=high,
            transactions_per_s=1000.0 / avg if avg else None,
        )
    return RunSummary(flows=tuple(flows))


def _report(stream: str, flow: Flow, rest: str, trip_times: bool = False) -> _Report | None:
    """One report line, or None for a line that is no report (a header, a note)."""
    match = _REPORT.match(rest.strip())
    if match is None:
        return None
    start, end, amount, byte_unit, rate, bit_unit, tail = match.groups()
    what = "interval time"
    report = _Report(
        stream,
        flow,
        _number(start, what),
        _number(end, what),
        _whole(_number(amount, "byte count") * _BYTES[byte_unit], "byte count"),
        _number(rate, "throughput") * _BITS[bit_unit],
    )
    tail = tail.strip()
    if found := _UDP_RECEIVED.match(tail):
        jitter, lost, total, _ = found.groups()
        report.jitter_ms = _number(jitter, "jitter")
        report.lost = _whole(lost, "lost datagram count")
        report.packets = _whole(total, "datagram count")
        report.out_of_order = 0  # iperf 2 states the count on a line of its own when not 0
    elif found := _TCP_SENT.match(tail):
        retries, cwnd, cwnd_unit, rtt_us = found.groups()
        report.retransmits = _whole(retries, "retransmit count")
        report.cwnd_bytes = _whole(_number(cwnd, "congestion window") * _BYTES[cwnd_unit], "")
        report.rtt_ms = _number(rtt_us, "round-trip time") / 1000.0
    elif found := _BOUNCEBACK.match(tail):
        count, avg, low, high, _ = found.groups()
        report.bounceback = (
            _whole(count, "round trip count"),
            _number(avg, "round-trip time"),
            _number(low, "round-trip time"),
            _number(high, "round-trip time"),
        )
    if trip_times and (found := _LATENCY.search(tail)):
        report.owd_ms = _number(found.group(1), "one-way delay")
    return report


def _number(text: str, what: str) -> float:
    value = figure(text, ENGINE, what)
    assert value is not None  # the patterns never match an empty figure
    return value


def _whole(value: float | str, what: str) -> int:
    number = figure_int(value, ENGINE, what or "figure")
    assert number is not None
    return number
