"""Out-of-order datagrams as the engines state them, read from real output: iperf 2.2.1's line
after a UDP receiver's report (per interval and per run), iperf3's count at the end of the
receiving end's JSON or text (this end's for a download, the server's report for an upload),
and every UDP output of ../shared/engine-outputs read in place (iperf3 3.0 to 3.21)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.domain.net import Flow
from app.domain.results import LateCounts, ParseEvent, RunSummary, Sample
from app.engine.drivers.iperf2.parse import parse_iperf2
from app.engine.drivers.iperf3.parse_json import parse_document, parse_stream
from app.engine.drivers.iperf3.parse_text import parse_text
from app.engine.readings.intervals import with_late
from tests.conftest import ROOT_DIR
from tests.engine.engine_replay import ENGINE_OUTPUTS

DATA = ROOT_DIR / "tests" / "data"
SHARED = ENGINE_OUTPUTS
#: "[ *1] 0.00-1.00 sec  461 datagrams received out-of-order" (iperf 2) and
#: "[SUM]  0.0- 2.0 sec  920 datagrams received out-of-order" (iperf3).
OOO_LINE = re.compile(
    r"^\[\s*\*?(\d+|SUM)\](?:\[[TR]X-[CS]\])?\s+"
    r"(\d+(?:\.\d+)?)-\s*(\d+(?:\.\d+)?)\s+sec\s+(\d+) datagrams"
)


def _read(path: Path) -> list[ParseEvent]:
    text = path.read_text(encoding="utf-8").splitlines()
    if path.suffix == ".jsonl":
        return list(parse_stream(text))
    if path.suffix == ".json":
        return list(parse_document(text))
    if "iperf-2" in path.name or path.parent.name == "iperf2":
        return list(parse_iperf2(text))
    return list(parse_text(text))


def _summary(found: list[ParseEvent]) -> RunSummary:
    (summary,) = [e for e in found if isinstance(e, RunSummary)]
    return summary


def _ooo(found: list[ParseEvent], flow: Flow) -> int | None:
    return next(f.out_of_order for f in _summary(found).flows if f.flow is flow)


def _printed(path: Path, after: str = "") -> list[tuple[float, float, int]]:
    """The out-of-order lines the engine printed (after a marker line, if given)."""
    text = path.read_text(encoding="utf-8")
    text = text.split(after, 1)[1] if after else text
    return [
        (float(m.group(2)), float(m.group(3)), int(m.group(4)))
        for line in text.splitlines()
        if (m := OOO_LINE.match(line.strip()))
    ]


def test_iperf2_download_counts_each_interval_and_the_run() -> None:
    path = DATA / "iperf2" / "local-iperf-2.2.1-linux-udp-reverse-reordered-e.txt"
    found = _read(path)
    *intervals, total = _printed(path)
    live = [e for e in found if isinstance(e, Sample)]
    late = [s for e in found if isinstance(e, LateCounts) for s in e.samples]
    assert late  # printed after each report: passed on once the sample had gone
    samples = with_late(live, late)
    assert [(s.start_s, s.end_s, s.out_of_order) for s in samples] == intervals
    assert all(n > 0 for _, _, n in intervals)
    assert _ooo(found, Flow.DOWN) == total[2]


def test_iperf2_upload_counts_the_run_from_the_server_report() -> None:
    path = DATA / "iperf2" / "local-iperf-2.2.1-linux-udp-reordered-e.txt"
    found = _read(path)
    ((_, _, total),) = _printed(path, after="Server Report:")
    assert total > 0 and _ooo(found, Flow.UP) == total
    # The client only sent: its intervals hold no receiver's count.
    assert {s.out_of_order for s in found if isinstance(s, Sample)} == {None}


@pytest.mark.parametrize(
    ("name", "zero_flow"),
    [("udp-reverse-e", Flow.DOWN), ("udp-e", Flow.UP), ("udp-P2-e", Flow.UP)],
)
def test_iperf2_in_order_counts_0_and_tcp_none(name: str, zero_flow: Flow) -> None:
    found = _read(DATA / "iperf2" / f"local-iperf-2.2.1-linux-{name}.txt")
    assert _ooo(found, zero_flow) == 0  # no line: iperf 2 prints one only when not 0
    tcp = _read(DATA / "iperf2" / "local-iperf-2.2.1-linux-tcp-reverse-e.txt")
    assert {f.out_of_order for f in _summary(tcp).flows} == {None}
    assert {s.out_of_order for s in tcp if isinstance(s, Sample)} == {None}


@pytest.mark.parametrize(
    ("name", "flow", "after"),
    [
        ("json_udp_reordered_get_server_output_json.json", Flow.UP, ""),
        ("json_udp_reverse_reordered_get_server_output_text.json", Flow.DOWN, ""),
        ("text_k_udp_reordered_get_server_output_text.txt", Flow.UP, "Server output:"),
        ("text_k_udp_reverse_reordered_get_server_output_text.txt", Flow.DOWN, ""),
    ],
)
def test_iperf3_counts_the_receiving_end(name: str, flow: Flow, after: str) -> None:
    path = DATA / "iperf3" / name
    found = _read(path)
    if path.suffix == ".json":
        # The receiving end's own streams: the server's report for an upload.
        doc = json.loads(path.read_text(encoding="utf-8"))
        end = doc["server_output_json"]["end"] if flow is Flow.UP else doc["end"]
        expected = sum(s["udp"]["out_of_order"] for s in end["streams"])
    else:
        expected = sum(n for *_, n in _printed(path, after)[:1])
    assert expected > 0 and _ooo(found, flow) == expected
    # iperf3 states no count per interval, in any version.
    assert {s.out_of_order for s in found if isinstance(s, Sample)} == {None}


def test_iperf3_bidir_counts_each_end_as_a_flow_of_its_own() -> None:
    """Both ends receive: the server's count is the upload's, this end's the download's (in
    text, iperf3 3.12 prints this end's totals and their count after the server's report)."""
    path = DATA / "iperf3" / "json_udp_bidir_reordered_get_server_output_json.json"
    doc = json.loads(path.read_text(encoding="utf-8"))

    def received(end: dict[str, Any]) -> int:
        return sum(s["udp"]["out_of_order"] for s in end["streams"] if not s["udp"]["sender"])

    found = _read(path)
    assert _ooo(found, Flow.UP) == received(doc["server_output_json"]["end"]) > 0
    assert _ooo(found, Flow.DOWN) == received(doc["end"]) > 0
    text = DATA / "iperf3" / "text_k_udp_bidir_reordered_get_server_output_text.txt"
    found = _read(text)
    server, client = (n for *_, n in _printed(text, "Server output:"))
    assert (_ooo(found, Flow.UP), _ooo(found, Flow.DOWN)) == (server, client)
    assert server > 0 and client > 0


#: Every UDP output of the shared engine outputs: what each holds of the receiver's count.
#: An upload without the server's report has none (its own streams' 0 is the sender's).
SHARED_UDP = {
    "iperf-2-linux-udp.txt": (Flow.UP, 0),
    "iperf3-3.0.7-linux-udp.json": (Flow.UP, None),
    "iperf3-3.1-windows-udp.txt": (Flow.UP, None),
    "iperf3-3.1.3-linux-udp.json": (Flow.UP, None),
    "iperf3-3.14-macos-udp-reverse.json": (Flow.DOWN, 0),
    "iperf3-3.9-linux-udp.json": (Flow.UP, None),
    "local-iperf3-3.1.3-linux-udp-V-fk.txt": (Flow.UP, None),
    "local-iperf3-3.1.3-linux-udp.json": (Flow.UP, None),
    "local-iperf3-3.17-linux-udp-reverse.jsonl": (Flow.DOWN, 0),
    "local-iperf3-3.21-linux-udp-1408.jsonl": (Flow.UP, None),
    "local-iperf3-3.5-linux-udp-V.txt": (Flow.UP, None),
    "local-iperf3-3.5-linux-udp-reverse-V.txt": (Flow.DOWN, 0),
}


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared engine outputs are not here")
@pytest.mark.parametrize("name", sorted(SHARED_UDP))
def test_shared_outputs_hold_the_receivers_count(name: str) -> None:
    flow, expected = SHARED_UDP[name]
    found = _read(SHARED / name)
    assert _ooo(found, flow) == expected
    assert {s.out_of_order for s in found if isinstance(s, Sample)} == {None}


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared engine outputs are not here")
def test_every_shared_udp_output_is_listed() -> None:
    udp = {p.name for p in SHARED.iterdir() if "udp" in p.name and "netperf" not in p.name}
    udp -= {"iperf3-3.17-android-udp-bidir-interval.jsonl"}  # fragments without an end
    udp -= {"iperf3-3.17-android-udp-reverse-interval.jsonl"}
    assert udp == set(SHARED_UDP)
