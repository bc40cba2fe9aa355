"""The discovery answer: only to a well-formed request, never larger than it, at a limited
rate, and only from a responder that announces (not this computer's own loopback one)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from app.engine.latency.echo import LOOPBACK, EchoResponder, request
from app.engine.serving.discovery import (
    DISCOVER_SIZE,
    PER_SOURCE_BURST,
    Announcer,
    FoundPeer,
    announcement,
    discover_request,
    nearest_first,
    parse_announcement,
    serve_facts,
)

FACTS = serve_facts("lab-pc2", {"iperf3": 5201, "netperf": 12865, "iperf2": 5001}, 5200, "1.0")


@pytest.fixture
def announcing() -> Iterator[EchoResponder]:
    echo = EchoResponder(0, LOOPBACK, announce=Announcer(lambda: FACTS))
    echo.start()
    try:
        yield echo
    finally:
        echo.stop()


def ask(port: int, data: bytes, count: int = 1) -> list[bytes]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _ in range(count):
            sock.sendto(data, ("127.0.0.1", port))
        sock.settimeout(0.5)
        got = []
        while True:
            try:
                got.append(sock.recv(4096))
            except TimeoutError:
                return got


def test_an_announcement_names_the_computer_and_its_servers(announcing: EchoResponder) -> None:
    [reply] = ask(announcing.port, discover_request())
    assert len(reply) <= DISCOVER_SIZE
    found = parse_announcement(reply, "127.0.0.1")
    assert found is not None
    assert (found.name, found.address) == ("lab-pc2", "127.0.0.1")
    # The ports by engine, keyed as a peer's ports are; said as the Ports row names them.
    assert found.engines == {"iperf3": 5201, "netperf": 12865, "iperf2": 5001}
    assert found.engine_words == "iperf3 port 5201, netserver port 12865, iperf 2 port 5001"
    assert found.echo_port == 5200
    # The echo still answers its probes beside it.
    assert len(ask(announcing.port, request(1, 1))) == 1
    assert announcing.stats.announced == 1 and announcing.stats.answered == 1


def test_servers_named_by_their_programs_read_as_their_engines() -> None:
    """An announcement naming the servers' programs (iperf3, netserver, iperf) gives the same
    ports by engine; a server no engine here runs is left out."""
    facts = serve_facts("lab-pc3", {"netserver": 12866, "iperf": 5002, "flent": 1}, 5200, "1.0")
    found = parse_announcement(announcement(facts), "192.0.2.7")
    assert found is not None
    assert found.engines == {"netperf": 12866, "iperf2": 5002}
    assert found.engine_labels == ["netserver", "iperf 2"]


def test_many_addresses_are_cut_to_fit_the_request() -> None:
    facts = {**FACTS, "addresses": [f"fd00::{n:x}" for n in range(200)]}
    reply = announcement(facts, DISCOVER_SIZE)
    assert len(reply) <= DISCOVER_SIZE
    found = parse_announcement(reply, "fd00::1")
    assert found is not None and 0 < len(found.addresses) < 200
    assert found.addresses == tuple(facts["addresses"][: len(found.addresses)])


@pytest.mark.parametrize(
    "data",
    [
        discover_request()[:-1],  # short of the padding: its answer would be larger
        discover_request() + b"\0",  # longer than any request
        request(1, 1),  # a probe: echoed, not announced
    ],
)
def test_only_a_padded_request_is_announced(announcing: EchoResponder, data: bytes) -> None:
    for reply in ask(announcing.port, data):
        assert parse_announcement(reply, "127.0.0.1") is None
    assert announcing.stats.announced == 0


def test_answers_are_rate_limited_per_address(announcing: EchoResponder) -> None:
    replies = ask(announcing.port, discover_request(), count=PER_SOURCE_BURST * 4)
    assert len(replies) == PER_SOURCE_BURST  # the burst, then nothing within the half second
    assert announcing.stats.over_rate >= PER_SOURCE_BURST * 3 - 1


def test_a_responder_that_does_not_announce_stays_silent() -> None:
    echo = EchoResponder(0, LOOPBACK)  # this computer's own, for "This computer"
    echo.start()
    try:
        assert ask(echo.port, discover_request()) == []
        assert echo.stats.oversized == 1
    finally:
        echo.stop()


@pytest.mark.parametrize(
    "payload", [b"not json", b"[1, 2]", b'{"engines": {"iperf3": 70000}, "echo_port": "x"}']
)
def test_a_strange_answer_is_read_safely(payload: bytes) -> None:
    head = announcement({}, DISCOVER_SIZE)[:28]
    found = parse_announcement(head + payload, "10.0.0.9")
    if found is not None:
        assert found.engines == {} and found.echo_port == 0 and found.name == "10.0.0.9"


def found_at(source: str, addresses: list[str]) -> FoundPeer:
    facts = {**FACTS, "addresses": addresses}
    found = parse_announcement(announcement(facts), source)
    assert found is not None
    return found


def test_an_answer_by_link_local_multicast_still_gives_the_announced_addresses() -> None:
    """An answer that came only over IPv6 link-local (the IPv4 broadcast did not reach the
    computer): the address to measure is its announced IPv4 address, its IPv6 address the
    global one; the link-local source is kept only as the last resort."""
    found = found_at("fe80::a00:27ff:fe4e:66a1%wk0", ["10.0.2.15", "fd17::2", "fe80::1"])
    assert (found.host, found.ipv4, found.ipv6) == ("10.0.2.15", "10.0.2.15", "fd17::2")
    only6 = found_at("fe80::2%wk0", ["fd17::2"])
    assert (only6.host, only6.ipv4, only6.ipv6) == ("fd17::2", "", "fd17::2")
    bare = found_at("fe80::2%wk0", [])
    assert (bare.host, bare.ipv6) == ("fe80::2%wk0", "fe80::2%wk0")
    by4 = found_at("192.0.2.9", ["192.0.2.9", "2001:db8::9"])
    assert (by4.host, by4.ipv6) == ("192.0.2.9", "2001:db8::9")
    assert by4.to_dict()["ipv4"] == "192.0.2.9" and by4.to_dict()["ipv6"] == "2001:db8::9"


def test_addresses_on_this_computers_networks_come_first() -> None:
    announced = ["172.17.0.1", "10.0.0.5", "2001:db8:1::5", "fd00:1::5"]
    near = nearest_first(announced, ["10.0.0.0/24", "fd00:1::/64"])
    assert near == ("10.0.0.5", "fd00:1::5", "172.17.0.1", "2001:db8:1::5")
    assert nearest_first(announced, []) == tuple(announced)
