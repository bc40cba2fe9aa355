"""Context checks on real runs across network namespaces: UDP sent at three times a router's
tc-shaped rate loses most of its datagrams, and what arrives is more than the Ethernet model
allows on the rate stated (tc counts 14 bytes per frame, not Ethernet's 38); `linklab sessions
show` and `compare --json` say both, with figures equal to the stored ones."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.sentences import check_session
from tests.testbed import Bed, RoutedTestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

RATE_MBIT = 20
QUEUE_BYTES = 50_000
IPERF3_PORT, ECHO_PORT = 5201, 5200
# 256-byte datagrams: 298 B a frame as tc counts it, 322 B with Ethernet's 38 B, so what
# the shaper passes is 8 % more than the Ethernet model allows: well beyond its 1 % margin.
LENGTH = 256


BED = Bed(
    routed=True,
    rate_mbit=RATE_MBIT,
    queue_bytes=QUEUE_BYTES,
    server_port=IPERF3_PORT,
    echo_port=ECHO_PORT,
)


def _run(bed: RoutedTestBed, db: Path, name: str, *extra: str) -> tuple[str, dict[str, Any]]:
    """`linklab run` in C against S (its printed table), then `sessions show --json`."""
    done = bed.linklab(
        bed.c,
        "run",
        "--peer", bed.S4,
        "--port", str(IPERF3_PORT),
        "--protocol", "udp",
        "--ip", "4",
        "--sizes", str(LENGTH),
        "--bitrate", f"{3 * RATE_MBIT}M",
        "--runs", "1",
        "--duration", "1",
        "--link-rate", f"{RATE_MBIT}M",
        "--medium", "Ethernet",
        "--name", name,
        "--db", str(db),
        *extra,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = bed.linklab(bed.c, "sessions", "show", name, "--json", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    data: dict[str, Any] = json.loads(shown.stdout)
    return done.stdout, data


def test_udp_far_above_a_shaped_link_gets_the_loss_and_frame_overhead_warnings(
    bed: RoutedTestBed, tmp_path: Path
) -> None:
    db = tmp_path / "lab.sqlite3"
    printed, data = _run(bed, db, "shaped")
    (point,) = data["points"]
    loss = point["loss_pct"]["mean"]
    print(f"loss {loss:.1f} %, {point['efficiency_pct']:.1f} % of the Ethernet model")
    assert loss > 20  # sent at three times the rate: much of it dropped at the router
    warnings = data["warnings"]
    (lossy,) = [w for w in warnings if "lost more than 5 %" in w]
    assert f"at {LENGTH} B ({loss:.1f} % lost, at the 60 Mbit/s it was sent at)" in lossy
    assert "Set a UDP bitrate under the 20 Mbit/s link rate stated" in lossy
    (above,) = [w for w in warnings if "more than the model allows" in w]
    assert f"(up to {point['efficiency_pct']:.1f} % of the expected goodput)" in above
    assert "Linux tc counts 14" in above and "--frame-overhead 14" in above
    assert "faster than" not in above
    (finding,) = data["findings"]
    assert "Linux tc counts 14" in finding and "faster than" not in finding
    # Every sentence, read back against the JSON's points and the runs CSV.
    runs = bed.linklab(bed.c, "export", "shaped", "--format", "csv", "--out", "-", "--db", str(db))
    assert runs.returncode == 0, runs.stderr
    check_session(data, runs.stdout)
    # One run a point: the few-runs sentence too, and nothing about Wi-Fi or the CPU.
    assert any("fewer than 3 successful runs at 256 B (1 of 1)" in w for w in warnings)
    assert not any("Wi-Fi" in w for w in warnings)

    # The table printed after the run (as by `sessions show`) has the same sentences first.
    assert f"Warning: {lossy}" in printed
    assert printed.index("Warning: ") < printed.index("series ")

    # With the shaper's 14 B stated, the model allows what arrived: no such warning.
    _, stated = _run(bed, db, "shaped, 14 B stated", "--frame-overhead", "14")
    assert not any("more than the model allows" in w for w in stated["warnings"])
    compared = bed.linklab(
        bed.c, "compare", "shaped", "shaped, 14 B stated", "--json", "--db", str(db)
    )
    assert compared.returncode == 0, compared.stderr
    raised = json.loads(compared.stdout)["warnings"]
    assert sum(bool(re.search(r"lost more than 5 %", w)) for w in raised) == 2
    assert any(w.startswith("“shaped”: UDP · IPv4 measured more than") for w in raised)
