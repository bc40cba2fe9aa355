"""`linklab compare` as a user types it: sessions like with like, --baseline, --within, picked
series, the JSON's shape, and clear sentences for what cannot be compared."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.domain.net import Protocol
from app.domain.plan import Engine, Security
from app.store.db import Database
from app.store.sessions import SessionStore
from tests.analysis.test_compare import A, B, make_session
from tests.conftest import linklab
from tests.testbed import NeighbourBed, unavailable_reason

BOTH = (Protocol.TCP, Protocol.UDP)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-compare") / "linklab.sqlite3"
    with Database(path) as database:
        store = SessionStore(database)
        make_session(store, Security.OPEN, {640: A}, "open", protocols=BOTH)
        make_session(store, Security.WPA2, {640: B}, "wpa2", protocols=BOTH)
        make_session(store, Security.WPA2, {640: B}, "iperf3", engine=Engine.IPERF3)
    return path


def compare(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return linklab("compare", *args, "--db", str(db))


def test_sessions_pair_series_by_series(db: Path) -> None:
    done = compare(db, "open", "wpa2", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["warnings"] == [] and result["unpaired"] == []
    assert result["baseline_session"]["name"] == "open"
    entries = [(c["protocol"], c["baseline"]["protocol"]) for c in result["comparisons"]]
    assert entries == [("tcp", "tcp"), ("udp", "udp")]
    (point,) = result["comparisons"][0]["points"]
    expected = {"value", "baseline_mean", "other_mean", "difference", "relative_pct"}
    expected |= {"ci_low", "ci_high", "ci_level", "p_value", "p_holm", "significant"}
    assert expected <= set(point)
    assert point["value"] == 640 and point["significant"] is True and point["difference"] < 0
    # One point, one step: the interval is the plain 95 % one, and wholly below zero.
    assert point["ci_level"] == 0.95 and point["ci_low"] <= point["ci_high"] < 0
    assert "Holm's step-down" in result["interval"]


def test_baseline_turns_the_comparison_round(db: Path) -> None:
    result = json.loads(compare(db, "open", "wpa2", "--baseline", "wpa2", "--json").stdout)
    assert result["baseline_session"]["name"] == "wpa2"
    assert all(c["points"][0]["difference"] > 0 for c in result["comparisons"])


def test_within_compares_the_series_of_one_session(db: Path) -> None:
    result = json.loads(compare(db, "open", "--within", "--json").stdout)
    ((protocol, base),) = [
        (c["protocol"], c["baseline"]["protocol"]) for c in result["comparisons"]
    ]
    assert (protocol, base) == ("udp", "tcp")
    assert result["comparisons"][0]["points"][0]["relative_pct"] == pytest.approx(-50.0)


def test_engine_difference_is_a_warning_and_the_udp_series_unpaired(db: Path) -> None:
    done = compare(db, "wpa2", "iperf3")
    assert done.returncode == 0, done.stderr
    assert "differs from “wpa2” in engine (iperf3 against netperf)" in done.stdout
    result = json.loads(compare(db, "wpa2", "iperf3", "--json").stdout)
    assert [u["protocol"] for u in result["unpaired"]] == ["udp"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("open",), "Comparing sessions needs two of them"),
        (("open", "wpa2", "--within"), "--within compares the series of one session"),
    ],
)
def test_what_cannot_be_compared_is_a_sentence(db: Path, args: tuple[str, ...], said: str) -> None:
    done = compare(db, *args)
    assert done.returncode == 2 and said in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def shaped_neighbour() -> Iterator[NeighbourBed]:
    """A second computer behind a link held to 30 Mbit/s (tc tbf), serving iperf3: TCP's rate
    there is the link's, steady even on a busy computer (on the loopback, a TCP run starved of
    CPU left a few runs' difference to UDP short of significance)."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with NeighbourBed() as bed:
        bed.set_rate(30)
        bed.serve("--no-netserver")
        yield bed


@pytest.mark.netns
def test_udp_sent_at_the_bitrate_asked_for_is_not_called_worse_on_a_real_run(
    tmp_path: Path, shaped_neighbour: NeighbourBed
) -> None:
    """As found: "TCP · IPv4 is better there than UDP · IPv4" where UDP was capped at the
    bitrate of the user's --bitrate. Measured for real across a 30-Mbit/s link (TCP at the
    link's rate, UDP at 10 Mbit/s), the session's series compared say its rate was that
    bitrate's."""
    db = str(tmp_path / "lab.sqlite3")
    plan = ["--peer", shaped_neighbour.THERE4, "--ip", "4", "--protocol", "tcp,udp"]
    plan += ["--sizes", "1408", "--runs", "3", "--duration", "1", "--bitrate", "10M"]
    done = linklab("run", *plan, "--db", db, "--json")
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout)["session_id"]
    result = json.loads(linklab("compare", session, "--within", "--db", db, "--json").stdout)
    ((point,),) = [c["points"] for c in result["comparisons"]]
    assert point["significant"] and point["difference"] < 0, point  # UDP carried less than TCP
    said = result["findings"]
    (statement,) = [s for s in said if s.startswith("At 1408 B,")]
    # Whole, or short of it in its own unit ("9.9 Mbit/s of the 10.0 Mbit/s"): never worse.
    assert re.search(
        r"UDP · IPv4 carried (the |\d+\.\d Mbit/s of the )10\.0 Mbit/s it was asked to send",
        statement,
    ), said
    assert not any("better than" in s or "better there than" in s for s in said), said
