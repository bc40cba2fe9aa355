"""The namespace test bed: measured throughput matches the configured rate less the headers."""

from __future__ import annotations

import json
import sqlite3
import subprocess

import pytest

from tests.testbed import ROOT, Bed, TestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

RATE_MBIT = 40.0
# What of each wire frame (Ethernet 14 + IP + transport headers) is payload.
TCP4 = 1448 / (1448 + 12 + 20 + 20 + 14)  # MSS 1448 with TCP timestamps
TCP6 = 1428 / (1428 + 12 + 20 + 40 + 14)
UDP4_1408 = 1408 / (1408 + 8 + 20 + 14)
UDP6_1408 = 1408 / (1408 + 8 + 40 + 14)


BED = Bed(rate_mbit=RATE_MBIT, server_port=5201)


def _measure(bed: TestBed, *args: str) -> dict[str, object]:
    done = bed.measure(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    ("peer", "ip", "expected"),
    [(TestBed.B4, "4", TCP4), (TestBed.B6, "6", TCP6)],
)
def test_tcp_matches_rate(bed: TestBed, peer: str, ip: str, expected: float) -> None:
    result = _measure(bed, "--peer", peer, "--ip", ip, "--duration", "4", "--omit", "1")
    got = float(result["throughput_bps"])  # type: ignore[arg-type]
    assert got == pytest.approx(RATE_MBIT * 1e6 * expected, rel=0.04)


@pytest.mark.parametrize(
    ("peer", "ip", "expected"),
    [(TestBed.B4, "4", UDP4_1408), (TestBed.B6, "6", UDP6_1408)],
)
def test_udp_unlimited_matches_rate(bed: TestBed, peer: str, ip: str, expected: float) -> None:
    result = _measure(
        bed,
        "--peer",
        peer,
        "--ip",
        ip,
        "--protocol",
        "udp",
        "--length",
        "1408",
        "--bitrate",
        "0",
        "--duration",
        "4",
        "--omit",
        "1",
    )
    flow = result["flows"][0]  # type: ignore[index]
    assert flow["packets"] > 0
    # The rate limit sits on the sender's own interface, so the kernel holds the sender back
    # rather than dropping: every datagram sent crossed the link at its rate. A receiver
    # starved of CPU on a busy computer drops some from its socket (4.9 % seen beside six test
    # processes), which iperf3 counts as lost: those crossed the link too.
    got = float(result["throughput_bps"])  # type: ignore[arg-type]
    crossed = got / (1 - flow["loss_pct"] / 100)
    assert crossed == pytest.approx(RATE_MBIT * 1e6 * expected, rel=0.04), flow
    assert got <= RATE_MBIT * 1e6 * expected * 1.04


def test_download_direction_is_limited_too(bed: TestBed) -> None:
    result = _measure(bed, "--peer", TestBed.B4, "--direction", "down", "--duration", "3")
    got = float(result["throughput_bps"])  # type: ignore[arg-type]
    assert got == pytest.approx(RATE_MBIT * 1e6 * TCP4, rel=0.06)


def test_random_loss_is_measured(bed: TestBed) -> None:
    try:
        bed.set_loss(10)
    except RuntimeError as err:
        pytest.skip(str(err))
    result = _measure(
        bed,
        "--peer",
        TestBed.B4,
        "--protocol",
        "udp",
        "--length",
        "1000",
        "--bitrate",
        "10M",
        "--duration",
        "4",
    )
    flow = result["flows"][0]  # type: ignore[index]
    assert 7.0 <= flow["loss_pct"] <= 13.0
    assert flow["lost_packets"] > 0


# Over 10 s: two studies over a rate-limited link agree within 3 %.
def test_study_over_the_rate_limited_link(
    bed: TestBed, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`linklab run` in host A: every stored run and point summary shows the link's rate."""
    db = tmp_path_factory.mktemp("netns") / "lab.sqlite3"
    done = subprocess.run(
        bed.linklab(
            bed.a,
            "run",
            "--peer",
            TestBed.B4,
            "--peer6",
            TestBed.B6,
            "--ip",
            "4,6",
            "--sizes",
            "1408",
            "--runs",
            "2",
            "--duration",
            "3",
            "--omit",
            "1",
            "--db",
            str(db),
            "--json",
        ),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    expected = {4: RATE_MBIT * 1e6 * TCP4, 6: RATE_MBIT * 1e6 * TCP6}
    for point in result["points"]:
        stats = point["throughput_bps"]
        assert point["n"] == 2
        assert stats["mean"] == pytest.approx(expected[point["ip_version"]], rel=0.04)
        assert stats["std"] < 0.03 * stats["mean"]
    conn = sqlite3.connect(db)
    stored = conn.execute("SELECT ip_version, throughput_bps FROM runs").fetchall()
    conn.close()
    assert len(stored) == 4
    for ip, bps in stored:
        assert bps == pytest.approx(expected[ip], rel=0.05)
