"""Two TCP+UDP sessions measured for real across network namespaces, one over a 100 Mbit/s
link and one over 90 Mbit/s (tc tbf), compared with `linklab compare` and no options: only
same-series pairs, the TCP·IPv4 pair significant with the right sign, and no warning but the
one that no Wi-Fi link carried the session labelled WPA2 (a veth pair is wired; the one
labelled open took Ethernet from its wired adapter, as the window does, and open on Ethernet
claims no Wi-Fi)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT_DIR
from tests.testbed import Bed, TestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]


BED = Bed(server_port=5201)


def measure_session(bed: TestBed, db: Path, name: str, rate_mbit: float) -> None:
    bed.set_rate(rate_mbit)
    argv = bed.linklab(
        bed.a,
        "run",
        "--peer",
        TestBed.B4,
        "--protocol",
        "tcp,udp",
        "--sizes",
        "1408",
        "--runs",
        "3",
        "--duration",
        "2",
        "--omit",
        "0",  # no slow start to skip: the namespaces' round trip is a fraction of a ms
        "--bitrate",
        "150M",  # above either link: the shaper, not iperf3's pacing, sets the rate
        "--security",
        "open" if name == "open" else "WPA2",
        "--name",
        name,
        "--db",
        str(db),
        "--json",
    )
    done = subprocess.run(
        argv, cwd=ROOT_DIR, capture_output=True, text=True, encoding="utf-8", timeout=300
    )
    assert done.returncode == 0, done.stderr


# Over 10 s: two sessions measured at two real link rates compare series by series.
# Slow (about 30 s on a busy computer): two real TCP+UDP sessions of three 2-s runs per series,
# the fewest for a 10 % difference to be significant at p < 0.05 with Holm's correction.
def test_open_and_wpa2_compare_series_by_series(bed: TestBed, tmp_path: Path) -> None:
    db = tmp_path / "linklab.sqlite3"
    measure_session(bed, db, "open", 100)
    measure_session(bed, db, "wpa2", 90)
    done = subprocess.run(
        [sys.executable, "-m", "app", "compare", "open", "wpa2", "--db", str(db), "--json"],
        cwd=ROOT_DIR,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr
    result = json.loads(done.stdout)
    said = result["warnings"]
    assert len(said) == 1 and all("never crossed a Wi-Fi link" in w for w in said), said
    assert [w.split(": ")[0] for w in said] == ["“wpa2”"]
    assert result["unpaired"] == []
    pairs = {(c["protocol"], c["ip_version"]): c for c in result["comparisons"]}
    assert sorted(pairs) == [("tcp", 4), ("udp", 4)]
    for (protocol, ip), entry in pairs.items():
        base = entry["baseline"]
        assert (base["name"], base["protocol"], base["ip_version"]) == ("open", protocol, ip)
        assert base["direction"] == entry["direction"] == "up"
    (tcp,) = pairs[("tcp", 4)]["points"]
    print(
        f"TCP·IPv4 at 1408 B: open {tcp['baseline_mean'] / 1e6:.2f}, wpa2 "
        f"{tcp['other_mean'] / 1e6:.2f} Mbit/s, p = {tcp['p_value']:.2g}"
    )
    assert tcp["significant"] is True
    assert tcp["ci_low"] < tcp["difference"] < tcp["ci_high"] < 0
    # About a tenth less, as the links differ.
    assert -15 < tcp["relative_pct"] < -5
    findings = " ".join(result["findings"])
    assert "UDP · IPv4 · WPA2 against UDP · IPv4 · Open" in findings
