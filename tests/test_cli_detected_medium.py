"""`linklab run` without --medium takes the medium as the window's Study page does, for the
same peer: a second computer on a veth link (its adapter a wired one, nominally 10000
Mbit/s, the path held to 30 Mbit/s by tc tbf) gives Ethernet, stored as detected from that
adapter, never as stated; the adapter's speed never becomes the link rate; a Wi-Fi security or a
medium stated stays the user's word."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import linklab
from tests.sentences import check_session
from tests.testbed import NeighbourBed, unavailable_reason

pytestmark = [pytest.mark.netns]

SHAPED_MBIT = 30


@pytest.fixture(scope="module")
def neighbour() -> Iterator[NeighbourBed]:
    """A second computer beside this one, behind a shaped link, serving iperf3."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with NeighbourBed() as bed:
        bed.set_rate(SHAPED_MBIT)
        bed.serve("--no-netserver")
        yield bed


def _run(neighbour: NeighbourBed, db: Path, name: str, *flags: str) -> dict[str, Any]:
    """A one-run TCP sweep against the neighbour, then its `sessions show --json`."""
    done = linklab(
        "run",
        "--peer", neighbour.THERE4,
        "--protocol", "tcp",
        "--ip", "4",
        "--sizes", "1408",
        "--runs", "1",
        "--duration", "1",
        "--name", name,
        "--db", str(db),
        *flags,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = linklab("sessions", "show", name, "--json", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    data: dict[str, Any] = json.loads(shown.stdout)
    return data


@pytest.mark.usefixtures("iperf3_tool")
def test_the_medium_left_unstated_is_detected_and_stored_as_detected(
    neighbour: NeighbourBed, tmp_path: Path
) -> None:
    db = tmp_path / "lab.sqlite3"
    data = _run(neighbour, db, "left")
    conditions = data["conditions"]
    # What the window's Study page says for this peer: "Medium Ethernet detected from
    # <adapter>, a wired adapter", and no link rate from the adapter's speed.
    assert conditions["medium"] == "Ethernet"
    assert conditions["medium_detected_by"] == f"{neighbour.here}, a wired adapter"
    assert conditions["link_rate_bps"] is None and conditions["link_rate_detected_by"] == ""
    assert data["environment"]["interface"] == neighbour.here
    assert data["environment"]["interface_speed_mbps"] == 10_000  # the adapter's, kept so
    (point,) = data["points"]
    assert point["expected_bps"] is None  # no expected goodput from a nominal speed
    runs = linklab("export", "left", "--format", "csv", "--out", "-", "--db", str(db))
    check_session(data, runs.stdout)
    shown = linklab("sessions", "show", "left", "--db", str(db)).stdout.splitlines()
    assert [line.split(None, 1)[1] for line in shown if line.startswith("  conditions")] == [
        "Ethernet (detected)"
    ]

    # A Wi-Fi security stated: that Wi-Fi hop is further along, the wired adapter says
    # nothing of it (the window takes its detected Ethernet back the same way).
    wpa2 = _run(neighbour, db, "wpa2", "--security", "WPA2")["conditions"]
    assert (wpa2["security"], wpa2["medium"], wpa2["medium_detected_by"]) == (
        "WPA2",
        "unknown",
        "",
    )
    # The user's word stays: a medium stated, even unknown.
    unknown = _run(neighbour, db, "unknown", "--medium", "unknown")["conditions"]
    assert (unknown["medium"], unknown["medium_detected_by"]) == ("unknown", "")
