"""Line ends: the real engine outputs (shared/engine-outputs, read in place) printed with
CR-only and CRLF line ends read exactly as with LF, through the process module and every
parser; and a failed run keeps the engine's own output beside its sentence, in every way it
can fail (no summary, no `end` event, a huge line that is not JSON, a parse error)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from app.domain.results import ParseEvent
from app.engine.drivers.iperf2.parse import parse_iperf2
from app.engine.drivers.iperf3.parse_json import parse_document, parse_stream
from app.engine.drivers.iperf3.parse_text import parse_text
from app.engine.drivers.netperf.parse import parse_keyval
from app.engine.errors import EngineError
from tests.conftest import DATA
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

GOOD = [case for case in (*JSON_CASES, *TEXT_CASES, *NETPERF_CASES) if case.error is None]
ENDS = {"cr": b"\r", "crlf": b"\r\n"}


def with_line_ends(case: Case, end: bytes, folder: Path) -> Path:
    """The recording (read in place) with every line end made `end`, written for this test."""
    data = (ENGINE_OUTPUTS / case.file).read_bytes()
    lines = re.split(rb"\r\n|\r|\n", data)
    variant = folder / f"variant-{case.file}"
    variant.write_bytes(end.join(lines))
    return variant


@pytest.mark.parametrize("end", list(ENDS))
@pytest.mark.parametrize("case", GOOD, ids=[case.file for case in GOOD])
def test_other_line_ends_read_as_lf(case: Case, end: str, tmp_path: Path) -> None:
    variant = with_line_ends(case, ENDS[end], tmp_path)
    outcome = replay(case, tmp_path / "bin", variant)
    assert outcome.error is None, f"{outcome.error!r}: {outcome.error}"
    assert outcome.result is not None
    for key, expected in case.figures.items():
        got = figure(outcome, key)
        if isinstance(expected, float):
            assert got == pytest.approx(expected, rel=1e-9), key
        else:
            assert got == expected, key
    assert "\r" not in outcome.result.raw_output


PARSERS = {
    "iperf3-3.9-linux-tcp-omit3-crlf.txt": parse_text,
    "local-iperf3-3.5-linux-udp-V.txt": parse_text,
    "local-iperf3-3.17-linux-tcp.jsonl": parse_stream,
    "iperf3-3.9-linux-tcp.json": parse_document,
    "local-netperf-2.7.0-debian12-udp_stream-no-etc-protocols.txt": parse_keyval,
}


def _events(parser: object, lines: list[str]) -> list[ParseEvent]:
    assert callable(parser)
    return list(parser(lines))


@pytest.mark.parametrize("name", list(PARSERS))
def test_every_parser_splits_a_chunk_on_cr_crlf_and_lf(name: str) -> None:
    """A parser handed text whose lines end in CR (one chunk, as a pipe may give it) reads
    the same events as from the lines split on LF."""
    text = (ENGINE_OUTPUTS / name).read_bytes().decode("utf-8")
    lines = re.split(r"\r\n|\r|\n", text)
    parser = PARSERS[name]
    expected = _events(parser, lines)
    assert _events(parser, ["\r".join(lines)]) == expected
    assert _events(parser, ["\r\n".join(lines)]) == expected


def test_iperf2_parser_splits_a_chunk_on_cr() -> None:
    path = DATA / "iperf2" / "local-iperf-2.1.8-linux-tcp-e.txt"
    lines = re.split(r"\r\n|\r|\n", path.read_text(encoding="utf-8"))
    expected = list(parse_iperf2(lines))
    assert expected
    assert list(parse_iperf2(["\r".join(lines)])) == expected


def _case(file: str) -> Case:
    return next(c for c in (*JSON_CASES, *TEXT_CASES, *NETPERF_CASES) if c.file == file)


def _lines(file: str) -> list[bytes]:
    return (ENGINE_OUTPUTS / file).read_bytes().splitlines()


def _no_summary() -> tuple[str, list[bytes]]:
    file = "local-iperf3-3.5-linux-tcp-reverse-V.txt"
    lines = _lines(file)
    return file, lines[: lines.index(b"- - - - - - - - - - - - - - - - - - - - - - - - -")]


def _no_end() -> tuple[str, list[bytes]]:
    file = "local-iperf3-3.17-linux-tcp.jsonl"
    return file, [line for line in _lines(file) if not line.startswith(b'{"event":"end"')]


def _huge_line() -> tuple[str, list[bytes]]:
    file = "local-iperf3-3.17-linux-tcp.jsonl"
    lines = _lines(file)
    return file, [lines[0], b"x" * (1024 * 1024), *lines[1:]]


def _parse_error() -> tuple[str, list[bytes]]:
    file = "local-netperf-2.7.0-debian12-udp_stream-no-etc-protocols.txt"
    return file, [line.replace(b"10^6bits/s", b"furlongs/s") for line in _lines(file)]


@pytest.mark.parametrize("end", list(ENDS))
@pytest.mark.parametrize("made", [_no_summary, _no_end, _huge_line, _parse_error])
def test_a_failed_run_keeps_the_engines_output(made: object, end: str, tmp_path: Path) -> None:
    assert callable(made)
    file, lines = made()
    variant = tmp_path / f"failing-{file}"
    variant.write_bytes(ENDS[end].join(lines) + ENDS[end])
    outcome = replay(_case(file), tmp_path / "bin", variant)
    assert isinstance(outcome.error, EngineError), outcome.result
    detail = outcome.error.detail or ""
    assert str(outcome.error) not in detail  # the engine's words, not the sentence again
    for line in lines:
        assert line.decode("utf-8").strip() in detail
    assert "\r" not in detail


ERRORS = [c for c in (*JSON_CASES, *TEXT_CASES, *NETPERF_CASES) if c.error is not None]


@pytest.mark.parametrize("case", ERRORS, ids=[case.file for case in ERRORS])
def test_every_failure_keeps_the_engines_output(case: Case, tmp_path: Path) -> None:
    outcome = replay(case, tmp_path)
    assert outcome.error is not None
    detail = outcome.error.detail or ""
    for line in _lines(case.file):
        text = line.decode("utf-8").strip()
        if text and not text.startswith(("iperf3: ", "netperf: ")):  # those go to stderr
            assert text in detail, text
