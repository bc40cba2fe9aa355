"""`linklab run` without --medium takes the medium as the window's Study page does, for the
same peer: a second computer on a veth link (its adapter a wired one, nominally 10000
Mbit/s, the path held to 30 Mbit/s by tc tbf) gives Ethernet, stored as detected from that
adapter, never as stated; the adapter's speed never becomes the link rate; a Wi-Fi security or a
medium stated stays the user's word. A link rate stated with the medium left unstated is used
with the medium detected, and refused, saying so, only when none could be detected."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from subprocess import CompletedProcess
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


def _sweep(neighbour: NeighbourBed, db: Path, name: str, *flags: str) -> CompletedProcess[str]:
    """A one-run TCP sweep against the neighbour."""
    return linklab(
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


def _run(neighbour: NeighbourBed, db: Path, name: str, *flags: str) -> dict[str, Any]:
    """A one-run TCP sweep against the neighbour, then its `sessions show --json`."""
    done = _sweep(neighbour, db, name, *flags)
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


@pytest.mark.usefixtures("iperf3_tool")
def test_a_link_rate_stated_is_used_with_the_medium_detected(
    neighbour: NeighbourBed, tmp_path: Path
) -> None:
    db = tmp_path / "lab.sqlite3"
    data = _run(neighbour, db, "rated", "--link-rate", f"{SHAPED_MBIT}M")
    conditions = data["conditions"]
    assert conditions["medium"] == "Ethernet"
    assert conditions["medium_detected_by"] == f"{neighbour.here}, a wired adapter"
    assert conditions["link_rate_bps"] == SHAPED_MBIT * 1_000_000
    assert conditions["link_rate_detected_by"] == ""  # the user's word
    (point,) = data["points"]
    # The expected goodput of a 30 Mbit/s Ethernet link: below the rate, not far below.
    assert 0.8 * SHAPED_MBIT * 1e6 < point["expected_bps"] < SHAPED_MBIT * 1e6
    runs = linklab("export", "rated", "--format", "csv", "--out", "-", "--db", str(db))
    check_session(data, runs.stdout)


@pytest.mark.usefixtures("iperf3_tool")
def test_a_link_rate_without_a_medium_detected_is_refused_saying_so(
    neighbour: NeighbourBed, tmp_path: Path
) -> None:
    # With WPA2 stated the wired adapter says nothing of the Wi-Fi hop: no medium detected.
    db = tmp_path / "lab.sqlite3"
    done = _sweep(neighbour, db, "refused", "--link-rate", f"{SHAPED_MBIT}M", "--security", "WPA2")
    assert done.returncode != 0
    assert "The expected goodput needs the medium, and it could not be detected" in done.stderr
    assert "--medium" in done.stderr
    listed = linklab("sessions", "list", "--json", "--db", str(db))
    assert listed.returncode == 0 and json.loads(listed.stdout) == []  # nothing was stored
