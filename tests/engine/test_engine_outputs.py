"""Real outputs of iperf3 3.0-3.21 and netperf 2.5-2.7 (Linux, Windows, macOS, OpenWrt, Android)
replayed through LinkLab's own run path, each against the figures its summary states.

The outputs live beside the repository in shared/engine-outputs, with their sources in its
MANIFEST.md; they are read in place, never copied here. Each one is printed by a stand-in
engine started through the process module, so line reading, the parser that iperf3.py or
netperf.py picks for that output mode, the bounds check and the error classifier all run.
The expected figures are in cases_iperf3_json.py, cases_iperf3_text.py and cases_netperf.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from app.domain.net import Flow
from tests.engine.cases_iperf3_json import JSON_CASES
from tests.engine.cases_iperf3_text import TEXT_CASES
from tests.engine.cases_netperf import NETPERF_CASES
from tests.engine.engine_replay import ENGINE_OUTPUTS, Case, figure, replay

pytestmark = [
    pytest.mark.skipif(
        not (ENGINE_OUTPUTS / "MANIFEST.md").is_file(),
        reason=f"the real engine outputs are not beside the repository ({ENGINE_OUTPUTS})",
    ),
    pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts"),
]

CASES = [*JSON_CASES, *TEXT_CASES, *NETPERF_CASES]


def manifest_files() -> set[str]:
    text = (ENGINE_OUTPUTS / "MANIFEST.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| ([\w.+-]+\.(?:json|jsonl|txt)) \|", text, re.MULTILINE))


def test_every_output_has_a_case() -> None:
    on_disk = {p.name for p in ENGINE_OUTPUTS.iterdir() if p.name != "MANIFEST.md"}
    assert manifest_files() == on_disk
    assert sorted(case.file for case in CASES) == sorted(on_disk)
    assert len(CASES) == 48


@pytest.mark.parametrize("case", CASES, ids=[case.file for case in CASES])
def test_engine_output(case: Case, tmp_path: Path) -> None:
    outcome = replay(case, tmp_path)
    if case.error is None:
        assert outcome.error is None, f"{outcome.error!r}: {outcome.error}"
        assert outcome.result is not None
        flows = {key.split(".")[0] for key in case.figures} & {"up", "down"}
        assert {f.flow.value for f in outcome.result.summary.flows} == flows
        assert outcome.result.raw_output.strip()
        assert outcome.result.engine_version == case.version
    else:
        assert type(outcome.error) is case.error, f"{outcome.error!r}: {outcome.error}"
        sentence = str(outcome.error)
        assert case.says in sentence
        assert sentence.endswith(".") and ":" in sentence  # what happened: what to do.
    if case.says and case.error is None:
        assert case.says in outcome.notes
    for sample in outcome.samples():
        # None of these has the server's reports: each interval is this end's own count, the
        # sender's of an upload and the receiver's of a download, never both.
        if sample.flow is Flow.UP:
            assert sample.received_bps is None, sample
        else:
            assert sample.sent_bps is None, sample
    for key, expected in case.figures.items():
        got = figure(outcome, key)
        if isinstance(expected, float):
            assert got == pytest.approx(expected, rel=1e-9), key
        else:
            assert got == expected, key
