"""Parser for iperf3's human-readable output (-V --forceflush), read live line by line.

Used for iperf3 older than 3.17 (Debian 12 ships 3.12), which has no --json-stream. Interval
lines become Samples as they arrive; the summary block becomes one RunSummary. Also read: output
made without -V (no "Starting Test" or "Test Complete" lines), and the UDP summary of iperf3
3.1.7 and older, one line with the sender's count and the receiver's loss but no role word.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

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
from app.engine.drivers.iperf3.errors import NotIperf3
from app.engine.drivers.iperf3.sums import far_end_json, out_of_order
from app.engine.errors import ParseError
from app.engine.process.lines import split_lines
from app.engine.readings.numbers import measured, measured_int, scaled_bits, scaled_bytes

_INTERVAL = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\](?:\[(?P<role>[TR]X-[CS])\])?\s+"
    r"(?P<start>\d+(?:\.\d+)?)-\s*(?P<end>\d+(?:\.\d+)?)\s+sec\s+"
    r"(?P<xfer>\d+(?:\.\d+)?)\s+(?P<xunit>[KMGTkmgt]?Bytes)\s+"
    r"(?P<rate>\d+(?:\.\d+)?)\s+(?P<runit>[KMGTkmgt]?bits/sec)(?P<rest>.*)$"
)
_UDP_RECEIVER = re.compile(
    r"^(?P<jitter>\d+(?:\.\d+)?)\s+ms\s+(?P<lost>-?\d+)/(?P<total>\d+)\s+"
    r"\((?P<pct>[^)%]*)%\)"
)
_TCP_SENDER = re.compile(
    r"^(?P<retr>\d+)(?:\s+(?P<cwnd>\d+(?:\.\d+)?)\s+(?P<cunit>[KMGTkmgt]?Bytes))?"
)
_UDP_SENDER = re.compile(r"^(?P<packets>\d+)\b")
_CPU = re.compile(
    r"^CPU Utilization: local/\w+ (?P<local>\d+(?:\.\d+)?)%.*?remote/\w+ "
    r"(?P<remote>\d+(?:\.\d+)?)%"
)
_STARTING = re.compile(r"^Starting Test: protocol: (?P<proto>\w+), (?P<streams>\d+) streams")
_CONNECTED = re.compile(r"^\[\s*\d+\](?:\[[TR]X-[CS]\])?\s+local\s.*\sconnected to\s")
#: A UDP receiver's count at the end, per stream or summed, printed only when not 0:
#: "[  5]   0.00-10.00  sec  3 datagrams received out-of-order", "[SUM]  0.0-300.0 sec  2452 …".
_OUT_OF_ORDER = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\](?:\[[TR]X-[CS]\])?\s+\d+(?:\.\d+)?-\s*\d+(?:\.\d+)?\s+sec\s+"
    r"(?P<count>\d+)\s+datagrams\s+received\s+out-of-order"
)
_SEPARATOR = "- - - -"
#: What iperf 2 prints and iperf3 never does: the same name on a different program.
_IPERF2 = re.compile(
    r"^(?:Client connecting to \S+, (?:TCP|UDP) port \d+|\[\s*\d+\] Server Report:)"
)
_ERROR = re.compile(r"^iperf3: (?:error|parameter error) - (?P<msg>.*)$")
_INTERRUPT = re.compile(r"^iperf3: interrupt - (?P<msg>.*)$")

#: How many of the latest intervals are remembered to drop a repeat (streams x intervals).
_RECENT = 1024
#: Lines worth showing in a log; everything else is table furniture.
_LOG_PREFIXES = ("Connecting to host", "Reverse mode", "Starting Test", "Time:", "iperf 3", "[ ")


@dataclass
class _Totals:
    sender: dict[str, float | int | None] = field(default_factory=dict)
    receiver: dict[str, float | int | None] = field(default_factory=dict)
    #: iperf3 <= 3.1.7 UDP: one line, the sender's count with the receiver's loss counters.
    combined: bool = False


@dataclass
class _State:
    reverse: bool = False
    streams: int | None = None  # from "Starting Test" (-V)
    connected: int = 0  # "local ... connected to" lines: the stream count without -V
    udp_columns: bool = False
    in_summary: bool = False
    after_separator: bool = False
    #: The latest intervals read (a repeat is printed right after the first): a bounded
    #: window, so that an hour at 0.1 s does not keep a key for every interval.
    seen: dict[tuple[str, str, float, float, bool], None] = field(default_factory=dict)
    # Keyed by flow and by whether the line is a [SUM] line.
    totals: dict[tuple[Flow, bool], _Totals] = field(default_factory=dict)
    cpu_local: float | None = None
    cpu_remote: float | None = None
    #: After "Server output:" (text) or "Server JSON output:" (json): the server's report.
    far: str | None = None
    far_lines: list[str] = field(default_factory=list)
    #: This end's out-of-order datagrams (of the download it received): per stream, summed.
    out_of_order: dict[bool, int] = field(default_factory=dict)
    #: Out-of-order lines in the server's report, until the line after them says whose.
    far_held: list[str] = field(default_factory=list)

    @property
    def stream_count(self) -> int:
        return self.streams if self.streams is not None else max(1, self.connected)


def parse_text(lines: Iterable[str]) -> Iterator[ParseEvent]:
    """Turn iperf3 text output into Samples, log messages, failures and one RunSummary."""
    state = _State()
    finished = False
    for raw in split_lines(lines):
        if not isinstance(raw, str):
            raise ParseError("iperf3", "a line that is not text")
        line = raw.strip()
        if not line:
            continue
        if (match := _ERROR.match(line)) or (match := _INTERRUPT.match(line)):
            yield EngineFailure(match.group("msg").strip())
            continue
        if _IPERF2.match(line):
            raise NotIperf3(line)
        if line.startswith("Server output:"):
            state.far = "text"
            continue
        if line.startswith("Server JSON output:"):
            state.far = "json"
            continue
        if state.far is not None and not line.startswith("iperf Done"):
            match = _INTERVAL.match(line)
            if state.far == "text" and _OUT_OF_ORDER.match(line):
                # Whose it is shows on the next line: the receiver's total it is printed before.
                state.far_held.append(line)
            elif state.far == "text" and match and (match.group("role") or "").endswith("-C"):
                # iperf3 3.12 --bidir prints the client's RX-C totals after the server's report.
                state.in_summary = True
                _interval(match, state)
                _count_out_of_order(state.far_held, state.out_of_order)
                state.far_held.clear()
            else:
                state.far_lines += [*state.far_held, line]
                state.far_held.clear()
            continue
        after_separator, state.after_separator = state.after_separator, False
        if line.startswith(_SEPARATOR):
            state.after_separator = True
            continue
        if line.startswith("Reverse mode"):
            state.reverse = True
        elif match := _STARTING.match(line):
            state.streams = max(1, measured_int(match.group("streams")) or 1)
            state.udp_columns = match.group("proto").upper() == "UDP"
        elif _CONNECTED.match(line):
            state.connected += 1
        elif line.startswith("[ ID]"):
            state.udp_columns = "Datagrams" in line
            # Without -V no "Test Complete" line: the summary is the table after a separator.
            state.in_summary = state.in_summary or after_separator
            continue
        elif line.startswith("Test Complete"):
            state.in_summary = True
            continue
        elif match := _CPU.match(line):
            if state.cpu_local is None:
                state.cpu_local = measured(match.group("local"))
                state.cpu_remote = measured(match.group("remote"))
            continue
        elif line.startswith("iperf Done"):
            finished = True
            continue
        if _OUT_OF_ORDER.match(line):
            _count_out_of_order([line], state.out_of_order)
            continue
        if match := _INTERVAL.match(line):
            sample = _interval(match, state)
            if sample is not None:
                yield sample
            continue
        if line.startswith(_LOG_PREFIXES):
            yield EngineMessage(line)
    state.far_lines += state.far_held
    if far := _far_end(state):
        yield FarEndIntervals(far)
    if finished or state.totals:
        summary = _summary(state)
        for flow in summary.flows:
            if (note := udp_totals.note(flow)) is not None:
                yield EngineMessage(note)
        yield summary


def _count_out_of_order(lines: Iterable[str], counts: dict[bool, int]) -> None:
    """Add the counts of out-of-order lines, by whether they are [SUM] lines."""
    for line in lines:
        if found := _OUT_OF_ORDER.match(line.strip()):
            is_sum = found.group("id") == "SUM"
            counts[is_sum] = counts.get(is_sum, 0) + (measured_int(found.group("count")) or 0)


def out_of_order_text(lines: Iterable[str]) -> int | None:
    """The out-of-order datagrams a UDP receiver's text states at its end (the [SUM] line's
    count, else its streams' added up; 0 when it states none); None for no UDP receiver's."""
    counts: dict[bool, int] = {}
    received = False
    for raw in lines:
        line = raw.strip()
        if _OUT_OF_ORDER.match(line):
            _count_out_of_order([line], counts)
        elif (match := _INTERVAL.match(line)) and _UDP_RECEIVER.match(match.group("rest").strip()):
            received = True
    return counts.get(True, counts.get(False, 0)) if received or counts else None


def _far_out_of_order(state: _State) -> int | None:
    """What the server counted out of order in the upload, from its report."""
    if state.far == "text":
        return out_of_order_text(state.far_lines)
    if state.far == "json":
        try:
            doc = json.loads("\n".join(state.far_lines))
        except (ValueError, RecursionError):
            return None
        end = doc.get("end") if isinstance(doc, dict) else None
        return out_of_order(end, received_unsaid=not state.reverse)
    return None


def _far_end(state: _State) -> tuple[Sample, ...]:
    if state.far == "text":
        return far_end_text(state.far_lines, reverse=state.reverse, streams=state.stream_count)
    if state.far == "json":
        try:
            doc = json.loads("\n".join(state.far_lines))
        except (ValueError, RecursionError):
            # Cut short (the server stopped mid-report): the run's own figures still stand,
            # its samples stay this end's.
            return ()
        return far_end_json(doc) if isinstance(doc, dict) else ()
    return ()


def _flow(role: str | None, state: _State) -> Flow:
    if role is not None:
        return Flow.UP if role.startswith("TX") else Flow.DOWN
    return Flow.DOWN if state.reverse else Flow.UP


def _values(match: re.Match[str], udp_columns: bool) -> tuple[dict[str, float | int | None], str]:
    """The figures of an interval line, and its last word (sender, receiver, (omitted))."""
    rest = match.group("rest").strip()
    role_word = rest.rsplit(None, 1)[-1] if rest else ""
    if rest.endswith("(omitted)"):
        rest = rest[: -len("(omitted)")].strip()
    values: dict[str, float | int | None] = {
        "bps": scaled_bits(match.group("rate"), match.group("runit")),
        "bytes": scaled_bytes(match.group("xfer"), match.group("xunit")),
    }
    if udp := _UDP_RECEIVER.match(rest):
        values["jitter_ms"] = measured(udp.group("jitter"))
        values["lost"] = measured_int(udp.group("lost"))
        values["packets"] = measured_int(udp.group("total"))
        values["loss_pct"] = measured(udp.group("pct"))
    elif udp_columns:
        if sent := _UDP_SENDER.match(rest):
            values["packets"] = measured_int(sent.group("packets"))
    elif tcp := _TCP_SENDER.match(rest):
        values["retransmits"] = measured_int(tcp.group("retr"))
        if tcp.group("cwnd"):
            values["cwnd"] = scaled_bytes(tcp.group("cwnd"), tcp.group("cunit"))
    return values, role_word


def _times(match: re.Match[str]) -> tuple[float, float]:
    start = measured(match.group("start"))
    end = measured(match.group("end"))
    if start is None or end is None:
        raise ParseError("iperf3", "an interval without times")
    return start, end


def _sample(
    start: float, end: float, flow: Flow, sends: bool, values: dict[str, float | int | None]
) -> Sample:
    """One interval as the end that reported it counted it: as sent or as received."""
    rate = _float(values.get("bps"))
    return Sample(
        start_s=start,
        end_s=end,
        flow=flow,
        sent_bps=rate if sends else None,
        received_bps=None if sends else rate,
        bytes=_int(values.get("bytes")),
        retransmits=_int(values.get("retransmits")),
        cwnd_bytes=_int(values.get("cwnd")),
        jitter_ms=_float(values.get("jitter_ms")),
        lost_packets=_int(values.get("lost")),
        packets=_int(values.get("packets")),
    )


def _interval(match: re.Match[str], state: _State) -> Sample | None:
    is_sum = match.group("id") == "SUM"
    # Per-stream lines carry the data when there is one stream; the SUM lines otherwise.
    # Summary lines are all kept, and the SUM ones preferred when there are any.
    if not state.in_summary and is_sum != (state.stream_count > 1):
        return None
    flow = _flow(match.group("role"), state)
    start, end = _times(match)
    values, role_word = _values(match, state.udp_columns)
    omitted = role_word == "(omitted)"
    if state.in_summary and role_word in ("sender", "receiver"):
        totals = state.totals.setdefault((flow, is_sum), _Totals())
        slot = totals.sender if role_word == "sender" else totals.receiver
        if not slot:  # iperf3 3.12 repeats some summary lines; the first one counts
            slot.update(values)
        return None
    if state.in_summary and "lost" in values:
        totals = state.totals.setdefault((flow, is_sum), _Totals())
        if not totals.sender:
            totals.sender.update(values)
            totals.combined = True
        return None
    if state.in_summary:
        return None
    key = (match.group("id"), flow.value, start, end, omitted)
    if key in state.seen:  # iperf3 3.12 may print an interval twice before an error
        return None
    state.seen[key] = None
    if len(state.seen) > _RECENT:
        del state.seen[next(iter(state.seen))]
    # The client sends the upload and receives the download; a UDP line with loss counters
    # is a receiver's report whatever the flow.
    sends = flow is Flow.UP and "lost" not in values
    return replace(_sample(start, end, flow, sends, values), omitted=omitted)


def far_end_text(lines: Iterable[str], *, reverse: bool, streams: int) -> tuple[Sample, ...]:
    """The server's interval reports from its output text (--get-server-output), as Samples:
    the server receives the upload (RX-S) and sends the download (TX-S). Omitted intervals
    and the server's own summary are left out; the client's summary has the totals."""
    samples: list[Sample] = []
    udp_columns = in_summary = after_separator = False
    seen: set[tuple[str, str, float, float]] = set()
    for raw in lines:
        line = raw.strip()
        separator, after_separator = after_separator, False
        if line.startswith(_SEPARATOR):
            after_separator = True
            continue
        if line.startswith("[ ID]"):
            udp_columns = "Datagrams" in line
            in_summary = in_summary or separator
            continue
        match = _INTERVAL.match(line)
        if match is None or in_summary:
            continue
        if (match.group("id") == "SUM") != (streams > 1):
            continue
        role = match.group("role")
        if role is not None:
            flow = Flow.UP if role.startswith("RX") else Flow.DOWN
        else:
            flow = Flow.DOWN if reverse else Flow.UP
        start, end = _times(match)
        values, role_word = _values(match, udp_columns)
        key = (match.group("id"), flow.value, start, end)
        if role_word == "(omitted)" or key in seen:
            continue
        seen.add(key)
        samples.append(_sample(start, end, flow, flow is Flow.DOWN, values))
    return tuple(samples)


def _summary(state: _State) -> RunSummary:
    flows = []
    # Each end counts what it received: this end the download, the server the upload.
    own = state.out_of_order
    ooo = {Flow.DOWN: own.get(True, own.get(False, 0)), Flow.UP: _far_out_of_order(state)}
    for flow in (Flow.UP, Flow.DOWN):
        totals = state.totals.get((flow, True)) or state.totals.get((flow, False))
        if totals is None:
            continue
        sender, receiver = totals.sender, totals.receiver
        # UDP: the receiver line holds the real loss; the sender line says 0/total.
        loss_source = sender if totals.combined else receiver if "lost" in receiver else {}
        summary = FlowSummary(
            flow=flow,
            sender_bps=_float(sender.get("bps")),
            receiver_bps=_float(receiver.get("bps")),
            sender_bytes=_int(sender.get("bytes")),
            receiver_bytes=_int(receiver.get("bytes")),
            retransmits=_int(sender.get("retransmits")),
            jitter_ms=_float(loss_source.get("jitter_ms")),
            lost_packets=_int(loss_source.get("lost")),
            packets=_int(loss_source.get("packets") or sender.get("packets")),
            loss_pct=_float(loss_source.get("loss_pct")),
            out_of_order=ooo[flow] if "lost" in loss_source else None,
        )
        flows.append(udp_totals.from_loss_counters(summary) if totals.combined else summary)
    return RunSummary(
        flows=tuple(flows), cpu_local_pct=state.cpu_local, cpu_remote_pct=state.cpu_remote
    )


def _float(value: float | int | None) -> float | None:
    return None if value is None else float(value)


def _int(value: float | int | None) -> int | None:
    return None if value is None else int(value)
