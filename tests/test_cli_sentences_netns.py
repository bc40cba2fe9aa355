"""Every sentence of a real sweep, read back against the figures the command line gives for it:
TCP and UDP across network namespaces over a link held to 30 Mbit/s by tc tbf, with 10 Gbit/s
stated (much higher than the shaper) and UDP asked for 50 Mbit/s. `linklab run`'s own lines,
`sessions show --json` and the runs CSV of `export`: each finding, warning and status
sentence is parsed and recomputed from that JSON and CSV (tests/sentences.py), and the
shares below 1 % keep their decimal."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT_DIR
from tests.sentences import check_failure_lines, check_session
from tests.testbed import Bed, TestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

SHAPED_MBIT = 30
BED = Bed(rate_mbit=SHAPED_MBIT, server_port=5201)


def linklab(bed: TestBed, *args: str) -> str:
    done = subprocess.run(
        bed.linklab(bed.a, *args), cwd=ROOT_DIR, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_rate_stated_far_above_the_shaper_is_said_so_and_every_figure_agrees(
    bed: TestBed, tmp_path: Path
) -> None:
    db = str(tmp_path / "linklab.sqlite3")
    printed = linklab(
        bed,
        "run",
        "--peer", TestBed.B4,
        "--protocol", "tcp,udp",
        "--ip", "4",
        "--sizes", "128,1408",
        "--runs", "2",
        "--duration", "2",
        "--bitrate", "50M",  # UDP above the shaper (on the sender's own link: it holds back)
        "--medium", "Ethernet",
        "--link-rate", "10G",
        "--name", "shaped",
        "--db", db,
    )  # fmt: skip
    data = json.loads(linklab(bed, "sessions", "show", "shaped", "--json", "--db", db))
    runs = linklab(bed, "export", "shaped", "--format", "csv", "--out", "-", "--db", db)
    read = check_session(data, runs)
    check_failure_lines(read, printed.splitlines())
    # What was said, and that it was about the link and its rate.
    findings = data["findings"]
    assert len(findings) == 2, findings
    for sentence in findings:
        assert " reached only 0." in sentence, sentence  # below 1 %, with its decimal
        assert "the 10 Gbit/s link rate stated is probably not the path's bottleneck" in sentence
    assert any("fewer than 3 successful runs" in w for w in data["warnings"])
    # The command line's own table and sentences say the same.
    for sentence in findings:
        assert sentence in printed
    assert data["conditions"]["link_rate_detected_by"] == ""  # stated, by --link-rate
