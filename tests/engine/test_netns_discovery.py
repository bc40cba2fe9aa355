"""Finding a second computer across a link: `linklab serve` in one network namespace is found
by `linklab discover` in the other (IPv4 broadcast and IPv6 link-local multicast, nothing
outside the two namespaces exists to be asked), and an address where nothing answers is told
so before any hint about a server."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from tests.testbed import ROOT, TestBed, unavailable_reason

pytestmark = [pytest.mark.netns]


@pytest.fixture(scope="module")
def bed() -> Iterator[TestBed]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with TestBed() as testbed:
        yield testbed


def serve(bed: TestBed, *args: str) -> subprocess.Popen[str]:
    """`linklab serve` in B, once its latency responder listens."""
    return bed.start_server(5201, *args, ready="responder listening")


def linklab_in_a(bed: TestBed, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        bed.linklab(bed.a, *args), cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_a_server_in_one_namespace_is_found_from_the_other(bed: TestBed) -> None:
    server = serve(bed, "--echo-port", "5200")
    try:
        done = linklab_in_a(bed, "discover", "--json")
        assert done.returncode == 0, done.stderr
        computers = json.loads(done.stdout)["computers"]
        assert len(computers) == 1, computers
        found = computers[0]
        assert found["address"] == bed.B4  # IPv4 answers first: the address to measure
        assert bed.B4 in found["addresses"] and bed.B6 in found["addresses"]
        assert bed.A4 not in found["addresses"]
        assert found["engines"] == {"iperf3": 5201}
        assert found["echo_port"] == 5200
        # The same in words, and a measurement against the address found works.
        words = linklab_in_a(bed, "discover")
        assert words.returncode == 0, words.stderr
        assert "Found 1 computer running LinkLab's servers:" in words.stdout
        assert f"  {found['name']}  {bed.B4} (also " in words.stdout
        assert "iperf3 port 5201, latency responder port 5200" in words.stdout
        measured = bed.measure("--peer", found["address"], "--duration", "1")
        assert measured.returncode == 0, measured.stderr
    finally:
        server.terminate()
        server.wait(10)


def test_a_server_on_another_port_is_found_only_there(bed: TestBed) -> None:
    server = serve(bed, "--echo-port", "5300")
    try:
        elsewhere = linklab_in_a(bed, "discover", "--wait", "0.5")
        assert elsewhere.returncode == 0, elsewhere.stderr
        assert elsewhere.stdout.startswith("No computer on this network answered on UDP port 5200")
        there = json.loads(linklab_in_a(bed, "discover", "--json", "--port", "5300").stdout)
        assert [c["address"] for c in there["computers"]] == [bed.B4]
    finally:
        server.terminate()
        server.wait(10)


def test_an_address_where_no_computer_is_is_told_so_first(bed: TestBed) -> None:
    nobody = "198.18.0.77"  # on A's link, where no host answers ARP
    done = linklab_in_a(bed, "run", "--peer", nobody, "--sizes", "1408", "--runs", "1")
    assert done.returncode == 1
    said = done.stderr
    assert f"Nothing answered at {nobody}" in said, said
    assert "no computer there replied at all" in said
    assert said.index("Nothing answered") < said.index("start an iperf3 server")
