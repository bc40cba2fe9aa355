"""The test session's own network (tests/private_network.py): as root on Linux, every test runs
in a network namespace of its own whose loopback is shaped, apart from the computer's network."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.private_network import ENTERED, KEEP_HOST_NETWORK, LOOPBACK_RATE, OWN_V4, OWN_V6

pytestmark = pytest.mark.skipif(
    not os.environ.get(KEEP_HOST_NETWORK, "").startswith(ENTERED),
    reason="the session runs in the computer's own network (not root, not Linux, or asked to)",
)


def _ip(*args: str) -> str:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=True).stdout


def test_the_session_is_in_a_network_of_its_own() -> None:
    ours = os.stat(f"/proc/{os.getpid()}/ns/net").st_ino
    init = int(os.environ[KEEP_HOST_NETWORK].rsplit(" ", 1)[1])
    assert ours != init, "the tests run in the computer's own network namespace"
    # None of the computer's own interfaces is here: what a test shapes or drops stays inside.
    names = {line.split(":")[1].strip().split("@")[0] for line in _ip("-o", "link").splitlines()}
    assert {"lo", "linklab0", "linklab1"} <= names
    with open("/proc/1/net/dev", encoding="ascii") as computers:
        own = {line.split(":")[0].strip() for line in computers.readlines()[2:]}
    assert not (own - {"lo"}) & names, own


def test_its_loopback_is_shaped_and_its_addresses_are_its_own() -> None:
    qdisc = subprocess.run(
        ["tc", "qdisc", "show", "dev", "lo"], capture_output=True, text=True, check=True
    ).stdout
    assert "tbf" in qdisc and f"rate {LOOPBACK_RATE}" in qdisc.lower(), qdisc
    addresses = _ip("-o", "addr", "show", "dev", "linklab0")
    assert OWN_V4 in addresses and OWN_V6 in addresses
