"""`linklab run --link-rate`: the rate is recorded with the session, and its points carry the
expected goodput (real iperf3 on this computer's loopback, where the stated link does not
apply: no share of it is given, and a sentence says why)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.conftest import linklab


@pytest.mark.usefixtures("iperf3_tool")
def test_a_run_with_a_link_rate_has_expected_points(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite3"
    done = linklab(
        "run",
        "--peer",
        "this-computer",
        "--link-rate",
        "1G",
        "--medium",
        "Ethernet",
        "--protocol",
        "tcp",
        "--ip",
        "4",
        "--sizes",
        "1408",
        "--runs",
        "2",
        "--duration",
        "1",
        "--name",
        "with a link rate",
        "--db",
        str(db),
    )
    assert done.returncode == 0, done.stderr
    # The table shows the expected goodput, no share of it; a sentence says why.
    assert "expected" in done.stdout and "941 Mbit/s" in done.stdout
    assert "TCP · IPv4" in done.stdout and "stayed on this computer's loopback" in done.stdout

    shown = linklab("sessions", "show", "with a link rate", "--json", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    session = json.loads(shown.stdout)
    assert session["conditions"]["link_rate_bps"] == 1_000_000_000
    assert session["conditions"]["frame_overhead"] is None
    (point,) = session["points"]
    assert point["expected_bps"] == pytest.approx(1e9 * 1448 / 1538)
    assert point["efficiency_pct"] is None
    (finding,) = session["findings"]
    assert finding.startswith("A 1 Gbit/s link rate is stated, but the traffic never crossed")

    out = tmp_path / "points.csv"
    export = linklab(
        "export", "with a link rate", "--format", "points", "--out", str(out), "--db", str(db)
    )
    assert export.returncode == 0, export.stderr
    (row,) = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    assert float(row["expected_bps"]) == pytest.approx(1e9 * 1448 / 1538)
    assert row["efficiency_pct"] == ""


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--link-rate", "fast"], "is not a rate like 0, 100M or 1G"),
        (["--link-rate", "0", "--medium", "Ethernet"], "The link rate must be above 0"),
        (["--link-rate", "100M"], "needs the medium"),
        (["--link-rate", "300M", "--medium", "802.11n"], "depends on the security"),
        (["--frame-overhead", "-1"], "--frame-overhead"),
    ],
)
def test_a_link_rate_the_model_cannot_use_is_refused(
    tmp_path: Path, args: list[str], words: str
) -> None:
    done = linklab("run", "--peer", "this-computer", *args, "--db", str(tmp_path / "x.sqlite3"))
    assert done.returncode == 2
    assert words in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "x.sqlite3").exists()
