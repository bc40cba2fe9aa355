"""Pure parser for netperf's omni keyval output (-k) with -D interim results."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from app.domain.net import Flow
from app.domain.results import (
    EngineFailure,
    EngineMessage,
    FlowSummary,
    ParseEvent,
    RunSummary,
    Sample,
)
from app.engine.errors import ParseError
from app.engine.process.lines import split_lines
from app.engine.readings.numbers import figure

ENGINE = "netperf"

_INTERIM = re.compile(r"^NETPERF_(INTERIM_RESULT|UNITS|INTERVAL|ENDING)\[(\d{1,9})\]=(.*)$")
_KEYVAL = re.compile(r"^([A-Z][A-Z0-9_]*)=(.*)$")
_POWER_UNITS = re.compile(r"^(10|2)\^(\d{1,2})(bits|Bytes)/s$")
#: netperf's -f letters G/M/K count bytes in powers of 1024 (netlib.c), g/m/k bits in 1000s.
_BYTE_UNITS = {"GBytes/s": 8 * 2**30, "MBytes/s": 8 * 2**20, "KBytes/s": 8 * 2**10, "Bytes/s": 8}
TRANSACTIONS = "Trans/s"

# netperf prints its failures on stdout, one or more lines each, e.g.
# "establish control: are you sure there is a netserver listening on ... at port ...?" and
# "resolve_host: could not resolve host ..." followed by a tab-indented getaddrinfo line.
_FAILURE_WORDS = (
    "establish control",
    "establish_control",
    "resolve_host",
    "could not resolve",
    "getaddrinfo",
    "send_data",
    "recv_data",
    "recv_response",
    "receive_response",
    "data send error",
    "data recv error",
    "could not",
    "failed",
    "error",
    "unable",
    "invalid option",
    "errno",
)


def is_failure_line(line: str) -> bool:
    lowered = line.lower()
    if "warning" in lowered:
        return False
    return any(word in lowered for word in _FAILURE_WORDS)


def units_factor(units: str) -> float | None:
    """Bits per second in one unit of netperf's THROUGHPUT_UNITS; None for Trans/s.

    Raises ParseError for a unit LinkLab does not know, so that no value is misread.
    """
    units = units.strip()
    if units == TRANSACTIONS:
        return None
    if units in _BYTE_UNITS:
        return float(_BYTE_UNITS[units])
    match = _POWER_UNITS.match(units)
    if match:
        base, exponent, kind = match.groups()
        factor = float(int(base) ** int(exponent))
        return factor * 8 if kind == "Bytes" else factor
    raise ParseError(ENGINE, f"unknown throughput unit {units[:40]!r}")


def number(text: str | None, what: str = "figure") -> float | None:
    """A finite, non-negative number, or None when absent or negative (netperf prints -1 for an
    unknown value); text that is no number ("nan", "inf", "true") raises ImpossibleValue."""
    return figure(text, ENGINE, what, negative_unknown=True)


def count(text: str | None, what: str = "count") -> int | None:
    value = number(text, what)
    if value is None or not value.is_integer():
        return None
    return int(value)


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) and value >= 0 else None


@dataclass
class _Interim:
    index: int
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return all(k in self.fields for k in ("INTERIM_RESULT", "UNITS", "INTERVAL"))


@dataclass
class _State:
    elapsed_s: float = 0.0
    last_index: int = -1
    pending: _Interim | None = None
    failure: list[str] = field(default_factory=list)
    # Each failure block, and whether it came before the first result line.
    failures: list[tuple[str, bool]] = field(default_factory=list)
    summary: dict[str, str] = field(default_factory=dict)


def parse_keyval(lines: Iterable[str]) -> Iterator[ParseEvent]:
    """Turn netperf -k output into Samples (one per interim result), then one RunSummary.

    Failure lines become one EngineFailure (continuation lines joined); the test banner and
    any other text become EngineMessages. netperf stops at a real failure before it prints
    results, so failure words ahead of complete results were a warning it carried on after
    (e.g. "enable_enobufs failed: getprotobyname" where /etc/protocols lacks "ip"): those
    become EngineMessages too. Raises only ParseError for malformed input.
    """
    state = _State()
    for raw in split_lines(lines):
        if not isinstance(raw, str):
            raise ParseError(ENGINE, "a line that is not text")
        line = raw.rstrip("\r\n")
        if state.failure and line[:1].isspace() and line.strip():
            state.failure.append(line.strip())
            continue
        interim = _INTERIM.match(line)
        keyval = None if interim else _KEYVAL.match(line)
        failure = interim is None and keyval is None and is_failure_line(line)
        if state.failure and not failure:
            _flush_failure(state)
        if interim is not None:
            yield from _interim_line(state, interim[1], int(interim[2]), interim[3])
            continue
        yield from _flush_interim(state)
        if keyval is not None:
            state.summary[keyval[1]] = keyval[2]
        elif failure:
            state.failure.append(line.strip())
        elif line.strip():
            yield EngineMessage(line.strip())
    # A block cut short by the end of output (netperf killed mid-print) is dropped.
    if state.pending is not None and state.pending.complete:
        yield from _flush_interim(state)
    if state.failure:
        _flush_failure(state)
    complete = "THROUGHPUT" in state.summary or "TRANSACTION_RATE" in state.summary
    for message, before_results in state.failures:
        if complete and before_results:
            yield EngineMessage(f"netperf warned: {message}")
        else:
            yield EngineFailure(message)
    if state.summary:
        yield summarize(state.summary)


def _flush_failure(state: _State) -> None:
    state.failures.append(("; ".join(state.failure), not state.summary))
    state.failure = []


def _interim_line(state: _State, key: str, index: int, value: str) -> Iterator[Sample]:
    pending = state.pending
    if pending is not None and pending.index != index:
        yield from _flush_interim(state)
        pending = None
    if pending is None:
        if index <= state.last_index:
            raise ParseError(ENGINE, f"interim result {index} after {state.last_index}")
        pending = state.pending = _Interim(index)
    if key in pending.fields:
        raise ParseError(ENGINE, f"interim result {index} repeats {key}")
    pending.fields[key] = value
    if key == "ENDING":
        yield from _flush_interim(state)


def _flush_interim(state: _State) -> Iterator[Sample]:
    pending = state.pending
    if pending is None:
        return
    state.pending = None
    if not pending.complete:
        raise ParseError(ENGINE, f"interim result {pending.index} is incomplete")
    state.last_index = pending.index
    interval = number(pending.fields["INTERVAL"], "interim interval")
    if interval is None:
        raise ParseError(ENGINE, f"interim interval {pending.fields['INTERVAL'][:40]!r}")
    if interval == 0:
        # With -D -1 netperf may print a block whose interval rounds to 0.000: it measured no
        # time, so it is no sample (its figure is not even read); the final result is whole.
        return
    start = state.elapsed_s
    end = start + interval
    if not math.isfinite(end):
        raise ParseError(ENGINE, "interim intervals add up to no finite time")
    state.elapsed_s = end
    factor = units_factor(pending.fields["UNITS"])
    value = number(
        pending.fields["INTERIM_RESULT"], "transaction rate" if factor is None else "throughput"
    )
    if factor is None:  # request/response: a transaction rate
        rtt = _finite(1000.0 / value) if value else None
        yield Sample(start_s=start, end_s=end, flow=Flow.UP, rtt_ms=rtt)
    else:
        bps = _finite(value * factor) if value is not None else None
        # netperf measures its interim results where it sends: the sender's rate.
        yield Sample(start_s=start, end_s=end, flow=Flow.UP, sent_bps=bps)


def summarize(values: Mapping[str, str]) -> RunSummary:
    """The end-of-run keyval block as a RunSummary; missing or unknown values become None."""
    units = values.get("THROUGHPUT_UNITS")
    factor = units_factor(units) if units is not None else None
    is_rr = units is not None and units.strip() == TRANSACTIONS
    if units is None and "TRANSACTION_RATE" in values:
        is_rr = True
    cpu_local = number(values.get("LOCAL_CPU_UTIL"), "CPU load")
    cpu_remote = number(values.get("REMOTE_CPU_UTIL"), "CPU load")
    if is_rr:
        rate = number(values.get("TRANSACTION_RATE"), "transaction rate")
        if rate is None:
            rate = number(values.get("THROUGHPUT"), "transaction rate")
        mean = _ms(values.get("MEAN_LATENCY"))
        if mean is None:
            mean = _ms(values.get("RT_LATENCY"))
        if mean is None and rate:
            mean = _finite(1000.0 / rate)
        return RunSummary(
            rtt_mean_ms=mean,
            rtt_min_ms=_ms(values.get("MIN_LATENCY")),
            rtt_max_ms=_ms(values.get("MAX_LATENCY")),
            cpu_local_pct=cpu_local,
            cpu_remote_pct=cpu_remote,
            transactions_per_s=rate,
        )
    return RunSummary(
        flows=(_stream_flow(values, factor),),
        cpu_local_pct=cpu_local,
        cpu_remote_pct=cpu_remote,
    )


def _ms(microseconds: str | None) -> float | None:
    value = number(microseconds, "round-trip time")
    return value / 1000.0 if value is not None else None


def _bps(text: str | None, factor: float | None) -> float | None:
    value = number(text, "throughput")
    if value is None or factor is None:
        return None
    return _finite(value * factor)


def _stream_flow(values: Mapping[str, str], factor: float | None) -> FlowSummary:
    is_udp = values.get("PROTOCOL", "").strip().upper() == "UDP"
    sender = _bps(values.get("LOCAL_SEND_THROUGHPUT"), factor)
    receiver = _bps(values.get("REMOTE_RECV_THROUGHPUT"), factor)
    # THROUGHPUT is the receiver's count for UDP_STREAM and the sender's for TCP_STREAM.
    overall = _bps(values.get("THROUGHPUT"), factor)
    if is_udp and receiver is None:
        receiver = overall
    if not is_udp and sender is None:
        sender = overall
    packets = lost = None
    loss_pct = None
    if is_udp:
        packets = count(values.get("LOCAL_SEND_CALLS"), "datagram count")
        received = count(values.get("REMOTE_RECV_CALLS"), "datagram count")
        if packets is not None and received is not None and received <= packets:
            lost = packets - received
            loss_pct = 100.0 * lost / packets if packets > 0 else None
    return FlowSummary(
        flow=Flow.UP,
        sender_bps=sender,
        receiver_bps=receiver,
        sender_bytes=count(values.get("LOCAL_BYTES_SENT"), "byte count"),
        receiver_bytes=count(values.get("REMOTE_BYTES_RECVD"), "byte count"),
        lost_packets=lost,
        packets=packets,
        loss_pct=loss_pct,
    )
