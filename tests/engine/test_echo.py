"""The latency responder: answers only well-formed probes, never larger, at a limited rate;
refuses a busy port in a sentence; stops and frees its port."""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator

import pytest

from app.engine.errors import EchoPortBusy, EchoStartFailed, EngineError
from app.engine.lan.netinfo import ipv6_available
from app.engine.latency.echo import (
    HEADER,
    HEADER_SIZE,
    KIND_REPLY,
    LOOPBACK,
    MAGIC,
    MAX_PROBE_BYTES,
    PER_SOURCE_BURST,
    PER_SOURCE_RATE,
    EchoResponder,
    RateLimiter,
    answer,
    parse_reply,
    request,
)
from tests.conftest import under_wine


@pytest.fixture
def responder() -> Iterator[EchoResponder]:
    echo = EchoResponder(0, LOOPBACK)
    echo.start()
    try:
        yield echo
    finally:
        echo.stop()


def _client(family: int = socket.AF_INET) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_DGRAM)
    sock.settimeout(1.0)
    return sock


def _replies(sock: socket.socket, quiet_s: float = 0.3) -> list[bytes]:
    """Every datagram that arrives until none has for quiet_s."""
    sock.settimeout(quiet_s)
    got = []
    while True:
        try:
            got.append(sock.recv(4096))
        except TimeoutError:
            return got


def test_answer_is_the_request_with_the_responders_stamp() -> None:
    probe = request(7, 123_456_789, size=100)
    reply = answer(probe, 42)
    assert reply is not None and len(reply) == len(probe) == 100
    assert parse_reply(reply) is not None
    parsed = parse_reply(reply)
    assert parsed is not None
    assert (parsed.seq, parsed.client_ns, parsed.server_ns) == (7, 123_456_789, 42)
    assert reply[HEADER_SIZE:] == probe[HEADER_SIZE:]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"x" * HEADER_SIZE,  # wrong magic
        request(1, 1)[: HEADER_SIZE - 1],  # short
        HEADER.pack(MAGIC, 9, 1, 0, 1, 1, 0),  # unknown version
        HEADER.pack(MAGIC, 1, KIND_REPLY, 0, 1, 1, 5),  # a reply: never answered (no loops)
        request(1, 1) + bytes(MAX_PROBE_BYTES),  # oversized
    ],
)
def test_malformed_or_oversized_is_not_answered(data: bytes) -> None:
    assert answer(data, 1) is None


def test_request_size_is_capped() -> None:
    with pytest.raises(ValueError):
        request(1, 1, size=MAX_PROBE_BYTES + 1)


def test_rate_limiter_per_source_and_global() -> None:
    limiter = RateLimiter(
        per_source_rate=100, per_source_burst=10, global_rate=150, global_burst=15
    )
    t = 1_000_000_000
    verdicts = [limiter.allow("a", t) for _ in range(20)]
    assert verdicts.count("") == 10 and verdicts.count("source") == 10
    # 50 ms later the bucket holds 5 more tokens.
    t += 50_000_000
    assert [limiter.allow("a", t) for _ in range(8)].count("") == 5
    # Another source has its own bucket, but the global one is nearly spent.
    refused = [limiter.allow("b", t) for _ in range(10)]
    assert refused.count("") < 10 and "global" in refused


def test_rate_limiter_remembers_a_bounded_number_of_sources() -> None:
    limiter = RateLimiter(per_source_burst=5, global_rate=1e9, global_burst=10**9, max_sources=3)
    t = 0
    assert all(limiter.allow(f"s{i}", t) == "" for i in range(3))
    assert limiter.allow("s3", t) == "source"  # table full of busy sources
    t += 10**9  # all three buckets have refilled: they are forgotten for a new one
    assert limiter.allow("s3", t) == "" and limiter.sources == 1


def test_echoes_a_probe_with_the_same_size(responder: EchoResponder) -> None:
    with _client() as sock:
        for size in (HEADER_SIZE, 64, MAX_PROBE_BYTES):
            probe = request(size, 99, size)
            sock.sendto(probe, ("127.0.0.1", responder.port))
            reply = sock.recv(4096)
            assert len(reply) == size
            parsed = parse_reply(reply)
            assert parsed is not None and parsed.seq == size and parsed.client_ns == 99
            assert abs(parsed.server_ns - time.time_ns()) < 60e9
    assert responder.stats.answered == 3


@pytest.mark.skipif(not ipv6_available(), reason="IPv6 is not available on this computer")
def test_echoes_over_ipv6(responder: EchoResponder) -> None:
    assert {address for address, _ in responder.bound} == {"127.0.0.1", "::1"}
    with _client(socket.AF_INET6) as sock:
        sock.sendto(request(1, 2), ("::1", responder.port))
        assert parse_reply(sock.recv(4096)) is not None


def test_refuses_oversized_and_malformed(responder: EchoResponder) -> None:
    with _client() as sock:
        target = ("127.0.0.1", responder.port)
        sock.sendto(request(1, 1) + bytes(MAX_PROBE_BYTES), target)  # oversized
        sock.sendto(b"GET / HTTP/1.0\r\n\r\n" + bytes(40), target)  # not a probe
        sock.sendto(struct.pack("!4s", MAGIC), target)  # header cut short
        sock.sendto(HEADER.pack(MAGIC, 1, KIND_REPLY, 0, 1, 1, 5), target)  # a reply
        sock.sendto(request(5, 5), target)  # the only one to answer
        replies = _replies(sock)
    assert [parse_reply(r).seq for r in replies] == [5]  # type: ignore[union-attr]
    stats = responder.stats
    assert (stats.oversized, stats.malformed, stats.answered) == (1, 3, 1)
    assert stats.dropped == 4


def test_burst_is_cut_to_the_bucket(responder: EchoResponder) -> None:
    """1000 probes as fast as one socket can send them: no more replies than the bucket
    holds plus what it refills meanwhile, none larger than its request."""
    with _client() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        started = time.monotonic()
        for seq in range(1000):
            sock.sendto(request(seq, seq, 48), ("127.0.0.1", responder.port))
        elapsed = time.monotonic() - started
        replies = _replies(sock)
    allowed = PER_SOURCE_BURST + PER_SOURCE_RATE * (elapsed + 0.3) + 1
    assert 0 < len(replies) <= allowed
    assert all(len(r) == 48 for r in replies)
    stats = responder.stats
    assert stats.over_rate > 0
    assert stats.answered + stats.over_rate + stats.over_global <= 1000


def test_port_busy_is_a_sentence() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
        echo = EchoResponder(port, LOOPBACK)
        with pytest.raises(EchoPortBusy) as caught:
            echo.start()
    assert isinstance(caught.value, EchoStartFailed) and isinstance(caught.value, EngineError)
    assert f"UDP port {port} is already in use" in str(caught.value)
    assert "latency responder is off" in str(caught.value)
    assert not echo.running


@pytest.mark.skipif(
    under_wine(),
    reason="Wine gap: Wine's bind() accepts an address no interface has, which Windows refuses "
    "(WSAEADDRNOTAVAIL)",
)
def test_address_not_here_is_a_sentence() -> None:
    echo = EchoResponder(0, ["203.0.113.77"])  # TEST-NET-3: no interface of ours has it
    with pytest.raises(EchoStartFailed, match=r"cannot listen on 203\.0\.113\.77"):
        echo.start()


def test_stop_ends_the_thread_and_frees_the_port() -> None:
    echo = EchoResponder(0, ["127.0.0.1"])
    echo.start()
    port = echo.port
    assert echo.running
    echo.stop()
    assert not echo.running
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as again:
        again.bind(("127.0.0.1", port))  # free at once
    with _client() as sock:
        sock.sendto(request(1, 1), ("127.0.0.1", port))
        assert _replies(sock, 0.2) == []
