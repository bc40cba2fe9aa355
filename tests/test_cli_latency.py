"""Working latency as a metric of `linklab run`, with real engines on the loopback: against a
Windows-like peer (an iperf3 server only: no responder, no netserver) it comes by TCP
connection time and says so; against this computer by LinkLab's echo; `sessions show` names
the method and `compare --metric latency` compares it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import free_port, linklab
from tests.test_cli_serve import serving


def _points(done_stdout: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(done_stdout)
    return data


@pytest.mark.usefixtures("iperf3_tool")
def test_a_peer_with_iperf3_only_gives_latency_by_connection_time(tmp_path: Path) -> None:
    db = str(tmp_path / "lab.sqlite3")
    port = free_port()
    with serving("--no-echo", port=port) as (_proc, lines):
        assert not any("responder listening" in line for line in lines)
        done = linklab(
            "run",
            "--peer", "127.0.0.1",
            "--port", str(port),
            "--echo-port", str(free_port()),  # nothing answers there
            "--netserver-port", str(free_port()),  # nor there
            "--metric", "throughput,latency",
            "--sizes", "1408",
            "--runs", "2",
            "--duration", "2",
            "--db", db,
            "--json",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = _points(done.stdout)
    assert data["latency_methods"] == {"tcp-connect": 2}
    sentence = (
        f"Latency measured by TCP connection time to the iperf3 server's port {port}, since "
        f"the peer has no LinkLab responder and no netserver."
    )
    assert sentence in done.stderr and sentence in str(data["status_reason"])
    (point,) = data["points"]  # type: ignore[misc]
    for name in ("latency_idle_ms", "latency_ms", "latency_p90_ms"):
        assert point[name]["mean"] > 0, name
    assert point["throughput_bps"]["mean"] > 0
    shown = linklab("sessions", "show", str(data["session_id"]), "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert "latency     by tcp-connect (TCP connection time to the peer's server), 2 runs" in (
        shown.stdout
    )
    assert "idle ms" in shown.stdout and "loaded ms" in shown.stdout


# Over 10 s: two real studies measure latency with the UDP echo and compare compares them.
@pytest.mark.usefixtures("iperf3_tool")
def test_this_computer_uses_the_echo_and_compare_compares_latency(tmp_path: Path) -> None:
    db = str(tmp_path / "lab.sqlite3")
    ids = []
    for name in ("first", "second"):
        done = linklab(
            "run",
            "--peer", "this-computer",
            "--metric", "latency",
            "--sizes", "1408",
            "--runs", "2",
            # Loaded probes start at the first interval, at 1 s: a 1-s run may end before any.
            "--duration", "2",
            "--name", name,
            "--db", db,
            "--json",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        data = _points(done.stdout)
        assert data["latency_methods"] == {"udp-echo": 2}
        assert "Latency measured with LinkLab's UDP echo on 127.0.0.1 port" in done.stderr
        ids.append(str(data["session_id"]))
    for metric in ("latency", "latency-idle"):
        compared = linklab("compare", *ids, "--metric", metric, "--db", db, "--json")
        assert compared.returncode == 0, compared.stderr
        result = json.loads(compared.stdout)
        (pair,) = result["comparisons"]
        (point,) = pair["points"]
        assert point["baseline_mean"] > 0 and point["other_mean"] > 0
        assert point["p_value"] is not None
    text = linklab("compare", *ids, "--metric", "latency", "--db", db)
    assert "working latency" in text.stdout
    # The HTML report compares latency as it compares throughput, with its own mean ± SD tables.
    html = tmp_path / "latency.html"
    done = linklab("compare", *ids, "--metric", "latency", "--html", str(html), "--db", db)
    assert done.returncode == 0, done.stderr
    report = html.read_text(encoding="utf-8")
    assert "working latency by packet size" in report and "Holm" in report
    assert "Working latency under load (median per run)" in report
    assert "Idle latency (median per run)" in report
    # The points CSV has the latency figures per point, the runs CSV per run with the method.
    points = tmp_path / "points.csv"
    done = linklab("export", ids[0], "--format", "points", "--out", str(points), "--db", db)
    assert done.returncode == 0, done.stderr
    header, row = points.read_text(encoding="utf-8-sig").splitlines()
    named = dict(zip(header.split(","), row.split(","), strict=True))
    assert float(named["latency_ms_mean"]) > 0 and float(named["latency_idle_ms_mean"]) > 0
    runs = tmp_path / "runs.csv"
    done = linklab("export", ids[0], "--format", "csv", "--out", str(runs), "--db", db)
    assert done.returncode == 0, done.stderr
    assert "udp-echo" in runs.read_text(encoding="utf-8-sig")
