"""A test under way whose link carries nothing for longer than the stall timeout is not a
held server: the iperf3 server goes on printing its interval reports ("0.00 bits/sec"), and
LinkLab leaves it running. Real `linklab serve` in one namespace, a real iperf3 client in the
other, and a firewall that drops every packet between them for seconds mid-test."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from app.engine.process.tools import Tool
from tests.held_client import Console
from tests.testbed import Bed, TestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

BED = Bed(rate_mbit=20.0, needs=("nft",))

#: serve's --stall-timeout: with its 1-s reports, a server is restarted after 3 s held.
STALL_S = 1
SILENT_S = 8  # the blackout: well past the 3 s, yet within the client's own patience


def _drop(bed: TestBed, on: bool) -> None:
    nft = ["ip", "netns", "exec", bed.b, "nft"]
    if not on:
        subprocess.run([*nft, "delete", "table", "inet", "llabheld"], check=True, timeout=20)
        return
    subprocess.run([*nft, "add", "table", "inet", "llabheld"], check=True, timeout=20)
    chain = "{ type filter hook input priority 0 ; }"
    subprocess.run([*nft, "add", "chain", "inet", "llabheld", "input", chain], check=True)
    rule = ["ip", "saddr", bed.A4, "drop"]
    subprocess.run([*nft, "add", "rule", "inet", "llabheld", "input", *rule], check=True)


# Over 10 s: a 16-s test with 8 s of silence in it.
def test_a_test_whose_link_goes_silent_is_not_taken_for_a_held_server(
    bed: TestBed, iperf3_tool: Tool
) -> None:
    port = 5301
    server = bed.start_server(port, "--no-echo", "--stall-timeout", str(STALL_S))
    console = Console(server)
    client = subprocess.Popen(
        [
            *("ip", "netns", "exec", bed.a, iperf3_tool.path, "-c", bed.B4, "-p", str(port)),
            *("-t", "16", "-b", "5M", "--forceflush"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        console.wait("Accepted connection", 20)
        time.sleep(3)
        _drop(bed, True)
        try:
            time.sleep(SILENT_S)
        finally:
            _drop(bed, False)
        out, _ = client.communicate(timeout=60)
        assert client.returncode == 0, out  # the client's test ran to its end
        console.wait("receiver", 20)  # and the server's summary of it
        assert "0.00 bits/sec" in "\n".join(console.lines)  # the silence, in its reports
    finally:
        if client.poll() is None:
            client.kill()
            client.communicate()
        server.send_signal(signal.SIGINT)
        server.wait(timeout=15)
        lines = console.read_all()
    assert not any("was held" in line for line in lines), lines
