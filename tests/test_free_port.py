"""The tests' ports: each process its own block below the system's ephemeral range, the next
free one at each call."""

from __future__ import annotations

import socket

from tests.conftest import _port_block, free_port


def test_successive_ports_differ_and_stay_in_this_processs_block() -> None:
    block = _port_block()
    ports = [free_port() for _ in range(5)]
    assert len(set(ports)) == 5 and all(p in block for p in ports)
    assert block.stop <= 32768  # below Linux's ephemeral range: no outgoing connection takes one


def test_a_taken_port_is_passed_over() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        port = free_port()
        taken.bind(("127.0.0.1", port + 1 if port + 1 in _port_block() else port))
        taken.listen()
        held = taken.getsockname()[1]
        assert all(free_port() != held for _ in range(3))
