"""Physical bounds at the engine boundary: an impossible figure fails its run with a sentence
that names it, and the raw output is kept; nothing impossible reaches a result or the store."""

from __future__ import annotations

import json
import math
import sys
import typing
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.metrics import MAX_BPS
from app.domain.net import Flow, Protocol
from app.domain.results import EngineMessage, FlowSummary, RunSummary, Sample
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.errors import ImpossibleValue
from app.engine.process.tools import Capability, Source, Tool
from app.engine.readings.bounds import LIMITS, impossible
from tests.engine.engine_replay import FakeEngine, Replay

pytestmark = pytest.mark.usefixtures("no_engine_left")


def numeric_fields(cls: type) -> list[str]:
    hints = typing.get_type_hints(cls)
    return [f.name for f in fields(cls) if {int, float} & set(typing.get_args(hints[f.name]))]


@pytest.mark.parametrize("cls", [Sample, FlowSummary, RunSummary])
def test_every_figure_has_bounds(cls: type) -> None:
    assert numeric_fields(cls)
    assert set(numeric_fields(cls)) <= set(LIMITS)


@pytest.mark.parametrize(
    ("item", "what", "value"),
    [
        (Sample(0, 1, sent_bps=1e308), "throughput", "1e+308 bit/s"),
        (Sample(0, 1, sent_bps=MAX_BPS * 1.01), "throughput", "1.01e+13 bit/s"),
        (Sample(0, 1, rtt_ms=math.inf), "round-trip time", "inf ms"),
        (Sample(0, 1, jitter_ms=math.nan), "jitter", "nan ms"),
        (Sample(0, 1, retransmits=-1), "retransmit count", "-1"),
        (FlowSummary(Flow.UP, loss_pct=250.0), "loss", "250 %"),
        (FlowSummary(Flow.UP, lost_packets=12, packets=10), "loss", "12 of 10 datagrams"),
        (RunSummary(rtt_mean_ms=-0.5), "round-trip time", "-0.5 ms"),
        (RunSummary(flows=(FlowSummary(Flow.DOWN, receiver_bps=-1.0),)), "throughput", "-1 bit/s"),
    ],
)
def test_impossible_figures_are_named(item: object, what: str, value: str) -> None:
    assert impossible(item) == (what, value)  # type: ignore[arg-type]


def test_possible_figures_pass() -> None:
    assert impossible(Sample(0, 1, sent_bps=MAX_BPS, rtt_ms=1e6, jitter_ms=0.0)) is None
    assert impossible(FlowSummary(Flow.UP, loss_pct=100.0, lost_packets=5, packets=5)) is None
    # iperf3 adds up the CPU time of all its threads: above 100 % is real.
    assert impossible(RunSummary(cpu_remote_pct=103.26)) is None


@given(st.sampled_from(sorted(set(numeric_fields(Sample)) - {"start_s", "end_s"})), st.floats())
def test_any_float_is_judged_without_error(name: str, value: float) -> None:
    figure: float | int = value
    if name in ("bytes", "retransmits", "cwnd_bytes", "lost_packets", "packets"):
        if not math.isfinite(value):
            return
        figure = int(value)
    found = impossible(Sample(0, 1, **{name: figure}))  # type: ignore[arg-type]
    largest = LIMITS[name][2]
    assert (found is None) == (math.isfinite(figure) and 0 <= figure <= largest)


# -- through a run --------------------------------------------------------------------------------
def _document(end_sum: dict[str, float]) -> str:
    """A minimal iperf3 -J UDP document in 3.11+ form, with end.sum_received as given."""
    received = {"start": 0, "end": 1, "seconds": 1, "bytes": 125000, "bits_per_second": 1e6}
    received |= end_sum
    return json.dumps(
        {
            "start": {"test_start": {"protocol": "UDP", "reverse": 0}},
            "intervals": [{"sum": {"start": 0, "end": 1, "bytes": 125000, "bits_per_second": 1e6}}],
            "end": {
                "sum_sent": {"start": 0, "end": 1, "bytes": 125000, "bits_per_second": 1e6},
                "sum_received": received,
            },
        },
        indent=1,
    )


def _run(folder: Path, output: str, *, stream: bool = False) -> Tool:
    recording = folder / "recording.txt"
    recording.write_text(output)
    script = FakeEngine([Replay(recording)]).write(folder)
    caps = frozenset({Capability.JSON_STREAM}) if stream else frozenset()
    return Tool("iperf3", str(script), (3, 17), "iperf 3.17", Source.SETTINGS, caps)


@pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts")
@pytest.mark.parametrize(
    ("figures", "sentence"),
    [
        (
            {"bits_per_second": 1e308},
            "iperf3 reported an impossible throughput of 1e+308 bit/s",
        ),
        (
            {"lost_packets": 250, "packets": 100, "lost_percent": 250.0},
            "iperf3 reported an impossible loss of 250 %",
        ),
    ],
)
def test_impossible_summary_fails_the_run(
    tmp_path: Path, figures: dict[str, float], sentence: str
) -> None:
    output = _document(figures)
    tool = _run(tmp_path, output)
    run = start_iperf3(tool, Iperf3Options(host="127.0.0.1", protocol=Protocol.UDP), live=False)
    with pytest.raises(ImpossibleValue) as info:
        run.run()
    assert str(info.value).startswith(sentence + ": the run is not counted")
    assert run.result is None
    # The raw output is kept for inspection, byte for byte as the engine printed it.
    assert info.value.detail is not None
    assert info.value.detail.splitlines() == output.splitlines()


@pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts")
def test_impossible_sample_stops_the_run_before_it_is_passed_on(tmp_path: Path) -> None:
    def interval(start: int, bps: float) -> str:
        total = {"start": start, "end": start + 1, "bytes": 1, "bits_per_second": bps}
        return json.dumps({"event": "interval", "data": {"streams": [], "sum": total}})

    lines = [interval(0, 1e6), interval(1, 1e308), interval(2, 1e6)]
    tool = _run(tmp_path, "\n".join(lines) + "\n", stream=True)
    run = start_iperf3(tool, Iperf3Options(host="127.0.0.1"))
    seen: list[Sample | EngineMessage] = []
    with pytest.raises(ImpossibleValue, match="impossible throughput of 1e\\+308 bit/s"):
        for event in run.events():
            seen.append(event)
    assert [s.start_s for s in seen if isinstance(s, Sample)] == [0.0]
